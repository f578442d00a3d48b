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
import TributaryTestSupport

/// The HTML5 named character references: the generated table (Tools/generate-html-entities.py)
/// is Python's `html.entities.html5`, and `HTMLText.decodeEntities` uses all of it.
final class HTMLEntitiesTests: XCTestCase {
    func testTheTableIsPythonsHTML5Table() throws {
        let script = "import html.entities, json, sys; sys.stdout.write(json.dumps(html.entities.html5, ensure_ascii=True))"
        let r = try Shell.run(["python3", "-c", script])
        XCTAssertEqual(r.status, 0, r.stderr)
        guard case .object(let object) = try JSONParser.parse(Array(r.stdout.utf8)) else { return XCTFail("not an object: \(r.stdout.prefix(80))") }
        var python: [String: String] = [:]
        for (name, value) in object.entries { python[name] = value.stringValue }
        XCTAssertEqual(python.count, 2231)
        XCTAssertEqual(HTMLText.namedReferences.count, python.count)
        let differ = Set(python.keys).union(HTMLText.namedReferences.keys).filter { python[$0] != HTMLText.namedReferences[$0] }.sorted()
        XCTAssertEqual(differ, [], "names whose value differs from Python's (run Tools/generate-html-entities.py)")
        XCTAssertEqual(HTMLText.longestReferenceName, python.keys.map(\.utf8.count).max())
        XCTAssertEqual(HTMLText.longestLegacyReferenceName, python.keys.filter { !$0.hasSuffix(";") }.map(\.utf8.count).max())
        XCTAssertEqual(python.keys.filter { !$0.hasSuffix(";") }.count, 106, "the legacy names without ;")
    }

    func testEveryNameDecodesInText() {
        var wrong: [String] = []
        for (name, value) in HTMLText.namedReferences {
            // A space after a legacy name without `;` ends it; with `;` nothing may follow.
            if HTMLText.decodeEntities("<&\(name) >") != "<\(value) >" { wrong.append(name) }
        }
        XCTAssertEqual(wrong.sorted(), [])
    }

    func testNamesBeyondTheOldSmallSet() {
        XCTAssertEqual(HTMLText.decodeEntities("&Uuml;ber &rarr; &hellip; &frac12; &mdash; &alpha;&beta; &NotEqualTilde; &CounterClockwiseContourIntegral;"),
                       "Über → … ½ — αβ \u{2242}\u{338} ∳")
        XCTAssertEqual(HTMLText.decodeEntities("&copy 2026 &amp Co &frac12cup"), "© 2026 & Co ½cup", "legacy names without ;")
        XCTAssertEqual(HTMLText.decodeEntities("&notit; &notin; &not"), "¬it; ∉ ¬", "the longest matching name wins")
        XCTAssertEqual(HTMLText.decodeEntities("&amp;amp; &amp;#8217;"), "&amp; &#8217;", "decoded once")
        XCTAssertEqual(HTMLText.decodeEntities("&Copy; &COPY; &copy;"), "&Copy; © ©", "names are case-sensitive")
        XCTAssertEqual(HTMLText.decodeEntities("a&b &; &#; &#x; &#1114112; &#x110000; &"), "a&b &; &#; &#x; &#1114112; &#x110000; &")
        XCTAssertEqual(HTMLText.decodeEntities("&#128512; &#X1F600; &#x1f600;"), "😀 😀 😀")
    }

    func testAttributeValuesKeepParametersThatLookLikeLegacyNames() {
        XCTAssertEqual(HTMLText.decodeAttributeEntities("/feed?a=1&copy=2&amp;b=3&reg"), "/feed?a=1&copy=2&b=3®")
        XCTAssertEqual(HTMLText.decodeAttributeEntities("?x&notit=1&not;"), "?x&notit=1¬")
        XCTAssertEqual(HTMLText.decodeEntities("/feed?a=1&copy=2"), "/feed?a=1©=2", "in text HTML5 does decode it")
    }

    /// Text with a great many "<" and no ">" (escaped markup cut short, `Vec<T` written a lot)
    /// is read once, not once per "<".
    func testPlainTextOfManyUnclosedAnglesIsLinear() {
        let html = String(repeating: "x <b", count: 200_000)
        let (text, cpu) = ThreadCPU.measure { HTMLText.toPlainText(html) }
        XCTAssertLessThan(cpu, 10, "quadratic: 800 KB scanned once per \"<\"")
        XCTAssertEqual(text.utf8.count, html.utf8.count, "nothing is a tag")
        XCTAssertEqual(HTMLText.toPlainText("a <b and <i>c</i> <d"), "a c <d", "as before: a \"<\" runs to the next \">\"")
    }
}
