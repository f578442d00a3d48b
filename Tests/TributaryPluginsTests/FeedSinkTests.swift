import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
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

/// The three feed file formats (rss, atom, jsonfeed): what they render, that it parses, and
/// that a file read back renders the same bytes.
final class FeedSinkTests: XCTestCase {
    static let now = Timestamp(seconds: 1_795_946_403)

    /// Newest first, as the window hands them to a format.
    static var items: [Item] {
        var nasty = Item(id: "demo:42", source: "s", type: "json", kind: "video", title: "Rock & Roll <live> \"encore\" \u{7}\u{0}\u{1B} Привет 😀 \u{FFFE}",
                         fetched: Timestamp(seconds: 1_795_946_400))
        nasty.published = Timestamp(seconds: 1_795_860_000)
        nasty.summary = "Line one\r\nline two ]]> & <b>more</b>\ttab"
        nasty.url = "https://example.org/v/42?a=1&b=2"
        nasty.image = "https://example.org/i/42.jpg?s=1&t=2"
        nasty.author = "Ann & Bob"
        nasty.tags = ["#музыкальный", "a&b <c>"]
        let bare = Item(id: "demo:43", source: "s", type: "json", kind: "video", title: "Second", fetched: Timestamp(seconds: 1_795_946_400))
        return [bare, nasty]
    }

    static let feed = FeedChannel(title: "My feeds & <more>", link: "https://example.org/?a=1&b=2", description: "Videos & more")
    static let formats: [any FeedFormat] = [RSSFormat(), AtomFormat(), JSONFeedFormat()]

