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

/// The `feed` source in process: fixtures from Tests/Fixtures/feed/ served by the replay transport.
final class WebFeedSourceTests: XCTestCase {
    static func fixture(_ name: String) -> [UInt8] {
        Array(FileManager.default.contents(atPath: packageRoot + "/Tests/Fixtures/feed/" + name) ?? Data())
    }

    /// Builds a `feed` source for `url` (extra options appended) and fetches once from a
    /// recording of `body`.
    func fetch(_ url: String, _ body: [UInt8], status: Int = 200, contentType: String = "application/rss+xml; charset=UTF-8", options: String = "") async throws -> SourceHarness.Fetch {
        try await plugins.fetch(#"{"name":"f","type":"feed","url":"\#(url)"\#(options)}"#,
                                responses: [CannedResponse(url: url, status: status, headers: [("Content-Type", contentType)], body: body)])
    }

    // MARK: formats

    func testRSS2WithCDATAEntitiesAndRelativeLinks() async throws {
        let r = try await fetch("https://blog.example.org/feed/", Self.fixture("rss2-blog.xml"))
        XCTAssertNil(r.error)
        XCTAssertEqual(r.items.count, 3)
        let a = r.items[0]
        XCTAssertEqual(a.id, "feed:https://blog.example.org/?p=1042", "guid, even when not a permalink")
        XCTAssertEqual(a.kind, "entry")
        XCTAssertEqual(a.title, "Structured concurrency & you: what’s new in Swift 6", "double-escaped &amp;amp; and &#8217; decoded")
        XCTAssertEqual(a.url, "https://blog.example.org/2026/11/29/structured-concurrency/", "relative link resolved against the feed URL")
        XCTAssertEqual(a.summary, "Task groups, actors & isolation – a tour.\n\nRead more…", "description HTML from CDATA as plain text")
        XCTAssertEqual(a.author, "Ana Souza")
        XCTAssertEqual(a.published?.rfc3339, "2026-11-29T10:00:00Z")
        XCTAssertEqual(a.tags, ["Swift", "Concurrency"], "categories, duplicates dropped")
        XCTAssertEqual(a.image, "https://blog.example.org/wp-content/uploads/2026/11/tasks.png", "media:content medium=image, resolved")
        XCTAssertEqual(a.data["comments_url"], .string("https://blog.example.org/2026/11/29/structured-concurrency/#respond"))
        XCTAssertEqual(a.data["feed_title"], .string("Swift & Server Notes"))

        let b = r.items[1]
        XCTAssertEqual(b.title, "Vec<T> vs Array<T> — a Rust detour", "markup dropped from a title that has tags, angle brackets kept otherwise")
        XCTAssertEqual(b.author, "Ana Souza", "the name of `email (Name)`")
        XCTAssertEqual(b.published?.rfc3339, "2026-11-27T21:30:00Z", "-0300 offset applied")
        XCTAssertEqual(b.summary, "Plain text description\nwith a line break, no markup.")
        XCTAssertEqual(b.image, "https://cdn.example.org/rust-detour.jpg", "image enclosure")
        XCTAssertNil(b.data["enclosure_url"])

        let c = r.items[2]
        XCTAssertEqual(c.id, "feed:https://blog.example.org/podcast/12", "no guid: the link")
        XCTAssertEqual(c.title, "Episode 12: <Sendable> in practice")
        XCTAssertEqual(c.summary, "Escaped HTML & an entity: café")
        XCTAssertNil(c.image)
        XCTAssertEqual(c.data["enclosure_url"], .string("https://cdn.example.org/podcast/ep12.mp3"))
        XCTAssertEqual(c.data["enclosure_type"], .string("audio/mpeg"))
        XCTAssertEqual(c.data["enclosure_length"], .int(31457280))
        XCTAssertEqual(r.warnings, [])
    }

