import TributaryCore
#if canImport(Glibc)
import Glibc
#endif

/// `tributary search QUERY`: an FTS5 query over the items an `sqlite` sink keeps
/// (Docs/sinks/sqlite.md), newest first, as text lines or JSON Lines. The file is opened for
/// reading only (a running `watch` may be writing it: WAL). Exit 0 with matches, 1 without, 2 on
/// a query FTS5 does not accept or a file it cannot read.
///
/// It reads the table as any consumer does, by its documented columns: `items` and its index
/// `items_fts`, whose rowid (`items.seq`) is the item's time, so `ORDER BY rowid DESC LIMIT n`
/// is answered from the index alone, however many rows match.
enum SearchCommand {
    static let defaultLimit = 20

    static let query = """
        SELECT i.id, i.source, i.type, i.kind, i.title, i.summary, i.content, i.url, i.image, i.author, i.published, i.fetched, i.tags, i.lat, i.lon, i.data
        FROM (SELECT rowid AS r FROM items_fts WHERE items_fts MATCH ?1 ORDER BY rowid DESC LIMIT ?2) AS m
        JOIN items AS i ON i.seq = m.r ORDER BY m.r DESC
        """

    /// The file to search: `--db`, else the path of the config's only `sqlite` sink.
    static func database(_ config: Config, err: FDOutput) -> String? {
        let archives = config.sinks.compactMap { s in (s.sink as? any ArchivingSink).map { (s.name, $0.archivePath) } }
        guard archives.count == 1 else {
            if archives.isEmpty {
                err.log("tributary: search: \(config.file) has no sqlite sink to search; add one ({\"type\": \"sqlite\", \"path\": \"items.sqlite\"}) or give --db PATH\n")
            } else {
                err.log("tributary: search: \(config.file) has \(archives.count) sqlite sinks (\(archives.map { "\($0.0): \($0.1)" }.joined(separator: ", "))); say which with --db PATH\n")
            }
            return nil
        }
        return archives[0].1
    }

    static func run(query text: String, path: String, limit: String?, json: Bool, lines: ItemLines, out: FDOutput, err: FDOutput) -> Int32 {
        var count = defaultLimit
        if let limit {
            guard let n = Int(limit), n > 0 else {
                err.log("tributary: search: --limit expects a whole number above 0, found \"\(limit)\"\n")
                return 2
            }
            count = n
        }
        if text.allSatisfy({ $0 == " " || $0 == "\t" }) {
            err.log("tributary: search: the query is empty; give words to look for, e.g. tributary search 'river flood'\n")
            return 2
        }
        var st = stat()
        guard stat(path, &st) == 0 else {
            err.log("tributary: search: cannot read \(path): \(String(cString: strerror(errno))) (the sqlite sink's file; it is made by the first run that writes to it)\n")
            return 2
        }
        let db: SQLiteConnection
        do throws(SQLiteError) { db = try SQLiteConnection(readOnlyAt: path) } catch {
            err.log("tributary: search: cannot open \(path): \(error.message)\n")
            return 2
        }
        defer { db.close() }
        let statement: SQLiteStatement
        do throws(SQLiteError) {
            let fts = try db.columns(of: "items_fts")
            let items = try db.columns(of: "items")
            guard !fts.isEmpty, items.contains("seq") else {
                err.log("tributary: search: \(path) is not a file of the sqlite sink: it has no table \(items.isEmpty ? "items" : fts.isEmpty ? "items_fts" : "items with the column seq") (Docs/sinks/sqlite.md)\n")
                return 2
            }
            statement = try db.statement(query)
        } catch {
            err.log("tributary: search: cannot read \(path): \(error.isNotADatabase ? "it is not an SQLite database" : error.message)\n")
            return 2
        }
        statement.bind(1, text).bind(2, count)
        var buf: [UInt8] = []
        var found = 0
        do throws(SQLiteError) {
            while try statement.step() {
                let item = self.item(statement)
                if json { item.appendJSON(into: &buf) } else { buf.append(contentsOf: lines.line(item).utf8) }
                buf.append(0x0A)
                found += 1
            }
        } catch {
            if let why = explain(error.message) {
                err.log("tributary: search: the query \(quoted(text)) is not valid: \(why) (SQLite: \(error.message))\n")
            } else {
                err.log("tributary: search: cannot read \(path): \(error.message)\n")
            }
            return 2
        }
        if !buf.isEmpty {
            do { try out.write(buf) } catch { return 1 }
        }
        return found > 0 ? 0 : 1
    }

    static func quoted(_ s: String) -> String {
        var bytes: [UInt8] = []
        JSONWriter.writeString(s, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// What FTS5's message about a query means, in words; nil for a message that is not about
    /// the query (a damaged file, an I/O error).
    static func explain(_ message: String) -> String? {
        let columns = "the columns are title, summary and content"
        if message == "unterminated string" {
            return "unterminated string: a \" opens a phrase that no \" closes"
        }
        if message.hasPrefix("no such column: ") {
            let name = String(message.dropFirst("no such column: ".count))
            return "unknown column \"\(name)\": a word before \":\" (or after \"-\") names a column, and \(columns); put words with punctuation in double quotes (\"e-mail\")"
        }
        if message.hasPrefix("fts5: syntax error near ") {
            let near = String(message.dropFirst("fts5: syntax error near ".count))
            if near == "\"\"" {
                return "syntax error at the end of the query: it stops where more must follow (after AND, OR, NOT, NEAR or an unclosed parenthesis)"
            }
            return "syntax error near \(near): AND, OR and NOT go between two terms, parentheses must pair, and other punctuation must be inside double quotes (\"c++\")"
        }
        if message.hasPrefix("unknown special query") {
            return "a * alone is not a query: it ends a prefix (hydro*)"
        }
        if message.hasPrefix("fts5:") { return String(message.dropFirst(6)) }
        return nil
    }

    /// The item a row holds (what the sink kept of it: `content_html` and `story` are not kept).
    static func item(_ s: SQLiteStatement) -> Item {
        var item = Item(id: s.string(0) ?? "", source: s.string(1) ?? "", type: s.string(2) ?? "", kind: s.string(3) ?? "", title: s.string(4) ?? "",
                        summary: s.string(5), content: s.string(6), url: s.string(7), image: s.string(8), author: s.string(9),
                        published: s.string(10).flatMap(Timestamp.parseRFC3339), fetched: s.string(11).flatMap(Timestamp.parseRFC3339) ?? Timestamp(seconds: 0))
        if let tags = s.string(12), case .array(let values)? = try? JSONParser.parse(tags) {
            item.tags = values.compactMap { if case .string(let t) = $0 { return t } else { return nil } }
        }
        if let lat = s.double(13), let lon = s.double(14) { item.geo = Geo(lat: lat, lon: lon) }
        if let data = s.string(15), case .object(let o)? = try? JSONParser.parse(data) { item.data = o }
        return item
    }
}