    func testEveryFormatIsWellFormedAndReadsBackToTheSameBytes() throws {
        for format in Self.formats {
            let bytes = format.render(Self.items, feed: Self.feed, now: Self.now)
            if format.type == "jsonfeed" {
                XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(bytes)), "jsonfeed is valid JSON")
            } else {
                let parser = XMLParser(data: Data(bytes))
                XCTAssertTrue(parser.parse(), "\(format.type) is well-formed for libxml2: \(String(describing: parser.parserError))")
            }
            let back = try format.readBack(bytes)
            XCTAssertEqual(back.map(\.id), ["demo:43", "demo:42"], format.type)
            XCTAssertEqual(back[1].url, "https://example.org/v/42?a=1&b=2", format.type)
            XCTAssertEqual(back[1].tags, ["#музыкальный", "a&b <c>"], format.type)
            XCTAssertEqual(String(decoding: format.render(back, feed: Self.feed, now: Self.now), as: UTF8.self), String(decoding: bytes, as: UTF8.self),
                           "\(format.type): a file read back renders exactly as it was")
        }
    }

    func testRSSOutput() throws {
        let xml = String(decoding: Self.formats[0].render(Self.items, feed: Self.feed, now: Self.now), as: UTF8.self)
        XCTAssertTrue(xml.contains("<title>Rock &amp; Roll &lt;live&gt; &quot;encore&quot;  Привет 😀 </title>"), xml)
        XCTAssertTrue(xml.contains("<description>Line one&#13;\nline two ]]&gt; &amp; &lt;b&gt;more&lt;/b&gt;\ttab</description>"), xml)
        XCTAssertTrue(xml.contains(#"<guid isPermaLink="false">demo:42</guid>"#))
        XCTAssertTrue(xml.contains("<pubDate>Sat, 28 Nov 2026 10:00:00 GMT</pubDate>"), "published, in RFC 822")
        XCTAssertTrue(xml.contains("<pubDate>Sun, 29 Nov 2026 10:00:00 GMT</pubDate>"), "fetched when there is no date")
    }

    func testAtomOutput() throws {
        let xml = String(decoding: Self.formats[1].render(Self.items, feed: Self.feed, now: Self.now), as: UTF8.self)
        XCTAssertTrue(xml.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\""), xml)
        XCTAssertFalse(xml.contains("xml:lang"))
        XCTAssertTrue(xml.contains("  <id>https://example.org/?a=1&amp;b=2</id>\n"), xml)
        XCTAssertTrue(xml.contains("  <updated>2026-11-29T10:00:03Z</updated>\n"), "the feed's updated is the time of writing")
        XCTAssertTrue(xml.contains("  <author><name>My feeds &amp; &lt;more&gt;</name></author>\n"), "an entry without author: the feed has one")
        let entry = [
            "  <entry>", "    <id>demo:42</id>", "    <title>Rock &amp; Roll &lt;live&gt; &quot;encore&quot;  Привет 😀 </title>",
            "    <link rel=\"alternate\" href=\"https://example.org/v/42?a=1&amp;b=2\"/>",
            "    <published>2026-11-28T10:00:00Z</published>", "    <updated>2026-11-28T10:00:00Z</updated>",
            "    <author><name>Ann &amp; Bob</name></author>",
            "    <summary>Line one&#13;", "line two ]]&gt; &amp; &lt;b&gt;more&lt;/b&gt;\ttab</summary>",
            "    <category term=\"#музыкальный\"/>", "    <category term=\"a&amp;b &lt;c&gt;\"/>",
            "    <media:thumbnail url=\"https://example.org/i/42.jpg?s=1&amp;t=2\"/>", "  </entry>",
        ].joined(separator: "\n")
        XCTAssertTrue(xml.contains(entry), xml)
        XCTAssertTrue(xml.contains("    <id>demo:43</id>\n    <title>Second</title>\n    <updated>2026-11-29T10:00:00Z</updated>\n"
                                   + "    <content type=\"text\">Second</content>\n  </entry>"), "no link: the title is the content (RFC 4287 4.1.1): \(xml)")
        XCTAssertEqual(xml.components(separatedBy: "<content").count - 1, 1, "an entry with a link has no content: \(xml)")
        XCTAssertFalse(xml.contains("rel=\"self\""), "no self_url, no self link")
        var authored = Self.items[1]
        authored.author = "Ann"
        XCTAssertFalse(String(decoding: Self.formats[1].render([authored], feed: Self.feed, now: Self.now), as: UTF8.self).contains("<author><name>My feeds"),
                       "every entry has an author: the feed needs none")
    }

    func testSelfURLIsTheFeedsOwnLinkInEachFormat() throws {
        let url = "https://example.org/feed?a=1&b=2"
        let atom = String(decoding: AtomFormat().render(Self.items, feed: FeedChannel(title: "t", link: "https://example.org/", description: "d", selfURL: url), now: Self.now), as: UTF8.self)
        XCTAssertTrue(atom.contains("  <link rel=\"alternate\" href=\"https://example.org/\"/>\n  <link rel=\"self\" type=\"application/atom+xml\" href=\"https://example.org/feed?a=1&amp;b=2\"/>\n"), atom)
        let rss = String(decoding: RSSFormat().render(Self.items, feed: FeedChannel(title: "t", link: "https://example.org/", description: "d", selfURL: url), now: Self.now), as: UTF8.self)
        XCTAssertTrue(rss.contains(" xmlns:atom=\"http://www.w3.org/2005/Atom\">"), rss)
        XCTAssertTrue(rss.contains("  <atom:link href=\"https://example.org/feed?a=1&amp;b=2\" rel=\"self\" type=\"application/rss+xml\"/>\n"), rss)
        XCTAssertEqual(try RSSFormat().readBack(Array(rss.utf8)).map(\.id), ["demo:43", "demo:42"], "the atom:link does not disturb reading back")
        let json = JSONFeedFormat().render(Self.items, feed: FeedChannel(title: "t", link: "https://example.org/", description: "d", selfURL: url), now: Self.now)
        let feed = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any])
        XCTAssertEqual(feed["feed_url"] as? String, url)
        let plain = String(decoding: RSSFormat().render(Self.items, feed: FeedChannel(title: "t", link: "l", description: "d"), now: Self.now), as: UTF8.self)
        XCTAssertFalse(plain.contains("atom"), plain)
    }

    func testJSONFeedOutput() throws {
        let bytes = Self.formats[2].render(Self.items, feed: Self.feed, now: Self.now)
        let feed = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        XCTAssertEqual(feed["version"] as? String, "https://jsonfeed.org/version/1.1")
        XCTAssertEqual(feed["home_page_url"] as? String, "https://example.org/?a=1&b=2")
        XCTAssertEqual(feed["title"] as? String, "My feeds & <more>")
        let items = try XCTUnwrap(feed["items"] as? [[String: Any]])
        XCTAssertEqual(items[0]["id"] as? String, "demo:43")
        XCTAssertEqual(items[0]["content_text"] as? String, "", "an item must have content")
        XCTAssertEqual(items[0]["date_published"] as? String, "2026-11-29T10:00:00Z")
        XCTAssertNil(items[0]["authors"])
        XCTAssertEqual(items[1]["title"] as? String, "Rock & Roll <live> \"encore\" \u{7}\u{0}\u{1B} Привет 😀 \u{FFFE}", "JSON carries any text")
        XCTAssertEqual(items[1]["content_text"] as? String, "Line one\r\nline two ]]> & <b>more</b>\ttab")
        XCTAssertEqual(items[1]["url"] as? String, "https://example.org/v/42?a=1&b=2")
        XCTAssertEqual(items[1]["image"] as? String, "https://example.org/i/42.jpg?s=1&t=2")
        XCTAssertEqual(items[1]["date_published"] as? String, "2026-11-28T10:00:00Z")
        XCTAssertEqual((items[1]["authors"] as? [[String: String]])?.first?["name"], "Ann & Bob")
        XCTAssertEqual(items[1]["tags"] as? [String], ["#музыкальный", "a&b <c>"])
        XCTAssertEqual(Array(String(decoding: bytes, as: UTF8.self).prefix(2)), ["{", "\n"], "indented for people")
    }

    /// Items with page text (`fulltext`): both fields with a summary and a link; the plain text
    /// only, without a summary or link; the HTML only, without a link; and one without either.
    static var contentItems: [Item] {
        let t = Timestamp(seconds: 1_795_946_400)
        var both = Item(id: "page:1", source: "s", type: "feed", kind: "entry", title: "Both", fetched: t)
        both.summary = "Short & plain."
        both.content = "First paragraph & more.\n\nSecond ]]> one \u{7}here."
        both.contentHTML = #"<p>First paragraph &amp; more.</p><p>Second ]]&gt; one <a href="https://e.org/x?a=1&amp;b=2">here</a>.</p>"#
        both.url = "https://e.org/1"
        var plain = Item(id: "page:2", source: "s", type: "feed", kind: "entry", title: "Plain", fetched: t)
        plain.content = "Only text.\n\nTwo paragraphs."
        var html = Item(id: "page:3", source: "s", type: "feed", kind: "entry", title: "HTML", fetched: t)
        html.summary = "A summary."
        html.contentHTML = "<p>Only <em>HTML</em>.</p>"
        return [both, plain, html] + items
    }

    func testContentReadsBackAndRendersTheSameBytesInEveryFormat() throws {
        for format in Self.formats {
            let bytes = format.render(Self.contentItems, feed: Self.feed, now: Self.now)
            if format.type == "jsonfeed" {
                XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(bytes)), "jsonfeed is valid JSON")
            } else {
                let parser = XMLParser(data: Data(bytes))
                XCTAssertTrue(parser.parse(), "\(format.type) is well-formed for libxml2: \(String(describing: parser.parserError))")
            }
            let back = try format.readBack(bytes)
            XCTAssertEqual(back.map(\.id), ["page:1", "page:2", "page:3", "demo:43", "demo:42"], format.type)
            XCTAssertEqual(back[0].contentHTML, Self.contentItems[0].contentHTML, format.type)
            XCTAssertEqual(back[0].summary, "Short & plain.", format.type)
            XCTAssertEqual(back[2].contentHTML, "<p>Only <em>HTML</em>.</p>", format.type)
            XCTAssertEqual(back[2].summary, "A summary.", format.type)
            XCTAssertNil(back[3].contentHTML, format.type)
            XCTAssertNil(back[3].content, format.type)
            XCTAssertNil(back[4].content, format.type)
            XCTAssertEqual(String(decoding: format.render(back, feed: Self.feed, now: Self.now), as: UTF8.self), String(decoding: bytes, as: UTF8.self),
                           "\(format.type): a file with content read back renders exactly as it was")
        }
    }

    func testRSSWritesContentHTMLAsContentEncoded() throws {
        let xml = String(decoding: RSSFormat().render(Self.contentItems, feed: Self.feed, now: Self.now), as: UTF8.self)
        XCTAssertTrue(xml.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\" xmlns:dc=\"http://purl.org/dc/elements/1.1/\" xmlns:media=\"http://search.yahoo.com/mrss/\" xmlns:content=\"http://purl.org/rss/1.0/modules/content/\">\n"), xml)
        XCTAssertTrue(xml.contains("    <description>Short &amp; plain.</description>\n    <content:encoded>&lt;p&gt;First paragraph &amp;amp; more.&lt;/p&gt;&lt;p&gt;Second ]]&amp;gt; one &lt;a href=&quot;https://e.org/x?a=1&amp;amp;b=2&quot;&gt;here&lt;/a&gt;.&lt;/p&gt;</content:encoded>\n"), xml)
        XCTAssertEqual(xml.components(separatedBy: "<content:encoded>").count - 1, 2, "only the items with HTML: \(xml)")
        XCTAssertFalse(xml.contains("Only text."), "the plain content has no element in RSS")
        let plain = String(decoding: RSSFormat().render(Self.items, feed: Self.feed, now: Self.now), as: UTF8.self)
        XCTAssertFalse(plain.contains("content"), "no content: no namespace, no element: \(plain)")
    }

    func testAtomWritesOneContentPerEntry() throws {
        let xml = String(decoding: AtomFormat().render(Self.contentItems, feed: Self.feed, now: Self.now), as: UTF8.self)
        XCTAssertTrue(xml.contains("    <summary>Short &amp; plain.</summary>\n    <content type=\"html\">&lt;p&gt;First paragraph &amp;amp; more.&lt;/p&gt;"), xml)
        XCTAssertTrue(xml.contains("    <id>page:2</id>\n    <title>Plain</title>\n    <updated>2026-11-29T10:00:00Z</updated>\n"
                                   + "    <content type=\"text\">Only text.\n\nTwo paragraphs.</content>\n  </entry>"), "the plain content when there is no HTML: \(xml)")
        XCTAssertTrue(xml.contains("    <summary>A summary.</summary>\n    <content type=\"html\">&lt;p&gt;Only &lt;em&gt;HTML&lt;/em&gt;.&lt;/p&gt;</content>\n  </entry>"),
                      "HTML and no link: the HTML is the content, not the summary: \(xml)")
        XCTAssertEqual(xml.components(separatedBy: "<content").count - 1, 4, "one per entry with content, and the title of the one without link or content: \(xml)")
        let back = try AtomFormat().readBack(Array(xml.utf8))
        XCTAssertEqual(back[1].content, "Only text.\n\nTwo paragraphs.")
        XCTAssertNil(back[0].content, "beside content_html the plain content is not in the file")
        XCTAssertNil(back[3].content, "the title standing in for a content is not read back as one")
        var samePage = Self.contentItems[1]
        samePage.url = "https://e.org/2"
        samePage.summary = samePage.content
        XCTAssertEqual(try AtomFormat().readBack(AtomFormat().render([samePage], feed: Self.feed, now: Self.now)).first?.content, samePage.content,
                       "with a link, a text content is the content even when it equals the summary")
    }

    func testJSONFeedWritesContentHTMLAndContentText() throws {
        let bytes = JSONFeedFormat().render(Self.contentItems, feed: Self.feed, now: Self.now)
        let feed = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        let items = try XCTUnwrap(feed["items"] as? [[String: Any]])
        XCTAssertEqual(items[0]["content_html"] as? String, Self.contentItems[0].contentHTML)
        XCTAssertEqual(items[0]["content_text"] as? String, "First paragraph & more.\n\nSecond ]]> one \u{7}here.", "the content, as it is")
        XCTAssertEqual(items[0]["summary"] as? String, "Short & plain.", "beside a content, the summary is JSON Feed's summary")
        XCTAssertEqual(items[1]["content_text"] as? String, "Only text.\n\nTwo paragraphs.")
        XCTAssertNil(items[1]["summary"])
        XCTAssertNil(items[1]["content_html"])
        XCTAssertEqual(items[2]["content_html"] as? String, "<p>Only <em>HTML</em>.</p>")
        XCTAssertEqual(items[2]["content_text"] as? String, "A summary.", "no plain content: the summary as before")
        XCTAssertNil(items[2]["summary"])
        XCTAssertEqual(Array((items[0] as NSDictionary).allKeys as? [String] ?? []).count, 7)
        let text = String(decoding: bytes, as: UTF8.self)
        XCTAssertLessThan(try XCTUnwrap(text.range(of: "\"content_html\"")).lowerBound, try XCTUnwrap(text.range(of: "\"content_text\"")).lowerBound)
        let back = try JSONFeedFormat().readBack(bytes)
        XCTAssertEqual(back[0].content, Self.contentItems[0].content, "with a summary key, content_text is the content")
        XCTAssertEqual(back[1].summary, "Only text.\n\nTwo paragraphs.", "without one it is the summary (which renders the same)")
        XCTAssertNil(back[1].content)
    }

    /// Real consumers (feedparser for RSS and Atom, fastfeedparser for JSON Feed: `FeedReader`)
    /// find the HTML, as it was, as the entry's content, and the summary still as its summary.
    func testConsumersReadTheContent() throws {
        let dir = TempDir()
        defer { dir.remove() }
        for (format, file, json) in [(RSSFormat() as any FeedFormat, "feed.xml", false), (AtomFormat(), "feed.atom", false), (JSONFeedFormat(), "feed.json", true)] {
            let path = dir.write(file, String(decoding: format.render(Self.contentItems, feed: Self.feed, now: Self.now), as: UTF8.self))
            let feed = try FeedReader.read(path, json: json)
            XCTAssertEqual(feed.bozo, 0, "\(format.type): \(feed.bozoException)")
            XCTAssertEqual(feed.entries.map(\.id), ["page:1", "page:2", "page:3", "demo:43", "demo:42"], format.type)
            let both = try XCTUnwrap(feed.entries.first)
            XCTAssertEqual(both.content, Self.contentItems[0].contentHTML, "\(format.type): the HTML as it was")
            XCTAssertEqual(both.summary, "Short & plain.", format.type)
            XCTAssertEqual(feed.entries[2].content, "<p>Only <em>HTML</em>.</p>", format.type)
        }
    }

    /// Each sink, run without state on the file an earlier run wrote, keeps its items.
    func testEverySinkWithoutStateKeepsWhatItsFileHeld() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let makers: [(String, (String) -> any Sink)] = [
            ("rss", { FeedFile(format: RSSFormat(), feed: FeedChannel(title: "t", link: "https://e.org/", description: "d"), path: $0, maxItems: 10) }),
            ("atom", { FeedFile(format: AtomFormat(), feed: FeedChannel(title: "t", link: "https://e.org/", description: "d"), path: $0, maxItems: 10) }),
            ("jsonfeed", { FeedFile(format: JSONFeedFormat(), feed: FeedChannel(title: "t", link: "https://e.org/", description: "d"), path: $0, maxItems: 10) }),
        ]
        for (type, make) in makers {
            let path = dir.path + "/out/feed." + type
            let first = make(path)
            try first.open(SinkContext(window: nil))
            try first.write(Self.items)
            try first.close()
            var newer = Self.items[0]
            newer.id = "demo:44"
            newer.published = Timestamp(seconds: 1_795_999_999)
            let look = make(path)
            try look.open(SinkContext(window: nil))
            try look.write([newer, Self.items[0]])
            try look.close()
            let text = try XCTUnwrap(dir.read("out/feed." + type))
            for id in ["demo:44", "demo:43", "demo:42"] {
                XCTAssertEqual(text.components(separatedBy: id).count - 1, 1, "\(type): \(id) once in\n\(text)")
            }
            XCTAssertLessThan(try XCTUnwrap(text.range(of: "demo:44")).lowerBound, try XCTUnwrap(text.range(of: "demo:43")).lowerBound, type)
        }
    }
}
