import TributaryBase
import TributaryJSON
import TributaryOptions
import TributaryPostgres
import CSQLite
import FoundationEssentials
import Glibc
import Dispatch

/// The state in one SQLite file (WAL). One process at a time holds it: an flock on
/// `<path>.lock`, released by the kernel even on kill -9, with the holder's pid in the file.
///
/// Threading rule (why `@unchecked Sendable` is sound): the connection is opened without
/// SQLite's own mutex, and the engine calls this object from its delivery thread only
/// (`StateBackend` contract), so one thread uses it at a time.
public final class SQLiteState: StateBackend, @unchecked Sendable {
    let db: Database
    private let lockFD: Int32
    /// Copies the write-ahead log into the file beside the commits (nil for a read-only open).
    package let checkpointer: WALCheckpointer?
    public let path: String
    public var location: String { path }

    /// The schema this build writes (`SQLiteState+Schema.swift` has every step to it).
    public static let schemaVersion = 5
    /// The schema of the open file: `schemaVersion`, except for a file opened for reading only,
    /// which is never migrated.
    package let version: Int

    /// The SQLite library this process runs with, e.g. `3.40.1`.
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
        self.isReadOnly = false
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
            do { try AtomicFile.makeDirectories(String(path[..<slash])) } catch { throw StateError(error.message) }
        }
        lockFD = try Self.acquireLock(path + ".lock", timeout: lockTimeout, stopRequested: stopRequested)
        do {
            db = try Database(path: path)
            // WAL + NORMAL: a commit survives a killed process (kill -9); only an OS crash can lose
            // the last commits, and then items are emitted again (at-least-once), never lost.
            // Reads go through the mmap; the page cache holds what a transaction writes. 4 MiB:
            // at 32 MiB it kept every page a run had ever written (12 MB of a 10,000-source
            // `watch`), at no gain in the state benchmark (Docs/PERFORMANCE.md, "watch at scale").
            try db.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA cache_size=-4096; PRAGMA mmap_size=268435456; PRAGMA temp_store=MEMORY;")
            try Self.migrate(db, path: path)
            version = Self.schemaVersion
            checkpointer = try WALCheckpointer(path: path)
        } catch {
            Glibc.close(lockFD)
            throw error
        }
        checkpointer?.attach(to: db)
    }

    /// Opened by `readOnly(path:)`: nothing is written (see there).
    public let isReadOnly: Bool

    /// Opens an existing state file for a dry run: read as it is, without the run lock, and
    /// nothing is written to it or beside it. Its transactions keep what a batch would record in
    /// memory (`DryRunTransaction`), so a dry run decides what is new exactly as a run would;
    /// `touchConfigured` and `prune` do nothing. Nil when there is no file at `path` (a dry run
    /// without state: every item is new).
    public static func readOnly(path: String) throws(StateError) -> SQLiteState? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let db = try Database(readOnlyAt: path)
        let version: Int
        do throws(StateError) { version = try Self.userVersion(db) } catch {
            db.close()
            throw error
        }
        if version > Self.schemaVersion {
            db.close()
            throw StateError("the state file \(path) was written by a newer tributary (schema \(version), this one knows \(Self.schemaVersion))")
        }
        // A file without our tables (never written by a run) reads as empty.
        guard version > 0 else {
            db.close()
            return nil
        }
        return SQLiteState(path: path, db: db, version: version)
    }

    /// The file is never migrated here: an older schema reads with what it has (the totals it
    /// lacks read as 0), which also makes it what `status` uses beside a running `watch`.
    private init(path: String, db: Database, version: Int) {
        self.path = path
        self.db = db
        self.lockFD = -1
        self.checkpointer = nil
        self.isReadOnly = true
        self.version = version
    }

    /// What a dry run's transactions record, for the rest of the run.
    let dryRun = DryRunOverlay()

    private var closed = false

    deinit { close() }

    public func close() {
        guard !closed else { return }
        closed = true
        checkpointer?.stop(detachingFrom: db)
        db.close()
        guard lockFD >= 0 else { return }
        flock(lockFD, LOCK_UN)
        Glibc.close(lockFD)
    }

    private static func acquireLock(_ lockPath: String, timeout: Double, stopRequested: () -> Bool) throws(StateError) -> Int32 {
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw StateError("cannot open the state lock \(lockPath): \(String(cString: strerror(errno)))") }
        let deadline = Date().addingTimeInterval(timeout)
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            if stopRequested() {
                Glibc.close(fd)
                throw StateError("stopped while waiting for the state file \(lockPath.dropLast(5)), which another tributary run holds", interrupted: true)
            }
            if Date() >= deadline {
                var buf = [UInt8](repeating: 0, count: 32)
                let n = pread(fd, &buf, 31, 0)
                let holder = n > 0 ? String(decoding: buf[0..<n], as: UTF8.self).trimmingWhitespaceAndNewlines : "unknown"
                Glibc.close(fd)
                throw StateError("the state file \(lockPath.dropLast(5)) is in use by another tributary run (pid \(holder)); gave up after \(Durations.format(timeout)) (state.lock_timeout)")
            }
            usleep(50_000)
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        return fd
    }

    public func begin() throws(StateError) -> any StateTransaction {
        if isReadOnly { return DryRunTransaction(db: db, overlay: dryRun, keyedByHash: version >= 3, hasValues: version >= 4) }
        try db.exec("BEGIN IMMEDIATE")
        return SQLiteTransaction(db: db)
    }

    public func sourceStates(_ names: [String]) throws(StateError) -> [String: SourceState] {
        // A schema-1 file (read by `status` without migrating it) has no totals yet.
        let totals = version >= 2 ? "fetched_total, emitted_total, failures_total, last_new, first_run, last_duration" : "0, 0, 0, NULL, NULL, NULL"
        let s = try db.statement("SELECT last_run, last_success, failures, next_due, last_error, type, \(totals) FROM sources WHERE name = ?")
        var out: [String: SourceState] = [:]
        for name in names {
            sqlite3_reset(s.stmt)
            s.bind(1, name)
            if try s.step() {
                out[name] = SourceState(lastRun: s.double(0), lastSuccess: s.double(1), failures: s.int(2) ?? 0, nextDue: s.double(3), lastError: s.string(4),
                                        type: s.string(5), fetchedTotal: s.int(6) ?? 0, emittedTotal: s.int(7) ?? 0, failuresTotal: s.int(8) ?? 0,
                                        lastNew: s.double(9), firstRecorded: s.double(10), lastDuration: s.double(11))
            }
        }
        sqlite3_reset(s.stmt)
        return out
    }

    public func counters() throws(StateError) -> [StateCounter] {
        guard version >= 2 else { return [] }
        let s = try db.statement("SELECT name, label, value FROM counters ORDER BY name, label")
        var out: [StateCounter] = []
        while try s.step() {
            if let n = s.string(0).flatMap(StateCounter.Name.init(rawValue:)), let label = s.string(1) { out.append(StateCounter(n, label, s.int(2) ?? 0)) }
        }
        sqlite3_reset(s.stmt)
        return out
    }

    public func newPerDay(_ names: [String], since day: Int) throws(StateError) -> [String: [Int: Int]] {
        guard version >= 5, !names.isEmpty else { return [:] }
        let s = try db.statement("SELECT day, new FROM source_days WHERE source = ? AND day >= ?")
        var out: [String: [Int: Int]] = [:]
        for name in names {
            sqlite3_reset(s.stmt)
            s.bind(1, name).bind(2, day)
            while try s.step() {
                if let d = s.int(0) { out[name, default: [:]][d] = s.int(1) ?? 0 }
            }
        }
        sqlite3_reset(s.stmt)
        return out
    }

    public func validators(scope: String) throws(StateError) -> [String: HTTPValidators] {
        // Keys are "<scope> <METHOD> <url>": a range scan on the primary key.
        let s = try db.statement("SELECT url, etag, last_modified FROM validators WHERE url >= ?1 AND url < ?2")
        s.bind(1, scope + " ").bind(2, scope + "!")
        var out: [String: HTTPValidators] = [:]
        while try s.step() {
            if let key = s.string(0) { out[key] = HTTPValidators(etag: s.string(1), lastModified: s.string(2)) }
        }
        sqlite3_reset(s.stmt)
        return out
    }

    public func cachedBody(_ key: String) throws(StateError) -> [UInt8]? {
        let s = try db.statement("SELECT body FROM validators WHERE url = ?")
        s.bind(1, key)
        defer { sqlite3_reset(s.stmt) }
        return try s.step() ? s.blob(0) ?? [] : nil
    }

    public func values(namespace: String, keys: [String]) throws(StateError) -> [String: [UInt8]] {
        guard version >= 4, !keys.isEmpty else { return [:] }
        return try SQLiteTransaction.values(namespace: namespace, keys: keys, in: db)
    }

    public func window(sink: String) throws(StateError) -> [[UInt8]] {
        let s = try db.statement("SELECT line FROM recent_items WHERE sink = ? ORDER BY sort_time DESC")
        s.bind(1, sink)
        var out: [[UInt8]] = []
        while try s.step() { if let b = s.blob(0) { out.append(b) } }
        sqlite3_reset(s.stmt)
        return out
    }

    public func quotaUsed(source: String, per: Double, now: Double) throws(StateError) -> (used: Int, resets: Double) {
        let s = try db.statement("SELECT window_start, requests FROM quotas WHERE source = ?")
        s.bind(1, source)
        defer { sqlite3_reset(s.stmt) }
        guard try s.step(), let start = s.double(0), now < start + per else { return (0, now + per) }
        return (s.int(1) ?? 0, start + per)
    }

    public func touchConfigured(_ names: [String], now: Double) throws(StateError) {
        if isReadOnly { return }
        try db.transaction { () throws(StateError) in
            let s = try db.statement("UPDATE sources SET in_config = ? WHERE name = ?")
            for n in names { s.bind(1, now).bind(2, n); try s.run() }
        }
    }

    @discardableResult
    public func prune(retention: Double, now: Double) throws(StateError) -> Int {
        if isReadOnly { return 0 }
        return try db.transaction { () throws(StateError) -> Int in
            let cutoff = now - retention
            var removed = 0
            for sql in ["DELETE FROM emitted WHERE last_seen < ?", "DELETE FROM validators WHERE updated < ?",
                        "DELETE FROM sources WHERE in_config < ?", "DELETE FROM kv WHERE updated < ?",
                        "DELETE FROM quotas WHERE source NOT IN (SELECT name FROM sources) AND window_start < ?"] {
                let s = try db.statement(sql)
                s.bind(1, cutoff)
                try s.run()
                removed += db.changes
            }
            let days = try db.statement("DELETE FROM source_days WHERE day < ?")
            days.bind(1, NewPerDay.day(now) - NewPerDay.keptDays)
            try days.run()
            return removed + db.changes
        }
    }
}

