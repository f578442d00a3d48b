import TributaryBase
import TributaryJSON
import TributaryOptions
import TributaryPostgres
import CSQLite

/// The SQLite schema, one numbered step at a time. `PRAGMA user_version` is the step a file
/// has reached; opening a file for writing runs the steps it lacks, each in its own
/// transaction with the version it reaches, so a file is always at exactly one step. A step is
/// never edited once released: a change of schema is a new step (SQL in `migrations`, or a
/// function where SQL alone cannot do it: `step3`).
extension SQLiteState {
    package static let migrations: [(version: Int, sql: String)] = [
        // 1: ids, validators, sinks' windows, the sources' run records, quotas.
        (1, """
        CREATE TABLE IF NOT EXISTS emitted(id TEXT PRIMARY KEY, source TEXT NOT NULL, first_seen REAL NOT NULL, last_seen REAL NOT NULL, hash TEXT NOT NULL) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS emitted_last_seen ON emitted(last_seen);
        CREATE TABLE IF NOT EXISTS validators(url TEXT PRIMARY KEY, etag TEXT, last_modified TEXT, body BLOB NOT NULL, updated REAL NOT NULL) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS recent_items(sink TEXT NOT NULL, id TEXT NOT NULL, sort_time REAL NOT NULL, line BLOB NOT NULL, PRIMARY KEY(sink, id)) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS sources(name TEXT PRIMARY KEY, type TEXT NOT NULL, last_run REAL, last_success REAL, failures INTEGER NOT NULL DEFAULT 0, next_due REAL, last_error TEXT, in_config REAL NOT NULL);
        CREATE TABLE IF NOT EXISTS quotas(source TEXT PRIMARY KEY, window_start REAL NOT NULL, requests INTEGER NOT NULL);
        """),
        // 2: cumulative totals for `status` and the metrics: per source (items fetched and
        // delivered, failed runs, the time of its last new item, of its first record, and its
        // last run's duration) and the counters that are not a source's. The totals of a file
        // from before start from what it still holds: the ids each source delivered (within
        // retention) and its current failure streak.
        (2, """
        ALTER TABLE sources ADD COLUMN fetched_total INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE sources ADD COLUMN emitted_total INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE sources ADD COLUMN failures_total INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE sources ADD COLUMN last_new REAL;
        ALTER TABLE sources ADD COLUMN first_run REAL;
        ALTER TABLE sources ADD COLUMN last_duration REAL;
        CREATE TABLE counters(name TEXT NOT NULL, label TEXT NOT NULL, value INTEGER NOT NULL, PRIMARY KEY(name, label)) WITHOUT ROWID;
        UPDATE sources SET
            emitted_total = (SELECT count(*) FROM emitted WHERE emitted.source = sources.name),
            last_new = (SELECT max(first_seen) FROM emitted WHERE emitted.source = sources.name),
            first_run = COALESCE((SELECT min(first_seen) FROM emitted WHERE emitted.source = sources.name), last_run),
            failures_total = failures;
        """),
        // 4: values processors keep (a page's extracted text, a story's record), by namespace
        // and the SHA-256 of their key, with the time they were last set (for retention).
        (4, """
        CREATE TABLE kv(ns TEXT NOT NULL, key_hash BLOB NOT NULL, value BLOB NOT NULL, updated REAL NOT NULL, PRIMARY KEY(ns, key_hash)) WITHOUT ROWID;
        CREATE INDEX kv_updated ON kv(updated);
        """),
        // 5: new items per source and UTC day (`NewPerDay`), for the status page's charts.
        (5, """
        CREATE TABLE source_days(source TEXT NOT NULL, day INTEGER NOT NULL, new INTEGER NOT NULL, PRIMARY KEY(source, day)) WITHOUT ROWID;
        """),
    ]

    /// 3: `emitted` is keyed on the SHA-256 of the id (`id_hash`, 32 bytes), with the id kept
    /// beside it, so the key is the same size whatever the id's length (as in the PostgreSQL
    /// state, whose btree index cannot hold a row over about 2.7 KB). SQLite has no SHA-256 of
    /// its own: the existing rows are copied into the new table here, each id hashed by
    /// `StateKeys.idHash`.
    static func step3(_ db: Database) throws(StateError) {
        try db.exec("""
            CREATE TABLE emitted_v3(id_hash BLOB PRIMARY KEY, id TEXT NOT NULL, source TEXT NOT NULL, first_seen REAL NOT NULL, last_seen REAL NOT NULL, hash TEXT NOT NULL) WITHOUT ROWID;
            """)
        let read = try db.statement("SELECT id, source, first_seen, last_seen, hash FROM emitted")
        let write = try db.statement("INSERT OR IGNORE INTO emitted_v3(id_hash, id, source, first_seen, last_seen, hash) VALUES(?, ?, ?, ?, ?, ?)")
        while try read.step() {
            guard let id = read.string(0) else { continue }
            write.bind(1, blob: StateKeys.idHash(id)).bind(2, id).bind(3, read.string(1) ?? "").bind(4, read.double(2) ?? 0).bind(5, read.double(3) ?? 0).bind(6, read.string(4) ?? "")
            try write.run()
        }
        sqlite3_reset(read.stmt)
        try db.exec("""
            DROP TABLE emitted;
            ALTER TABLE emitted_v3 RENAME TO emitted;
            CREATE INDEX emitted_last_seen ON emitted(last_seen);
            """)
    }

    static func userVersion(_ db: Database) throws(StateError) -> Int {
        let s = try db.statement("PRAGMA user_version")
        defer { sqlite3_reset(s.stmt) }
        return try s.step() ? s.int(0) ?? 0 : 0
    }

    /// Brings the file to `schemaVersion`; a file from a newer tributary is an error.
    static func migrate(_ db: Database, path: String) throws(StateError) {
        let version = try userVersion(db)
        if version > schemaVersion {
            throw StateError("the state file \(path) was written by a newer tributary (schema \(version), this one knows \(schemaVersion))")
        }
        // In version order: the SQL steps, and step 3 in its place (it needs code).
        for v in (version + 1)...max(version + 1, schemaVersion) where v <= schemaVersion {
            try db.transaction { () throws(StateError) in
                if v == 3 {
                    try step3(db)
                } else if let step = migrations.first(where: { $0.version == v }) {
                    try db.exec(step.sql)
                }
                try db.exec("PRAGMA user_version = \(v);")
            }
        }
    }
}