    func testRSS1RDF() async throws {
        let r = try await fetch("https://rss.news.example.net/linux", Self.fixture("rss1-rdf.xml"), contentType: "application/rdf+xml")
        XCTAssertNil(r.error)
        XCTAssertEqual(r.items.map(\.id), [
            "feed:https://linux.news.example.net/story/26/11/29/0212201/curl-9-released?utm_source=rss1.0mainlinkanon",
            "feed:https://linux.news.example.net/story/26/11/28/2232243/glibc-tz",
        ], "rdf:about is the id")
        XCTAssertEqual(r.items[0].title, "curl 9 Released")
        XCTAssertEqual(r.items[0].url, "https://linux.news.example.net/story/26/11/29/0212201/curl-9-released?utm_source=rss1.0mainlinkanon&utm_medium=feed")
        XCTAssertEqual(r.items[0].summary, "Daniel writes: curl 9 is out\n\nRead more of this story at Example News.")
        XCTAssertEqual(r.items[0].author, "msmash")
        XCTAssertEqual(r.items[0].published?.rfc3339, "2026-11-29T02:25:00Z")
        XCTAssertEqual(r.items[1].published?.rfc3339, "2026-11-29T03:40:00Z", "dc:date with an offset")
        XCTAssertEqual(r.items[1].tags, ["bug", "linux"], "dc:subject")
        XCTAssertEqual(r.items[1].data["feed_title"], .string("Example News: Linux"))
    }

