import Foundation
import XCTest
import TributaryCore
import TributaryTestSupport

/// `tributary run` with `feed` sources against a loopback server serving RSS, a YouTube channel
/// feed, a JSON Feed, a broken document and an error status.
final class WebFeedEndToEndTests: XCTestCase {
    static let rss = """
    <?xml version="1.0" encoding="UTF-8"?>
    <rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel><title>Loopback &amp; Co</title>
    <item><title>Первая &amp;amp; новость</title><link>/news/1</link><guid isPermaLink="false">n-1</guid>
    <description><![CDATA[<p>Line one<br>line two &hellip;</p>]]></description><pubDate>Sun, 29 Nov 2026 10:00:00 +0100</pubDate><category>新闻</category></item>
    <item><title>Second</title><link>https://e.org/2</link><dc:date>2026-11-28T08:00:00Z</dc:date></item>
    </channel></rss>
    """

    static let youtube = """
    <?xml version="1.0" encoding="UTF-8"?>
    <feed xmlns:yt="http://www.youtube.com/xml/schemas/2015" xmlns:media="http://search.yahoo.com/mrss/" xmlns="http://www.w3.org/2005/Atom">
     <title>Chan</title><author><name>Chan</name></author>
     <entry><id>yt:video:dQw4w9WgXcQ</id><yt:videoId>dQw4w9WgXcQ</yt:videoId><yt:channelId>UCuAXFkgsw1L7xaCfnd5JJOw</yt:channelId>
      <title>Never Gonna Give You Up</title><link rel="alternate" href="https://www.youtube.com/watch?v=dQw4w9WgXcQ"/>
      <published>2009-10-25T06:57:33+00:00</published>
      <media:group><media:title>Never Gonna Give You Up</media:title><media:thumbnail url="https://i.ytimg.com/vi/dQw4w9WgXcQ/hqdefault.jpg" width="480" height="360"/>
      <media:description>The official video.</media:description></media:group></entry>
    </feed>
    """

    static let jsonFeed = #"{"version":"https://jsonfeed.org/version/1.1","title":"J","items":[{"id":"j1","url":"https://e.org/j1","content_html":"<b>Bold</b> text","tags":["a"]}]}"#

