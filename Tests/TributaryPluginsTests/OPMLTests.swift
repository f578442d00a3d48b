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

/// The OPML reader and writer on their own: what the end-to-end tests do not reach.
final class OPMLTests: XCTestCase {
    func read(_ s: String) throws -> OPML.Document { try OPML.read(Array(s.utf8)) }

    func testWriterOutputReadsBackWithEveryAwkwardCharacter() throws {
        let subs = [
            OPML.Subscription(title: "Tabs\tand \"quotes\" <b>&amp;</b> ' ü 中文 🎉", xmlURL: "https://e.org/f?a=1&b=<2>", htmlURL: "https://e.org/?q=\"x\"", tags: ["A & B", "Ünïcode"]),
            OPML.Subscription(title: nil, xmlURL: "https://e.org/untitled", tags: []),
            OPML.Subscription(title: "ctl\u{01}char", xmlURL: "https://e.org/ctl", tags: ["A & B"]),
        ]
        let xml = OPML.write(title: "T & <t>", subscriptions: subs)
        XCTAssertFalse(xml.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "no control characters: XML 1.0 forbids them")
        let back = try read(xml)
        XCTAssertEqual(back.title, "T & <t>")
        XCTAssertEqual(back.subscriptions.count, 3)
        let first = try XCTUnwrap(back.subscriptions.first { $0.xmlURL == subs[0].xmlURL })
        XCTAssertEqual(first.title, "Tabs and \"quotes\" <b>&</b> ' ü 中文 🎉", "white space folded, entities decoded once more as in any title")
        XCTAssertEqual(first.htmlURL, subs[0].htmlURL)
        XCTAssertEqual(first.tags, ["A & B", "Ünïcode"])
        XCTAssertEqual(back.subscriptions.first { $0.xmlURL == "https://e.org/untitled" }?.title, "https://e.org/untitled", "an untitled feed is written with its URL as text, which OPML requires")
        XCTAssertEqual(back.subscriptions.first { $0.xmlURL == "https://e.org/ctl" }?.tags, ["A & B"], "a folder shared by two feeds")
        XCTAssertEqual(xml.components(separatedBy: "text=\"A &amp; B\"").count - 1, 1, "written once")
    }

    func testShapes() throws {
        let d = try read("\u{FEFF}\n  <?xml version=\"1.0\"?><opml version=\"1.0\"><body><outline type=\"rss\" url=\"https://old.example.org/rss\" text=\"Old\"/>"
                         + "<outline type=\"link\" url=\"https://link.example.org/\" text=\"Link\"/><outline xmlUrl=\"  https://sp.example.org/f  \" htmlUrl=\"\" category=\"/a/b, c,,\"/></body></opml>")
        XCTAssertEqual(d.subscriptions, [
            OPML.Subscription(title: "Old", xmlURL: "https://old.example.org/rss"),
            OPML.Subscription(title: nil, xmlURL: "https://sp.example.org/f", htmlURL: nil, tags: ["a/b", "c"]),
        ])
        XCTAssertThrowsError(try read("")) { XCTAssertEqual("\($0)", "the file is empty") }
        XCTAssertThrowsError(try read("<opml version=\"2.0\"><head/></opml>")) { XCTAssertEqual("\($0)", "no <body> element: not an OPML file") }
        XCTAssertThrowsError(try read("<opml><body><outline text=\"a\"></body></opml>")) { XCTAssertTrue("\($0)".hasPrefix("malformed XML at line 1"), "\($0)") }
        XCTAssertThrowsError(try OPML.read([UInt8](repeating: 0x20, count: OPML.maximumSize + 1))) { XCTAssertEqual("\($0)", "the file is larger than 16 MB") }
    }

    func testSourceNames() {
        XCTAssertEqual(OPML.sourceName(title: "Über Kaffee – Blog", fallback: "x"), "uber-kaffee-blog")
        XCTAssertEqual(OPML.sourceName(title: "  ...Hidden_Feed!! ", fallback: "x"), "hidden_feed")
        XCTAssertEqual(OPML.sourceName(title: "Новости", fallback: "news.example.ru"), "news.example.ru")
        XCTAssertEqual(OPML.sourceName(title: "中文", fallback: ""), "feed")
        XCTAssertEqual(OPML.sourceName(title: String(repeating: "ab ", count: 40), fallback: "x").count, 40)
        for title in ["Über Kaffee", "...", "A/B", "ÅÄÖ", "x--y"] {
            XCTAssertTrue(ConfigLoader.isValidName(OPML.sourceName(title: title, fallback: "e.org")), title)
        }
    }
}

/// SlugFolding's table is Foundation's diacritic-, case- and width-insensitive folding, kept to
/// the slug alphabet, over every scalar it was generated from, and on whole titles.
final class SlugFoldingTests: XCTestCase {
    private static func foundationFold(_ s: String) -> String {
        let f = s.folding(options: [.diacriticInsensitive, .caseInsensitive, .widthInsensitive], locale: nil).lowercased()
        return String(f.unicodeScalars.filter { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "." || $0 == "_" }.map(Character.init))
    }

    func testEveryScalarFoldsAsFoundationFoldsIt() {
        var differ: [String] = []
        for v in UInt32(0)...0x2FFFF {
            guard let u = Unicode.Scalar(v) else { continue }
            let ours = SlugFolding.fold(u) ?? ""
            if ours != Self.foundationFold(String(Character(u))) { differ.append(String(v, radix: 16)) }
        }
        XCTAssertEqual(differ, [])
    }

    func testTitlesGiveFoundationsSlugs() {
        func foundationSlug(_ s: String) -> String {
            let folded = s.folding(options: [.diacriticInsensitive, .caseInsensitive, .widthInsensitive], locale: nil).lowercased()
            var out = ""
            var dash = false
            for u in folded.unicodeScalars {
                if ("a"..."z").contains(u) || ("0"..."9").contains(u) || u == "." || u == "_" {
                    if dash && !out.isEmpty { out += "-" }
                    dash = false
                    out.unicodeScalars.append(u)
                } else {
                    dash = true
                }
                if out.count >= 40 { break }
            }
            while let first = out.unicodeScalars.first, first == "." || first == "_" { out.removeFirst() }
            return out
        }
        let titles = ["Über Kaffee – Blog", "Cafe\u{301} de Flore", "Straße & Co", "ＦＵＬＬ ｗｉｄｔｈ １２", "ﬁnance ﬂow", "Ærø Ønskeliste",
                      "İstanbul Günlüğü", "Tiếng Việt có dấu", "Ça va? Déjà vu!", "x" + String(repeating: "ß", count: 30), "Новости", "日本語のブログ", "  ...Hidden_Feed!! "]
        for t in titles {
            let expected = foundationSlug(t)
            XCTAssertEqual(OPML.sourceName(title: t, fallback: "fallback.example"), expected.isEmpty ? "fallback.example" : expected, t)
        }
    }
}
