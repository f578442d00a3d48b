import TributaryPluginKit
import TributaryPostgres
#if canImport(Glibc)
import Glibc
#endif
import TributaryCore

/// `postgres`: upserts every item into a PostgreSQL table (Docs/sinks/postgres.md), one
/// transaction per batch, so the items are in the table when `write` returns; on conflict every
/// column but `id` is updated, so a batch delivered again after a crash leaves each id once.
/// The table (and its schema) is created if missing when the sink opens.
///
/// A connection lost while writing (the server restarting) is reopened and the batch's
/// transaction done again, for up to `retryFor` seconds; only then does the sink fail.
public final class PostgresSink: Sink, @unchecked Sendable {
    // Called by the engine from its delivery thread only, one call at a time (Sink contract):
    // `db` needs no lock.
    public static let descriptor = SinkDescriptor(type: "postgres", summary: "upserts items into a PostgreSQL table", options: [url, table], aliases: ["postgresql", "pg", "database"]) { reader in
        PostgresSink(url: reader[url], table: reader[table])
    }

    static let url = Option<PostgresURL>(
        spec: OptionSpec("url", .string, secret: true, "postgres://user:password@host:port/database (or postgresql://)", rule: { v, _ in
            guard let s = v.stringValue else { return nil }
            return PostgresURL(s) == nil ? "expected \(PostgresURL.expectation), found \"\(Redactor.redactURL(s))\"" : nil
        }),
        read: { v, _ in v.stringValue.flatMap(PostgresURL.init) }, show: { $0.display }, placeholder: { PostgresURL("postgres://localhost")! }).required
    static let table = Option<PostgresItemsTable>(
        spec: OptionSpec("table", .string, "the table, schema-qualified or not; created if missing", rule: { v, _ in
            guard let s = v.stringValue else { return nil }
            return PostgresItemsTable(s) == nil ? "expected a table name or schema.table (letters, digits and _, not starting with a digit), found \"\(s)\"" : nil
        }),
        read: { v, _ in v.stringValue.flatMap(PostgresItemsTable.init) }, show: { $0.display }, placeholder: { PostgresItemsTable(PostgresItemsTable.defaultName)! })
        .defaulted(PostgresItemsTable(PostgresItemsTable.defaultName)!)

    /// How long a batch is retried while the server cannot be reached.
    static let retryFor = 30.0

    let url: PostgresURL
    let table: PostgresItemsTable
    private var db: PostgresConnection?
    /// How the table is keyed, found (or made) by `open`.
    private var key = PostgresItemsTable.Key.idSHA256
    private var upsert = ""
    private var warn: @Sendable (String) -> Void = { _ in }

    init(url: PostgresURL, table: PostgresItemsTable) {
        self.url = url
        self.table = table
    }

    public func open(_ context: SinkContext) throws(SinkError) {
        warn = context.warn
        var prepared: (key: PostgresItemsTable.Key, note: String?) = (.idSHA256, nil)
        try withRetries { db throws(PostgresError) in prepared = try table.prepare(db) }
        key = prepared.key
        upsert = table.upsert(key)
        if let note = prepared.note { context.warn(note) }
    }

    public func write(_ items: [Item]) throws(SinkError) {
        var items = items
        if key != .idSHA256 {
            // A table keyed on id (that could not be converted): an id its index cannot take
            // would fail the whole batch, so that item is skipped here, and said.
            items = items.filter { item in
                let n = item.id.utf8.count
                guard n > PostgresItemsTable.maxIndexedIDBytes else { return true }
                warn("postgres: \(table.display): item \"\(String(item.id.unicodeScalars.prefix(60).map(Character.init)))...\" not written: its id is \(n) bytes, more than the table's index on id takes (\(PostgresItemsTable.maxIndexedIDBytes)); the table is keyed on id, not id_sha256 (Docs/sinks/postgres.md)")
                return false
            }
        }
        guard !items.isEmpty else { return }
        let payload = PostgresItemsTable.payload(items)
        let sql = upsert
        try withRetries { db throws(PostgresError) in
            try db.transaction { () throws(PostgresError) in
                // The payload is sent as text: JSON lines are UTF-8.
                _ = try db.execute(sql, [.text(String(decoding: payload, as: UTF8.self))])
            }
        }
    }

    public func close() throws(SinkError) {
        db?.close()
        db = nil
    }

    /// Runs `body` on the connection (made on first use), again after a transient failure
    /// (0.25 s, 0.5 s, ... 4 s apart) until `retryFor` has passed.
    private func withRetries(_ body: (PostgresConnection) throws(PostgresError) -> Void) throws(SinkError) {
        let deadline = Timestamp.now().seconds + Self.retryFor
        var wait = 0.25
        while true {
            do {
                let connection: PostgresConnection
                if let db { connection = db } else {
                    connection = try PostgresConnection(url: url)
                    db = connection
                }
                try body(connection)
                return
            } catch {
                guard error.transient, Timestamp.now().seconds + wait < deadline else {
                    throw SinkError("postgres: \(table.display): \(error.message)")
                }
                usleep(UInt32(wait * 1e6))
                wait = min(wait * 2, 4)
            }
        }
    }
}
