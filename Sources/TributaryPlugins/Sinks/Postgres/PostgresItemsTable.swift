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

    /// The columns of Docs/sinks/postgres.md, in order, but for the key (`id_sha256`).
    static let columns = ["id", "source", "type", "kind", "title", "summary", "url", "image", "author", "published", "fetched", "tags", "lat", "lon", "data"]

    /// How the table is keyed. A btree index entry cannot be larger than about 2.7 KB, so a
    /// primary key on `id` refuses a longer id (`index row size exceeds btree maximum 2704`),
    /// and with it the whole batch.
    enum Key: Equatable {
        /// `id_sha256` (the SHA-256 of the id's UTF-8 bytes), unique, with `id` beside it (and
        /// a hash index on `id` for lookups): an id of any length. What the sink creates.
        case idSHA256
        /// `id` itself: a table from before that could not be converted (the reason). The
        /// sink skips an id over `maxIndexedIDBytes` with a warning instead of failing.
        case id(String)
    }

    /// The longest id a btree index on `id` surely takes (the entry's limit, 2704 bytes, less
    /// its header; an id that compresses may be longer).
    static let maxIndexedIDBytes = 2600

    /// Creates the schema and the table if missing, under an advisory lock so that workers
    /// opening the sink at once neither race to create it nor to convert it. A table keyed on
    /// `id` (made by an earlier release, or by hand) is converted to `id_sha256` in the same
    /// transaction: the column added and filled (`sha256`, PostgreSQL 11 and later), the
    /// primary key on `id` replaced by one on it, a hash index on `id`. When that cannot be
    /// done (a foreign key refers to `id`, the table is not ours to alter), the table is left
    /// exactly as it was and keeps its key (`Key.id`). Returns the key, and a note for the log
    /// when the table was converted or could not be.
    func prepare(_ db: PostgresConnection) throws(PostgresError) -> (key: Key, note: String?) {
        try db.transaction { () throws(PostgresError) -> (key: Key, note: String?) in
            try db.execute("SELECT pg_advisory_xact_lock(hashtext($1))", [.text("tributary sink " + display)])
            if let schema { _ = try db.execute("CREATE SCHEMA IF NOT EXISTS \(PostgresConnection.quote(identifier: schema))") }
            let found = try db.execute("SELECT to_regclass($1) IS NOT NULL", [.text(quoted)])
            guard found.count > 0, found.string(0, 0) == "t" else {
                try db.execute("""
                    CREATE TABLE \(quoted)(id text NOT NULL, source text NOT NULL, type text NOT NULL, kind text NOT NULL,
                        title text NOT NULL, summary text, url text, image text, author text, published timestamptz, fetched timestamptz NOT NULL,
                        tags text[], lat double precision, lon double precision, data jsonb, id_sha256 bytea NOT NULL PRIMARY KEY)
                    """)
                try db.execute("CREATE INDEX ON \(quoted) USING hash (id)")
                return (.idSHA256, nil)
            }
            let hashed = try db.execute("SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass($1) AND attname = 'id_sha256' AND NOT attisdropped", [.text(quoted)])
            if hashed.count > 0 { return (.idSHA256, nil) }
            try db.execute("SAVEPOINT tributary_convert")
            do throws(PostgresError) {
                let rows = try convert(db)
                try db.execute("RELEASE SAVEPOINT tributary_convert")
                return (.idSHA256, "postgres: \(display): converted to the key id_sha256 (the SHA-256 of id) so that ids of any length fit: \(rows) row\(rows == 1 ? "" : "s"), a hash index on id for lookups")
            } catch {
                if error.transient { throw error }
                try db.execute("ROLLBACK TO SAVEPOINT tributary_convert")
                let reason = "postgres: \(display): the table is keyed on id and could not be converted to the key id_sha256 (\(error.message)): it is left as it is, and an item whose id is over \(Self.maxIndexedIDBytes) bytes is skipped by this sink"
                return (.id(reason), reason)
            }
        }
    }

    /// Converts a table keyed on `id` (see `prepare`); returns the rows it holds. What fails
    /// when the table cannot be converted (another table's foreign key on the primary key, an
    /// owner that is not the sink's user) comes first, before any row is hashed: a table left
    /// as it was costs each opening of the sink one failed statement, not a pass over its rows.
    private func convert(_ db: PostgresConnection) throws(PostgresError) -> Int {
        let pk = try db.execute("""
            SELECT c.conname, array_to_string(ARRAY(SELECT a.attname FROM unnest(c.conkey) AS k JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k), ',')
            FROM pg_constraint c WHERE c.conrelid = to_regclass($1) AND c.contype = 'p'
            """, [.text(quoted)])
        let onID = pk.count > 0 && pk.string(0, 1) == "id"
        if onID, let name = pk.string(0, 0) {
            try db.execute("ALTER TABLE \(quoted) DROP CONSTRAINT \(PostgresConnection.quote(identifier: name))")
        }
        try db.execute("ALTER TABLE \(quoted) ADD COLUMN id_sha256 bytea")
        let rows = try db.execute("UPDATE \(quoted) SET id_sha256 = sha256(convert_to(id, 'UTF8'))").affected
        try db.execute("ALTER TABLE \(quoted) ALTER COLUMN id_sha256 SET NOT NULL")
        if pk.count == 0 || onID {
            try db.execute("ALTER TABLE \(quoted) ADD PRIMARY KEY (id_sha256)")
        } else {
            // A primary key of the user's own, on other columns: left alone.
            try db.execute("CREATE UNIQUE INDEX ON \(quoted) (id_sha256)")
        }
        try db.execute("CREATE INDEX ON \(quoted) USING hash (id)")
        return rows
    }

    /// Inserts every item of the array in `$1`; an id already there gets every other column
    /// replaced (the newest version of the item wins).
    func upsert(_ key: Key) -> String {
        let conflict = key == .idSHA256 ? "id_sha256" : "id"
        let keyColumn = key == .idSHA256 ? "id_sha256, " : ""
        let keyValue = key == .idSHA256 ? "sha256(convert_to(e->>'id', 'UTF8')), " : ""
        let updated = key == .idSHA256 ? Self.columns : Array(Self.columns.dropFirst())
        return """
        INSERT INTO \(quoted)(\(keyColumn)\(Self.columns.joined(separator: ", ")))
        SELECT \(keyValue)e->>'id', e->>'source', e->>'type', e->>'kind', e->>'title', e->>'summary', e->>'url', e->>'image', e->>'author',
               (e->>'published')::timestamptz, (e->>'fetched')::timestamptz,
               CASE WHEN e ? 'tags' THEN ARRAY(SELECT jsonb_array_elements_text(e->'tags')) END,
               (e->'geo'->>'lat')::double precision, (e->'geo'->>'lon')::double precision, e->'data'
        FROM jsonb_array_elements($1::jsonb) AS e
        ON CONFLICT (\(conflict)) DO UPDATE SET \(updated.map { "\($0) = excluded.\($0)" }.joined(separator: ", "))
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
