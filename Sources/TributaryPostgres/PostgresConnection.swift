import TributaryBase
import CPostgres
#if canImport(Glibc)
import Glibc
#endif

/// A failed PostgreSQL call, with the server's (or libpq's) own message.
public struct PostgresError: Error, Sendable, CustomStringConvertible {
    public let message: String
    /// The SQLSTATE the server sent, when it sent one.
    public let sqlstate: String?
    /// The same work may succeed later: the connection is gone or could not be made, the server
    /// is starting or shutting down, has no connection slot free, or the transaction lost a race
    /// (serialization failure, deadlock). A syntax error, a missing privilege or a constraint
    /// violation is not transient.
    public let transient: Bool

    public init(_ message: String, sqlstate: String? = nil, transient: Bool = false) {
        self.message = Secrets.scrub(message)
        self.sqlstate = sqlstate
        self.transient = transient
    }

    public var description: String { message }

    static func isTransient(sqlstate: String) -> Bool {
        sqlstate.hasPrefix("08") || sqlstate.hasPrefix("57P") || ["53300", "40001", "40P01"].contains(sqlstate)
    }
}

/// A text or binary parameter of a statement (nil is SQL NULL).
public enum PostgresValue: Sendable {
    case text(String)
    case bytes([UInt8])
}

/// One libpq connection: statements with parameters, transactions, and reconnection. libpq
/// calls block, so the owner runs them on a thread of its own (the delivery thread), never on
/// the cooperative pool.
///
/// A lost connection is reopened by the next statement run outside a transaction; inside one
/// (between `begin()` and `commit()`/`rollback()`) it is an error, since the server has already
/// discarded the transaction's work.
///
/// Not thread-safe: one thread uses it at a time (its owner's rule).
public final class PostgresConnection {
    let lib: PostgresLibrary
    private var conn: OpaquePointer?
    public let url: PostgresURL
    /// Between `begin()` and `commit()`/`rollback()`.
    public private(set) var inTransaction = false

    /// Loads libpq (on first use) and connects; fails with the reason, naming the URL without
    /// its password.
    public init(url: PostgresURL) throws(PostgresError) {
        switch PostgresLibrary.shared() {
        case .success(let l): lib = l
        case .failure(let e): throw PostgresError(e.message)
        }
        self.url = url
        try connect()
    }

    deinit { close() }

    /// Ends the connection. Idempotent; a later statement reconnects.
    public func close() {
        if let c = conn { tributary_pq_finish(lib.api, c) }
        conn = nil
        inTransaction = false
    }

    /// The server's version, e.g. `15.18` (0.0 when not connected).
    public var serverVersion: String {
        guard let c = conn else { return "0.0" }
        let v = Int(tributary_pq_server_version(lib.api, c))
        return "\(v / 10000).\(v % 10000)"
    }

    private func connect() throws(PostgresError) {
        close()
        guard let c = tributary_pq_connectdb(lib.api, url.conninfo) else {
            throw PostgresError("cannot connect to PostgreSQL at \(url.display): out of memory", transient: true)
        }
        guard tributary_pq_status(lib.api, c) == CONNECTION_OK else {
            let msg = Self.text(tributary_pq_error_message(lib.api, c))
            tributary_pq_finish(lib.api, c)
            throw PostgresError("cannot connect to PostgreSQL at \(url.display): \(msg)", transient: true)
        }
        tributary_pq_silence_notices(lib.api, c)
        conn = c
    }

    private var isConnected: Bool {
        guard let c = conn else { return false }
        return tributary_pq_status(lib.api, c) == CONNECTION_OK
    }