    func testFeedsThroughTheBinary() throws {
        let server = try LoopbackServer { req in
            switch req.path {
            case "/rss": return .text(WebFeedEndToEndTests.rss, contentType: "application/rss+xml; charset=UTF-8")
            case "/feeds/videos.xml?channel_id=UCuAXFkgsw1L7xaCfnd5JJOw": return .text(WebFeedEndToEndTests.youtube, contentType: "text/xml; charset=UTF-8")
            case "/feed.json": return .text(WebFeedEndToEndTests.jsonFeed, contentType: "application/feed+json")
            case let p where p.hasPrefix("/broken"): return .text("<rss><channel>\n<title>Fish &nbsp; Chips</title></channel></rss>", contentType: "application/rss+xml")
            default: return .text("<html><body>Forbidden</body></html>", status: 403, contentType: "text/html")
            }
        }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let base = server.baseURL
        let cfg = dir.write("tributary.json", #"""
        {"sources":[
          {"name":"news","type":"feed","url":"\#(base)/rss","headers":{"Accept":"application/rss+xml"}},
          {"name":"chan","type":"feed","url":"\#(base)/feeds/videos.xml?channel_id=UCuAXFkgsw1L7xaCfnd5JJOw"},
          {"name":"json","type":"feed","url":"\#(base)/feed.json","kind":"post"},
          {"name":"broken","type":"feed","url":"\#(base)/broken?token=TOPSECRET","retries":0},
          {"name":"private","type":"feed","url":"\#(base)/private?key=TOPSECRET","retries":0}
        ]}
        """#)
        let r = try BinaryRunner.run(["run", "-c", cfg, "--jsonl", "--no-state"])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(r.stdoutLines.count, 4, r.stdout)
        let schema = try SchemaValidator.itemSchema()
        for line in r.stdoutLines { XCTAssertEqual(schema.validate(line: line), [], line) }
        let items = try r.stdoutLines.map { try JSONParser.parse(Array($0.utf8)) }
        func field(_ i: Int, _ key: String) -> JSONValue? { items[i].objectValue?[key] }
        let byID = Dictionary(uniqueKeysWithValues: items.enumerated().map { ($0.element.objectValue?["id"]?.stringValue ?? "", $0.offset) })
        let n1 = try XCTUnwrap(byID["feed:127.0.0.1:n-1"], r.stdout)
        XCTAssertEqual(field(n1, "title"), .string("Первая & новость"))
        XCTAssertEqual(field(n1, "url"), .string("\(base)/news/1"))
        XCTAssertEqual(field(n1, "summary"), .string("Line one\nline two …"))
        XCTAssertEqual(field(n1, "published"), .string("2026-11-29T09:00:00Z"))
        XCTAssertEqual(field(n1, "tags"), .array([.string("新闻")]))
        XCTAssertEqual(field(n1, "source"), .string("news"))
        XCTAssertEqual(field(n1, "type"), .string("feed"))
        XCTAssertTrue(r.stdout.contains(#""title":"Первая & новость""#), "non-ASCII written as itself")
        let v = try XCTUnwrap(byID["youtube:video:dQw4w9WgXcQ"], r.stdout)
        XCTAssertEqual(field(v, "kind"), .string("video"))
        XCTAssertEqual(field(v, "url"), .string("https://www.youtube.com/watch?v=dQw4w9WgXcQ"))
        XCTAssertEqual(field(v, "image"), .string("https://i.ytimg.com/vi/dQw4w9WgXcQ/hqdefault.jpg"))
        XCTAssertEqual(field(v, "data")?.objectValue?["channel_id"], .string("UCuAXFkgsw1L7xaCfnd5JJOw"))
        let j = try XCTUnwrap(byID["feed:127.0.0.1:j1"], r.stdout)
        XCTAssertEqual(field(j, "kind"), .string("post"))
        XCTAssertEqual(field(j, "summary"), .string("Bold text"))
        XCTAssertEqual(field(j, "title"), .string("Bold text"), "no title: the summary's first line")

        XCTAssertTrue(r.stderr.contains("broken   feed  failed: GET \(base)/broken?token=***: malformed XML at line 2, column 19: undeclared entity"), r.stderr)
        XCTAssertTrue(r.stderr.contains("private  feed  failed: GET \(base)/private?key=***: HTTP 403 Forbidden"), r.stderr)
        XCTAssertTrue(r.stderr.contains("news     feed  ok  2 fetched  2 new"), r.stderr)
        XCTAssertTrue(r.stderr.contains("total: 5 sources, 2 failed, 4 fetched, 4 new"), r.stderr)
        XCTAssertFalse(r.stderr.contains("TOPSECRET"), r.stderr)
        XCTAssertEqual(server.requests.first { $0.path == "/rss" }?.header("Accept"), "application/rss+xml", "configured headers are sent")
    }

    /// Every HTML5 named reference is decoded in titles and summaries, the legacy names also
    /// without `;`, whichever way the feed escapes them.
    func testHTMLNamedReferencesInTitlesAndSummaries() throws {
        let rss = """
        <?xml version="1.0" encoding="UTF-8"?>
        <rss version="2.0"><channel><title>Entities</title>
        <item><title>&amp;Uuml;ber &amp;rarr; &amp;frac12; &amp;copy 2026</title><link>https://e.org/1</link>
        <description>&lt;p&gt;&amp;Uuml;ber &amp;rarr; &amp;hellip; &amp;frac12; &amp;NotEqualTilde; &amp;amp Co&lt;/p&gt;</description></item>
        <item><title>Plain</title><link>https://e.org/2</link><description><![CDATA[<b>&Auml;rger</b> &laquo;&nbsp;quotes&nbsp;&raquo; &notin; &spades;]]></description></item>
        </channel></rss>
        """
        let server = try LoopbackServer { _ in .text(rss, contentType: "application/rss+xml") }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = dir.write("t.json", #"{"sources":[{"name":"e","type":"feed","url":"\#(server.baseURL)/rss"}]}"#)
        let r = try BinaryRunner.run(["run", "-c", cfg, "--jsonl", "--no-state"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let items = try r.stdoutLines.map { try JSONParser.parse(Array($0.utf8)).objectValue ?? JSONObject() }
        XCTAssertEqual(items.count, 2, r.stdout)
        XCTAssertEqual(items.first?["title"], .string("Über → ½ © 2026"))
        XCTAssertEqual(items.first?["summary"], .string("Über → … ½ \u{2242}\u{338} & Co"))
        XCTAssertEqual(items.last?["summary"], .string("Ärger « quotes » ∉ ♠"))
    }

    /// `urls`: every document's items, tags added, and a URL that fails fails only itself;
    /// a second run emits nothing new from the good documents and still names the bad one.
    func testSeveralURLsEachFailingAlone() throws {
        let server = try LoopbackServer { req in
            switch req.path {
            case "/a.xml": return .text(WebFeedEndToEndTests.rss, contentType: "application/rss+xml")
            case "/b.json": return .text(WebFeedEndToEndTests.jsonFeed, contentType: "application/feed+json")
            default: return .text("gone", status: 404, contentType: "text/plain")
            }
        }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let base = server.baseURL
        let cfg = dir.write("tributary.json", #"""
        {"state":{"path":"state.sqlite"},"sources":[
          {"name":"many","type":"feed","url":"\#(base)/a.xml","urls":["\#(base)/gone.xml","\#(base)/b.json"],"tags":["imported"],"retries":0}
        ],"sinks":[{"type":"jsonl","path":"items.jsonl"}]}
        """#)
        let r = try BinaryRunner.run(["run", "-c", cfg])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("many  feed  failed: 1 of 3 URLs failed: GET \(base)/gone.xml: HTTP 404 Not Found"), r.stderr)
        let lines = (dir.read("items.jsonl") ?? "").split(separator: "\n")
        let items = try lines.map { try JSONParser.parse(Array($0.utf8)) }
        XCTAssertEqual(Set(items.compactMap { $0.objectValue?["id"]?.stringValue }), ["feed:127.0.0.1:n-1", "feed:127.0.0.1:j1", "feed:https://e.org/2"], "the good documents' items are written")
        XCTAssertEqual(items.first { $0.objectValue?["id"]?.stringValue == "feed:127.0.0.1:j1" }?.objectValue?["tags"], .array([.string("a"), .string("imported")]))
        XCTAssertEqual(Set(server.requests.map(\.path)), ["/a.xml", "/gone.xml", "/b.json"])

        let again = try BinaryRunner.run(["run", "-c", cfg])
        XCTAssertEqual(again.status, 1, again.stderr)
        XCTAssertTrue(again.stderr.contains("many  feed  failed: 1 of 3 URLs failed"), again.stderr)
        XCTAssertEqual((dir.read("items.jsonl") ?? "").split(separator: "\n").count, 3, "nothing new the second time")
    }

    func testExampleConfigRunsOffline() throws {
        let r = try BinaryRunner.run(["run", "-c", BinaryRunner.packageRoot + "/Sources-config/examples/feed.json", "--jsonl", "--no-state"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdoutLines.count, 12, r.stdout)
        XCTAssertTrue(r.stdout.contains(#""id":"youtube:video:pW3kTq8vN1E""#), r.stdout)
    }

    /// The inputs that crashed the binary when the feed source used FoundationXML
    /// (Fuzz/regressions/feed-xml): the malformed ones fail their source with a message, the
    /// 100,000 nested elements read as one item; nothing crashes.
    func testFuzzFindingsNeitherCrashNorHang() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let inputs = BinaryRunner.packageRoot + "/Fuzz/regressions/feed-xml/"
        for (name, ok) in [("processing-instruction-only", false), ("unknown-encoding-name", false), ("nul-bytes-before-element", false), ("nested-100000-elements", true)] {
            let cfg = dir.write("\(name).json", #"{"sources":[{"name":"f","type":"feed","url":"file://\#(inputs + name)"}]}"#)
            let r = try BinaryRunner.run(["run", "-c", cfg, "--no-state", "--jsonl"], cwd: dir.path, timeout: 60)
            XCTAssertEqual(r.status, ok ? 0 : 1, "\(name): \(r.stderr)")
            XCTAssertFalse(r.stderr.contains("crashed") || r.stderr.contains("Fatal error") || r.stderr.contains("Sanitizer"), "\(name): \(r.stderr)")
            if ok {
                XCTAssertEqual(r.stdoutLines.count, 1, r.stdout)
                XCTAssertTrue(r.stdout.contains(#""title":"deep""#), r.stdout)
            } else {
                XCTAssertTrue(r.stderr.contains("GET file://\(inputs + name): "), "\(name): \(r.stderr)")
            }
        }
    }
}
