import TributaryBase
import CSQLite
#if canImport(Glibc)
import Glibc
#endif

/// A failed SQLite call: the library's message and its result code (`SQLITE_BUSY`, `SQLITE_NOTADB`,
/// ...), so a caller can tell a locked file from a broken one and say so in words.
public struct SQLiteError: Error, CustomStringConvertible, Sendable {
    public let message: String
    /// The primary result code (`SQLITE_ERROR` = 1, `SQLITE_BUSY` = 5, `SQLITE_NOTADB` = 26, ...).
    public let code: Int32
    public init(_ message: String, code: Int32) {
        self.message = message
        self.code = code
    }
    public var description: String { message }

    public var isBusy: Bool { code == SQLITE_BUSY || code == SQLITE_LOCKED }
    public var isNotADatabase: Bool { code == SQLITE_NOTADB }
    public var cannotOpen: Bool { code == SQLITE_CANTOPEN }
    public var isReadOnly: Bool { code == SQLITE_READONLY }
}

/// A thin SQLite connection for what is not the state (the `sqlite` sink's file, and `tributary
/// search` reading it): open, run, prepare, bind, step. The only other user of CSQLite than the
/// state's own `Database`, which it mirrors. Not thread-safe: one thread at a time.
public final class SQLiteConnection {
    let handle: OpaquePointer
    public let path: String
    private var cache: [String: OpaquePointer] = [:]
    private var closed = false

    /// Opens (creating) `path` for reading and writing.
    public convenience init(path: String) throws(SQLiteError) {
        try self.init(uri: path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, name: path)
    }

    /// Opens an existing file for reading only, creating and changing no file: `mode=ro` when a
    /// write-ahead log is beside it (a writer has the file open: its commits are read too),
    /// otherwise `immutable` (nothing but the file itself is read; no lock or shared-memory file).
    public convenience init(readOnlyAt path: String) throws(SQLiteError) {
        let wal = access(path + "-wal", F_OK) == 0
        let uri = "file:" + Database.uriEscaped(path) + (wal ? "?mode=ro" : "?immutable=1")
        try self.init(uri: uri, flags: SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, name: path)
    }

    private init(uri: String, flags: Int32, name: String) throws(SQLiteError) {
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(uri, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let msg = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let db { sqlite3_close(db) }
            throw SQLiteError(msg, code: rc & 0xFF)
        }
        sqlite3_extended_result_codes(db, 0)
        handle = db
        path = name
        sqlite3_busy_timeout(db, 5000)
    }

    deinit { close() }

    /// Finalizes the statements and closes (the last connection's close checkpoints the
    /// write-ahead log into the file and removes it). Idempotent.
    public func close() {
        guard !closed else { return }
        closed = true
        for (_, s) in cache { sqlite3_finalize(s) }
        cache.removeAll()
        sqlite3_close(handle)
    }

    public func busyTimeout(milliseconds: Int) { sqlite3_busy_timeout(handle, Int32(milliseconds)) }

    var lastError: SQLiteError { SQLiteError(String(cString: sqlite3_errmsg(handle)), code: sqlite3_errcode(handle) & 0xFF) }

    /// Runs one or more statements that return no rows.
    public func exec(_ sql: String) throws(SQLiteError) {
        var err: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &err)
        if rc != SQLITE_OK {
            let msg = err.map { String(cString: $0) } ?? lastError.message
            sqlite3_free(err)
            throw SQLiteError(msg, code: rc & 0xFF)
        }
    }

    /// A cached prepared statement, reset and with its bindings cleared.
    public func statement(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        if let s = cache[sql] {
            sqlite3_reset(s)
            sqlite3_clear_bindings(s)
            return SQLiteStatement(connection: self, stmt: s)
        }
        var s: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &s, nil) == SQLITE_OK, let s else { throw lastError }
        cache[sql] = s
        return SQLiteStatement(connection: self, stmt: s)
    }

    /// `body` in one `BEGIN IMMEDIATE` ... `COMMIT`, rolled back when it throws.
    public func transaction<T>(_ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        try exec("BEGIN IMMEDIATE")
        do {
            let v = try body()
            try exec("COMMIT")
            return v
        } catch {
            try? exec("ROLLBACK")
            throw error
        }
    }

    /// The columns of `table` (`PRAGMA table_info`), in order; empty when there is no such table.
    public func columns(of table: String) throws(SQLiteError) -> [String] {
        let s = try statement("SELECT name FROM pragma_table_info(?1)")
        s.bind(1, table)
        var out: [String] = []
        while try s.step() { out.append(s.string(0) ?? "") }
        return out
    }

    /// The SQLite library this process runs with, e.g. `3.40.1`.
    public static var libraryVersion: String { String(cString: sqlite3_libversion()) }
}

/// A prepared statement being bound and stepped.
public struct SQLiteStatement {
    let connection: SQLiteConnection
    let stmt: OpaquePointer

    @discardableResult
    public func bind(_ i: Int32, _ v: String?) -> SQLiteStatement {
        if let v {
            var v = v
            v.withUTF8 { b in _ = b.withMemoryRebound(to: CChar.self) { tributary_bind_text(stmt, i, $0.baseAddress, Int32(b.count)) } }
        } else {
            sqlite3_bind_null(stmt, i)
        }
        return self
    }

    @discardableResult
    public func bind(_ i: Int32, _ v: Double?) -> SQLiteStatement {
        if let v { sqlite3_bind_double(stmt, i, v) } else { sqlite3_bind_null(stmt, i) }
        return self
    }

    @discardableResult
    public func bind(_ i: Int32, _ v: Int?) -> SQLiteStatement {
        if let v { sqlite3_bind_int64(stmt, i, Int64(v)) } else { sqlite3_bind_null(stmt, i) }
        return self
    }

    /// Ends a read early (the statement's read lock is let go), keeping the bindings.
    public func reset() { sqlite3_reset(stmt) }

    /// Runs to completion (INSERT, UPDATE, DELETE).
    public func run() throws(SQLiteError) {
        let rc = sqlite3_step(stmt)
        guard rc == SQLITE_DONE || rc == SQLITE_ROW else {
            let e = connection.lastError
            sqlite3_reset(stmt)
            throw e
        }
        sqlite3_reset(stmt)
    }

    /// Steps one row; false at the end.
    public func step() throws(SQLiteError) -> Bool {
        let rc = sqlite3_step(stmt)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        let e = connection.lastError
        sqlite3_reset(stmt)
        throw e
    }

    public func string(_ col: Int32) -> String? {
        guard sqlite3_column_type(stmt, col) != SQLITE_NULL, let p = sqlite3_column_text(stmt, col) else { return nil }
        let n = Int(sqlite3_column_bytes(stmt, col))
        return String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
    }

    public func double(_ col: Int32) -> Double? {
        sqlite3_column_type(stmt, col) == SQLITE_NULL ? nil : sqlite3_column_double(stmt, col)
    }

    public func int(_ col: Int32) -> Int? {
        sqlite3_column_type(stmt, col) == SQLITE_NULL ? nil : Int(sqlite3_column_int64(stmt, col))
    }
}
