import Foundation
import XCTest
import TributaryCore
import TributaryTestSupport

/// The `sqlite` sink and `tributary search` through the release binary: the file read back by
/// Python's sqlite3 (the real consumer), an update by id across runs, a batch that fails and
/// comes again, the errors people see, and search beside a running `watch`.
final class SQLiteSinkEndToEndTests: XCTestCase {
    /// A folder with a config whose exec source prints `items.jsonl` (`cat`), which the test
    /// rewrites between runs, into an sqlite sink at out/items.sqlite.
    func setUp(_ items: [[String: Any]], interval: String = "15m") throws -> (TempDir, String, String) {
        let dir = TempDir()
        write(items, to: dir)
        let cfg = dir.write("tributary.json", #"""
        {"state":{"path":"state.sqlite"},
         "sources":[{"name":"notes","type":"exec","command":["cat","items.jsonl"],"emit_updates":true,"interval":"\#(interval)"}],
         "sinks":[{"type":"sqlite","path":"out/items.sqlite"}]}
        """#)
        return (dir, cfg, dir.path + "/out/items.sqlite")
    }

    func write(_ items: [[String: Any]], to dir: TempDir) {
        let lines = items.map { String(decoding: try! JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys]), as: UTF8.self) }
        _ = dir.write("items.jsonl", lines.joined(separator: "\n") + "\n")
    }

    func item(_ n: Int, _ title: String, summary: String? = nil, content: String? = nil, day: Int) -> [String: Any] {
        var o: [String: Any] = ["id": "n\(n)", "title": title, "url": "https://example.org/\(n)", "published": String(format: "2026-11-%02dT10:00:00Z", day),
                                "tags": ["t\(n)"], "data": ["rank": n]]
        if let summary { o["summary"] = summary }
        if let content { o["content"] = content }
        return o
    }

    /// Python's sqlite3 on the file: one JSON array of rows (or of the result of `sql`).
    func query(_ db: String, _ sql: String) throws -> [[Any]] {
        let script = """
        import json, sqlite3, sys
        c = sqlite3.connect('file:' + sys.argv[1] + '?mode=ro', uri=True)
        print(json.dumps([list(r) for r in c.execute(sys.argv[2])]))
        """
        let r = try Shell.run([Tool.require("python3"), "-c", script, db, sql])
        XCTAssertEqual(r.status, 0, r.stderr)
        return (try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[Any]]) ?? []
    }

    func search(_ args: [String]) throws -> BinaryRunner.Result { try BinaryRunner.run(["search"] + args) }

    func testArchiveAcrossRunsAndSearch() throws {
        let (dir, cfg, db) = try setUp([
            item(1, "River flood warning", summary: "Water levels rise", content: "The river rose two metres overnight.", day: 1),
            item(2, "Harbour dredging", summary: "Port works", content: "Dredging the river mouth starts in spring.", day: 3),
            item(3, "Café opening", summary: "Coffee", content: "A new coffee house opens by the bridge.", day: 2),
        ])
        defer { dir.remove() }
        let first = try BinaryRunner.run(["run", "-c", cfg])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(try query(db, "SELECT id, title, summary, content, published, tags, json_extract(data, '$.rank') FROM items ORDER BY id").map { $0.map { "\($0)" } }, [
            ["notes:n1", "River flood warning", "Water levels rise", "The river rose two metres overnight.", "2026-11-01T10:00:00Z", #"["t1"]"#, "1"],
            ["notes:n2", "Harbour dredging", "Port works", "Dredging the river mouth starts in spring.", "2026-11-03T10:00:00Z", #"["t2"]"#, "2"],
            ["notes:n3", "Café opening", "Coffee", "A new coffee house opens by the bridge.", "2026-11-02T10:00:00Z", #"["t3"]"#, "3"],
        ])
        XCTAssertEqual(try query(db, "PRAGMA journal_mode").first?.first as? String, "wal")

        // Second run: n2 changed (same id), n4 new: one row each, the index follows the update.
        write([
            item(1, "River flood warning", summary: "Water levels rise", content: "The river rose two metres overnight.", day: 1),
            item(2, "Harbour reopened", summary: "Port works done", content: "The lock gates are back in service.", day: 3),
            item(3, "Café opening", summary: "Coffee", content: "A new coffee house opens by the bridge.", day: 2),
            item(4, "Bridge repairs", summary: "Traffic", content: "The river bridge closes for a week.", day: 4),
        ], to: dir)
        let second = try BinaryRunner.run(["run", "-c", cfg])
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertEqual(try query(db, "SELECT count(*), count(DISTINCT id) FROM items").first?.map { "\($0)" }, ["4", "4"])
        XCTAssertEqual(try query(db, "SELECT title FROM items WHERE id = 'notes:n2'").first?.first as? String, "Harbour reopened")
        XCTAssertEqual(try query(db, "SELECT rowid FROM items_fts WHERE items_fts MATCH 'dredging'").count, 0, "the old text left the index")
        XCTAssertEqual(try query(db, "SELECT i.id FROM items_fts f JOIN items i ON i.seq = f.rowid WHERE items_fts MATCH 'gates'").map { "\($0[0])" }, ["notes:n2"])
        XCTAssertEqual(try query(db, "SELECT count(*) FROM items_fts WHERE items_fts MATCH 'river'").first?.first as? Int, 2)

        // search: text lines newest first, --limit, --json, none (1), bad queries (2).
        let river = try search(["-c", cfg, "river"])
        XCTAssertEqual(river.status, 0, river.stderr)
        XCTAssertEqual(river.stdoutLines.count, 2, river.stdout)
        XCTAssertTrue(river.stdoutLines[0].contains("Bridge repairs") && river.stdoutLines[1].contains("River flood warning"), river.stdout)
        XCTAssertTrue(river.stdoutLines[0].contains("https://example.org/4"), river.stdout)
        let cafe = try search(["--db", db, "cafe OR coffee", "--json"])
        XCTAssertEqual(cafe.status, 0, cafe.stderr)
        let objects = try cafe.stdoutLines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        XCTAssertEqual(objects.map { $0["id"] as? String }, ["notes:n3"])
        XCTAssertEqual(objects.first?["title"] as? String, "Café opening")
        XCTAssertEqual(objects.first?["content"] as? String, "A new coffee house opens by the bridge.")
        XCTAssertEqual(objects.first?["published"] as? String, "2026-11-02T10:00:00Z")
        XCTAssertEqual(objects.first?["tags"] as? [String], ["t3"])
        XCTAssertEqual(objects.first?["source"] as? String, "notes")
        XCTAssertEqual(try SchemaValidator.itemSchema().validate(line: cafe.stdoutLines[0]), [])
        let limited = try search(["--db", db, "title:(river OR harbour OR bridge OR café)", "--limit", "2", "--json"])
        XCTAssertEqual(limited.status, 0, limited.stderr)
        XCTAssertEqual(try limited.stdoutLines.map { (try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any])["id"] as? String }, ["notes:n4", "notes:n2"])
        let none = try search(["--db", db, "volcano"])
        XCTAssertEqual(none.status, 1, none.stderr)
        XCTAssertEqual(none.stdout, "")
        for (q, words) in [("\"unclosed", "unterminated string"), ("e-mail", "unknown column \"mail\""), ("river AND", "syntax error at the end"), ("c++", "syntax error near \"+\"")] {
            let bad = try search(["--db", db, q])
            XCTAssertEqual(bad.status, 2, "\(q): \(bad.stderr)")
            XCTAssertTrue(bad.stderr.contains("is not valid: \(words)"), "\(q): \(bad.stderr)")
        }
        let missing = try search(["--db", dir.path + "/nope.sqlite", "river"])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("cannot read \(dir.path)/nope.sqlite"), missing.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.path + "/nope.sqlite"), "search creates nothing")
    }

    func testAFailedBatchComesAgainAndErrorsNameTheSinkAndFile() throws {
        let (dir, cfg, db) = try setUp([item(1, "First", day: 1)])
        defer { dir.remove() }
        XCTAssertEqual(try BinaryRunner.run(["run", "-c", cfg]).status, 0)
        // A trigger of the reader's own refuses one item: the whole batch is rolled back.
        _ = try Shell.run([Tool.require("sqlite3"), db, "CREATE TRIGGER refuse BEFORE INSERT ON items WHEN new.title = 'Boom' BEGIN SELECT RAISE(ABORT, 'refused by test'); END;"])
        write([item(1, "First", day: 1), item(2, "Second", day: 2), item(3, "Boom", day: 3)], to: dir)
        let failed = try BinaryRunner.run(["run", "-c", cfg])
        XCTAssertEqual(failed.status, 3, failed.stderr)
        XCTAssertTrue(failed.stderr.contains("sqlite: \(db): refused by test; the batch (2 items) was rolled back and comes again"), failed.stderr)
        XCTAssertEqual(try query(db, "SELECT id FROM items ORDER BY id").map { "\($0[0])" }, ["notes:n1"], "none of the failed batch")
        _ = try Shell.run([Tool.require("sqlite3"), db, "DROP TRIGGER refuse"])
        let again = try BinaryRunner.run(["run", "-c", cfg])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(try query(db, "SELECT id FROM items ORDER BY id").map { "\($0[0])" }, ["notes:n1", "notes:n2", "notes:n3"], "the batch came again")

        // A file that is not a database, a table items of another shape: the sink stops on open.
        let other = TempDir()
        defer { other.remove() }
        let notes = other.write("notes.txt", String(repeating: "not a database\n", count: 200))
        let table = other.path + "/app.db"
        _ = try Shell.run([Tool.require("sqlite3"), table, "CREATE TABLE items(name TEXT, price REAL); INSERT INTO items VALUES ('x', 1)"])
        for (path, words) in [(notes, "the file is not an SQLite database"), (table, "the table items exists with other columns (missing: id, source, type")] {
            let c = other.write("c.json", #"{"sources":[{"name":"notes","type":"exec","command":["cat","\#(dir.path)/items.jsonl"]}],"sinks":[{"type":"sqlite","path":"\#(path)"}]}"#)
            let r = try BinaryRunner.run(["run", "-c", c, "--no-state"])
            XCTAssertEqual(r.status, 3, r.stderr)
            XCTAssertTrue(r.stderr.contains("sqlite: \(path): \(words)"), r.stderr)
        }
        XCTAssertEqual(try query(table, "SELECT count(*) FROM items").first?.first as? Int, 1, "the other table is left alone")
        let notDB = try search(["--db", notes, "x"])
        XCTAssertEqual(notDB.status, 2)
        XCTAssertTrue(notDB.stderr.contains("cannot read \(notes): it is not an SQLite database"), notDB.stderr)
        let notOurs = try search(["--db", table, "x"])
        XCTAssertEqual(notOurs.status, 2)
        XCTAssertTrue(notOurs.stderr.contains("\(table) is not a file of the sqlite sink"), notOurs.stderr)
        // search without --db: the config's only sqlite sink, or words when there is none or several.
        let none = other.write("none.json", #"{"sources":[{"name":"a","type":"exec","command":["true"]}],"sinks":[{"type":"jsonl","path":"-"}]}"#)
        let two = other.write("two.json", #"{"sources":[{"name":"a","type":"exec","command":["true"]}],"sinks":[{"type":"sqlite","path":"a.sqlite"},{"type":"sqlite","path":"b.sqlite"}]}"#)
        let noSink = try search(["-c", none, "x"])
        XCTAssertEqual(noSink.status, 2)
        XCTAssertTrue(noSink.stderr.contains("has no sqlite sink to search"), noSink.stderr)
        let twoSinks = try search(["-c", two, "x"])
        XCTAssertEqual(twoSinks.status, 2)
        XCTAssertTrue(twoSinks.stderr.contains("has 2 sqlite sinks") && twoSinks.stderr.contains("--db PATH"), twoSinks.stderr)
    }

    func testSearchReadsWhileWatchWrites() throws {
        let (dir, cfg, db) = try setUp((1...50).map { item($0, "Lock keeper \($0)", content: "canal lock number \($0)", day: 1 + $0 % 28) }, interval: "1s")
        defer { dir.remove() }
        let watch = try BinaryRunner.start(["watch", "-c", cfg], stdoutPath: dir.path + "/w.out", stderrPath: dir.path + "/w.err")
        defer { if watch.isRunning { watch.terminate() } }
        // Until the first batch is in, then new items every second while search reads.
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, (try? search(["--db", db, "canal"]))?.status != 0 { usleep(100_000) }
        var seen: [Int] = []
        for round in 0..<6 {
            write((1...(50 + 20 * (round + 1))).map { item($0, "Lock keeper \($0)", content: "canal lock number \($0)", day: 1 + $0 % 28) }, to: dir)
            let r = try search(["--db", db, "canal lock", "--limit", "1000"])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(r.stderr, "")
            seen.append(r.stdoutLines.count)
            usleep(400_000)
        }
        watch.terminate()
        watch.waitUntilExit()
        XCTAssertGreaterThanOrEqual(seen.first ?? 0, 50, "\(seen)")
        XCTAssertGreaterThan(seen.last ?? 0, seen.first ?? 0, "search saw watch's later batches: \(seen)")
        XCTAssertEqual(seen, seen.sorted(), "\(seen)")
        let final = try search(["--db", db, "canal", "--limit", "1000"])
        XCTAssertEqual(final.status, 0, final.stderr)
        XCTAssertEqual(try query(db, "SELECT count(*) FROM items").first?.first as? Int, final.stdoutLines.count)
    }
}
