import Foundation
import XCTest
import TributaryCore
import TributaryTestSupport

/// The file sinks (`rss`, `atom`, `jsonfeed`, and `jsonl`'s timed paths) through the real
/// binary, read back by real consumers (`FeedReader`: feedparser, fastfeedparser).
final class FeedSinksEndToEndTests: XCTestCase {
    struct Entry {
        var id: Int
        var title: String
        var published: String? = nil
        var link: String? = nil
        var summary: String? = nil
        var author: String? = nil
        var tags: [String] = []
        var image: String? = nil
    }

    /// A JSON API whose items the test changes between runs.
    final class API: Sendable {
        let body = Locked("{\"items\":[]}")
        func set(_ entries: [Entry]) {
            let list: [[String: Any]] = entries.map { e in
                var o: [String: Any] = ["id": e.id, "title": e.title, "tags": e.tags]
                if let v = e.published { o["published"] = v }
                if let v = e.link { o["link"] = v }
                if let v = e.summary { o["summary"] = v }
                if let v = e.author { o["author"] = v }
                if let v = e.image { o["image"] = v }
                return o
            }
            let data = (try? JSONSerialization.data(withJSONObject: ["items": list])) ?? Data()
            body.withLock { $0 = String(decoding: data, as: UTF8.self) }
        }
    }