/// Leases: the file lock already keeps every other process out, so this process holds every
/// source; claiming is reading which candidates are due.
extension SQLiteState {
    public func claimDue(_ candidates: [SourceKey], worker: String, lease: Double, limit: Int, now: Double) throws(StateError) -> DueClaim {
        guard !candidates.isEmpty else { return DueClaim(claimed: [], nextCheck: nil) }
        // A lookup per candidate (a look offers a few times its free slots, not every source),
        // in one read transaction: the file's read lock is taken once, not once per lookup.
        let s = try db.statement("SELECT last_run, last_success, failures, next_due, last_error FROM sources WHERE name = ?")
        var due: [(name: String, state: SourceState)] = []
        var later: [(name: String, at: Double)] = []
        try db.transaction(immediate: false) { () throws(StateError) in
            // Reset before the transaction ends: a statement left mid-step holds its read.
            defer { sqlite3_reset(s.stmt) }
            for c in candidates {
                sqlite3_reset(s.stmt)
                s.bind(1, c.name)
                let state = try s.step() ? SourceState(lastRun: s.double(0), lastSuccess: s.double(1), failures: s.int(2) ?? 0, nextDue: s.double(3), lastError: s.string(4)) : SourceState()
                if let next = state.nextDue, next > now { later.append((c.name, next)) } else { due.append((c.name, state)) }
            }
        }
        due.sort { ($0.state.nextDue ?? -Double.infinity) < ($1.state.nextDue ?? -Double.infinity) }
        return DueClaim(claimed: Array(due.prefix(max(0, limit))), nextCheck: later.map(\.at).min(), later: later)
    }

