import Foundation
import XCTest
import TributaryCore
import TributaryTestSupport

/// The `fulltext` processor through the release binary: a feed on a loopback server links to
/// article pages on the same server; the items come out with the article as `content` and
/// `content_html` (JSON Lines, Atom and JSON Feed read back by feedparser/fastfeedparser and
/// html5lib), each page fetched once across runs, failures delivered without content with a
/// warning and a `no content` count, per-host rules.
final class FullTextEndToEndTests: XCTestCase {
    static let fixtures = BinaryRunner.packageRoot + "/Tests/Fixtures/fulltext/"

    static func fixture(_ name: String) -> [UInt8] { Array(FileManager.default.contents(atPath: fixtures + name) ?? Data()) }

    /// An RSS feed whose items link to `paths` on `base`.
    static func feed(base: String, paths: [String]) -> String {
        var items = ""
        for (i, p) in paths.enumerated() {
            items += "<item><title>Story \(i + 1)</title><link>\(base)\(p)</link><guid>\(base)\(p)</guid><description>Teaser \(i + 1)</description>"
                + "<pubDate>Mon, 30 Nov 2026 0\(i % 10):00:00 GMT</pubDate></item>\n"
        }
        return "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Ledger</title><link>\(base)/</link><description>d</description>\n\(items)</channel></rss>"
    }

    /// The loopback server: the feed at /feed.xml, pages by path (`pages`), 404 otherwise.
    static func server(paths: [String], pages: [String: LoopbackResponse]) throws -> LoopbackServer {
        let base = Locked<String>("")
        let server = try LoopbackServer { req in
            if req.path == "/feed.xml" { return .text(feed(base: base.withLock { $0 }, paths: paths), contentType: "application/rss+xml") }
            return pages[req.path] ?? .text("<html><body><h1>Not found</h1></body></html>", status: 404, contentType: "text/html")
        }
        base.withLock { $0 = server.baseURL }
        return server
    }

    static func html(_ bytes: [UInt8], contentType: String = "text/html; charset=utf-8") -> LoopbackResponse {
        LoopbackResponse(status: 200, headers: [("Content-Type", contentType)], body: bytes)
    }

