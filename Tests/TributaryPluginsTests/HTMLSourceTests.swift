import Foundation
import XCTest
@testable import TributaryCore
@testable import TributaryBase
@testable import TributaryPluginKit
@testable import TributaryPlugins
import TributaryTestSupport

/// The `html` source in process: pages from Tests/Fixtures/html/ and small pages written here,
/// served by the replay transport with the Content-Type a server would send.
final class HTMLSourceTests: XCTestCase {
    static func fixture(_ name: String) -> [UInt8] {
        Array(FileManager.default.contents(atPath: packageRoot + "/Tests/Fixtures/html/" + name) ?? Data())
    }

    /// A source of `url`, `items` and `fields` (a JSON object's members), fetched once from a
    /// recording of `body`.
    func fetch(_ url: String, _ body: [UInt8], items: String, fields: String, contentType: String = "text/html; charset=utf-8",
               options: String = "", explain: Bool = false) async throws -> SourceHarness.Fetch {
        try await plugins.fetch(#"{"name":"h","type":"html","url":"\#(url)","items":\#(json(items)),"fields":{\#(fields)}\#(options)}"#,
                                responses: [CannedResponse(url: url, status: 200, headers: [("Content-Type", contentType)], body: body)], explain: explain)
    }

    func fetch(_ url: String, page: String, items: String, fields: String, contentType: String = "text/html; charset=utf-8",
               options: String = "", explain: Bool = false) async throws -> SourceHarness.Fetch {
        try await fetch(url, Array(page.utf8), items: items, fields: fields, contentType: contentType, options: options, explain: explain)
    }