    public func lease(_ sources: [SourceKey], worker: String, lease: Double) throws(StateError) -> [String: String] { [:] }

    public func renewLeases(_ sources: [String], worker: String, lease: Double) throws(StateError) -> [String: String] { [:] }
}

/// One batch in one SQLite transaction (`BEGIN IMMEDIATE` ... `COMMIT`).
final class SQLiteTransaction: StateTransaction {
    let db: Database
    private var open = true

    init(db: Database) { self.db = db }

    deinit { if open { rollback() } }

    func claim(_ ids: [EmittedID], now: Double) throws(StateError) -> [KnownID?] {
        let keys = ids.map { StateKeys.idHash($0.id) }
        let known = try Self.lookUp(ids, keys: keys, in: db)
        // `last_seen` (what retention goes by) is refreshed at most once a day per id, so a feed
        // polled every few minutes does not rewrite its rows and their index each run.
        let up = try db.statement("""
            INSERT INTO emitted(id_hash, id, source, first_seen, last_seen, hash) VALUES(?, ?, ?, ?, ?, ?)
            ON CONFLICT(id_hash) DO UPDATE SET last_seen = excluded.last_seen,
                hash = CASE WHEN emitted.source = excluded.source THEN excluded.hash ELSE emitted.hash END
            WHERE (emitted.source = excluded.source AND emitted.hash != excluded.hash) OR emitted.last_seen < excluded.last_seen - 86400
            """)
        for (e, key) in zip(ids, keys) {
            up.bind(1, blob: key).bind(2, e.id).bind(3, e.source).bind(4, now).bind(5, now).bind(6, e.hash)
            try up.run()
        }
        return known
    }

