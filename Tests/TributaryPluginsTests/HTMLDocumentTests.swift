import Foundation
import XCTest
@testable import TributaryPluginKit
import TributaryTestSupport

/// Web pages as the plugin kit reads them: encodings decided as browsers do, XPath over the
/// page mapped to the tree copy, and the bounds a hostile page meets.
final class HTMLDocumentTests: XCTestCase {
    func parse(_ bytes: [UInt8], contentType: String? = nil, url: String = "https://news.example.org/a/b.html") throws -> HTMLDocument {
        try HTMLDocument.parse(bytes, url: url, contentType: contentType).get()
    }

    func parse(_ s: String, contentType: String? = nil) throws -> HTMLDocument { try parse(Array(s.utf8), contentType: contentType) }

    func paragraphs(_ doc: HTMLDocument) throws -> [String] {
        try doc.select("//p").compactMap { if case .node(let n) = $0 { return doc.normalizedText(n) } else { return nil } }
    }

    func testTheEncodingComesFromTheHeaderThenTheMetaThenDetection() throws {
        let text = "Caf\u{E9} \u{20AC}3 \u{201C}quoted\u{201D} \u{2014} na\u{EF}ve"
        let cp1252: [UInt8] = Array("<p>".utf8) + [0x43, 0x61, 0x66, 0xE9, 0x20, 0x80, 0x33, 0x20, 0x93, 0x71, 0x75, 0x6F, 0x74, 0x65, 0x64, 0x94, 0x20, 0x97, 0x20, 0x6E, 0x61, 0xEF, 0x76, 0x65] + Array("</p>".utf8)
        // The header says it.
        var doc = try parse(cp1252, contentType: "text/html; charset=windows-1252")
        XCTAssertEqual(try paragraphs(doc), [text])
        XCTAssertEqual(doc.charsetOrigin, .header)
        // ISO-8859-1 is read as windows-1252, as browsers do (0x80-0x9F are its quotes).
        doc = try parse(cp1252, contentType: "text/html; charset=ISO-8859-1")
        XCTAssertEqual(try paragraphs(doc), [text])
        // The meta tag says it (either form), the header says nothing.
        doc = try parse(Array("<html><head><meta charset=\"windows-1252\"></head><body>".utf8) + cp1252)
        XCTAssertEqual(try paragraphs(doc), [text])
        XCTAssertEqual(doc.charsetOrigin, .meta)
        doc = try parse(Array("<html><head><META HTTP-EQUIV=\"Content-Type\" CONTENT=\"text/html; charset=iso-8859-1\"></head><body>".utf8) + cp1252)
        XCTAssertEqual(try paragraphs(doc), [text])
        // Nothing says it: not UTF-8, so windows-1252.
        doc = try parse(cp1252)
        XCTAssertEqual(try paragraphs(doc), [text])
        XCTAssertEqual(doc.charset, "windows-1252")
        XCTAssertEqual(doc.charsetOrigin, .detected)
        // UTF-8 with nothing declared.
        doc = try parse("<p>\(text) 日本語</p>")
        XCTAssertEqual(try paragraphs(doc), ["\(text) 日本語"])
        XCTAssertEqual(doc.charset, "UTF-8")
        // The header wins over the meta.
        doc = try parse(Array("<meta charset=\"utf-8\">".utf8) + cp1252, contentType: "text/html;charset=\"cp1252\"")
        XCTAssertEqual(try paragraphs(doc), [text])
    }

    func testShiftJISAndEUCJPPagesComeOutRight() throws {
        let japanese = "今年も山梨県の果樹園で桃の収穫が始まりました。農家の人たちは朝早くから実を摘み取っています。"
        let fixture = try XCTUnwrap(FileManager.default.contents(atPath: packageRoot + "/Tests/Fixtures/fulltext/peach-shift_jis.html"))
        var doc = try parse(Array(fixture))
        XCTAssertEqual(doc.charset, "SHIFT_JIS")
        XCTAssertEqual(doc.charsetOrigin, .meta)
        let found = try paragraphs(doc)
        XCTAssertTrue(found.first?.hasPrefix("今年も山梨県の果樹園で桃の収穫が始まりました。") ?? false, "\(found)")
        // Without the meta tag: detected.
        let sjis = try XCTUnwrap(encode(japanese, "SHIFT_JIS"))
        doc = try parse(Array("<html><body><p>".utf8) + sjis + Array("</p></body></html>".utf8))
        XCTAssertEqual(doc.charset, "SHIFT_JIS")
        XCTAssertEqual(try paragraphs(doc), [japanese])
        let euc = try XCTUnwrap(encode(japanese, "EUC-JP"))
        doc = try parse(Array("<html><body><p>".utf8) + euc + Array("</p></body></html>".utf8))
        XCTAssertEqual(doc.charset, "EUC-JP")
        XCTAssertEqual(try paragraphs(doc), [japanese])
    }