    func json(_ s: String) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: s, options: [.fragmentsAllowed, .withoutEscapingSlashes]), as: UTF8.self)
    }

    static let newsFields = #"""
    "title": ".//h2/a", "url": ".//h2/a/@href", "summary": ".//p[contains(@class, 'card__dek')]", "image": ".//img/@src",
    "author": "normalize-space(substring-after(.//span[@class='byline'], 'By '))", "published": ".//time/@datetime"
    """#

    // MARK: fields

    func testEveryFieldOfTheNewsCards() async throws {
        let r = try await fetch("https://news.example.com/world/", Self.fixture("news-listing.html"), items: "//main//article[.//h2/a]", fields: Self.newsFields)
        XCTAssertNil(r.error)
        XCTAssertEqual(r.warnings, [])
        XCTAssertEqual(r.items.count, 4, "four cards; the ad slot and the most-read list are no items")
        let a = r.items[0]
        XCTAssertEqual(a.id, "html:https://news.example.com/world/2026/11/29/storm-closes-northern-ports")
        XCTAssertEqual(a.source, "h")
        XCTAssertEqual(a.type, "html")
        XCTAssertEqual(a.kind, "entry")
        XCTAssertEqual(a.title, "Storm closes three northern ports as winds reach 140 km/h", "the link's text, &nbsp; and the line breaks around it folded")
        XCTAssertEqual(a.summary, "Ferries are cancelled until Monday; the coast guard asks boat owners to secure their moorings & stay ashore.")
        XCTAssertEqual(a.url, "https://news.example.com/world/2026/11/29/storm-closes-northern-ports", "relative to <base href>")
        XCTAssertEqual(a.image, "https://img.harborledger.example/2026/11/storm-ports-640.jpg")
        XCTAssertEqual(a.author, "Inês Duarte")
        XCTAssertEqual(a.published?.rfc3339, "2026-11-29T07:30:00Z")
        XCTAssertEqual(r.items[1].title, "Border talks resume after a three-week pause", "text of nested inline elements joined")
        XCTAssertEqual(r.items[1].author, "Tomasz Wójcik and Amara Okafor")
        let live = r.items[2]
        XCTAssertEqual(live.title, "Election count: the latest results, district by district")
        XCTAssertNil(live.summary)
        XCTAssertNil(live.image)
        XCTAssertNil(live.author, "an empty string() result is no value")
        XCTAssertEqual(r.items[3].title, "Glacier survey finds the ice shelf thinned by 4 m in a year", "U+202F folded too")
        XCTAssertEqual(r.items[3].image, "https://news.example.com/media/2026/11/glacier-survey-640.jpg")
    }

    func testHowAFieldIsRead() async throws {
        let page = """
        <html><body><div class="i" data-n=" 7 ">
          <h3>  First
             <b>bold</b>&nbsp;text  </h3>
          <h3>Second heading</h3>
          <span title="  spaced  value "></span>
          <p>   </p>
          <p class="x">kept</p>
        </div></body></html>
        """
        let r = try await fetch("https://e.org/", page: page, items: "//div[@class='i']", fields: #"""
        "title": "h3", "summary": "span/@title", "author": "p", "id": "concat('n', normalize-space(@data-n))", "url": "p[@class='x']/@href"
        """#)
        XCTAssertNil(r.error)
        let item = try XCTUnwrap(r.items.first)
        XCTAssertEqual(item.title, "First bold text", "the first match's text, folded and trimmed; the second h3 is not used")
        XCTAssertEqual(item.summary, "spaced  value", "an attribute is trimmed, not folded")
        XCTAssertNil(item.author, "a match with only white space is no value")
        XCTAssertEqual(item.id, "html:e.org:n7", "a bare id is qualified with the page's host")
        XCTAssertNil(item.url, "an attribute that is not there is no value")
    }

    // MARK: links

    static let linksPage = """
    <html><head>%BASE%</head><body><ul>
    <li><a href="story/1">Relative</a><img src="img/1.png"></li>
    <li><a href="/root/2">Root-relative</a><img src="//cdn.example.net/2.jpg"></li>
    <li><a href="../up/3">Up one</a></li>
    <li><a href="https://other.example.org/4">Absolute</a><img src="data:image/gif;base64,R0lGOD"></li>
    <li><a href="javascript:void(0)">Script link</a></li>
    <li><a href=" story/6?a=1&amp;b=2#frag ">Spaces and an entity</a></li>
    </ul></body></html>
    """

    func links(at url: String, base: String = "") async throws -> [(url: String?, image: String?)] {
        let r = try await fetch(url, page: Self.linksPage.replacingOccurrences(of: "%BASE%", with: base), items: "//li",
                                fields: #""title": "a", "url": "a/@href", "image": "img/@src""#)
        XCTAssertNil(r.error)
        XCTAssertEqual(r.items.count, 6)
        return r.items.map { ($0.url, $0.image) }
    }

    func testLinksAreMadeAbsoluteAgainstThePage() async throws {
        let l = try await links(at: "https://news.example.com/section/index.html")
        XCTAssertEqual(l[0].url, "https://news.example.com/section/story/1")
        XCTAssertEqual(l[0].image, "https://news.example.com/section/img/1.png")
        XCTAssertEqual(l[1].url, "https://news.example.com/root/2")
        XCTAssertEqual(l[1].image, "https://cdn.example.net/2.jpg", "protocol-relative takes the page's scheme")
        XCTAssertEqual(l[2].url, "https://news.example.com/up/3")
        XCTAssertEqual(l[3].url, "https://other.example.org/4")
        XCTAssertNil(l[3].image, "a data: URL is not http(s): left out")
        XCTAssertNil(l[4].url, "javascript: is left out")
        XCTAssertEqual(l[5].url, "https://news.example.com/section/story/6?a=1&b=2#frag")
        let plain = try await links(at: "http://news.example.com/section/")
        XCTAssertEqual(plain[1].image, "http://cdn.example.net/2.jpg", "protocol-relative on an http page")
    }

    func testABaseHrefWinsOverThePageURL() async throws {
        let l = try await links(at: "https://news.example.com/section/index.html", base: #"<base href="https://static.example.net/v2/">"#)
        XCTAssertEqual(l[0].url, "https://static.example.net/v2/story/1")
        XCTAssertEqual(l[0].image, "https://static.example.net/v2/img/1.png")
        XCTAssertEqual(l[1].url, "https://static.example.net/root/2")
        XCTAssertEqual(l[2].url, "https://static.example.net/up/3")
        let relativeBase = try await links(at: "https://news.example.com/section/index.html", base: #"<base href="/archive/2026/">"#)
        XCTAssertEqual(relativeBase[0].url, "https://news.example.com/archive/2026/story/1", "a relative base resolves against the page URL first")
    }

    // MARK: dates

    func testDatesAreReadLikeFeedDates() async throws {
        let page = """
        <html><body><table>
        <tr><td>RFC 3339</td><td><time datetime="2026-11-29T08:30:00+01:00">Sunday morning</time></td></tr>
        <tr><td>RFC 822</td><td>Sun, 29 Nov 2026 10:00:00 GMT</td></tr>
        <tr><td>Human</td><td>  28 November 2026 17:05 UTC </td></tr>
        <tr><td>Zone name</td><td>2 Oct 2026 18:45 CEST</td></tr>
        <tr><td>Bare date</td><td><time datetime="2026-11-12">12 Nov</time></td></tr>
        <tr><td>Unix</td><td><span data-ts="1795000000"></span></td></tr>
        <tr><td>Unreadable</td><td>yesterday</td></tr>
        <tr><td>Impossible</td><td>31 Feb 2026 10:00 UTC</td></tr>
        </table></body></html>
        """
        let r = try await fetch("https://e.org/dates", page: page, items: "//tr",
                                fields: #""title": "td[1]", "published": "(td[2]/time/@datetime | td[2]/span/@data-ts | td[2][not(*)])[1]""#)
        XCTAssertNil(r.error)
        XCTAssertEqual(r.items.map(\.title), ["RFC 3339", "RFC 822", "Human", "Zone name", "Bare date", "Unix", "Unreadable", "Impossible"])
        XCTAssertEqual(r.items.map { $0.published?.rfc3339 ?? "-" }, [
            "2026-11-29T07:30:00Z", "2026-11-29T10:00:00Z", "2026-11-28T17:05:00Z", "2026-10-02T16:45:00Z",
            "2026-11-12T00:00:00Z", Timestamp(seconds: 1_795_000_000).rfc3339, "-", "-",
        ])
        XCTAssertEqual(r.warnings, [#"GET https://e.org/dates: 2 dates in no known format, left out (e.g. "yesterday")"#], "one warning for the page; the items stay")
    }

    // MARK: ids

    func testIDsWithAndWithoutAURL() async throws {
        let page = """
        <html><body>
        <div class="r"><h2><a href="/notes/1.0">Release 1.0</a></h2></div>
        <div class="r"><h2>Planned: 3.0</h2></div>
        <div class="r" id="urn:quill:2.0"><h2><a href="/notes/2.0">Release 2.0</a></h2></div>
        </body></html>
        """
        let fields = #""title": "h2", "url": "h2/a/@href""#
        let r = try await fetch("https://e.org/notes/", page: page, items: "//div[@class='r']", fields: fields)
        XCTAssertEqual(r.items.map(\.id), [
            "html:https://e.org/notes/1.0",
            "html:sha1:d8d742c2f26621d3077b122bfe709a31ec3da958",  // SHA-1 of "https://e.org/notes/\nPlanned: 3.0"
            "html:https://e.org/notes/2.0",
        ])
        let again = try await fetch("https://e.org/notes/", page: page, items: "//div[@class='r']", fields: fields)
        XCTAssertEqual(again.items.map(\.id), r.items.map(\.id), "stable across runs")
        let elsewhere = try await fetch("https://mirror.e.net/notes/", page: page, items: "//div[@class='r']", fields: fields)
        XCTAssertEqual(elsewhere.items[1].id, "html:sha1:6a177cf161a3df091aa2e93e43401c96449ead57", "another page's title hash differs")
        let withID = try await fetch("https://e.org/notes/", page: page, items: "//div[@class='r']", fields: fields + #", "id": "@id""#)
        XCTAssertEqual(withID.items.map(\.id), ["html:https://e.org/notes/1.0", "html:sha1:d8d742c2f26621d3077b122bfe709a31ec3da958", "html:urn:quill:2.0"],
                       "an id field wins where it has a value; a URI is kept as it is")
    }

    // MARK: failures

    func testItemsThatMatchNothingFailTheSource() async throws {
        let r = try await fetch("https://e.org/list?token=SECRET1", page: "<html><body><div>redesigned</div></body></html>", items: "//article", fields: #""title": "h2""#)
        XCTAssertEqual(r.error, "GET https://e.org/list?token=***: no items matched //article")
        XCTAssertEqual(r.items.count, 0)
        let api = try await fetch("https://e.org/api", page: #"{"items":[]}"#, items: "//article", fields: #""title": "h2""#, contentType: "application/json")
        XCTAssertEqual(api.error, "GET https://e.org/api: no items matched //article (the response is application/json, not a web page)")
        let empty = try await fetch("https://e.org/empty", page: "", items: "//article", fields: #""title": "h2""#)
        XCTAssertEqual(empty.error, "GET https://e.org/empty: no items matched //article (the response body is empty)")
    }

    func testItemsMustBeElements() async throws {
        let r = try await fetch("https://e.org/", page: #"<html><body><a href="/1">1</a></body></html>"#, items: "//a/@href", fields: #""title": ".""#)
        XCTAssertEqual(r.error, #"GET https://e.org/: items "//a/@href" selects a value (an attribute, a string, a number), not elements: each item needs an element for its fields to read from"#)
    }

    func testAnExpressionThatCannotBeEvaluatedFailsTheSource() async throws {
        let r = try await fetch("https://e.org/", page: "<html><body><p>x</p></body></html>", items: "//p", fields: #""title": "no-such-function(.)""#)
        XCTAssertEqual(r.error, #"GET https://e.org/: fields.title "no-such-function(.)" could not be evaluated (an unknown function or variable, or a wrong argument)"#)
    }

    func testAnXPathThatDoesNotCompileIsAConfigErrorOnItsKey() {
        let errors = plugins.configErrors(#"{"name":"h","type":"html","url":"https://e.org/","items":"//article[","fields":{"title":".//h2/a[@","url":"a/@href"}}"#)
        XCTAssertEqual(errors, [
            #"t.json: sources[0] ("h").items: "//article[" is not a valid XPath 1.0 expression"#,
            #"t.json: sources[0] ("h").fields.title: ".//h2/a[@" is not a valid XPath 1.0 expression"#,
        ])
        let noTitle = plugins.configErrors(#"{"name":"h","type":"html","url":"https://e.org/","items":"//article","fields":{"url":"a/@href"}}"#)
        XCTAssertEqual(noTitle.count, 1)
        XCTAssertTrue(noTitle[0].hasPrefix(#"t.json: sources[0] ("h").fields: missing required key "title""#), "\(noTitle)")
        XCTAssertEqual(plugins.configErrors(#"{"name":"h","type":"html","url":"https://e.org/","items":"  ","fields":{"title":"."}}"#),
                       [#"t.json: sources[0] ("h").items: "  " is empty"#])
        XCTAssertEqual(plugins.configErrors(#"{"name":"h","type":"html","url":"https://e.org/","items":"//li","fields":{"title":".","summary":"p]"}}"#),
                       [#"t.json: sources[0] ("h").fields.summary: "p]" is not a valid XPath 1.0 expression"#])
        XCTAssertEqual(plugins.configErrors(#"{"name":"h","type":"html","url":"https://e.org/","items":"//li","fields":{"title":"."}}"#), [])
    }

    func testAnItemWithAnEmptyTitleIsSkippedWithAWarning() async throws {
        let page = """
        <html><body>
        <article><h2><a href="/1">One</a></h2></article>
        <article class="ad"><h2> </h2></article>
        <article><h2><a href="/3">Three</a></h2></article>
        <article class="promo"><div>no heading</div></article>
        </body></html>
        """
        let r = try await fetch("https://e.org/", page: page, items: "//article", fields: #""title": "h2", "url": "h2/a/@href""#)
        XCTAssertNil(r.error, "skipping is not a failure")
        XCTAssertEqual(r.items.map(\.title), ["One", "Three"])
        XCTAssertEqual(r.warnings, ["GET https://e.org/: skipped 2 of 4 matched items: their title is empty (fields.title h2 matched no text); items 2, 4"])
    }

    // MARK: encodings

    /// `<li>Café – “quoted”</li>` in windows-1252 bytes, with `head` in the page's head.
    static func windows1252Page(head: String) -> [UInt8] {
        Array("<html><head>\(head)<title>t</title></head><body><ul><li>Caf".utf8) + [0xE9, 0x20, 0x96, 0x20, 0x93]
            + Array("quoted".utf8) + [0x94] + Array("</li></ul></body></html>".utf8)
    }

    func testAWindows1252PageThroughTheHTTPHeader() async throws {
        // The page's own meta is wrong (it says UTF-8): the header wins, as in browsers.
        let page = Self.windows1252Page(head: #"<meta charset="utf-8">"#)
        let r = try await fetch("https://e.org/", page, items: "//li", fields: #""title": ".""#, contentType: "text/html; charset=ISO-8859-1", explain: true)
        XCTAssertNil(r.error)
        XCTAssertEqual(r.items.first?.title, "Café – “quoted”", "ISO-8859-1 is read as windows-1252: 0x93 and 0x94 are quotes")
        XCTAssertTrue(r.logs.first?.hasSuffix("read as windows-1252 (HTTP header)") ?? false, "\(r.logs)")
        let withoutHeader = try await fetch("https://e.org/", page, items: "//li", fields: #""title": ".""#, contentType: "text/html")
        XCTAssertNotEqual(withoutHeader.items.first?.title, "Café – “quoted”", "without the header the wrong meta decides")
    }

    func testAWindows1252PageThroughItsMeta() async throws {
        for meta in [#"<meta http-equiv="Content-Type" content="text/html; charset=windows-1252">"#, #"<meta charset="iso-8859-1">"#] {
            let r = try await fetch("https://e.org/", Self.windows1252Page(head: meta), items: "//li", fields: #""title": ".""#, contentType: "text/html", explain: true)
            XCTAssertNil(r.error)
            XCTAssertEqual(r.items.first?.title, "Café – “quoted”", meta)
            XCTAssertTrue(r.logs.first?.hasSuffix("read as windows-1252 (meta tag)") ?? false, "\(r.logs)")
        }
    }

    func testTheReleaseTableInWindows1252() async throws {
        let r = try await fetch("https://quillmark.example.org/releases/", Self.fixture("releases-table.html"), items: "//table[@id='releases']//tr[td[1]/a]",
                                fields: #""title": "concat('Quillmark ', td[1])", "url": "td[1]/a/@href", "published": "td[2]", "summary": "td[3]""#,
                                contentType: "text/html")
        XCTAssertNil(r.error)
        XCTAssertEqual(r.items.map(\.title), ["Quillmark 2.4.1", "Quillmark 2.4.0", "Quillmark 2.3.2"], "upper-case tags, no tbody, header and planned rows left out")
        XCTAssertEqual(r.items[0].summary, "Fixes the “naïve” date parser for two-digit years; thanks to François and Zoë for the reports.")
        XCTAssertEqual(r.items[0].url, "https://quillmark.example.org/releases/v2.4.1.html")
        XCTAssertEqual(r.items.map { $0.published?.rfc3339 ?? "-" }, ["2026-11-28T17:05:00Z", "2026-11-14T09:30:00Z", "2026-10-02T16:45:00Z"])
    }

    // MARK: tributary test

    func testExplainShowsWhatEachExpressionMatched() async throws {
        let r = try await fetch("https://news.example.com/world/", Self.fixture("news-listing.html"), items: "//main//article[.//h2/a]", fields: Self.newsFields, explain: true)
        XCTAssertNil(r.error)
        XCTAssertEqual(r.logs.first, "page https://news.example.com/world/: 5847 bytes read as UTF-8 (HTTP header); links resolve against <base href> https://news.example.com/")
        XCTAssertEqual(r.logs.dropFirst().first, "items //main//article[.//h2/a]: 4 matches")
        XCTAssertTrue(r.logs.contains(#"  [1] title .//h2/a: "Storm closes three northern ports as winds reach 140 km/h""#), "\(r.logs)")
        XCTAssertTrue(r.logs.contains(#"  [1] url .//h2/a/@href: "world/2026/11/29/storm-closes-northern-ports" -> https://news.example.com/world/2026/11/29/storm-closes-northern-ports"#), "\(r.logs)")
        XCTAssertTrue(r.logs.contains(#"  [1] published .//time/@datetime: "2026-11-29T08:30:00+01:00" -> 2026-11-29T07:30:00Z"#), "\(r.logs)")
        XCTAssertTrue(r.logs.contains("  [3] image .//img/@src: no match"), "\(r.logs)")
        XCTAssertTrue(r.logs.contains(#"  [3] author normalize-space(substring-after(.//span[@class='byline'], 'By ')): "" (empty)"#), "\(r.logs)")
        XCTAssertFalse(r.logs.contains { $0.hasPrefix("  [4]") }, "three items explained")
        XCTAssertEqual(r.logs.last, "  ... 1 more")
        XCTAssertEqual(r.logs.count, 2 + 3 * 6 + 1)

        let several = try await fetch("https://e.org/", page: "<html><body><div><b>a</b><b>b</b><b>c</b></div></body></html>", items: "//div",
                                      fields: #""title": "b""#, explain: true)
        XCTAssertEqual(several.logs.last, #"  [1] title b: "a" (3 matches, the first used)"#)
        let none = try await fetch("https://e.org/", page: "<html><body></body></html>", items: "//article", fields: #""title": "h2""#, explain: true)
        XCTAssertEqual(none.logs.last, "items //article: 0 matches")

        let quiet = try await fetch("https://news.example.com/world/", Self.fixture("news-listing.html"), items: "//main//article[.//h2/a]", fields: Self.newsFields)
        XCTAssertEqual(quiet.logs, [], "run and watch explain nothing")
    }
}