    /// Runs one statement. Text parameters are sent as text, byte parameters in binary (for
    /// `bytea`); `binaryResult` asks for every column in binary (used for a single `bytea`).
    @discardableResult
    public func execute(_ sql: String, _ params: [PostgresValue?] = [], binaryResult: Bool = false) throws(PostgresError) -> PostgresRows {
        if !isConnected {
            if inTransaction {
                inTransaction = false
                throw PostgresError("PostgreSQL at \(url.display): the connection was lost during a transaction", transient: true)
            }
            try connect()
        }
        guard let c = conn else { throw PostgresError("PostgreSQL at \(url.display): not connected", transient: true) }
        let n = params.count
        var values = [UnsafePointer<CChar>?](repeating: nil, count: n)
        var lengths = [Int32](repeating: 0, count: n)
        var formats = [Int32](repeating: 0, count: n)
        var owned: [UnsafeMutableRawPointer] = []
        owned.reserveCapacity(n)
        defer { for p in owned { free(p) } }
        for (i, p) in params.enumerated() {
            switch p {
            case nil:
                break
            case .text(let s)?:
                guard let d = strdup(s) else { throw PostgresError("out of memory") }
                owned.append(UnsafeMutableRawPointer(d))
                values[i] = UnsafePointer(d)
            case .bytes(let b)?:
                guard let m = malloc(max(1, b.count)) else { throw PostgresError("out of memory") }
                owned.append(m)
                b.withUnsafeBytes { if let base = $0.baseAddress { memcpy(m, base, b.count) } }
                values[i] = UnsafePointer(m.assumingMemoryBound(to: CChar.self))
                lengths[i] = Int32(b.count)
                formats[i] = 1
            }
        }
        let res = values.withUnsafeBufferPointer { v in
            lengths.withUnsafeBufferPointer { l in
                formats.withUnsafeBufferPointer { f in
                    tributary_pq_exec_params(lib.api, c, sql, Int32(n), v.baseAddress, l.baseAddress, f.baseAddress, binaryResult ? 1 : 0)
                }
            }
        }
        guard let res else {
            let lost = !isConnected
            if lost { inTransaction = false }
            throw PostgresError("PostgreSQL at \(url.display): \(Self.text(tributary_pq_error_message(lib.api, c)))", transient: lost)
        }
        let status = tributary_pq_result_status(lib.api, res)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            let message = Self.text(tributary_pq_result_error_message(lib.api, res))
            let state = tributary_pq_result_sqlstate(lib.api, res).map { String(cString: $0) }
            tributary_pq_clear(lib.api, res)
            let lost = !isConnected
            if lost { inTransaction = false }
            throw PostgresError("PostgreSQL at \(url.display): \(message)", sqlstate: state,
                                transient: lost || state.map(PostgresError.isTransient) ?? false)
        }
        return PostgresRows(lib: lib, res: res)
    }

    /// `BEGIN`; reconnects first if the connection was lost since the last transaction.
    public func begin() throws(PostgresError) {
        try execute("BEGIN")
        inTransaction = true
    }

    public func commit() throws(PostgresError) {
        defer { inTransaction = false }
        try execute("COMMIT")
    }

    /// `ROLLBACK`, ignoring failure: a transaction whose connection is gone is discarded by the
    /// server anyway.
    public func rollback() {
        guard inTransaction else { return }
        inTransaction = false
        if isConnected { _ = try? execute("ROLLBACK") }
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    public func transaction<T>(_ body: () throws(PostgresError) -> T) throws(PostgresError) -> T {
        try begin()
        do {
            let v = try body()
            try commit()
            return v
        } catch {
            rollback()
            throw error
        }
    }

    /// `"name"`, with embedded quotes doubled.
    public static func quote(identifier: String) -> String {
        "\"" + identifier.replacing("\"", with: "\"\"") + "\""
    }

    /// An identifier Tributary accepts in config (a schema or table name): letters, digits and
    /// `_`, not starting with a digit, at most 63 bytes (PostgreSQL's limit).
    public static func isPlainIdentifier(_ s: String) -> Bool {
        func letter(_ b: UInt8) -> Bool { (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) || b == 0x5F }
        guard let first = s.utf8.first, letter(first), s.utf8.count <= 63 else { return false }
        return s.utf8.allSatisfy { letter($0) || (0x30...0x39).contains($0) }
    }

    /// A `text[]` literal (`{"a","b"}`), every element quoted, `"` and `\` escaped.
    public static func textArray(_ values: [String]) -> String {
        var out = "{"
        for (i, v) in values.enumerated() {
            if i > 0 { out += "," }
            out += "\""
            for ch in v.unicodeScalars {
                if ch == "\"" || ch == "\\" { out += "\\" }
                out.unicodeScalars.append(ch)
            }
            out += "\""
        }
        return out + "}"
    }

    static func text(_ p: UnsafePointer<CChar>?) -> String {
        guard let p else { return "unknown error" }
        var s = String(cString: p)
        while s.last == "\n" || s.last == " " { s.removeLast() }
        return s.replacing("\n", with: " ")
    }
}

/// The rows of one statement's result; frees it when released. Used on its connection's thread.
public final class PostgresRows {
    let lib: PostgresLibrary
    let res: OpaquePointer
    public let count: Int

    init(lib: PostgresLibrary, res: OpaquePointer) {
        self.lib = lib
        self.res = res
        count = Int(tributary_pq_ntuples(lib.api, res))
    }

    deinit { tributary_pq_clear(lib.api, res) }

    /// Rows the statement changed (`UPDATE`, `INSERT`, `DELETE`).
    public var affected: Int { Int(String(cString: tributary_pq_cmd_tuples(lib.api, res))) ?? 0 }

    public func isNull(_ row: Int, _ col: Int) -> Bool { tributary_pq_getisnull(lib.api, res, Int32(row), Int32(col)) != 0 }

    public func string(_ row: Int, _ col: Int) -> String? {
        guard !isNull(row, col), let p = tributary_pq_getvalue(lib.api, res, Int32(row), Int32(col)) else { return nil }
        return String(cString: p)
    }

    public func double(_ row: Int, _ col: Int) -> Double? { string(row, col).flatMap { Double($0) } }
    public func int(_ row: Int, _ col: Int) -> Int? { string(row, col).flatMap { Int($0) } }

    /// A column's bytes as sent: raw in a binary result (`binaryResult`), the text otherwise.
    public func bytes(_ row: Int, _ col: Int) -> [UInt8]? {
        guard !isNull(row, col), let p = tributary_pq_getvalue(lib.api, res, Int32(row), Int32(col)) else { return nil }
        let n = Int(tributary_pq_getlength(lib.api, res, Int32(row), Int32(col)))
        return Array(UnsafeRawBufferPointer(start: p, count: n))
    }
}