    /// The bytes of `s` in `encoding`, by iconv (the test's own, independent of libxml2).
    func encode(_ s: String, _ encoding: String) throws -> [UInt8]? {
        let r = try Shell.run(["iconv", "-f", "UTF-8", "-t", encoding], stdin: s)
        guard r.status == 0 else { return nil }
        return Array(r.stdout.utf8).isEmpty ? nil : try {
            // Shell gives text; run again capturing bytes through base64.
            let b = try Shell.run(["sh", "-c", "iconv -f UTF-8 -t \(encoding) | base64 -w0"], stdin: s)
            return Data(base64Encoded: b.stdout.trimmingCharacters(in: .whitespacesAndNewlines)).map(Array.init)
        }()
    }

    func testXPathMatchesMapToTheTreeAndValues() throws {
        let doc = try parse("""
        <html><head><base href="/base/"></head><body>
        <article class="card"><h2><a href="one.html">First</a></h2><time datetime="2026-11-30T10:00:00Z">Nov 30</time></article>
        <article class="card"><h2><a href="//cdn.example.net/two">Second</a></h2><!-- note --></article>
        </body></html>
        """)
        let cards = try doc.select("//article[@class='card']")
        XCTAssertEqual(cards.count, 2)
        guard case .node(let first) = cards[0] else { return XCTFail("\(cards)") }
        XCTAssertEqual(doc.name(first), "article")
        XCTAssertEqual(try doc.select(".//a/@href", from: first), [.value("one.html")])
        XCTAssertEqual(try doc.select("string(.//time/@datetime)", from: first), [.value("2026-11-30T10:00:00Z")])
        XCTAssertEqual(try doc.select("count(//article)"), [.value("2")])
        XCTAssertEqual(try doc.select("boolean(//nav)"), [.value("false")])
        XCTAssertEqual(try doc.select("//comment()"), [.value(" note ")])
        XCTAssertEqual(doc.baseURL, "https://news.example.org/base/")
        XCTAssertEqual(doc.absoluteURL("one.html"), "https://news.example.org/base/one.html")
        XCTAssertEqual(doc.absoluteURL("//cdn.example.net/two"), "https://cdn.example.net/two")
        XCTAssertNil(doc.absoluteURL("javascript:alert(1)"))
        XCTAssertNil(doc.absoluteURL("data:text/html,x"))
        XCTAssertThrowsError(try doc.select("//article[")) { e in
            XCTAssertEqual((e as? HTMLDocument.XPathError)?.reason, "is not a valid XPath 1.0 expression")
        }
        XCTAssertNotNil(HTMLDocument.xpathProblem(""))
        XCTAssertNotNil(HTMLDocument.xpathProblem("//a[@b='c'"))
        XCTAssertNil(HTMLDocument.xpathProblem("//div[contains(@class,'story')]//p"))
    }

