import Foundation
import XCTest
@testable import TributaryPluginKit
@testable import TributaryPlugins
import TributaryTestSupport

/// The fulltext processor's article extraction on pages shaped like real ones
/// (Tests/Fixtures/article/: a news page, a blog post with code and a table, a forum thread, a
/// table-layout page of the 1990s, a Chinese news page, each with its human-marked text), on
/// pages with no article, on hostile sizes and nesting, and the sanitizer's HTML on hostile
/// markup.
final class ArticleExtractorTests: XCTestCase {
    static let dir = BinaryRunner.packageRoot + "/Tests/Fixtures/article/"

    func page(_ file: String) throws -> HTMLDocument {
        let body = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.dir + file)))
        var url = "https://example.org/" + file
        var contentType: String?
        if let meta = try? Data(contentsOf: URL(fileURLWithPath: Self.dir + file.replacingOccurrences(of: ".html", with: ".json"))),
           let object = try JSONSerialization.jsonObject(with: meta) as? [String: Any] {
            url = object["url"] as? String ?? url
            if let c = object["http_charset"] as? String { contentType = "text/html; charset=" + c }
        }
        return try Self.parse(body, url: url, contentType: contentType)
    }

    static func parse(_ body: [UInt8], url: String = "https://example.org/a", contentType: String? = nil) throws -> HTMLDocument {
        switch HTMLDocument.parse(body, url: url, contentType: contentType) {
        case .success(let doc): return doc
        case .failure(let e): throw e
        }
    }

    func extract(_ doc: HTMLDocument) -> HTMLSanitizer.Output? {
        ArticleExtractor.extract(doc).map { HTMLSanitizer.render(doc, blocks: $0.blocks, skipping: $0.skipping) }
    }

    /// F1 of the 4-word shingles of `text` against `gold` (what bench/article/score.py measures).
    static func f1(_ text: String, _ gold: String) -> Double {
        func shingles(_ s: String) -> [String: Int] {
            let words = s.lowercased().split { !($0.isLetter || $0.isNumber) }.map(String.init)
            var out: [String: Int] = [:]
            if words.count < 4 { if !words.isEmpty { out[words.joined(separator: " "), default: 0] += 1 }; return out }
            for i in 0...(words.count - 4) { out[words[i..<(i + 4)].joined(separator: " "), default: 0] += 1 }
            return out
        }
        let a = shingles(text), g = shingles(gold)
        let common = a.reduce(0) { $0 + min($1.value, g[$1.key] ?? 0) }
        let p = Double(common) / Double(max(1, a.values.reduce(0, +))), r = Double(common) / Double(max(1, g.values.reduce(0, +)))
        return p + r == 0 ? 0 : 2 * p * r / (p + r)
    }

    func checkPage(_ name: String, contains: [String], excludes: [String], minimumF1: Double = 0.9, file: StaticString = #filePath, line: UInt = #line) throws {
        let doc = try page(name + ".html")
        let out = try XCTUnwrap(extract(doc), "\(name): an article", file: file, line: line)
        for s in contains { XCTAssertTrue(out.text.contains(s), "\(name): the text holds \"\(s)\":\n\(out.text)", file: file, line: line) }
        for s in excludes { XCTAssertFalse(out.text.contains(s), "\(name): the text leaves out \"\(s)\":\n\(out.text)", file: file, line: line) }
        let gold = try String(contentsOfFile: Self.dir + name + ".gold.txt", encoding: .utf8)
        let score = Self.f1(out.text, gold)
        XCTAssertGreaterThanOrEqual(score, minimumF1, "\(name): F1 against the marked text", file: file, line: line)
    }

    func testNewsPageKeepsTheStoryAndLeavesOutItsSurroundings() throws {
        try checkPage("news-harbour",
                      contains: ["Work to deepen the town's silted harbour", "Who pays", "Phase two: the approach channel",
                                 "Fishing boats sit on the mud at low tide", "A public meeting about the works"],
                      excludes: ["Advertisement", "Skip to main content", "Most read", "More on this story", "sailor_joe", "About time too",
                                 "Get the Ledger in your inbox", "Breakwater repairs finished", "All rights reserved", "Mara Quinn", "Facebook",
                                 "Harbour dredging to begin in spring"])
    }

    func testBlogPostKeepsCodeTableAndQuote() throws {
        try checkPage("blog-rust",
                      contains: ["fn next_token(&mut self) -> Option<Token> {\n    self.skip_whitespace();", "Allocations", "212 ms",
                                 "Most of the time went into allocating", "No allocation per token"],
                      excludes: ["Reading ELF files by hand", "Tags:", "Hacker News", "Subscribe via RSS", "6 min read"])
    }

    func testForumThreadIsItsOpeningPost() throws {
        try checkPage("forum-thread",
                      contains: ["I started a rye starter ten days ago", "I would hate to throw it away after all this time."],
                      excludes: ["Nothing is ruined", "Agree with oldbaker", "flourpower", "Junior member", "Post Quick Reply", "Contact Us",
                                 "baking since 2023"])
    }

    func testTableLayoutPageWithLineBreaks() throws {
        try checkPage("essay-table-layout",
                      contains: ["The old mill road leaves the village", "The wall leans a little more every time I see it."],
                      excludes: ["Guestbook", "Photographs"])
    }

    func testChineseNewsPage() throws {
        try checkPage("cjk-news", contains: ["记者从市文化和旅游局获悉", "市民可通过官方网站或公众号提前预约。"],
                      excludes: ["相关新闻", "热点排行", "地铁五号线南延段开通", "分享到", "版权所有"])
    }

    func testQuestionPageIsTheQuestion() throws {
        try checkPage("qa-question", contains: ["I accidentally committed the wrong files", "git commit -m \"wip: everything\""],
                      excludes: ["git reset --soft HEAD~1", "mixed reset", "Did you already push", "3 Answers", "1204", "Undo git add before commit"])
    }

    func testReferencePageKeepsDefinitionsCodeAndTable() throws {
        try checkPage("docs-reference", contains: ["flatMap(callbackFn, thisArg)", "A function to execute for each element", "Callback result", "Examples"],
                      excludes: ["forEach()", "In this article", "last modified", "community project"])
    }

    func testPagesWithoutAnArticle() throws {
        for file in ["none/index-page.html", "none/login-page.html", "none/short-page.html", "none/document.pdf.html"] {
            let doc = try page(file)
            XCTAssertNil(ArticleExtractor.extract(doc), "\(file): no article")
        }
        XCTAssertNil(ArticleExtractor.extract(try Self.parse([])), "an empty page")
        XCTAssertNil(ArticleExtractor.extract(try Self.parse(Array("<html><body><p>Just a few words here.</p></body></html>".utf8))), "a few words")
        XCTAssertNil(ArticleExtractor.extract(try Self.parse(Array("<html><body><script>\(String(repeating: "var a = 'text, text, text';", count: 500))</script></body></html>".utf8))),
                     "a page of script only")
    }

    func testAParagraphPageWithoutMarkupHintsIsAnArticle() throws {
        let para = "<p>This is a plain paragraph of an article, with commas, clauses, and enough words to read as text that a person wrote for people.</p>"
        let html = "<html><body><div><a href='/'>Home</a> <a href='/b'>Blog</a></div><div>\(String(repeating: para, count: 6))</div></body></html>"
        let out = try XCTUnwrap(extract(try Self.parse(Array(html.utf8))))
        XCTAssertEqual(out.text.components(separatedBy: "\n\n").count, 6)
        XCTAssertFalse(out.text.contains("Home"))
    }

    func testVeryDeepNestingIsBounded() throws {
        let depth = 100_000
        var html = "<html><body>"
        html += String(repeating: "<div>", count: depth)
        html += String(repeating: "<p>Deep text, with commas, that goes on long enough to be a paragraph of an article somebody wrote.</p>", count: 5)
        html += String(repeating: "</div>", count: depth)
        html += "</body></html>"
        let doc = try Self.parse(Array(html.utf8))
        let (out, cpu) = ThreadCPU.measure { extract(doc) }
        XCTAssertLessThan(cpu, 20, "bounded time (CPU seconds)")
        if let out { XCTAssertTrue(out.text.isEmpty || out.text.contains("Deep text")) }
    }

    func testTwentyMegabytePage() throws {
        var html = "<html><head><title>Big</title></head><body><nav><a href='/'>Home</a></nav><article>"
        let para = "<p>A long page's paragraph, one of very many, with some <a href='/x'>links</a>, <em>emphasis</em> and commas, to make a big page.</p>\n"
        let count = 20_000_000 / para.utf8.count
        html.reserveCapacity(20_100_000)
        for _ in 0..<count { html += para }
        html += "</article><footer>Footer text</footer></body></html>"
        let doc = try Self.parse(Array(html.utf8))
        let (extracted, cpu) = ThreadCPU.measure { extract(doc) }
        let out = try XCTUnwrap(extracted)
        XCTAssertLessThan(cpu, 60, "bounded time (CPU seconds)")
        XCTAssertTrue(out.text.hasPrefix("A long page's paragraph"))
        XCTAssertFalse(out.text.contains("Footer text"))
    }

    func testSanitizedHTMLOfHostileMarkupHasNothingActive() throws {
        let hostile = """
        <html><head><title>t</title></head><body><article>
        <p>First paragraph of a hostile page, with enough text, commas, and words to count as an article's paragraph of text.</p>
        <ScRiPt>alert(1)</sCrIpT><STYLE>body{background:url(javascript:alert(2))}</STYLE>
        <p onclick="alert(3)" OnMouseOver='alert(4)'>Second paragraph, with an event handler on it, and enough words to be read as a paragraph.</p>
        <p><a href="jav&#x61;script:alert(5)">entity link</a> <a href=" JaVaScRiPt:alert(6)">spaced link</a> <a href="java&#9;script:alert(7)">tab link</a>
        <a href="data:text/html;base64,PHNjcmlwdD5hbGVydCg4KTwvc2NyaXB0Pg==">data link</a> <a href="vbscript:msgbox(9)">vb link</a> <a href="/ok">fine link</a></p>
        <svg><script>alert(10)</script><a xlink:href="javascript:alert(11)"><text>svg text</text></a></svg>
        <math><mi xlink:href="javascript:alert(12)">x</mi></math>
        <iframe src="https://evil.example/"></iframe><IFRAME SRC="javascript:alert(13)"></IFRAME>
        <img src="x" onerror="alert(14)"><img src="javascript:alert(15)"><img src="https://cdn.example/ok.png" alt="ok">
        <form action="javascript:alert(16)"><input value="x"><button formaction="javascript:alert(17)">b</button></form>
        <p <script>alert(18)</script>broken markup, a paragraph whose tag never closed properly, with words enough for a paragraph.
        <object data="javascript:alert(19)"></object><embed src="javascript:alert(20)">
        <p style="background:url(javascript:alert(21))">Third paragraph with a style attribute, text, commas, and words enough to be a paragraph.</p>
        <noscript><p>noscript text</p></noscript><template><p>template text</p></template>
        <a href="&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(22)">decimal entity link</a>
        </article></body></html>
        """
        let doc = try Self.parse(Array(hostile.utf8), url: "https://example.org/page")
        let extraction = try XCTUnwrap(ArticleExtractor.extract(doc))
        let out = HTMLSanitizer.render(doc, blocks: extraction.blocks, skipping: extraction.skipping)
        let all = HTMLSanitizer.render(doc, blocks: [doc.root], skipping: [])
        for html in [out.html, all.html] {
            let lower = html.lowercased()
            for bad in ["<script", "<style", "<iframe", "<svg", "<math", "<form", "<input", "<button", "<object", "<embed", "javascript:", "vbscript:", "data:",
                        "style=", "<noscript", "<template"] {
                XCTAssertFalse(lower.contains(bad), "no \(bad) in \(html)")
            }
            XCTAssertNil(lower.range(of: #"\son[a-z]+\s*="#, options: .regularExpression), "no event attribute in \(html)")
            XCTAssertNil(lower.range(of: #"<[^>]*alert\("#, options: .regularExpression), "no script in a tag in \(html)")
        }
        XCTAssertTrue(out.text.contains("Second paragraph, with an event handler"))
        XCTAssertNotNil(all.html.range(of: #"<a href="https://example.org/ok">\s?fine link</a>"#, options: .regularExpression), all.html)
        XCTAssertTrue(out.html.contains("<img src=\"https://cdn.example/ok.png\" alt=\"ok\">"), out.html)
        XCTAssertFalse(out.text.contains("noscript text") || out.text.contains("template text"))
    }
}
