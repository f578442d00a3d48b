import XCTest
@testable import TributaryCore
@testable import TributaryBase
@testable import TributaryJSON
@testable import TributaryOptions
@testable import TributaryHTTP
@testable import TributaryState
@testable import TributaryPostgres
@testable import TributaryPluginKit

final class KeyPathTests: XCTestCase {
    let doc = try! JSONParser.parse(#"{"feed":{"entry":[{"title":{"$t":"One"}},{"title":{"$t":"Two"}}]},"weather":[{"description":"rain"}],"rain":{"3h":1.5},"a.b":{"c":true},"":0}"#)

    func testParsesDotsIndexesAndQuotedKeys() throws {
        XCTAssertEqual(try KeyPath(parsing: "feed.entry").components, [.key("feed"), .key("entry")])
        XCTAssertEqual(try KeyPath(parsing: "title.$t").components, [.key("title"), .key("$t")])
        XCTAssertEqual(try KeyPath(parsing: "weather[0].description").components, [.key("weather"), .index(0), .key("description")])
        XCTAssertEqual(try KeyPath(parsing: "rain.3h").components, [.key("rain"), .key("3h")])
        XCTAssertEqual(try KeyPath(parsing: #"["a.b"].c"#).components, [.key("a.b"), .key("c")])
        XCTAssertEqual(try KeyPath(parsing: "a[1][2]").components, [.key("a"), .index(1), .index(2)])
        XCTAssertEqual(try KeyPath(parsing: "[0]").components, [.index(0)])
        XCTAssertEqual(try KeyPath(parsing: "").components, [])
        XCTAssertEqual(try KeyPath(parsing: "名前.値").components, [.key("名前"), .key("値")])
        XCTAssertEqual(try KeyPath(parsing: "a b.\u{301}c.$").components, [.key("a b"), .key("\u{301}c"), .key("$")])
        XCTAssertEqual(try KeyPath(parsing: "x").components, [.key("x")])
    }

    func testRejectsMalformedPaths() {
        for bad in ["a..b", ".a", "a.", ".", "..", "a[", "a[x]", "a[-1]", #"["a"#, "a]b", "a[0]b", #"a"b"#] {
            XCTAssertThrowsError(try KeyPath(parsing: bad), bad)
        }
    }

    func testDescriptionRoundTrips() throws {
        for text in ["feed.entry", "title.$t", "weather[0].description", #"["a.b"].c"#, "items[3].snippet.title", "[0][1]"] {
            let p = try KeyPath(parsing: text)
            XCTAssertEqual(p.description, text)
            XCTAssertEqual(try KeyPath(parsing: p.description), p)
        }
    }

    /// Found by Fuzz/ (keypath): a backslash in a quoted key was written unescaped, and a
    /// '.' or '"' followed by a combining mark was not seen (one Character with the mark).
    func testKeyPathsWithBackslashesAndCombiningMarksReadBackAsWritten() throws {
        for text in [#"["\\."]"#, "[\"a.\u{301}\"]", #"["\"\\"]"#, "[\"\u{301}\"].b"] {
            let path = try KeyPath(parsing: text)
            XCTAssertEqual(try KeyPath(parsing: path.description), path, "\(text) written as \(path.description)")
        }
        XCTAssertEqual(try KeyPath(parsing: #"["\\."]"#).description, #"["\\."]"#)
        XCTAssertEqual(KeyPath(components: [.key("a.\u{301}")]).description, "[\"a.\u{301}\"]")
        XCTAssertEqual(KeyPath(components: [.key(#"back\slash"#), .key("x")]).description, #"back\slash.x"#)
    }

    func testLookup() {
        XCTAssertEqual(doc[path: "feed.entry[1].title.$t"], .string("Two"))
        XCTAssertEqual(doc[path: "weather[0].description"], .string("rain"))
        XCTAssertEqual(doc[path: "rain.3h"], .number(JSONNumber(text: "1.5")))
        XCTAssertEqual(doc[path: #"["a.b"].c"#], .bool(true))
        XCTAssertNil(doc[path: "feed.entry[2]"])
        XCTAssertNil(doc[path: "feed.entry.title"], "a key on an array is missing, not a crash")
        XCTAssertNil(doc[path: "weather[0].description.x"])
        XCTAssertEqual(doc[path: .root], doc)
    }
}

final class JSONNodeTests: XCTestCase {
    func testErrorsNameTheFullPathAndWhatWasFound() throws {
        let doc = try JSONParser.parse(#"{"items":[{},{},{},{"snippet":{"title":42}}]}"#)
        let items = try JSONNode(doc)["items"].array()
        XCTAssertThrowsError(try items[3]["snippet.title"].string()) { e in
            XCTAssertEqual("\(e)", "items[3].snippet.title: expected string, found number")
        }
        XCTAssertThrowsError(try items[0]["snippet.title"].string()) { e in
            XCTAssertEqual("\(e)", "items[0].snippet.title: missing, expected string")
        }
        XCTAssertThrowsError(try JSONNode(doc)["items"].object()) { e in
            XCTAssertEqual("\(e)", "items: expected object, found array")
        }
        XCTAssertThrowsError(try JSONNode(doc)["items[0]"].array()) { e in
            XCTAssertEqual("\(e)", "items[0]: expected array, found object")
        }
    }

    func testLenientConversionsAreOptIn() throws {
        let doc = try JSONParser.parse(#"{"key":77777,"big":9007199254740993,"flag":"true","one":1,"zero":0,"num":"19.5","int":" 42 ","bad":"abc","f":1.5}"#)
        let n = JSONNode(doc)
        XCTAssertThrowsError(try n["key"].string())
        XCTAssertEqual(try n["key"].string(allowNumber: true), "77777")
        XCTAssertEqual(try n["big"].string(allowNumber: true), "9007199254740993", "identifiers keep every digit")
        XCTAssertThrowsError(try n["flag"].bool())
        XCTAssertEqual(try n["flag"].bool(lenient: true), true)
        XCTAssertEqual(try n["one"].bool(lenient: true), true)
        XCTAssertEqual(try n["zero"].bool(lenient: true), false)
        XCTAssertThrowsError(try n["num"].double())
        XCTAssertEqual(try n["num"].double(allowString: true), 19.5)
        XCTAssertEqual(try n["int"].int(allowString: true), 42)
        XCTAssertThrowsError(try n["bad"].double(allowString: true)) { e in
            XCTAssertEqual("\(e)", "bad: expected number (or a string holding one), found string")
        }
        XCTAssertThrowsError(try n["f"].int())
        XCTAssertNil(try n["absent"].optionalString())
        XCTAssertEqual(try n["absent"].stringArray(), [])
    }

    func testOptionalNumberKeepsTheLiteralAndReadsNumericStrings() throws {
        let n = JSONNode(try JSONParser.parse(#"{"a":4.50,"b":"12","c":"x","d":null}"#))
        let a = try XCTUnwrap(try n["a"].optionalNumber())
        XCTAssertEqual(a.value, 4.5)
        XCTAssertEqual(a.json, .number(JSONNumber(text: "4.50")), "the API's literal is kept")
        XCTAssertEqual(try n["b"].optionalNumber()?.json, .int(12))
        XCTAssertNil(try n["d"].optionalNumber())
        XCTAssertThrowsError(try n["c"].optionalNumber())
    }

    func testNullReadsAsMissingForOptionals() throws {
        let n = JSONNode(try JSONParser.parse(#"{"a":null}"#))
        XCTAssertNil(try n["a"].optionalString())
        XCTAssertNil(try n["a"].optionalDouble())
        XCTAssertTrue(n["a"].isMissing)
        XCTAssertThrowsError(try n["a"].string())
    }
}
