import TributaryPluginKit
import TributaryCore

/// `sqlite`: keeps every item it receives in the table `items` of an SQLite file, with an FTS5
/// full-text index over `title`, `summary` and `content` (`items_fts`, external content kept in
/// step by triggers), for `tributary search` and for anyone who wants the items in SQL
/// (Docs/sinks/sqlite.md). One transaction per batch, fsynced (WAL, `synchronous=FULL`), so the
/// items are in the file when `write` returns; an id already there has its row replaced.
///
/// The row's `seq` (its rowid, which the index refers to) is its time, published else fetched,
/// in seconds times 2^20 plus 20 bits of the id's hash: the index's rowid order is then newest
/// first, and `search` reads `ORDER BY rowid DESC LIMIT n` straight off the index, however many
/// rows match.
public final class SQLiteSink: ArchivingSink {
    public static let descriptor = SinkDescriptor(type: "sqlite", summary: "keeps every item in an SQLite file with a full-text index (tributary search)",
                                                  options: [path], aliases: ["sqlite3", "archive"]) { reader in
        SQLiteSink(path: reader[path])
    }

    // The folder must be writable, not only the file: SQLite writes its -wal and -shm files beside it.
    static let path = Option.outputFile("path", replaced: true, "the database file, relative to the config file; created if missing, with its folder")
        .aliases("file", "db", "database").required

    /// The columns of `items`, in order: the postgres sink's (its `id_sha256` aside), `content`
    /// added, and `seq`. An existing table must have them all; others are left alone.
    static let columns = ["id", "source", "type", "kind", "title", "summary", "content", "url", "image", "author", "published", "fetched", "tags", "lat", "lon", "data", "seq"]

    static let schema = """
        CREATE TABLE IF NOT EXISTS items(id TEXT NOT NULL UNIQUE, source TEXT NOT NULL, type TEXT NOT NULL, kind TEXT NOT NULL,
            title TEXT NOT NULL, summary TEXT, content TEXT, url TEXT, image TEXT, author TEXT, published TEXT, fetched TEXT NOT NULL,
            tags TEXT, lat REAL, lon REAL, data TEXT, seq INTEGER PRIMARY KEY);
        CREATE VIRTUAL TABLE IF NOT EXISTS items_fts USING fts5(title, summary, content, content='items', content_rowid='seq',
            tokenize='unicode61 remove_diacritics 2');
        CREATE TRIGGER IF NOT EXISTS items_fts_insert AFTER INSERT ON items BEGIN
            INSERT INTO items_fts(rowid, title, summary, content) VALUES (new.seq, new.title, new.summary, new.content);
        END;
        CREATE TRIGGER IF NOT EXISTS items_fts_delete AFTER DELETE ON items BEGIN
            INSERT INTO items_fts(items_fts, rowid, title, summary, content) VALUES ('delete', old.seq, old.title, old.summary, old.content);
        END;
        CREATE TRIGGER IF NOT EXISTS items_fts_update AFTER UPDATE ON items BEGIN
            INSERT INTO items_fts(items_fts, rowid, title, summary, content) VALUES ('delete', old.seq, old.title, old.summary, old.content);
            INSERT INTO items_fts(rowid, title, summary, content) VALUES (new.seq, new.title, new.summary, new.content);
        END;
        """

    static let upsert = """
        INSERT INTO items(id, source, type, kind, title, summary, content, url, image, author, published, fetched, tags, lat, lon, data, seq)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)
        ON CONFLICT(id) DO UPDATE SET source = excluded.source, type = excluded.type, kind = excluded.kind, title = excluded.title,
            summary = excluded.summary, content = excluded.content, url = excluded.url, image = excluded.image, author = excluded.author,
            published = excluded.published, fetched = excluded.fetched, tags = excluded.tags, lat = excluded.lat, lon = excluded.lon,
            data = excluded.data, seq = excluded.seq
        """

    let path: String
    public var archivePath: String { path }
    /// The connection, opened by `open`. The engine calls a sink from one thread at a time
    /// (Sink contract); the lock keeps that sound.
    private let db = Locked<SQLiteConnection?>(nil)

    init(path: String) {
        self.path = path
    }

    private func failure(_ what: String) -> SinkError { SinkError("sqlite: \(path): \(what)") }