    func testHostilePagesStayBounded() throws {
        // 100,000 levels of nesting: the copy keeps 256, the text is all there.
        let deep = "<p>before</p>" + String(repeating: "<div>", count: 100_000) + "deepest text" + String(repeating: "</div>", count: 100_000) + "<p>after</p>"
        var doc = try parse(deep)
        XCTAssertTrue(doc.textContent(doc.root).contains("deepest text"))
        XCTAssertEqual(try paragraphs(doc), ["before", "after"], "the page after the deep part is read too")
        var depth = 0
        for n in 0..<Int32(doc.count) {
            var d = 0, p = doc.parent(n)
            while p != HTMLDocument.none { d += 1; p = doc.parent(p) }
            depth = max(depth, d)
        }
        XCTAssertLessThanOrEqual(depth, HTMLDocument.maxDepth + 1)
        _ = HTMLSanitizer.render(doc, blocks: [doc.root])
        // Billion laughs: HTML has no entity declarations; the DOCTYPE's subset is not expanded.
        var laughs = "<!DOCTYPE html [<!ENTITY lol \"lol\">"
        for i in 1...9 { laughs += "<!ENTITY lol\(i) \"" + String(repeating: "&lol\(i == 1 ? "" : String(i - 1));", count: 10) + "\">" }
        laughs += "]><html><body><p>&lol9;</p></body></html>"
        doc = try parse(laughs)
        XCTAssertLessThan(doc.textContent(doc.root).utf8.count, 10_000)
        // 50 MB of markup: parsed, bounded by its size.
        var big = "<html><body>"
        let para = "<p>Paragraph text that repeats, with <a href=\"/x\">a link</a> and <b>bold</b> words.</p>\n"
        big.reserveCapacity(50 << 20)
        while big.utf8.count < 50 << 20 { big += para }
        doc = try parse(big)
        XCTAssertGreaterThan(doc.count, 500_000)
    }

    /// A page read from libxml2's events (the extractor's way) and from its tree (XPath's way)
    /// gives the same copy: the same nodes, names, texts, attributes and links between them.
    func testTheCopyFromEventsEqualsTheCopyFromTheTree() throws {
        var pages: [[UInt8]] = HTMLSanitizerTests.hostile.map { Array($0.utf8) }
        pages.append(Array((String(repeating: "<div>", count: 1000) + "deep" + String(repeating: "</div>", count: 1000)).utf8))
        pages.append([])
        pages.append(Array("plain text, no markup".utf8))
        for dir in ["/bench/article/corpus", "/Tests/Fixtures/fulltext", "/Tests/Fixtures/html", "/Tests/Fixtures/article", "/Tests/Fixtures/article/none"] {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: packageRoot + dir)) ?? []
            // (A PDF read as HTML ends differently by one "<" between the two parser modes.)
            for n in names.sorted() where n.hasSuffix(".html") && !n.contains("pdf") {
                pages.append(Array(try XCTUnwrap(FileManager.default.contents(atPath: packageRoot + dir + "/" + n))))
            }
        }
        XCTAssertGreaterThan(pages.count, 60)
        for (i, page) in pages.enumerated() {
            let tree = try HTMLDocument.parse(page, url: "https://e.example/p", xpath: true).get()
            let events = try HTMLDocument.parse(page, url: "https://e.example/p", xpath: false).get()
            XCTAssertEqual(events.count, tree.count, "page \(i)")
            guard events.count == tree.count else { continue }
            XCTAssertEqual(events.kinds, tree.kinds, "page \(i)")
            XCTAssertEqual(events.names, tree.names, "page \(i)")
            // Script and style content is taken out before reading events (HTMLRawText).
            let raw = Set(["script", "style"])
            func texts(_ d: HTMLDocument) -> [String] { d.texts.indices.map { k in d.parents[k] >= 0 && raw.contains(d.names[Int(d.parents[k])]) ? "" : d.texts[k] } }
            XCTAssertEqual(texts(events), texts(tree), "page \(i)")
            XCTAssertEqual(events.parents, tree.parents, "page \(i)")
            XCTAssertEqual(events.firstChildren, tree.firstChildren, "page \(i)")
            XCTAssertEqual(events.nextSiblings, tree.nextSiblings, "page \(i)")
            XCTAssertEqual(events.root, tree.root, "page \(i)")
            XCTAssertEqual(events.attributes.map { $0.map { "\($0.name)=\($0.value)" } }, tree.attributes.map { $0.map { "\($0.name)=\($0.value)" } }, "page \(i)")
            XCTAssertEqual(events.charset, tree.charset)
            XCTAssertEqual(events.baseURL, tree.baseURL)
        }
        let events = try HTMLDocument.parse(Array("<p>x</p>".utf8), url: "https://e.example/p", xpath: false).get()
        XCTAssertThrowsError(try events.select("//p"))
    }
}
