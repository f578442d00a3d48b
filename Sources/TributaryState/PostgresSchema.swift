import TributaryBase
import TributaryJSON
import TributaryOptions
import TributaryPostgres

/// The tables of a PostgreSQL state, in one schema (`state.schema`, default `tributary`), and
/// their migrations. The version lives in `<schema>.meta` (`schema_version`); a newer version
/// than this build knows is refused. Migrations run under an advisory lock, so workers that
/// start at once do not race to create the same tables.
///
/// Times are seconds since 1970 (`double precision`), as in the SQLite state, except
/// `lease_until`, which the database's own clock sets and compares (`now()`), so workers on
/// machines whose clocks differ still agree on when a lease ends. Text keys that are scanned
/// by range (`validators.url`) use the "C" collation, so the range is a byte-order prefix.
package enum PostgresSchema {
    package static let version = 5

    /// The statements that create version 1 in schema `s` (already quoted).
    package static func version1(_ s: String) -> [String] { [
        "CREATE TABLE IF NOT EXISTS \(s).emitted(id text COLLATE \"C\" PRIMARY KEY, source text NOT NULL, first_seen double precision NOT NULL, last_seen double precision NOT NULL, hash text NOT NULL)",
        "CREATE INDEX IF NOT EXISTS emitted_last_seen ON \(s).emitted(last_seen)",
        "CREATE TABLE IF NOT EXISTS \(s).validators(url text COLLATE \"C\" PRIMARY KEY, etag text, last_modified text, body bytea NOT NULL, updated double precision NOT NULL)",
        "CREATE TABLE IF NOT EXISTS \(s).recent_items(sink text NOT NULL, id text NOT NULL, sort_time double precision NOT NULL, line text NOT NULL, PRIMARY KEY(sink, id))",
        """
        CREATE TABLE IF NOT EXISTS \(s).sources(name text PRIMARY KEY, type text NOT NULL, last_run double precision, last_success double precision,
            failures integer NOT NULL DEFAULT 0, next_due double precision, last_error text, in_config double precision NOT NULL,
            lease_owner text, lease_until timestamptz)
        """,
        "CREATE TABLE IF NOT EXISTS \(s).quotas(source text PRIMARY KEY, window_start double precision NOT NULL, requests integer NOT NULL)",
    ] }

    /// Version 2, as the SQLite state's step 2: cumulative totals for `status` and the metrics,
    /// per source and in `counters`; a state from before starts them from what it holds.
    package static func version2(_ s: String) -> [String] { [
        """
        ALTER TABLE \(s).sources ADD COLUMN IF NOT EXISTS fetched_total bigint NOT NULL DEFAULT 0,
            ADD COLUMN IF NOT EXISTS emitted_total bigint NOT NULL DEFAULT 0,
            ADD COLUMN IF NOT EXISTS failures_total bigint NOT NULL DEFAULT 0,
            ADD COLUMN IF NOT EXISTS last_new double precision,
            ADD COLUMN IF NOT EXISTS first_run double precision,
            ADD COLUMN IF NOT EXISTS last_duration double precision
        """,
        "CREATE TABLE IF NOT EXISTS \(s).counters(name text NOT NULL, label text NOT NULL, value bigint NOT NULL, PRIMARY KEY(name, label))",
        """
        UPDATE \(s).sources SET
            emitted_total = (SELECT count(*) FROM \(s).emitted e WHERE e.source = sources.name),
            last_new = (SELECT max(first_seen) FROM \(s).emitted e WHERE e.source = sources.name),
            first_run = COALESCE((SELECT min(first_seen) FROM \(s).emitted e WHERE e.source = sources.name), last_run),
            failures_total = failures
        """,
    ] }

    /// Version 3: the ids are keyed on their SHA-256 (`id_hash`, 32 bytes), with the id kept
    /// beside it, in `emitted` and in `recent_items`: a btree index entry cannot be larger than
    /// about 2.7 KB, so an id over that failed every batch that held it (`index row size exceeds
    /// btree maximum 2704`). `emitted` is copied into a new table (its index built after the
    /// rows are in); `recent_items`, a few rows per feed sink, gets the column in place. The
    /// existing rows are hashed by the server (`sha256`, PostgreSQL 11 and later) exactly as
    /// `StateKeys.idHash` hashes new ids.
    static func version3(_ s: String) -> [String] { [
        """
        CREATE TABLE \(s).emitted_v3(id_hash bytea NOT NULL, id text NOT NULL, source text NOT NULL, first_seen double precision NOT NULL,
            last_seen double precision NOT NULL, hash text NOT NULL)
        """,
        "INSERT INTO \(s).emitted_v3 SELECT sha256(convert_to(id, 'UTF8')), id, source, first_seen, last_seen, hash FROM \(s).emitted",
        "DROP TABLE \(s).emitted",
        "ALTER TABLE \(s).emitted_v3 RENAME TO emitted",
        "ALTER TABLE \(s).emitted ADD CONSTRAINT emitted_pkey PRIMARY KEY (id_hash)",
        "CREATE INDEX emitted_last_seen ON \(s).emitted(last_seen)",
        "ALTER TABLE \(s).recent_items ADD COLUMN id_hash bytea",
        "UPDATE \(s).recent_items SET id_hash = sha256(convert_to(id, 'UTF8'))",
        "ALTER TABLE \(s).recent_items DROP CONSTRAINT recent_items_pkey, ALTER COLUMN id_hash SET NOT NULL, ADD PRIMARY KEY (sink, id_hash)",
    ] }

    /// Version 4, as the SQLite state's step 4: the values processors keep, by namespace and
    /// the SHA-256 of their key, with when they were last set (for retention).
    static func version4(_ s: String) -> [String] { [
        """
        CREATE TABLE IF NOT EXISTS \(s).kv(ns text NOT NULL, key_hash bytea NOT NULL, value bytea NOT NULL, updated double precision NOT NULL,
            PRIMARY KEY(ns, key_hash))
        """,
        "CREATE INDEX IF NOT EXISTS kv_updated ON \(s).kv(updated)",
    ] }

    /// Version 5, as the SQLite state's step 5: new items per source and UTC day (`NewPerDay`).
    static func version5(_ s: String) -> [String] { [
        "CREATE TABLE IF NOT EXISTS \(s).source_days(source text NOT NULL, day integer NOT NULL, new bigint NOT NULL, PRIMARY KEY(source, day))",
    ] }

    /// The version of the state in schema `schema` as it is, without changing anything: nil
    /// when it has no tables of ours (no worker has opened it yet).
    static func currentVersion(_ db: PostgresConnection, schema: String) throws(PostgresError) -> Int? {
        let s = PostgresConnection.quote(identifier: schema)
        let meta = try db.execute("SELECT to_regclass($1) IS NOT NULL", [.text(s + ".meta")])
        guard meta.count > 0, meta.string(0, 0) == "t" else { return nil }
        let rows = try db.execute("SELECT value FROM \(s).meta WHERE key = 'schema_version'")
        let version = rows.count > 0 ? rows.int(0, 0) ?? 0 : 0
        return version > 0 ? version : nil
    }

    /// Creates the schema and its tables if missing, or brings them to `version`.
    static func migrate(_ db: PostgresConnection, schema: String, location: String) throws(StateError) {
        let s = PostgresConnection.quote(identifier: schema)
        do {
            try db.transaction { () throws(PostgresError) in
                try db.execute("SELECT pg_advisory_xact_lock(hashtext($1))", [.text("tributary schema " + schema)])
                try db.execute("CREATE SCHEMA IF NOT EXISTS \(s)")
                try db.execute("CREATE TABLE IF NOT EXISTS \(s).meta(key text PRIMARY KEY, value text NOT NULL)")
                let rows = try db.execute("SELECT value FROM \(s).meta WHERE key = 'schema_version'")
                let current = rows.count > 0 ? rows.int(0, 0) ?? 0 : 0
                if current > version {
                    throw PostgresError("the state \(location) was written by a newer tributary (schema \(current), this one knows \(version))")
                }
                if current < 1 {
                    for sql in version1(s) { try db.execute(sql) }
                }
                if current < 2 {
                    for sql in version2(s) { try db.execute(sql) }
                }
                if current < 3 {
                    for sql in version3(s) { try db.execute(sql) }
                }
                if current < 4 {
                    for sql in version4(s) { try db.execute(sql) }
                }
                if current < 5 {
                    for sql in version5(s) { try db.execute(sql) }
                }
                if current < version {
                    try db.execute("INSERT INTO \(s).meta(key, value) VALUES('schema_version', $1) ON CONFLICT(key) DO UPDATE SET value = excluded.value", [.text(String(version))])
                }
            }
        } catch {
            throw StateError(error.message, transient: error.transient)
        }
    }
}
