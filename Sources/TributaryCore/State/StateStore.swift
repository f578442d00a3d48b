import CSQLite
import Foundation
import Synchronization

/// What the state store remembers about one source.
public struct SourceState: Sendable, Equatable {
    public var lastRun: Double?
    public var lastSuccess: Double?
    public var failures: Int
    public var nextDue: Double?
    public var lastError: String?
}

/// A response kept with its validators, for conditional GET.
public struct CachedResponse: Sendable, Equatable {
    public var etag: String?
    public var lastModified: String?
    public var body: [UInt8]
    public init(etag: String?, lastModified: String?, body: [UInt8]) {
        self.etag = etag
        self.lastModified = lastModified
        self.body = body
    }
}

/// One emitted (or remembered) item id with the hash of its content.
public struct EmittedID: Sendable {
    public var id: String
    public var source: String
    public var hash: String
    public init(id: String, source: String, hash: String) {
        self.id = id
        self.source = source
        self.hash = hash
    }
}

/// The embedded SQLite state (SPEC.md section 7): emitted ids (global across sources), HTTP
/// validators, the rss sink's window, per-source run history and request quotas. One process at
/// a time holds it (an flock on `<path>.lock`, released by the kernel even on kill -9); within
/// the process every call is serialised by `lock`, so it can be shared by concurrent sources.
public final class StateStore: @unchecked Sendable {
    // Threading rule: `db` is only touched inside `lock`.
    private let db: Database
    private let lock = NSLock()
    private let lockFD: Int32
    public let path: String

    public static let schemaVersion = 1

    /// The version of the SQLite library the process runs with (`sqlite3_libversion()`),
    /// e.g. `3.40.1`.
    public static var sqliteVersion: String { String(cString: sqlite3_libversion()) }

    /// `$XDG_STATE_HOME/tributary/state.sqlite`, else `~/.local/state/tributary/state.sqlite`.
    public static func defaultPath() -> String {
        if let x = Environment.get("XDG_STATE_HOME"), !x.isEmpty { return x + "/tributary/state.sqlite" }
        return (Environment.get("HOME") ?? ".") + "/.local/state/tributary/state.sqlite"
    }