    func testAtomWithXHTMLContentAndXMLBase() async throws {
        let r = try await fetch("https://swift.example.org/atom.xml", Self.fixture("atom-xhtml.xml"), contentType: "application/atom+xml")
        XCTAssertNil(r.error)
        XCTAssertEqual(r.items.count, 3)
        let a = r.items[0]
        XCTAssertEqual(a.id, "feed:https://swift.example.org/blog/swift-6.3-released/")
        XCTAssertEqual(a.title, "Swift 6.3 Released", "type=html title as text")
        XCTAssertEqual(a.url, "https://swift.example.org/blog/swift-6.3-released/", "resolved against the feed's xml:base")
        XCTAssertEqual(a.summary, "Swift 6.3 is now available!\nHighlights:\nfaster builds & better diagnostics\n\none\ntwo", "xhtml summary as text")
        XCTAssertEqual(a.author, "Holly Borla, Tony Allevato")
        XCTAssertEqual(a.published?.rfc3339, "2026-11-28T18:00:00Z", "published wins over updated")
        XCTAssertEqual(a.tags, ["Language", "release"], "label, else term")
        XCTAssertEqual(a.image, "https://swift.example.org/assets/images/swift-6.3.png", "enclosure link with an image type")

        let b = r.items[1]
        XCTAssertEqual(b.url, "https://forums.example.org/t/12345", "entry xml:base")
        XCTAssertEqual(b.summary, "A pitch & a discussion.", "html content when there is no summary")
        XCTAssertEqual(b.published?.rfc3339, "2026-11-27T08:15:30Z", "updated when there is no published")
        XCTAssertEqual(b.author, "Swift Team", "the feed's author")

        let c = r.items[2]
        XCTAssertEqual(c.id, "feed:urn:uuid:1225c695-cfb8-4ebb-aaaa-80da344efa6a")
        XCTAssertEqual(c.title, "Only a summary, and no title at all, which happens with status-like posts.")
        XCTAssertNil(c.published)
        XCTAssertNil(c.url)
        XCTAssertEqual(r.warnings.count, 1)
        XCTAssertTrue(r.warnings[0].contains(#"1 date in no known format, left out (e.g. "not a date")"#), r.warnings[0])
    }

    func testYouTubeChannelFeedGivesVideosWithTheSearchIDs() async throws {
        let url = "https://www.youtube.com/feeds/videos.xml?channel_id=UCzr4Tk8vXq1bN0mLd7Yh2Ww"
        let r = try await fetch(url, Self.fixture("youtube-channel.xml"), contentType: "text/xml; charset=UTF-8", options: #","kind":"post""#)
        XCTAssertNil(r.error)
        XCTAssertEqual(r.items.map(\.id), ["youtube:video:pW3kTq8vN1E", "youtube:video:Qm7Rt2Lp9Xs", "youtube:video:Hx4Nc8Wq1Zo"])
        XCTAssertEqual(Set(r.items.map(\.kind)), ["video"], "always video, whatever `kind` says")
        let a = r.items[0]
        XCTAssertEqual(a.title, "Swift 6 Concurrency: async/await & Actors Explained in 20 Minutes")
        XCTAssertEqual(a.url, "https://www.youtube.com/watch?v=pW3kTq8vN1E")
        XCTAssertEqual(a.image, "https://i4.ytimg.com/vi/pW3kTq8vN1E/hqdefault.jpg")
        XCTAssertEqual(a.summary, "In this video we look at structured concurrency, task groups & actor isolation.\n\nChapters:\n00:00 Intro\n04:12 async let & TaskGroup\n11:40 Actors\n\n#swift #concurrency")
        XCTAssertEqual(a.author, "Swift & Coffee")
        XCTAssertEqual(a.published?.rfc3339, "2026-11-29T11:02:17Z")
        XCTAssertEqual(a.data["video_id"], .string("pW3kTq8vN1E"))
        XCTAssertEqual(a.data["channel_id"], .string("UCzr4Tk8vXq1bN0mLd7Yh2Ww"))
        XCTAssertEqual(a.data["channel_title"], .string("Swift & Coffee"))
        XCTAssertEqual(a.data["views"], .int(48213))
        XCTAssertEqual(r.items[1].url, "https://www.youtube.com/watch?v=Qm7Rt2Lp9Xs", "a Short's /shorts/ link becomes the watch URL")
        XCTAssertNil(r.items[1].summary, "empty media:description")
        XCTAssertEqual(r.items[2].title, "Миграция на Swift 6 — разбор ошибок Sendable (стрим)")
        XCTAssertEqual(r.items[2].summary, "Запись стрима: переводим реальный проект на Swift 6.\nКод: https://github.com/example/swift6-migration")
    }

    func testJSONFeed11() async throws {
        let r = try await fetch("https://daring.example.com/feeds/json", Self.fixture("jsonfeed-1.1.json"), contentType: "application/feed+json")
        XCTAssertNil(r.error)
        XCTAssertEqual(r.items.map(\.id), [
            "feed:https://daring.example.com/linked/2026/11/29/swift-on-server", "feed:daring.example.com:20261128", "feed:tag:daring.example.com,2026:zh-1",
        ], "a numeric id is taken as its text, qualified with the feed host as it is no URI")
        let a = r.items[0]
        XCTAssertEqual(a.title, "★ Swift on the Server, Ten Years In")
        XCTAssertEqual(a.summary, "Long piece on Swift & Linux.\n\n“It’s fast.”")
        XCTAssertEqual(a.image, "https://daring.example.com/graphics/2026/swift-server.png", "relative image resolved")
        XCTAssertEqual(a.published?.rfc3339, "2026-11-29T19:05:00Z")
        XCTAssertEqual(a.author, "Jane Doe", "the feed's authors")
        XCTAssertEqual(a.tags, ["swift", "linux"])
        XCTAssertEqual(a.data["external_url"], .string("https://www.swift.org/blog/server-workgroup-2026/"))
        let b = r.items[1]
        XCTAssertEqual(b.title, "A microblog post with no title.", "first line of content_text")
        XCTAssertEqual(b.summary, "A microblog post with no title.\nSecond line, with an emoji 🚀.")
        XCTAssertEqual(b.author, "Guest Writer")
        XCTAssertEqual(b.data["attachment_url"], .string("https://cdn.example.com/ep/42.mp3"))
        XCTAssertEqual(b.data["attachment_size"], .int(27000000))
        let c = r.items[2]
        XCTAssertEqual(c.title, "Swift 并发：Actor 与 Sendable")
        XCTAssertEqual(c.summary, "中文摘要 — 并发编程。", "summary wins over content_html")
        XCTAssertEqual(c.image, "https://daring.example.com/graphics/banner-zh.jpg", "banner_image when there is no image")
        XCTAssertEqual(c.published?.rfc3339, "2026-11-27T00:00:00Z")
        XCTAssertEqual(c.data["language"], .string("zh-CN"))
    }

    func testWindows1251CyrillicFeed() async throws {
        let body = Self.fixture("rss2-windows-1251.xml")
        XCTAssertNil(String(validating: body, as: UTF8.self), "the fixture really is windows-1251")
        let r = try await fetch("https://novosti.example.ru/rss", body, contentType: "application/rss+xml; charset=windows-1251")
        XCTAssertNil(r.error)
        XCTAssertEqual(r.items.count, 2)
        XCTAssertEqual(r.items[0].title, "«Зенит» обыграл «Спартак» — 2:1")
        XCTAssertEqual(r.items[0].summary, "Матч прошёл в Санкт-Петербурге «при полном стадионе».")
        XCTAssertEqual(r.items[0].tags, ["Спорт"])
        XCTAssertEqual(r.items[0].image, "https://novosti.example.ru/img/2026/11/zenit.jpg")
        XCTAssertEqual(r.items[0].published?.rfc3339, "2026-11-29T10:45:00Z")
        XCTAssertEqual(r.items[1].url, "https://novosti.example.ru/pogoda/moskva?date=29.11.2026&city=%D0%9C%D0%BE%D1%81%D0%BA%D0%B2%D0%B0", "non-ASCII in a link percent-encoded")
        XCTAssertEqual(r.items[1].id, "feed:https://novosti.example.ru/pogoda/moskva?date=29.11.2026&city=%D0%9C%D0%BE%D1%81%D0%BA%D0%B2%D0%B0")
        XCTAssertEqual(r.items[1].summary, "Синоптики обещают снег.\nПодробнее — на сайте.")
        XCTAssertEqual(r.items[1].data["feed_title"], .string("Новости региона — Лента"))
    }

    func testMissingIDsDatesAndTitlesFallBack() async throws {
        let url = "http://small.example.cn/feed.xml"
        let r = try await fetch(url, Self.fixture("rss2-missing-fields.xml"))
        XCTAssertNil(r.error)
        XCTAssertEqual(r.items.count, 4, "the empty item is skipped")
        XCTAssertEqual(r.items[0].id, "feed:http://small.example.cn/posts/1.html", "no guid: the resolved link")
        XCTAssertEqual(r.items[0].title, "第一篇文章： 你好，世界", "white space and line breaks folded, ends trimmed")
        XCTAssertEqual(r.items[0].published?.rfc3339, "2026-11-28T00:00:00Z", "a bare dc:date")
        let hash = Digest.hex(Digest.sha1(Array((url + "\nNo link, no guid, no date").utf8)))
        XCTAssertEqual(r.items[1].id, "feed:sha1:" + hash, "no guid or link: a hash of the feed URL and title")
        XCTAssertNil(r.items[1].url)
        XCTAssertNil(r.items[1].published)
        XCTAssertNil(r.items[2].published, "unreadable date left out")
        XCTAssertEqual(r.items[3].id, "feed:http://small.example.cn/posts/5.html")
        XCTAssertEqual(r.items[3].url, "http://small.example.cn/posts/5.html", "a permalink guid is the link")
        XCTAssertEqual(r.items[3].title, "http://small.example.cn/posts/5.html", "no title or text: the link")
        XCTAssertEqual(r.items[3].published?.rfc3339, "2026-11-27T15:05:00Z", "two-digit year, one-digit hour, PST")
        XCTAssertEqual(r.warnings.count, 2, "\(r.warnings)")
        XCTAssertTrue(r.warnings.contains("GET \(url): skipped 1 of 5 RSS 2.0 entries with no id, link, title or text"), "\(r.warnings)")
        XCTAssertTrue(r.warnings.contains(#"GET \#(url): 1 date in no known format, left out (e.g. "yesterday afternoon")"#), "\(r.warnings)")

        let again = try await fetch(url, Self.fixture("rss2-missing-fields.xml"))
        XCTAssertEqual(again.items.map(\.id), r.items.map(\.id), "ids stable across runs")
    }

    func testLeadingWhitespaceBOMAndFileURL() async throws {
        let blank = Array("\n\n  ".utf8) + Self.fixture("rss1-rdf.xml")
        let blanked = try await fetch("https://e.org/a", blank)
        XCTAssertEqual(blanked.items.count, 2, "white space before <?xml is tolerated")
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF] + Self.fixture("atom-xhtml.xml")
        let bommed = try await fetch("https://e.org/b", bom)
        XCTAssertEqual(bommed.items.count, 3)

        let dir = TempDir()
        defer { dir.remove() }
        let path = dir.write("feed.json", String(decoding: Self.fixture("jsonfeed-1.1.json"), as: UTF8.self))
        let r = try await plugins.fetchOverHTTP(#"{"name":"local","type":"feed","url":"file://\#(path)"}"#)
        XCTAssertNil(r.error)
        XCTAssertEqual(r.items.count, 3, "a file: URL written in the config is read")
    }

    func testUndeclaredWellKnownPrefixIsTolerated() async throws {
        let body = #"<rss version="2.0"><channel><item><title>x</title><link>https://e.org/1</link><media:thumbnail url="https://i.e.org/1.jpg"/><dc:creator>Li Wei</dc:creator></item></channel></rss>"#
        let r = try await fetch("https://e.org/rss", Array(body.utf8))
        XCTAssertNil(r.error)
        XCTAssertEqual(r.items.first?.image, "https://i.e.org/1.jpg", "media: without xmlns:media still means Media RSS")
        XCTAssertEqual(r.items.first?.author, "Li Wei")
    }

    // MARK: failures

    func testMalformedXMLNamesLineColumnAndTheRedactedURL() async throws {
        let r = try await fetch("https://e.org/feed?token=SECRET9", Self.fixture("malformed.xml"))
        XCTAssertEqual(r.items, [])
        XCTAssertEqual(r.error, "GET https://e.org/feed?token=***: malformed XML at line 6, column 25: undeclared entity (HTML entities such as &nbsp; are not XML; the feed must use &#160;)")
        let cases: [(String, String)] = [
            ("<rss><channel>\n<title>a</titel></channel></rss>", "line 2, column 17: mismatched closing tag"),
            ("<rss><channel><item><title>Q&A</title></item></channel></rss>", "a bare '&' or '<'"),
            ("<rss><channel><item>", "line 1, column 21: the document does not end properly"),
            ("<rss/><rss/>", "line 1, column 7: the document does not end properly"),
        ]
        for (body, expected) in cases {
            let e = try await fetch("https://e.org/x", Array(body.utf8)).error ?? ""
            XCTAssertTrue(e.hasPrefix("GET https://e.org/x: malformed XML at "), e)
            XCTAssertTrue(e.contains(expected), "\(body): \(e)")
        }
    }

    func testDocumentsThatAreNotFeedsSayWhatTheyAre() async throws {
        let html = try await fetch("https://blog.example.org/", Self.fixture("html-page.html"), contentType: "text/html; charset=utf-8")
        XCTAssertEqual(html.error, "GET https://blog.example.org/: got an HTML page, expected an RSS, Atom or JSON feed (text/html; charset=utf-8); the page names a feed: https://blog.example.org/feed/?format=rss&v=2")
        let cases: [(String, String)] = [
            (String(decoding: Self.fixture("sitemap.xml"), as: UTF8.self), "an XML document with root element <urlset> (namespace http://www.sitemaps.org/schemas/sitemap/0.9), not an RSS, Atom or JSON feed"),
            (#"<?xml version="1.0"?><!DOCTYPE html><html xmlns="http://www.w3.org/1999/xhtml"><body/></html>"#, "got an HTML page"),
            ("<!-- cached --><html><body><p>Sign in<br></body></html>", "got an HTML page"),
            (#"{"items":[]}"#, #"a JSON document that is not a JSON Feed (no "version", expected "https://jsonfeed.org/version/1.1")"#),
            (#"{"version":2}"#, #"a JSON document that is not a JSON Feed ("version" is 2, expected"#),
            ("[1,2]", "a JSON array, not a feed"),
            ("", "empty response body, expected an RSS, Atom or JSON feed"),
            (" \n ", "empty response body"),
            ("Service temporarily unavailable", #"not an RSS, Atom or JSON feed: the body starts with "Service temporarily unavailable" (text/plain)"#),
            (#"{"version":"https://jsonfeed.org/version/1.1","items":[{"id":"1""#, "invalid JSON at 1:65"),
        ]
        for (body, expected) in cases {
            let e = try await fetch("https://e.org/x?key=K", Array(body.utf8), contentType: "text/plain").error ?? "no error"
            XCTAssertTrue(e.hasPrefix("GET https://e.org/x?key=***: "), e)
            XCTAssertTrue(e.contains(expected), "\(body.prefix(30)): \(e)")
        }
    }

    func testJSONFeedWrongTypesNameTheKeyPath() async throws {
        let v = #""version":"https://jsonfeed.org/version/1.1""#
        let cases: [(String, String)] = [
            (#"{\#(v)}"#, "items: missing, expected array"),
            (#"{\#(v),"items":{}}"#, "items: expected array, found object"),
            (#"{\#(v),"items":[{"id":"a","title":"ok"},{"id":"b","title":{"text":"x"}}]}"#, "items[1].title: expected string or number, found object"),
            (#"{\#(v),"items":[{"id":"a","tags":[1,{"x":1}]}]}"#, "items[0].tags[1]: expected string or number, found object"),
            (#"{\#(v),"items":[{"id":"a","authors":"Jane"}]}"#, "items[0].authors: expected array, found string"),
            (#"{\#(v),"items":["just a string"]}"#, "items[0]: expected object, found string"),
            (#"{\#(v),"items":[{"id":"a","date_published":1764400000}]}"#, "items[0].date_published: expected string, found number"),
        ]
        for (body, expected) in cases {
            let e = try await fetch("https://e.org/f.json", Array(body.utf8), contentType: "application/feed+json").error ?? "no error"
            XCTAssertEqual(e, "GET https://e.org/f.json: \(expected)")
        }
        let lenient = try await fetch("https://e.org/f.json", Array(#"{\#(v),"items":[{"id":7,"title":2026,"tags":"one","url":"ftp://x/y"}]}"#.utf8))
        XCTAssertNil(lenient.error)
        XCTAssertEqual(lenient.items.first?.id, "feed:e.org:7")
        XCTAssertEqual(lenient.items.first?.title, "2026")
        XCTAssertEqual(lenient.items.first?.tags, ["one"])
        XCTAssertNil(lenient.items.first?.url, "only http(s) links")
    }

    func testHTTPErrorsAndAFeedOfNoEntries() async throws {
        let notFound = try await fetch("https://e.org/gone?appkey=K2", Array("<html><body>Not Found</body></html>".utf8), status: 404, contentType: "text/html")
        XCTAssertEqual(notFound.error, "GET https://e.org/gone?appkey=***: HTTP 404 Not Found")
        let server = try await fetch("https://e.org/busy", Array("upstream timed out".utf8), status: 503, contentType: "text/plain")
        XCTAssertEqual(server.error, "GET https://e.org/busy: HTTP 503 Service Unavailable: upstream timed out")
        let empty = try await fetch("https://e.org/empty", Array(#"<rss version="2.0"><channel><title>Quiet</title></channel></rss>"#.utf8))
        XCTAssertNil(empty.error)
        XCTAssertEqual(empty.items, [])
    }

    // MARK: options

    func testOptionValidation() async {
        XCTAssertEqual(plugins.configErrors(#"{"name":"f","type":"feed"}"#), [#"t.json: sources[0] ("f"): needs "url" or "urls""#])
        XCTAssertEqual(plugins.configErrors(#"{"name":"f","type":"feed","url":"ftp://e.org/feed"}"#), [#"t.json: sources[0] ("f").url: expected an http://, https:// or file: URL, found "ftp://e.org/feed""#])
        XCTAssertEqual(plugins.configErrors(#"{"name":"f","type":"feed","url":"https:///feed"}"#), [#"t.json: sources[0] ("f").url: "https:///feed" has no host"#])
        XCTAssertEqual(plugins.configErrors(#"{"name":"f","type":"feed","url":"https://e.org/","kind":"Blog Post"}"#), [#"t.json: sources[0] ("f").kind: "Blog Post" must match [a-z][a-z0-9_]*"#])
        XCTAssertEqual(plugins.configErrors(#"{"name":"f","type":"feed","url":"https://e.org/","headers":["Accept"]}"#), [#"t.json: sources[0] ("f").headers: expected an object of strings, found ["Accept"]"#])
        XCTAssertEqual(plugins.configErrors(#"{"name":"f","type":"feed","urls":"https://e.org/"}"#), [#"t.json: sources[0] ("f").urls: expected a list of strings, found "https://e.org/""#])
        XCTAssertEqual(plugins.configErrors(#"{"name":"f","type":"feed","url":"https://e.org/","utls":[]}"#), [#"t.json: sources[0] ("f"): unknown key "utls" (did you mean "urls"?)"#])
        XCTAssertEqual(plugins.configErrors(#"{"name":"f","type":"feed","url":"https://e.org/","kind":"post","headers":{"Accept":"application/rss+xml"},"max_items":5}"#), [])
    }
}

/// Links' URL characters and percent-encoding are what Foundation's CharacterSet and
/// `addingPercentEncoding` gave when Links used them.
final class FeedLinksCharacterTests: XCTestCase {
    /// The set Links used to build: ASCII alphanumerics and `-._~:/?#[]@!$&'()*+,;=%`.
    private static let foundationSet: CharacterSet = {
        var set = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0x21)...Unicode.Scalar(0x7E)))
        set.insert(charactersIn: "-._~:/?#[]@!$&'()*+,;=%")
        return set
    }()

    func testURLCharacterIsTheCharacterSetOverEveryScalar() {
        var differ: [UInt32] = []
        for v in UInt32(0)...0x10FFFF {
            guard let s = Unicode.Scalar(v) else { continue }
            if Links.isURLCharacter(s) != Self.foundationSet.contains(s) { differ.append(v) }
        }
        XCTAssertEqual(differ, [])
    }

    func testEncodedIsFoundationsPercentEncoding() {
        let samples = ["https://e.org/новости/1", "a b", "100%", "%zz", "é\u{301}", "tab\tnl\n", "emoji 🙂/x?q=ü#f", "\u{7F}\u{0}", "https://e.org/ok"]
        for s in samples {
            XCTAssertEqual(Links.encoded(s), s.addingPercentEncoding(withAllowedCharacters: Self.foundationSet), s)
        }
    }
}
