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
    /// `beginDeferred()` was called and its `BEGIN` is not sent yet.
    public private(set) var pendingBegin = false
    /// Counts the connections made: a temporary table or prepared statement of an earlier
    /// connection is gone when it changed.
    public private(set) var generation = 0
    /// The statements prepared on this connection (`PostgresStatement.prepared`), by SQL.
    private var prepared: [String: String] = [:]
    private var preparedCount = 0

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
        pendingBegin = false
        prepared = [:]
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
        // The statements prepared here (`PostgresStatement.prepared`, and libpq's unnamed
        // ones) are the state's per-batch upserts and look-ups by key, whose best plan does
        // not depend on their parameters: planned once (a generic plan) rather than at every
        // execution. PostgreSQL 12 and later; a failure here only costs planning time.
        if tributary_pq_server_version(lib.api, c) >= 120000,
           let r = tributary_pq_exec_params(lib.api, c, "SET plan_cache_mode = force_generic_plan", 0, nil, nil, nil, 0) {
            tributary_pq_clear(lib.api, r)
        }
        conn = c
        generation += 1
    }

    private var isConnected: Bool {
        guard let c = conn else { return false }
        return tributary_pq_status(lib.api, c) == CONNECTION_OK
    }

    /// Runs one statement. Text parameters are sent as text, byte parameters in binary (for
    /// `bytea`); `binaryResult` asks for every column in binary (used for a single `bytea`).
    /// After `beginDeferred()`, the `BEGIN` goes with it (one round trip).
    @discardableResult
    public func execute(_ sql: String, _ params: [PostgresValue?] = [], binaryResult: Bool = false) throws(PostgresError) -> PostgresRows {
        if pendingBegin { return try pipeline([PostgresStatement(sql, params, binaryResult: binaryResult)])[0] }
        let c = try connection()
        let res = try Self.withParams(params) { n, v, l, f in
            tributary_pq_exec_params(lib.api, c, sql, n, v, l, f, binaryResult ? 1 : 0)
        }
        guard let res else {
            let lost = !isConnected
            if lost { inTransaction = false }
            throw PostgresError("PostgreSQL at \(url.display): \(Self.text(tributary_pq_error_message(lib.api, c)))", transient: lost)
        }
        return try rows(res)
    }

    /// The connection, reconnected first when it was lost outside a transaction.
    private func connection() throws(PostgresError) -> OpaquePointer {
        if !isConnected {
            if inTransaction {
                inTransaction = false
                throw PostgresError("PostgreSQL at \(url.display): the connection was lost during a transaction", transient: true)
            }
            try connect()
        }
        guard let c = conn else { throw PostgresError("PostgreSQL at \(url.display): not connected", transient: true) }
        return c
    }

    /// A result as rows, or its error thrown (and the result freed).
    private func rows(_ res: OpaquePointer) throws(PostgresError) -> PostgresRows {
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

    /// The parameters as libpq takes them, alive for `body`.
    private static func withParams<T>(_ params: [PostgresValue?], _ body: (Int32, UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) -> T) throws(PostgresError) -> T {
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
        return values.withUnsafeBufferPointer { v in
            lengths.withUnsafeBufferPointer { l in
                formats.withUnsafeBufferPointer { f in body(Int32(n), v.baseAddress, l.baseAddress, f.baseAddress) }
            }
        }
    }

    /// Runs the statements in order in one round trip (libpq's pipeline mode), with the
    /// `BEGIN` of `beginDeferred()` first; returns each one's rows. Outside a transaction they
    /// run as one implicit transaction (as a multi-statement query does): a failure rolls back
    /// the statements before it. The first failure is thrown; the statements after it are not
    /// run. A `prepared` statement is parsed once per connection (named, `PQprepare`) and
    /// executed by name after.
    public func pipeline(_ statements: [PostgresStatement]) throws(PostgresError) -> [PostgresRows] {
        var all = statements
        let begins = pendingBegin
        if begins {
            pendingBegin = false
            all.insert(PostgresStatement("BEGIN"), at: 0)
        }
        guard !all.isEmpty else { return [] }
        let c = try connection()
        if begins { inTransaction = true }
        guard tributary_pq_enter_pipeline_mode(lib.api, c) == 1 else {
            throw PostgresError("PostgreSQL at \(url.display): cannot enter pipeline mode: \(Self.text(tributary_pq_error_message(lib.api, c)))", transient: !isConnected)
        }
        // What each result answers: a statement's index, or a preparation (-1).
        var expected: [Int] = []
        var preparing: [Int: (sql: String, name: String)] = [:]
        var sending: [String: String] = [:]
        var sendFailed = false
        for (i, st) in all.enumerated() {
            var ok: Int32
            if st.prepared {
                let name: String
                if let known = prepared[st.sql] ?? sending[st.sql] {
                    name = known
                } else {
                    preparedCount += 1
                    name = "tributary_\(preparedCount)"
                    ok = tributary_pq_send_prepare(lib.api, c, name, st.sql, Int32(st.params.count))
                    if ok != 1 { sendFailed = true; break }
                    preparing[expected.count] = (st.sql, name)
                    sending[st.sql] = name
                    expected.append(-1)
                }
                ok = try Self.withParams(st.params) { n, v, l, f in tributary_pq_send_query_prepared(lib.api, c, name, n, v, l, f, st.binaryResult ? 1 : 0) }
            } else {
                ok = try Self.withParams(st.params) { n, v, l, f in tributary_pq_send_query_params(lib.api, c, st.sql, n, v, l, f, st.binaryResult ? 1 : 0) }
            }
            if ok != 1 { sendFailed = true; break }
            expected.append(i)
        }
        if sendFailed || tributary_pq_pipeline_sync(lib.api, c) != 1 {
            let message = Self.text(tributary_pq_error_message(lib.api, c))
            abandon()
            throw PostgresError("PostgreSQL at \(url.display): \(message)", transient: true)
        }
        var out: [PostgresRows?] = Array(repeating: nil, count: all.count)
        var failure: PostgresError? = nil
        for (k, i) in expected.enumerated() {
            // One result per command, then NULL.
            guard let res = tributary_pq_get_result(lib.api, c) else {
                let message = Self.text(tributary_pq_error_message(lib.api, c))
                abandon()
                throw failure ?? PostgresError("PostgreSQL at \(url.display): \(message)", transient: true)
            }
            while let extra = tributary_pq_get_result(lib.api, c) { tributary_pq_clear(lib.api, extra) }
            if tributary_pq_result_status(lib.api, res) == PGRES_PIPELINE_ABORTED {
                tributary_pq_clear(lib.api, res)
                continue
            }
            do throws(PostgresError) {
                let r = try rows(res)
                if i < 0 {
                    if let p = preparing[k] { prepared[p.sql] = p.name }
                } else {
                    out[i] = r
                }
            } catch {
                if failure == nil { failure = error }
            }
        }
        // The sync's own result, then back to one statement at a time.
        if let sync = tributary_pq_get_result(lib.api, c) {
            let ok = tributary_pq_result_status(lib.api, sync) == PGRES_PIPELINE_SYNC
            tributary_pq_clear(lib.api, sync)
            if !ok || tributary_pq_exit_pipeline_mode(lib.api, c) != 1 { abandon() }
        } else {
            abandon()
        }
        if let failure { throw failure }
        guard conn != nil else { throw PostgresError("PostgreSQL at \(url.display): the connection was lost", transient: true) }
        var rows: [PostgresRows] = []
        for (i, r) in out.enumerated() {
            guard let r else { throw PostgresError("PostgreSQL at \(url.display): no result for a statement", transient: true) }
            if !(begins && i == 0) { rows.append(r) }
        }
        return rows
    }

    /// A pipeline whose results cannot be read in order any more: the connection is closed
    /// (the server discards its transaction), and the next statement outside a transaction
    /// reconnects.
    private func abandon() { close() }

    /// `BEGIN` with the next statement or pipeline rather than on its own (one round trip
    /// fewer); `commit(with:)` or `rollback()` ends it. Nothing is sent if nothing follows.
    public func beginDeferred() {
        pendingBegin = true
    }

    /// The statements, then `COMMIT`, in one round trip. A transaction begun by
    /// `beginDeferred()` that sent nothing yet sends `BEGIN` first, or nothing at all when there
    /// is nothing to write.
    public func commit(with statements: [PostgresStatement]) throws(PostgresError) {
        if pendingBegin && statements.isEmpty {
            pendingBegin = false
            return
        }
        do {
            _ = try pipeline(statements + [PostgresStatement("COMMIT")])
            inTransaction = false
        } catch {
            // A statement failed and the COMMIT was not run: the transaction is still open.
            rollback()
            throw error
        }
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
        pendingBegin = false
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

/// One statement of a `PostgresConnection.pipeline`.
public struct PostgresStatement {
    public let sql: String
    public let params: [PostgresValue?]
    public let binaryResult: Bool
    /// Parsed once per connection and run by name (`PQprepare`): for the statements run for
    /// every batch, whose plan does not depend on their parameters.
    public let prepared: Bool

    public init(_ sql: String, _ params: [PostgresValue?] = [], binaryResult: Bool = false, prepared: Bool = false) {
        self.sql = sql
        self.params = params
        self.binaryResult = binaryResult
        self.prepared = prepared
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