    /// Opens (creating and migrating) the database, first taking the run lock: waits up to
    /// `lockTimeout` seconds for another run to finish, then fails naming the holder's pid.
    /// `stopRequested` is asked while waiting: a SIGINT/SIGTERM ends the wait at once (the
    /// error's `interrupted` is set) instead of after the timeout, which systemd would not wait for.
    public init(path: String, lockTimeout: Double, stopRequested: @Sendable () -> Bool = { false }) throws(StateError) {
        self.path = path
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
            do { try AtomicFile.makeDirectories(String(path[..<slash])) } catch { throw StateError(error.message) }
        }
        lockFD = try Self.acquireLock(path + ".lock", timeout: lockTimeout, stopRequested: stopRequested)
        do {
            db = try Database(path: path)
            // WAL + NORMAL: a commit survives a killed process (kill -9); only an OS crash can lose
            // the last commits, and then items are emitted again (at-least-once), never lost.
            try db.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA cache_size=-32768; PRAGMA mmap_size=268435456; PRAGMA temp_store=MEMORY;")
            try migrate()
        } catch {
            close(lockFD)
            throw error
        }
    }

    deinit {
        flock(lockFD, LOCK_UN)
        close(lockFD)
    }

    private static func acquireLock(_ lockPath: String, timeout: Double, stopRequested: () -> Bool) throws(StateError) -> Int32 {
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw StateError("cannot open the state lock \(lockPath): \(String(cString: strerror(errno)))") }
        let deadline = Date().addingTimeInterval(timeout)
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            if stopRequested() {
                close(fd)
                throw StateError("stopped while waiting for the state file \(lockPath.dropLast(5)), which another tributary run holds", interrupted: true)
            }
            if Date() >= deadline {
                var buf = [UInt8](repeating: 0, count: 32)
                let n = pread(fd, &buf, 31, 0)
                let holder = n > 0 ? String(decoding: buf[0..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) : "unknown"
                close(fd)
                throw StateError("the state file \(lockPath.dropLast(5)) is in use by another tributary run (pid \(holder)); gave up after \(Durations.format(timeout)) (state.lock_timeout)")
            }
            usleep(50_000)
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        return fd
    }

    private func migrate() throws(StateError) {
        let version = try scalarInt("PRAGMA user_version") ?? 0
        if version > Self.schemaVersion {
            throw StateError("the state file \(path) was written by a newer tributary (schema \(version), this one knows \(Self.schemaVersion))")
        }
        if version < 1 {
            try db.transaction { () throws(StateError) in
                try db.exec("""
                CREATE TABLE IF NOT EXISTS emitted(id TEXT PRIMARY KEY, source TEXT NOT NULL, first_seen REAL NOT NULL, last_seen REAL NOT NULL, hash TEXT NOT NULL) WITHOUT ROWID;
                CREATE INDEX IF NOT EXISTS emitted_last_seen ON emitted(last_seen);
                CREATE TABLE IF NOT EXISTS validators(url TEXT PRIMARY KEY, etag TEXT, last_modified TEXT, body BLOB NOT NULL, updated REAL NOT NULL) WITHOUT ROWID;
                CREATE TABLE IF NOT EXISTS recent_items(sink TEXT NOT NULL, id TEXT NOT NULL, sort_time REAL NOT NULL, line BLOB NOT NULL, PRIMARY KEY(sink, id)) WITHOUT ROWID;
                CREATE TABLE IF NOT EXISTS sources(name TEXT PRIMARY KEY, type TEXT NOT NULL, last_run REAL, last_success REAL, failures INTEGER NOT NULL DEFAULT 0, next_due REAL, last_error TEXT, in_config REAL NOT NULL);
                CREATE TABLE IF NOT EXISTS quotas(source TEXT PRIMARY KEY, window_start REAL NOT NULL, requests INTEGER NOT NULL);
                PRAGMA user_version = 1;
                """)
            }
        }
    }

    private func scalarInt(_ sql: String) throws(StateError) -> Int? {
        let s = try db.statement(sql)
        defer { sqlite3_reset(s.stmt) }
        return try s.step() ? s.int(0) : nil
    }

    private func locked<T>(_ body: () throws(StateError) -> T) throws(StateError) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    // MARK: emitted ids

    /// The stored content hash of each id already known (emitted or remembered).
    public func knownHashes(_ ids: [String]) throws(StateError) -> [String: String] {
        try known(ids).mapValues(\.hash)
    }

    /// For each id already known: the source that first emitted it and its content hash then.
    public func known(_ ids: [String]) throws(StateError) -> [String: (source: String, hash: String)] {
        try locked { () throws(StateError) in
            let s = try db.statement("SELECT source, hash FROM emitted WHERE id = ?")
            var out: [String: (source: String, hash: String)] = [:]
            for id in ids {
                sqlite3_reset(s.stmt)
                s.bind(1, id)
                if try s.step(), let src = s.string(0), let h = s.string(1) { out[id] = (src, h) }
            }
            sqlite3_reset(s.stmt)
            return out
        }
    }

    /// Sets when a source is next due without recording a run (a quota skip in `watch`).
    public func setNextDue(source: String, type: String, due: Double, now: Double) throws(StateError) {
        try locked { () throws(StateError) in
            let s = try db.statement("""
                INSERT INTO sources(name, type, failures, next_due, in_config) VALUES(?1, ?2, 0, ?3, ?4)
                ON CONFLICT(name) DO UPDATE SET next_due = ?3, in_config = ?4
                """)
            s.bind(1, source).bind(2, type).bind(3, due).bind(4, now)
            try s.run()
        }
    }

    public var emittedCount: Int {
        (try? locked { () throws(StateError) in try scalarInt("SELECT count(*) FROM emitted") ?? 0 }) ?? 0
    }

    /// After a source's items were durably written: remembers them (and the ones deliberately
    /// not emitted), refreshes `last_seen` of everything fetched, stores the response validators
    /// and the source's run record, all in one transaction.
    public func commit(source: String, type: String, remember: [EmittedID], validators: [(key: String, response: CachedResponse)], now: Double) throws(StateError) {
        try locked { () throws(StateError) in
            try db.transaction { () throws(StateError) in
                // `last_seen` (what retention goes by) is refreshed at most once a day per id, so a
                // feed polled every few minutes does not rewrite its rows and their index each run.
                let up = try db.statement("""
                    INSERT INTO emitted(id, source, first_seen, last_seen, hash) VALUES(?, ?, ?, ?, ?)
                    ON CONFLICT(id) DO UPDATE SET last_seen = excluded.last_seen,
                        hash = CASE WHEN emitted.source = excluded.source THEN excluded.hash ELSE emitted.hash END
                    WHERE (emitted.source = excluded.source AND emitted.hash != excluded.hash) OR emitted.last_seen < excluded.last_seen - 86400
                    """)
                for e in remember {
                    up.bind(1, e.id).bind(2, e.source).bind(3, now).bind(4, now).bind(5, e.hash)
                    try up.run()
                }
                let v = try db.statement("INSERT OR REPLACE INTO validators(url, etag, last_modified, body, updated) VALUES(?, ?, ?, ?, ?)")
                for (key, r) in validators {
                    v.bind(1, key).bind(2, r.etag).bind(3, r.lastModified).bind(4, blob: r.body).bind(5, now)
                    try v.run()
                }
            }
        }
    }

    // MARK: validators

    public func cachedResponse(_ key: String) -> CachedResponse? {
        try? locked { () throws(StateError) -> CachedResponse? in
            let s = try db.statement("SELECT etag, last_modified, body FROM validators WHERE url = ?")
            s.bind(1, key)
            defer { sqlite3_reset(s.stmt) }
            guard try s.step() else { return nil }
            return CachedResponse(etag: s.string(0), lastModified: s.string(1), body: s.blob(2) ?? [])
        }
    }

    // MARK: sources

    public func sourceState(_ name: String) throws(StateError) -> SourceState? {
        try locked { () throws(StateError) -> SourceState? in
            let s = try db.statement("SELECT last_run, last_success, failures, next_due, last_error FROM sources WHERE name = ?")
            s.bind(1, name)
            defer { sqlite3_reset(s.stmt) }
            guard try s.step() else { return nil }
            return SourceState(lastRun: s.double(0), lastSuccess: s.double(1), failures: s.int(2) ?? 0, nextDue: s.double(3), lastError: s.string(4))
        }
    }

    /// Records a finished run of a source: success resets the failure count, a failure raises it.
    public func recordRun(source: String, type: String, success: Bool, error: String?, nextDue: Double, now: Double) throws(StateError) {
        try locked { () throws(StateError) in
            let s = try db.statement("""
                INSERT INTO sources(name, type, last_run, last_success, failures, next_due, last_error, in_config)
                VALUES(?1, ?2, ?3, CASE WHEN ?4 THEN ?3 END, CASE WHEN ?4 THEN 0 ELSE 1 END, ?5, ?6, ?3)
                ON CONFLICT(name) DO UPDATE SET type = ?2, last_run = ?3,
                    last_success = CASE WHEN ?4 THEN ?3 ELSE last_success END,
                    failures = CASE WHEN ?4 THEN 0 ELSE failures + 1 END,
                    next_due = ?5, last_error = ?6, in_config = ?3
                """)
            s.bind(1, source).bind(2, type).bind(3, now).bind(4, success ? 1 : 0).bind(5, nextDue).bind(6, error)
            try s.run()
        }
    }

    /// Marks the sources still in the config (their rows survive retention).
    public func touchConfigured(_ names: [String], now: Double) throws(StateError) {
        try locked { () throws(StateError) in
            try db.transaction { () throws(StateError) in
                let s = try db.statement("UPDATE sources SET in_config = ? WHERE name = ?")
                for n in names { s.bind(1, now).bind(2, n); try s.run() }
            }
        }
    }

    // MARK: quotas

    /// Requests used in the current window of `per` seconds (0 when the window has passed).
    public func quotaUsed(source: String, per: Double, now: Double) throws(StateError) -> (used: Int, resets: Double) {
        try locked { () throws(StateError) in
            let s = try db.statement("SELECT window_start, requests FROM quotas WHERE source = ?")
            s.bind(1, source)
            defer { sqlite3_reset(s.stmt) }
            guard try s.step(), let start = s.double(0), now < start + per else { return (0, now + per) }
            return (s.int(1) ?? 0, start + per)
        }
    }

    public func addRequests(source: String, count: Int, per: Double, now: Double) throws(StateError) {
        guard count > 0 else { return }
        try locked { () throws(StateError) in
            let s = try db.statement("""
                INSERT INTO quotas(source, window_start, requests) VALUES(?1, ?2, ?3)
                ON CONFLICT(source) DO UPDATE SET
                    requests = CASE WHEN ?2 >= window_start + ?4 THEN ?3 ELSE requests + ?3 END,
                    window_start = CASE WHEN ?2 >= window_start + ?4 THEN ?2 ELSE window_start END
                """)
            s.bind(1, source).bind(2, now).bind(3, count).bind(4, per)
            try s.run()
        }
    }

    // MARK: the rss window

    /// The JSON lines of a sink's remembered items, newest first.
    public func window(sink: String) throws(StateError) -> [[UInt8]] {
        try locked { () throws(StateError) in
            let s = try db.statement("SELECT line FROM recent_items WHERE sink = ? ORDER BY sort_time DESC")
            s.bind(1, sink)
            var out: [[UInt8]] = []
            while try s.step() { if let b = s.blob(0) { out.append(b) } }
            sqlite3_reset(s.stmt)
            return out
        }
    }

    public func replaceWindow(sink: String, items: [(id: String, sortTime: Double, line: [UInt8])]) throws(StateError) {
        try locked { () throws(StateError) in
            try db.transaction { () throws(StateError) in
                let d = try db.statement("DELETE FROM recent_items WHERE sink = ?")
                d.bind(1, sink)
                try d.run()
                let ins = try db.statement("INSERT OR REPLACE INTO recent_items(sink, id, sort_time, line) VALUES(?, ?, ?, ?)")
                for i in items {
                    ins.bind(1, sink).bind(2, i.id).bind(3, i.sortTime).bind(4, blob: i.line)
                    try ins.run()
                }
            }
        }
    }

    // MARK: retention

    /// Forgets ids not seen for `retention` seconds, old validators, and the
    /// records of sources that left the config more than `retention` ago. Returns rows removed.
    @discardableResult
    public func prune(retention: Double, now: Double) throws(StateError) -> Int {
        try locked { () throws(StateError) in
            try db.transaction { () throws(StateError) -> Int in
                let cutoff = now - retention
                var removed = 0
                for sql in ["DELETE FROM emitted WHERE last_seen < ?", "DELETE FROM validators WHERE updated < ?",
                            "DELETE FROM sources WHERE in_config < ?",
                            "DELETE FROM quotas WHERE source NOT IN (SELECT name FROM sources) AND window_start < ?"] {
                    let s = try db.statement(sql)
                    s.bind(1, cutoff)
                    try s.run()
                    removed += db.changes
                }
                return removed
            }
        }
    }

    /// Remembers ids in bulk (used by the benchmark to build a large state).
    public func bulkRemember(_ ids: [EmittedID], lastSeen: Double) throws(StateError) {
        try locked { () throws(StateError) in
            try db.transaction { () throws(StateError) in
                let s = try db.statement("INSERT OR IGNORE INTO emitted(id, source, first_seen, last_seen, hash) VALUES(?, ?, ?, ?, ?)")
                for e in ids {
                    s.bind(1, e.id).bind(2, e.source).bind(3, lastSeen).bind(4, lastSeen).bind(5, e.hash)
                    try s.run()
                }
            }
        }
    }
}