    /// What the state knows of each id (nil: never emitted), by its key (`keys[i]`,
    /// `StateKeys.idHash`), or by the id itself in a file from before schema 3 (`keys` nil: a
    /// dry run reads an older file without migrating it).
    static func lookUp(_ ids: [EmittedID], keys: [[UInt8]]?, in db: Database) throws(StateError) -> [KnownID?] {
        let look = try db.statement(keys == nil ? "SELECT source, hash FROM emitted WHERE id = ?" : "SELECT source, hash FROM emitted WHERE id_hash = ?")
        var known: [KnownID?] = []
        known.reserveCapacity(ids.count)
        for (i, e) in ids.enumerated() {
            sqlite3_reset(look.stmt)
            if let keys { look.bind(1, blob: keys[i]) } else { look.bind(1, e.id) }
            if try look.step(), let source = look.string(0), let hash = look.string(1) {
                known.append(KnownID(source: source, hash: hash))
            } else {
                known.append(nil)
            }
        }
        sqlite3_reset(look.stmt)
        return known
    }

    func storeValidators(_ validators: [(key: String, response: CachedResponse)], now: Double) throws(StateError) {
        guard !validators.isEmpty else { return }
        let v = try db.statement("INSERT OR REPLACE INTO validators(url, etag, last_modified, body, updated) VALUES(?, ?, ?, ?, ?)")
        for (key, r) in validators {
            v.bind(1, key).bind(2, r.etag).bind(3, r.lastModified).bind(4, blob: r.body).bind(5, now)
            try v.run()
        }
    }

    func replaceWindow(sink: String, items: [WindowItem]) throws(StateError) {
        let d = try db.statement("DELETE FROM recent_items WHERE sink = ?")
        d.bind(1, sink)
        try d.run()
        let ins = try db.statement("INSERT OR REPLACE INTO recent_items(sink, id, sort_time, line) VALUES(?, ?, ?, ?)")
        for i in items {
            ins.bind(1, sink).bind(2, i.id).bind(3, i.sortTime).bind(4, blob: i.line)
            try ins.run()
        }
    }

    func recordRun(_ run: RunRecord) throws(StateError) {
        let s = try db.statement("""
            INSERT INTO sources(name, type, last_run, last_success, failures, next_due, last_error, in_config, failures_total, first_run, last_duration)
            VALUES(?1, ?2, ?3, CASE WHEN ?4 THEN ?3 END, CASE WHEN ?4 THEN 0 ELSE 1 END, ?5, ?6, ?3, CASE WHEN ?4 THEN 0 ELSE 1 END, ?3, ?7)
            ON CONFLICT(name) DO UPDATE SET type = ?2, last_run = ?3,
                last_success = CASE WHEN ?4 THEN ?3 ELSE last_success END,
                failures = CASE WHEN ?4 THEN 0 ELSE failures + 1 END,
                next_due = ?5, last_error = ?6, in_config = ?3,
                failures_total = failures_total + CASE WHEN ?4 THEN 0 ELSE 1 END,
                first_run = COALESCE(first_run, ?3), last_duration = ?7
            """)
        s.bind(1, run.source).bind(2, run.type).bind(3, run.now).bind(4, run.success ? 1 : 0).bind(5, run.nextDue).bind(6, run.error).bind(7, run.seconds)
        try s.run()
        if let per = run.quotaPer, run.requests > 0 {
            let q = try db.statement("""
                INSERT INTO quotas(source, window_start, requests) VALUES(?1, ?2, ?3)
                ON CONFLICT(source) DO UPDATE SET
                    requests = CASE WHEN ?2 >= window_start + ?4 THEN ?3 ELSE requests + ?3 END,
                    window_start = CASE WHEN ?2 >= window_start + ?4 THEN ?2 ELSE window_start END
                """)
            q.bind(1, run.source).bind(2, run.now).bind(3, run.requests).bind(4, per)
            try q.run()
        }
    }