    static let sinks = #"""
    [{"type":"rss","path":"out/feed.xml","title":"My feeds & <more>","link":"https://example.org/","max_items":%N},
     {"type":"atom","path":"out/feed.atom","title":"My feeds & <more>","link":"https://example.org/","max_items":%N},
     {"type":"jsonfeed","path":"out/feed.json","title":"My feeds & <more>","link":"https://example.org/","max_items":%N}]
    """#
    static let files = [("out/feed.xml", false), ("out/feed.atom", false), ("out/feed.json", true)]

    func setUp(maxItems: Int = 100, sinks: String? = nil) throws -> (LoopbackServer, API, TempDir, String) {
        let api = API()
        let server = try LoopbackServer { _ in .text(api.body.withLock { $0 }) }
        let dir = TempDir()
        let cfg = dir.write("tributary.json", #"""
        {"state":{"path":"state.sqlite"},"sources":[{"name":"api","type":"json","url":"\#(server.baseURL)/items","items":"items","retries":0,
          "fields":{"id":"id","title":"title","published":"published","url":"link","summary":"summary","author":"author","tags":"tags","image":"image"}}],
         "sinks":\#(sinks ?? Self.sinks.replacingOccurrences(of: "%N", with: String(maxItems)))}
        """#)
        return (server, api, dir, cfg)
    }

    func read(_ dir: TempDir, _ file: String, json: Bool) throws -> FeedReader.Feed {
        let feed = try FeedReader.read(dir.path + "/" + file, json: json)
        XCTAssertEqual(feed.bozo, 0, "\(file): \(feed.bozoException)")
        return feed
    }

    func ids(_ feed: FeedReader.Feed) -> [String] { feed.entries.map(\.id) }

    func entries(_ ids: ClosedRange<Int>, day: Int = 1) -> [Entry] {
        ids.map { Entry(id: $0, title: "Item \($0)", published: String(format: "2026-11-%02dT%02d:00:00Z", day, $0 % 24)) }
    }

    func testConsumersReadIdsTitlesLinksDatesAndHostileText() throws {
        let (server, api, dir, cfg) = try setUp()
        defer { server.stop(); dir.remove() }
        let hostile = "Rock & Roll <live> \"encore\" 'x' \u{7}\u{1}\u{1B}[31m Привет 東京 😀 ]]> &amp;"
        api.set([
            Entry(id: 1, title: hostile, published: "2026-11-28T10:00:00Z", link: "https://example.org/v/1?a=1&b=2",
                  summary: "Line one\nline two <b>bold</b> & more", author: "Ann & Bob", tags: ["#музыкальный", "a&b"], image: "https://example.org/i/1.jpg?s=1&t=2"),
            Entry(id: 2, title: "Second", published: "2026-11-29T08:30:00Z"),
            Entry(id: 3, title: "No date"),
        ])
        let before = Timestamp.now().seconds.rounded(.down)
        let r = try BinaryRunner.run(["run", "-c", cfg])
        XCTAssertEqual(r.status, 0, r.stderr)
        let after = Timestamp.now().seconds.rounded(.up)
        // XML 1.0 cannot hold C0 controls: the XML feeds drop them; JSON escapes them.
        let xmlTitle = hostile.unicodeScalars.filter { $0.value >= 0x20 }.map(String.init).joined()
        for (file, json) in Self.files {
            let feed = try read(dir, file, json: json)
            XCTAssertEqual(feed.version, ["out/feed.xml": "rss20", "out/feed.atom": "atom10", "out/feed.json": "json11"][file], file)
            XCTAssertEqual(feed.title, "My feeds & <more>", file)
            XCTAssertEqual(feed.link, "https://example.org/", file)
            XCTAssertEqual(ids(feed), ["api:3", "api:2", "api:1"], "\(file): newest first, the undated item at its fetch time")
            let first = try XCTUnwrap(feed.entries.last)
            XCTAssertEqual(first.title, json ? hostile : xmlTitle, file)
            XCTAssertEqual(first.link, "https://example.org/v/1?a=1&b=2", file)
            XCTAssertEqual(first.published, 1_795_860_000, "\(file): 2026-11-28T10:00:00Z")
            XCTAssertEqual(first.summary?.replacingOccurrences(of: "\r", with: ""), "Line one\nline two <b>bold</b> & more", file)
            XCTAssertEqual(first.author, "Ann & Bob", file)
            XCTAssertEqual(first.tags, ["#музыкальный", "a&b"], file)
            XCTAssertEqual(first.image, "https://example.org/i/1.jpg?s=1&t=2", file)
            XCTAssertEqual(feed.entries[1].published, 1_795_941_000, "\(file): 2026-11-29T08:30:00Z")
            let undated = try XCTUnwrap(feed.entries[0].published, file)
            XCTAssertTrue((before...after).contains(undated), "\(file): the fetch time \(undated) stands in, in \(before)...\(after)")
        }
    }

    /// Issue 11: `run --no-state` used to rewrite a 12-item feed with only that run's 3 items.
    func testNoStateAfterAStatefulRunKeepsTheFileAndAddsTheNewItems() throws {
        let (server, api, dir, cfg) = try setUp()
        defer { server.stop(); dir.remove() }
        api.set(entries(1...12))
        XCTAssertEqual(try BinaryRunner.run(["run", "-c", cfg]).status, 0)
        for (file, json) in Self.files { XCTAssertEqual(try read(dir, file, json: json).entries.count, 12, file) }
        api.set(entries(11...13, day: 2))  // two items the file has (changed dates), one new
        let look = try BinaryRunner.run(["run", "-c", cfg, "--no-state"])
        XCTAssertEqual(look.status, 0, look.stderr)
        for (file, json) in Self.files {
            let got = ids(try read(dir, file, json: json))
            XCTAssertEqual(got.count, 13, "\(file): the 12 items kept and 1 added: \(got)")
            XCTAssertEqual(Set(got).count, got.count, "\(file): no id twice: \(got)")
            XCTAssertEqual(Array(got.prefix(3)), ["api:13", "api:12", "api:11"], "\(file): a re-delivered id is replaced in place of the old")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.path + "/out/feed.xml.tmp"), "no temporary file is left")
    }

    func testStateThenNoStateThenStateAgain() throws {
        let (server, api, dir, cfg) = try setUp(maxItems: 5)
        defer { server.stop(); dir.remove() }
        api.set(entries(1...2))
        XCTAssertEqual(try BinaryRunner.run(["run", "-c", cfg]).status, 0)
        api.set(entries(1...3))
        XCTAssertEqual(try BinaryRunner.run(["run", "-c", cfg, "--no-state"]).status, 0)
        for (file, json) in Self.files { XCTAssertEqual(ids(try read(dir, file, json: json)), ["api:3", "api:2", "api:1"], file) }
        // State did not see item 3: it is new to the stateful run, and goes in once.
        let again = try BinaryRunner.run(["run", "-c", cfg])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stderr.contains("3 fetched  1 new"), again.stderr)
        var held: [String: String] = [:]
        for (file, json) in Self.files {
            XCTAssertEqual(ids(try read(dir, file, json: json)), ["api:3", "api:2", "api:1"], file)
            held[file] = dir.read(file)
        }
        // Nothing new: the files stay byte for byte; then state's window goes on growing.
        XCTAssertEqual(try BinaryRunner.run(["run", "-c", cfg]).status, 0)
        for (file, _) in Self.files { XCTAssertEqual(dir.read(file), held[file], "\(file): untouched when nothing is new") }
        api.set(entries(1...7))
        XCTAssertEqual(try BinaryRunner.run(["run", "-c", cfg]).status, 0)
        for (file, json) in Self.files {
            XCTAssertEqual(ids(try read(dir, file, json: json)), ["api:7", "api:6", "api:5", "api:4", "api:3"], "\(file): max_items 5")
        }
    }

    func testWithoutStateAFileThatCannotBeReadBackIsNeverReplaced() throws {
        let (server, api, dir, cfg) = try setUp()
        defer { server.stop(); dir.remove() }
        api.set(entries(1...2))
        let mine = "<feed>my own notes, not Atom</feed>\n"
        _ = dir.write("out/feed.atom", mine)
        let r = try BinaryRunner.run(["run", "-c", cfg, "--no-state"])
        XCTAssertEqual(r.status, 3, r.stderr)
        XCTAssertTrue(r.stderr.contains("tributary: sink failed: atom: cannot read back \(dir.path)/out/feed.atom: its root element is <feed>, not <feed xmlns=\"http://www.w3.org/2005/Atom\">; expected an Atom 1.0 document as the atom sink writes it"), r.stderr)
        XCTAssertEqual(dir.read("out/feed.atom"), mine, "a look never damages a file")
        XCTAssertEqual(server.requestCount, 0, "nothing is fetched")
        // With state, state decides: a warning, and the file becomes the feed.
        let withState = try BinaryRunner.run(["run", "-c", cfg])
        XCTAssertEqual(withState.status, 0, withState.stderr)
        XCTAssertTrue(withState.stderr.contains("warning: sink: atom: cannot read back"), withState.stderr)
        XCTAssertEqual(ids(try read(dir, "out/feed.atom", json: false)), ["api:2", "api:1"])
    }

    /// The binary has no clock to fix, so the test reads the UTC hour around the run.
    func testJSONLHourlyFilesAreNamedByTheUTCHourOfWriting() throws {
        let sinks = #"[{"type":"jsonl","path":"out/%Y/%m/%d/items-%H.jsonl"}]"#
        let (server, api, dir, cfg) = try setUp(sinks: sinks)
        defer { server.stop(); dir.remove() }
        api.set(entries(1...3))
        func name(_ t: Timestamp) -> String {
            let s = Array(t.rfc3339)
            return "out/\(String(s[0..<4]))/\(String(s[5..<7]))/\(String(s[8..<10]))/items-\(String(s[11..<13])).jsonl"
        }
        let before = name(Timestamp.now())
        _ = dir.write(before, "{\"id\":\"api:0\",\"source\":\"api\"}\n{\"id\":\"api:9\",\"sou")
        let r = try BinaryRunner.run(["run", "-c", cfg])
        XCTAssertEqual(r.status, 0, r.stderr)
        let after = name(Timestamp.now())
        let lines = (dir.read(after) ?? "").split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.filter { $0.hasPrefix("{\"id\":\"api:") && $0.hasSuffix("}") }.suffix(3).count, 3, "\(after): \(lines)")
        if before == after {
            XCTAssertEqual(lines.count, 4, "the old whole line and 3 new, the partial line removed: \(lines)")
            XCTAssertFalse(lines.contains { $0.contains("api:9") })
            XCTAssertTrue(r.stderr.contains("removed a partial last line"), r.stderr)
        } else {
            XCTAssertEqual(lines.count, 3, "the hour changed during the run: the batch went to the new hour's file")
        }
    }
}