    func config(_ dir: TempDir, url: String, process: String = #"[{"type":"fulltext"}]"#, sinks: String = #"[{"type":"jsonl","path":"out/items.jsonl"}]"#) -> String {
        dir.write("tributary.json", #"""
        {"state":{"path":"state.sqlite"},"sources":[{"name":"ledger","type":"feed","url":"\#(url)","first_run":"all","process":\#(process)}],
         "sinks":\#(sinks)}
        """#)
    }

    func lines(_ text: String?) -> [JSONValue] {
        (text ?? "").split(separator: "\n").compactMap { try? JSONParser.parse(String($0)) }
    }

    func pageRequests(_ server: LoopbackServer) -> Int { server.requests.filter { $0.path != "/feed.xml" }.count }

    /// Elements and attributes html5lib finds in `html` (as `name` and `name@attr=value`).
    func html5libParts(_ html: String) throws -> [String] {
        let script = """
        import sys, html5lib
        doc = html5lib.parseFragment(sys.stdin.read(), namespaceHTMLElements=False)
        for el in doc.iter():
            if not isinstance(el.tag, str): continue
            print(el.tag)
            for k, v in el.attrib.items(): print(el.tag + "@" + k + "=" + v)
        """
        let r = try Shell.run([FeedReader.python, "-c", script], stdin: html, timeout: 60)
        XCTAssertEqual(r.status, 0, r.stderr)
        return r.stdoutLines.filter { !$0.isEmpty }
    }

    /// What the allow-list permits, checked on html5lib's reading of the output.
    func assertAllowed(_ html: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let allowed: Set<String> = ["DOCUMENT_FRAGMENT", "p", "br", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "blockquote", "pre", "code", "em", "strong", "a", "img",
                                    "figure", "figcaption", "table", "caption", "thead", "tbody", "tfoot", "tr", "th", "td"]
        for part in try html5libParts(html) {
            if let at = part.firstIndex(of: "@") {
                let tag = String(part[..<at]), rest = part[part.index(after: at)...]
                let name = String(rest.prefix { $0 != "=" }), value = String(rest.drop { $0 != "=" }.dropFirst())
                let ok = (tag == "a" && name == "href") || (tag == "img" && (name == "src" || name == "alt"))
                XCTAssertTrue(ok, "attribute \(part) in \(html.prefix(300))", file: file, line: line)
                if name != "alt" { XCTAssertTrue(value.hasPrefix("http://") || value.hasPrefix("https://"), "URL \(value)", file: file, line: line) }
            } else {
                XCTAssertTrue(allowed.contains(part) || part.hasPrefix("<"), "element \(part) in \(html.prefix(300))", file: file, line: line)
            }
        }
    }

    func testItemsGetTheArticleAsContentAndSanitizedHTMLInEachCharset() throws {
        let paths = ["/news/harbour-barrier", "/street/cafe", "/jp/peach"]
        let server = try Self.server(paths: paths, pages: [
            "/news/harbour-barrier": Self.html(Self.fixture("news-article.html")),
            // windows-1252, said only by the header; Shift_JIS, said only by the page's meta tag.
            "/street/cafe": Self.html(Self.fixture("cafe-cp1252.html"), contentType: "text/html; charset=windows-1252"),
            "/jp/peach": Self.html(Self.fixture("peach-shift_jis.html"), contentType: "text/html"),
        ])
        let dir = TempDir()
        defer { server.stop(); dir.remove() }
        let r = try BinaryRunner.run(["run", "-c", config(dir, url: server.url("/feed.xml"))])
        XCTAssertEqual(r.status, 0, r.stderr)
        let items = lines(dir.read("out/items.jsonl"))
        XCTAssertEqual(items.count, 3, r.stderr)
        let schema = try SchemaValidator.itemSchema()
        for item in items { XCTAssertEqual(schema.validate(item), [], "\(item)") }
        // The key order: content and content_html right after summary.
        let keys = items[0].objectValue?.entries.map(\.key) ?? []
        let s = try XCTUnwrap(keys.firstIndex(of: "summary"))
        XCTAssertEqual(Array(keys[s...].prefix(3)), ["summary", "content", "content_html"])

        let news = try XCTUnwrap(items[0][path: "content"]?.stringValue)
        XCTAssertTrue(news.hasPrefix("The harbour council voted eleven to four") || news.hasPrefix("Engineers presented a scale model"), "the body, or its lead figure's caption first: \(news)")
        XCTAssertTrue(news.contains("The barrier, a row of steel gates that lie flat on the seabed"), news)
        XCTAssertTrue(news.contains("\n\n“We have spent ten years commissioning reports"), "paragraphs separated by one blank line: \(news)")
        XCTAssertTrue(news.contains("Fishermen remain divided"))
        XCTAssertTrue(news.contains("If the gates go up on a spring tide"), "the quote of the body stays")
        XCTAssertTrue(news.hasSuffix("once the environmental survey of the seabed is complete."), news)
        for boilerplate in ["cookies", "Share on", "Holiday cottages", "Related stories", "morning briefing", "tidewatcher", "cellar", "Most read", "All rights reserved", "dataLayer"] {
            XCTAssertFalse(news.contains(boilerplate), "\(boilerplate) in \(news)")
        }
        XCTAssertFalse(news.contains("\n\n\n"))
        let html = try XCTUnwrap(items[0][path: "content_html"]?.stringValue)
        XCTAssertTrue(html.contains("<p>The harbour council voted"), html)
        XCTAssertFalse(html.lowercased().contains("onerror"))
        XCTAssertFalse(html.contains("<script"))
        try assertAllowed(html)

        let cafe = try XCTUnwrap(items[1][path: "content"]?.stringValue)
        XCTAssertTrue(cafe.contains("The café on the corner charges €3 for an espresso, and the owner calls it “the fairest price in town” — a claim"), cafe)
        let peach = try XCTUnwrap(items[2][path: "content"]?.stringValue)
        XCTAssertTrue(peach.contains("今年も山梨県の果樹園で桃の収穫が始まりました。"), peach)
        XCTAssertFalse(peach.contains("ホーム"), peach)
        XCTAssertEqual(pageRequests(server), 3)
    }

    func testAtomAndJSONFeedSinksCarryTheArticleAsTheirContent() throws {
        let paths = ["/news/harbour-barrier"]
        let server = try Self.server(paths: paths, pages: ["/news/harbour-barrier": Self.html(Self.fixture("news-article.html"))])
        let dir = TempDir()
        defer { server.stop(); dir.remove() }
        let sinks = #"[{"type":"atom","path":"out/feed.atom","title":"Full"},{"type":"jsonfeed","path":"out/feed.json","title":"Full"}]"#
        let r = try BinaryRunner.run(["run", "-c", config(dir, url: server.url("/feed.xml"), sinks: sinks)])
        XCTAssertEqual(r.status, 0, r.stderr)
        let atom = try FeedReader.read(dir.path + "/out/feed.atom")
        XCTAssertEqual(atom.bozo, 0, atom.bozoException)
        let atomContent = try XCTUnwrap(atom.entries.first?.content)
        XCTAssertTrue(atomContent.contains("<p>The harbour council voted eleven to four"), atomContent)
        XCTAssertTrue(atomContent.contains("<blockquote>"), atomContent)
        try assertAllowed(atomContent)
        let json = try XCTUnwrap(JSONParser.parse(dir.read("out/feed.json") ?? ""))
        let item = try XCTUnwrap(json[path: "items"]?.arrayValue?.first)
        let contentHTML = try XCTUnwrap(item[path: "content_html"]?.stringValue)
        XCTAssertTrue(contentHTML.contains("<p>The harbour council voted eleven to four"))
        XCTAssertTrue(item[path: "content_text"]?.stringValue?.contains("The harbour council voted") ?? false, "\(item)")
        let fast = try FeedReader.read(dir.path + "/out/feed.json", json: true)
        XCTAssertEqual(fast.bozo, 0, fast.bozoException)
    }

    func testEachPageIsFetchedOnceAcrossRunsAndAllEmitsAgainFromTheState() throws {
        let paths = ["/news/harbour-barrier", "/street/cafe"]
        let server = try Self.server(paths: paths, pages: [
            "/news/harbour-barrier": Self.html(Self.fixture("news-article.html")),
            "/street/cafe": Self.html(Self.fixture("cafe-cp1252.html"), contentType: "text/html; charset=windows-1252"),
        ])
        let dir = TempDir()
        defer { server.stop(); dir.remove() }
        let path = config(dir, url: server.url("/feed.xml"))
        let first = try BinaryRunner.run(["run", "-c", path])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(pageRequests(server), 2)
        let firstItems = lines(dir.read("out/items.jsonl"))
        // Nothing new: no page is asked for.
        let second = try BinaryRunner.run(["run", "-c", path])
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertEqual(pageRequests(server), 2)
        XCTAssertEqual(lines(dir.read("out/items.jsonl")).count, 2)
        // --all emits both again, with their content, from the state: still two page requests.
        let again = try BinaryRunner.run(["run", "-c", path, "--all"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(pageRequests(server), 2)
        let all = lines(dir.read("out/items.jsonl"))
        XCTAssertEqual(all.count, 4)
        XCTAssertEqual(all[2][path: "content"], firstItems[0][path: "content"])
        XCTAssertEqual(all[3][path: "content_html"], firstItems[1][path: "content_html"])
    }

    func testPagesWithoutAnArticleAreDeliveredWithoutContentCountedAndKept() throws {
        var big = Array("<html><body><article>".utf8)
        let paragraph = Array("<p>A paragraph that repeats to make the page larger than the configured maximum size of the processor.</p>\n".utf8)
        while big.count < 64 * 1024 { big += paragraph }
        big += Array("</article></body></html>".utf8)
        let paths = ["/news/harbour-barrier", "/gone", "/report.pdf", "/huge"]
        let server = try Self.server(paths: paths, pages: [
            "/news/harbour-barrier": Self.html(Self.fixture("news-article.html")),
            "/report.pdf": LoopbackResponse(status: 200, headers: [("Content-Type", "application/pdf")], body: Array("%PDF-1.7\n%\u{E2}\u{E3}\n1 0 obj<<>>endobj\n".utf8)),
            "/huge": Self.html(big),
        ])
        let dir = TempDir()
        defer { server.stop(); dir.remove() }
        let path = config(dir, url: server.url("/feed.xml"), process: #"[{"type":"fulltext","max_size":"16KiB"}]"#)
        let r = try BinaryRunner.run(["run", "-c", path])
        XCTAssertEqual(r.status, 0, "a page without an article does not fail the source: \(r.stderr)")
        let items = lines(dir.read("out/items.jsonl"))
        XCTAssertEqual(items.count, 4, "every item is delivered: \(r.stderr)")
        XCTAssertNotNil(items[0][path: "content"])
        for i in 1..<4 {
            XCTAssertNil(items[i][path: "content"], "\(items[i])")
            XCTAssertNil(items[i][path: "content_html"])
            XCTAssertEqual(items[i][path: "summary"]?.stringValue, "Teaser \(i + 1)", "the item keeps its other fields")
        }
        XCTAssertTrue(r.stderr.contains("ledger: feed:\(server.url("/gone")): no content: HTTP 404 (\(server.url("/gone")))"), r.stderr)
        XCTAssertTrue(r.stderr.contains("no content: not an HTML page (a PDF document)"), r.stderr)
        XCTAssertTrue(r.stderr.contains("no content: the page is larger than max_size (16KiB)"), r.stderr)
        XCTAssertTrue(r.stderr.contains("3 no content"), r.stderr)
        // The reasons are lasting: kept, so --all asks for none of the pages again.
        let before = pageRequests(server)
        let again = try BinaryRunner.run(["run", "-c", path, "--all"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(pageRequests(server), before)
        XCTAssertTrue(again.stderr.contains("3 no content"), again.stderr)
        // The metrics and status show the count.
        let status = try BinaryRunner.run(["status", "-c", path])
        XCTAssertEqual(status.status, 0, status.stderr)
        XCTAssertTrue(status.stdout.contains("no content"), status.stdout)
    }

    func testAHostRuleChoosesTheContentAndRemovesNodes() throws {
        let paths = ["/news/harbour-barrier"]
        let server = try Self.server(paths: paths, pages: ["/news/harbour-barrier": Self.html(Self.fixture("news-article.html"))])
        let dir = TempDir()
        defer { server.stop(); dir.remove() }
        let process = #"[{"type":"fulltext","rules":{"127.0.0.1":{"content":"//div[@class='story-body']/p | //figure/figcaption","remove":["//blockquote"]}}}]"#
        let r = try BinaryRunner.run(["run", "-c", config(dir, url: server.url("/feed.xml"), process: process)])
        XCTAssertEqual(r.status, 0, r.stderr)
        let content = try XCTUnwrap(lines(dir.read("out/items.jsonl")).first?[path: "content"]?.stringValue)
        let blocks = content.components(separatedBy: "\n\n")
        XCTAssertEqual(blocks.first, "Engineers presented a scale model of the barrier at the town hall on Tuesday.", "document order: the caption first")
        XCTAssertEqual(blocks.count, 7, content)
        XCTAssertFalse(content.contains("Fishermen remain divided"), "h2 is not selected")
        XCTAssertFalse(content.contains("spring tide"), "blockquote removed")
        XCTAssertFalse(content.contains("Holiday cottages"))
        // A rule's XPath that does not compile is a config error naming the key.
        let bad = #"[{"type":"fulltext","rules":{"example.com":{"content":"//div[@class="}}}]"#
        let check = try BinaryRunner.run(["check", "-c", config(dir, url: server.url("/feed.xml"), process: bad)])
        XCTAssertEqual(check.status, 2, check.stderr)
        XCTAssertTrue(check.stderr.contains("process[0].rules.example.com.content: expected an XPath 1.0 expression"), check.stderr)
    }
}