    func addSourceCounts(_ c: SourceCounts) throws(StateError) {
        let s = try db.statement("""
            INSERT INTO sources(name, type, failures, in_config, fetched_total, emitted_total, last_new, first_run)
            VALUES(?1, ?2, 0, ?3, ?4, ?5, CASE WHEN ?5 > 0 THEN ?3 END, ?3)
            ON CONFLICT(name) DO UPDATE SET fetched_total = fetched_total + ?4, emitted_total = emitted_total + ?5,
                last_new = CASE WHEN ?5 > 0 THEN ?3 ELSE last_new END, first_run = COALESCE(first_run, ?3)
            """)
        s.bind(1, c.source).bind(2, c.type).bind(3, c.now).bind(4, c.fetched).bind(5, c.new)
        try s.run()
        guard c.new > 0 else { return }
        let d = try db.statement("INSERT INTO source_days(source, day, new) VALUES(?1, ?2, ?3) ON CONFLICT(source, day) DO UPDATE SET new = new + ?3")
        d.bind(1, c.source).bind(2, NewPerDay.day(c.now)).bind(3, c.new)
        try d.run()
    }

    func addCounters(_ deltas: [StateCounter]) throws(StateError) {
        guard !deltas.isEmpty else { return }
        let s = try db.statement("INSERT INTO counters(name, label, value) VALUES(?, ?, ?) ON CONFLICT(name, label) DO UPDATE SET value = value + excluded.value")
        for d in deltas where d.value != 0 {
            s.bind(1, d.name.rawValue).bind(2, d.label).bind(3, d.value)
            try s.run()
        }
    }

    func setNextDue(source: String, type: String, due: Double, now: Double) throws(StateError) {
        let s = try db.statement("""
            INSERT INTO sources(name, type, failures, next_due, in_config) VALUES(?1, ?2, 0, ?3, ?4)
            ON CONFLICT(name) DO UPDATE SET next_due = ?3, in_config = ?4
            """)
        s.bind(1, source).bind(2, type).bind(3, due).bind(4, now)
        try s.run()
    }

    func releaseLease(source: String, worker: String) throws(StateError) {}

    /// The values under `keys` of `namespace`, by key.
    static func values(namespace: String, keys: [String], in db: Database) throws(StateError) -> [String: [UInt8]] {
        let s = try db.statement("SELECT value FROM kv WHERE ns = ? AND key_hash = ?")
        var out: [String: [UInt8]] = [:]
        for key in keys {
            sqlite3_reset(s.stmt)
            s.bind(1, namespace).bind(2, blob: StateKeys.valueKey(key))
            if try s.step(), let v = s.blob(0) { out[key] = v }
        }
        sqlite3_reset(s.stmt)
        return out
    }

    func putValues(namespace: String, _ values: [(key: String, value: [UInt8])], now: Double) throws(StateError) {
        guard !values.isEmpty else { return }
        let s = try db.statement("INSERT OR REPLACE INTO kv(ns, key_hash, value, updated) VALUES(?, ?, ?, ?)")
        for (key, value) in values {
            s.bind(1, namespace).bind(2, blob: StateKeys.valueKey(key)).bind(3, blob: value).bind(4, now)
            try s.run()
        }
    }

    func values(namespace: String, keys: [String]) throws(StateError) -> [String: [UInt8]] {
        try Self.values(namespace: namespace, keys: keys, in: db)
    }

    func claimValues(namespace: String, _ values: [(key: String, value: [UInt8])], now: Double) throws(StateError) -> [[UInt8]?] {
        // The transaction holds the file's write lock (BEGIN IMMEDIATE): nobody else can insert between.
        let existing = try Self.values(namespace: namespace, keys: values.map(\.key), in: db)
        let ins = try db.statement("INSERT OR IGNORE INTO kv(ns, key_hash, value, updated) VALUES(?, ?, ?, ?)")
        var out: [[UInt8]?] = []
        var claimedHere: [String: [UInt8]] = [:]
        for (key, value) in values {
            if let v = existing[key] ?? claimedHere[key] { out.append(v); continue }
            ins.bind(1, namespace).bind(2, blob: StateKeys.valueKey(key)).bind(3, blob: value).bind(4, now)
            try ins.run()
            claimedHere[key] = value
            out.append(nil)
        }
        return out
    }

    func commit() throws(StateError) {
        guard open else { return }
        open = false
        do { try db.exec("COMMIT") } catch {
            try? db.exec("ROLLBACK")
            throw error
        }
    }

    func rollback() {
        guard open else { return }
        open = false
        try? db.exec("ROLLBACK")
    }
}
