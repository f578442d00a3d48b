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