    /// Words for what SQLite said: a locked file, a file that is not a database, a read-only one.
    private func explain(_ e: SQLiteError) -> String {
        if e.isNotADatabase { return "the file is not an SQLite database (\(e.message)); give the sink a path of its own" }
        if e.isBusy { return "the database is locked by another process (\(e.message)), waited 5 s" }
        if e.isReadOnly { return "the database cannot be written (\(e.message))" }
        if e.cannotOpen { return "cannot open the database (\(e.message))" }
        return e.message
    }

    public func open(_ context: SinkContext) throws(SinkError) {
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
            try AtomicFile.makeDirectories(String(path[..<slash]))
        }
        let connection: SQLiteConnection
        do throws(SQLiteError) { connection = try SQLiteConnection(path: path) } catch { throw failure(explain(error)) }
        var missing: [String] = []
        do throws(SQLiteError) {
            // WAL: readers (`tributary search`) never block the writer, nor it them. FULL: each
            // batch's commit is fsynced before `write` returns (the state records it next).
            try connection.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;")
            let existing = try connection.columns(of: "items")
            missing = existing.isEmpty ? [] : Self.columns.filter { !existing.contains($0) }
            if missing.isEmpty {
                let indexed = try !connection.columns(of: "items_fts").isEmpty
                try connection.transaction { () throws(SQLiteError) in
                    try connection.exec(Self.schema)
                    // A table made without its index (by hand, or the index dropped): fill it.
                    if !existing.isEmpty && !indexed { try connection.exec("INSERT INTO items_fts(items_fts) VALUES ('rebuild')") }
                }
            }
        } catch {
            connection.close()
            throw failure(explain(error))
        }
        if !missing.isEmpty {
            connection.close()
            throw failure("the table items exists with other columns (missing: \(missing.joined(separator: ", "))), so it is not this sink's (Docs/sinks/sqlite.md); give the sink a file of its own")
        }
        db.withLock { $0 = connection }
    }

    public func write(_ items: [Item]) throws(SinkError) {
        guard !items.isEmpty else { return }
        try db.withLock { (c: inout SQLiteConnection?) throws(SinkError) in
            guard let connection = c else { throw failure("written before it was opened") }
            do throws(SQLiteError) {
                try connection.transaction { () throws(SQLiteError) in
                    let taken = try connection.statement("SELECT id FROM items WHERE seq = ?1")
                    let upsert = try connection.statement(Self.upsert)
                    for i in items.indices {
                        let item = items[i]
                        // A free seq near the item's time (or its own row's).
                        var seq = Self.seq(item)
                        while true {
                            taken.bind(1, seq)
                            let owner = try taken.step() ? taken.string(0) : nil
                            taken.reset()
                            if owner == nil || owner == item.id { break }
                            seq += 1
                        }
                        try Self.bind(item, seq: seq, upsert).run()
                    }
                }
            } catch {
                throw failure(explain(error) + "; the batch (\(items.count) items) was rolled back and comes again")
            }
        }
    }

    public func close() throws(SinkError) {
        db.withLock { c in
            c?.close()
            c = nil
        }
    }

    /// The row's key: its time (published, else fetched; whole seconds from 1970 to 9999) times
    /// 2^20, plus 20 bits of the FNV-1a hash of its id.
    static func seq(_ item: Item) -> Int {
        let t = (item.published ?? item.fetched).seconds
        let seconds = t.isFinite ? Int(min(max(t, 0), Timestamp.latest)) : 0
        var h: UInt64 = 0xcbf29ce484222325
        for b in item.id.utf8 { h = (h ^ UInt64(b)) &* 0x100000001b3 }
        return seconds << 20 | Int(h & 0xFFFFF)
    }

    static func bind(_ item: Item, seq: Int, _ s: SQLiteStatement) -> SQLiteStatement {
        s.bind(1, item.id).bind(2, item.source).bind(3, item.type).bind(4, item.kind).bind(5, item.title)
        s.bind(6, item.summary).bind(7, item.content).bind(8, item.url).bind(9, item.image).bind(10, item.author)
        s.bind(11, item.published?.rfc3339).bind(12, item.fetched.rfc3339)
        s.bind(13, item.tags.isEmpty ? nil : String(decoding: JSONWriter.serialize(.array(item.tags.map { .string($0) })), as: UTF8.self))
        let geo = item.geo.flatMap { $0.isValid ? $0 : nil }
        s.bind(14, geo?.lat).bind(15, geo?.lon)
        s.bind(16, item.data.isEmpty ? nil : String(decoding: JSONWriter.serialize(.object(item.data)), as: UTF8.self))
        s.bind(17, seq)
        return s
    }
}
