import TributaryPluginKit
import TributaryPostgres
import TributaryCore

/// The `postgres` sink's table: its name (`table`, may be schema-qualified), how it is created,
/// and the one statement that upserts a batch. The batch travels as one JSON array of the
/// items' JSON lines (Docs/contract.md#items), which the server takes apart
/// (`jsonb_array_elements`), so a batch of any size is one round trip.
struct PostgresItemsTable: Sendable {
    /// `schema` (nil: the connection's search path) and `table`, unquoted.
    let schema: String?
    let table: String

    static let defaultName = "tributary.items"

    /// `tributary.items`, `items`: one or two plain identifiers; nil otherwise.
    init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard (1...2).contains(parts.count), parts.allSatisfy(PostgresConnection.isPlainIdentifier) else { return nil }
        schema = parts.count == 2 ? parts[0] : nil
        table = parts[parts.count - 1]
    }

    var display: String { (schema.map { $0 + "." } ?? "") + table }
    var quoted: String { (schema.map { PostgresConnection.quote(identifier: $0) + "." } ?? "") + PostgresConnection.quote(identifier: table) }

    /// The columns of Docs/sinks/postgres.md, in order.
    static let columns = ["id", "source", "type", "kind", "title", "summary", "url", "image", "author", "published", "fetched", "tags", "lat", "lon", "data"]

    /// Creates the schema and the table if missing, under an advisory lock so that workers
    /// opening the sink at once do not race to create it.
    func create(_ db: PostgresConnection) throws(PostgresError) {
        try db.transaction { () throws(PostgresError) in
            try db.execute("SELECT pg_advisory_xact_lock(hashtext($1))", [.text("tributary sink " + display)])
            if let schema { _ = try db.execute("CREATE SCHEMA IF NOT EXISTS \(PostgresConnection.quote(identifier: schema))") }
            try db.execute("""
                CREATE TABLE IF NOT EXISTS \(quoted)(id text PRIMARY KEY, source text NOT NULL, type text NOT NULL, kind text NOT NULL,
                    title text NOT NULL, summary text, url text, image text, author text, published timestamptz, fetched timestamptz NOT NULL,
                    tags text[], lat double precision, lon double precision, data jsonb)
                """)
        }
    }

    /// Inserts every item of the array in `$1`; an id already there gets every other column
    /// replaced (the newest version of the item wins).
    var upsert: String {
        """
        INSERT INTO \(quoted)(\(Self.columns.joined(separator: ", ")))
        SELECT e->>'id', e->>'source', e->>'type', e->>'kind', e->>'title', e->>'summary', e->>'url', e->>'image', e->>'author',
               (e->>'published')::timestamptz, (e->>'fetched')::timestamptz,
               CASE WHEN e ? 'tags' THEN ARRAY(SELECT jsonb_array_elements_text(e->'tags')) END,
               (e->'geo'->>'lat')::double precision, (e->'geo'->>'lon')::double precision, e->'data'
        FROM jsonb_array_elements($1::jsonb) AS e
        ON CONFLICT (id) DO UPDATE SET \(Self.columns.dropFirst().map { "\($0) = excluded.\($0)" }.joined(separator: ", "))
        """
    }

    /// `[line,line,...]` of the items, the last of each id only (one statement may not update a
    /// row twice). A NUL character, which PostgreSQL text cannot hold, becomes U+FFFD.
    static func payload(_ items: [Item]) -> [UInt8] {
        var last: [String: Int] = [:]
        for (i, item) in items.enumerated() { last[item.id] = i }
        var out: [UInt8] = [0x5B]
        out.reserveCapacity(items.count * 512)
        var first = true
        for (i, item) in items.enumerated() where last[item.id] == i {
            if !first { out.append(0x2C) }
            first = false
            appendWithoutNUL(item.jsonLine(), to: &out)
        }
        out.append(0x5D)
        return out
    }

    /// Copies a JSON line, turning the escape `\u0000` into `\ufffd` (escapes are walked two
    /// bytes at a time, so an escaped backslash followed by `u0000` text is left alone).
    static func appendWithoutNUL(_ line: [UInt8], to out: inout [UInt8]) {
        var i = 0
        let n = line.count
        while i < n {
            let b = line[i]
            if b == 0x0A { i += 1; continue }  // the line's own newline
            if b == 0x5C, i + 1 < n {
                if line[i + 1] == 0x75, i + 5 < n, line[(i + 2)...(i + 5)].elementsEqual(Array("0000".utf8)) {
                    out.append(contentsOf: Array("\\ufffd".utf8))
                    i += 6
                    continue
                }
                out.append(b)
                out.append(line[i + 1])
                i += 2
                continue
            }
            out.append(b)
            i += 1
        }
    }
}
