import Foundation
import XCTest
@testable import TributaryCore
@testable import TributaryBase
@testable import TributaryJSON
@testable import TributaryOptions
@testable import TributaryHTTP
@testable import TributaryState
@testable import TributaryPostgres
@testable import TributaryPluginKit
@testable import TributaryPlugins
import TributaryTestSupport

/// The `feed` source's `urls` (several documents, concurrently, each failing alone), `tags`
/// and `title`.
final class WebFeedURLsTests: XCTestCase {
    static func rss(_ title: String?, _ items: [(guid: String, title: String, category: String?)]) -> String {
        var s = #"<?xml version="1.0"?><rss version="2.0"><channel>"# + (title.map { "<title>\($0)</title>" } ?? "")
        for i in items {
            s += "<item><guid>\(i.guid)</guid><title>\(i.title)</title>" + (i.category.map { "<category>\($0)</category>" } ?? "") + "</item>"
        }
        return s + "</channel></rss>"
    }

    func testEveryURLIsADocumentOfItsOwn() async throws {
        let a = "https://a.example.org/feed.xml", b = "https://b.example.org/rss"
        let r = try await plugins.fetch(#"{"name":"f","type":"feed","urls":["\#(a)","\#(b)"],"tags":["swift","news"],"title":"My feeds"}"#, responses: [
            CannedResponse(url: a, body: Self.rss("A blog", [("1", "first", "swift"), ("2", "second", nil)]), contentType: "application/rss+xml"),
            CannedResponse(url: b, body: Self.rss(nil, [("1", "other first", nil)]), contentType: "application/rss+xml"),
        ])
        XCTAssertNil(r.error)
        XCTAssertEqual(r.batches.count, 2, "one batch per document")
        let byID = Dictionary(uniqueKeysWithValues: r.items.map { ($0.id, $0) })
        XCTAssertEqual(Set(byID.keys), ["feed:a.example.org:1", "feed:a.example.org:2", "feed:b.example.org:1"], "a bare guid is scoped by its own document's host")
        XCTAssertEqual(byID["feed:a.example.org:1"]?.tags, ["swift", "news"], "configured tags after the entry's own, duplicates dropped")
        XCTAssertEqual(byID["feed:a.example.org:2"]?.tags, ["swift", "news"])
        XCTAssertEqual(byID["feed:a.example.org:1"]?.data["feed_title"], .string("A blog"), "the document's title first")
        XCTAssertEqual(byID["feed:b.example.org:1"]?.data["feed_title"], .string("My feeds"), "the configured title when the document has none")
    }

    func testAFailingURLFailsOnlyItselfAndTheSourceNamesAtMostThree() async throws {
        let ok = "https://ok.example.org/feed"
        let bad = (1...4).map { "https://bad\($0).example.org/feed" }
        let urls = ([ok] + bad).map { "\"\($0)\"" }.joined(separator: ",")
        let r = try await plugins.fetch(#"{"name":"f","type":"feed","urls":[\#(urls)]}"#, responses: [
            CannedResponse(url: ok, body: Self.rss("ok", [("x", "fine", nil)]), contentType: "application/rss+xml"),
            CannedResponse(url: bad[0], status: 404, body: "gone", contentType: "text/plain"),
            CannedResponse(url: bad[1], body: "<html><body>hi</body></html>", contentType: "text/html"),
            CannedResponse(url: bad[2], body: "<rss><channel>", contentType: "application/rss+xml"),
        ])
        XCTAssertEqual(r.items.map(\.title), ["fine"], "the good document is delivered")
        let error = try XCTUnwrap(r.error)
        XCTAssertTrue(error.hasPrefix("4 of 5 URLs failed: GET \(bad[0]): HTTP 404"), error)
        XCTAssertTrue(error.contains("GET \(bad[1]): got an HTML page"), error)
        XCTAssertTrue(error.contains("GET \(bad[2]): malformed XML"), error)
        XCTAssertTrue(error.hasSuffix("; and 1 more"), error)
        XCTAssertFalse(error.contains(bad[3]), "at most three named")
    }

    func testURLOrURLsIsNeededAndEachURLIsChecked() {
        XCTAssertEqual(plugins.configErrors(#"{"name":"f","type":"feed"}"#), [#"t.json: sources[0] ("f"): needs "url" or "urls""#])
        XCTAssertEqual(plugins.configErrors(#"{"name":"f","type":"feed","urls":["https://ok.org/f","https:///nohost"]}"#),
                       [#"t.json: sources[0] ("f").urls[1]: "https:///nohost" has no host"#])
        XCTAssertEqual(plugins.configErrors(#"{"name":"f","type":"feed","urls":["ftp://x.org/f"]}"#),
                       [#"t.json: sources[0] ("f").urls[0]: expected an http://, https:// or file: URL, found "ftp://x.org/f""#])
        XCTAssertEqual(plugins.configErrors(#"{"name":"f","type":"feed","url":"https://a.org/f","urls":["https://b.org/f"],"tags":"x"}"#),
                       [#"t.json: sources[0] ("f").tags: expected a list of strings, found "x""#])
    }
}
