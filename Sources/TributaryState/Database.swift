import TributaryBase
import TributaryJSON
import TributaryOptions
import TributaryPostgres
import CSQLite
#if canImport(Glibc)
import Glibc
#endif

/// A failed state call, with the database's own message.
public struct StateError: Error, CustomStringConvertible, Sendable {
    public let message: String
    /// A signal ended a wait (for the run lock): not a broken state file.
    public let interrupted: Bool
    /// The state could not be reached for now (a shared database's connection was lost or its
    /// server is restarting): the same call may succeed later, so `watch` retries instead of
    /// stopping. Never set by `SQLiteState`.
    public let transient: Bool
    public init(_ message: String, interrupted: Bool = false, transient: Bool = false) {
        self.message = message
        self.interrupted = interrupted
        self.transient = transient
    }
    public var description: String { message }
}

/// A thin SQLite connection: prepared statements, typed binds, transactions. Not thread-safe
/// by itself; `StateStore` serialises every use behind its lock.
final class Database {
    let handle: OpaquePointer
    let path: String
    private var cache: [String: OpaquePointer] = [:]

    convenience init(path: String) throws(StateError) {
        try self.init(path: path, name: path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX)
    }

    /// Opens an existing database for reading only, creating and changing no file: `immutable`
    /// when no write-ahead log is beside it (nothing but the file itself is read; no lock or
    /// shared-memory file is made), otherwise `mode=ro`, which reads the log's commits too (its
    /// shared-memory file exists already: another process has the database open).
    convenience init(readOnlyAt path: String) throws(StateError) {
        let wal = access(path + "-wal", F_OK) == 0
        let uri = "file:" + Self.uriEscaped(path) + (wal ? "?mode=ro" : "?immutable=1")
        try self.init(path: uri, name: path, flags: SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX)
    }

    /// A path as a `file:` URI's path: `%`, `?`, `#` and bytes outside printable ASCII escaped.
    static func uriEscaped(_ path: String) -> String {
        var out = ""
        for b in path.utf8 {
            if b == UInt8(ascii: "%") || b == UInt8(ascii: "?") || b == UInt8(ascii: "#") || b < 0x21 || b > 0x7E {
                out += "%" + String(b >> 4, radix: 16, uppercase: true) + String(b & 15, radix: 16, uppercase: true)
            } else {
                out.unicodeScalars.append(Unicode.Scalar(b))
            }
        }
        return out
    }

    private init(path: String, name: String, flags: Int32) throws(StateError) {
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let msg = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let db { sqlite3_close(db) }
            throw StateError("cannot open state database \(name): \(msg)")
        }
        self.handle = db
        self.path = name
        sqlite3_busy_timeout(db, 5000)
    }

    private var closed = false

    deinit { close() }

    /// Finalizes the statements and closes the connection (the last connection's close
    /// checkpoints the WAL into the database file). Idempotent.
    func close() {
        guard !closed else { return }
        closed = true
        for (_, s) in cache { sqlite3_finalize(s) }
        cache.removeAll()
        sqlite3_close(handle)
    }

    var lastError: String { String(cString: sqlite3_errmsg(handle)) }

    func exec(_ sql: String) throws(StateError) {
        var err: UnsafeMutablePointer<CChar>?
        if sqlite3_exec(handle, sql, nil, nil, &err) != SQLITE_OK {
            let msg = err.map { String(cString: $0) } ?? lastError
            sqlite3_free(err)
            throw StateError("state database \(path): \(msg)")
        }
    }

    /// A cached prepared statement, reset and with its bindings cleared.
    func statement(_ sql: String) throws(StateError) -> Statement {
        if let s = cache[sql] {
            sqlite3_reset(s)
            sqlite3_clear_bindings(s)
            return Statement(db: self, stmt: s)
        }
        var s: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &s, nil) == SQLITE_OK, let s else {
            throw StateError("state database \(path): \(lastError) in: \(sql)")
        }
        cache[sql] = s
        return Statement(db: self, stmt: s)
    }

    /// `body` in one transaction: committed when it returns, rolled back when it throws.
    /// `immediate` (the default) takes the file's write lock at the start; a read-only body
    /// passes false (`BEGIN`: one read lock for all its reads, and no writer kept waiting).
    func transaction<T>(immediate: Bool = true, _ body: () throws(StateError) -> T) throws(StateError) -> T {
        try exec(immediate ? "BEGIN IMMEDIATE" : "BEGIN")
        do {
            let v = try body()
            try exec("COMMIT")
            return v
        } catch {
            try? exec("ROLLBACK")
            throw error
        }
    }

    var changes: Int { Int(sqlite3_changes(handle)) }
}

/// A prepared statement being bound and stepped.
struct Statement {
    let db: Database
    let stmt: OpaquePointer

    @discardableResult
    func bind(_ i: Int32, _ v: String?) -> Statement {
        if let v {
            var v = v
            v.withUTF8 { b in _ = b.withMemoryRebound(to: CChar.self) { tributary_bind_text(stmt, i, $0.baseAddress, Int32(b.count)) } }
        } else {
            sqlite3_bind_null(stmt, i)
        }
        return self
    }

    @discardableResult
    func bind(_ i: Int32, _ v: Double?) -> Statement {
        if let v { sqlite3_bind_double(stmt, i, v) } else { sqlite3_bind_null(stmt, i) }
        return self
    }

    @discardableResult
    func bind(_ i: Int32, _ v: Int?) -> Statement {
        if let v { sqlite3_bind_int64(stmt, i, Int64(v)) } else { sqlite3_bind_null(stmt, i) }
        return self
    }

    @discardableResult
    func bind(_ i: Int32, blob: [UInt8]?) -> Statement {
        if let blob {
            blob.withUnsafeBytes { _ = tributary_bind_blob(stmt, i, $0.baseAddress, Int32($0.count)) }
        } else {
            sqlite3_bind_null(stmt, i)
        }
        return self
    }

    /// Runs to completion (for INSERT/UPDATE/DELETE).
    func run() throws(StateError) {
        let rc = sqlite3_step(stmt)
        guard rc == SQLITE_DONE || rc == SQLITE_ROW else { throw StateError("state database \(db.path): \(db.lastError)") }
        sqlite3_reset(stmt)
    }

    /// Steps one row; false at the end.
    func step() throws(StateError) -> Bool {
        let rc = sqlite3_step(stmt)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        throw StateError("state database \(db.path): \(db.lastError)")
    }

    func string(_ col: Int32) -> String? {
        guard sqlite3_column_type(stmt, col) != SQLITE_NULL, let p = sqlite3_column_text(stmt, col) else { return nil }
        return String(cString: p)
    }

    func double(_ col: Int32) -> Double? {
        sqlite3_column_type(stmt, col) == SQLITE_NULL ? nil : sqlite3_column_double(stmt, col)
    }

    func int(_ col: Int32) -> Int? {
        sqlite3_column_type(stmt, col) == SQLITE_NULL ? nil : Int(sqlite3_column_int64(stmt, col))
    }

    func blob(_ col: Int32) -> [UInt8]? {
        guard sqlite3_column_type(stmt, col) != SQLITE_NULL else { return nil }
        let n = Int(sqlite3_column_bytes(stmt, col))
        guard n > 0, let p = sqlite3_column_blob(stmt, col) else { return [] }
        return Array(UnsafeRawBufferPointer(start: p, count: n))
    }
}
