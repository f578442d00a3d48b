import XCTest
@testable import TributaryCore
@testable import TributaryBase
@testable import TributaryJSON
@testable import TributaryOptions
@testable import TributaryHTTP
@testable import TributaryState
@testable import TributaryPostgres
@testable import TributaryPluginKit

/// JSONNode on a tape: lookups, lazy paths, elements, strings, writers. Every behaviour is
/// checked on both kinds of node (tape and tree), which must agree.
final class JSONNodeOnTapeTests: XCTestCase {
    private func both(_ text: String) throws -> [(String, JSONNode)] {
        [("tape", try JSONDocument(text).root()), ("tree", JSONNode(try JSONParser.parse(text)))]
    }

    func testErrorsNameTheFullPathOnBothKindsOfNode() throws {
        for (label, root) in try both(#"{"items":[{},{},{},{"snippet":{"title":42}}]}"#) {
            let items = try root["items"].array()
            XCTAssertThrowsError(try items[3]["snippet.title"].string(), label) { e in
                XCTAssertEqual("\(e)", "items[3].snippet.title: expected string, found number", label)
            }
            XCTAssertThrowsError(try items[3][key: "snippet"][key: "title"].string(), label) { e in
                XCTAssertEqual("\(e)", "items[3].snippet.title: expected string, found number", label)
            }
            XCTAssertThrowsError(try items[0]["snippet.title"].string(), label) { e in
                XCTAssertEqual("\(e)", "items[0].snippet.title: missing, expected string", label)
            }
            XCTAssertThrowsError(try items[0][key: "snippet"][key: "thumbnails"][key: "high"][key: "url"].string(), label) { e in
                XCTAssertEqual("\(e)", "items[0].snippet.thumbnails.high.url: missing, expected string", label)
            }
            XCTAssertThrowsError(try root["items"].object(), label) { e in
                XCTAssertEqual("\(e)", "items: expected object, found array", label)
            }
            XCTAssertThrowsError(try root["items[0]"].array(), label) { e in
                XCTAssertEqual("\(e)", "items[0]: expected array, found object", label)
            }
            XCTAssertThrowsError(try root["items[7].x"].string(), label) { e in
                XCTAssertEqual("\(e)", "items[7].x: missing, expected string", label)
            }
            XCTAssertThrowsError(try root[key: "items"][index: 3]["snippet.title.deeper"][key: "x"].string(), label) { e in
                XCTAssertEqual("\(e)", "items[3].snippet.title.deeper.x: missing, expected string", label)
            }
            XCTAssertThrowsError(try root.string(), label) { e in
                XCTAssertEqual("\(e)", "(document): expected string, found object", label)
            }
            XCTAssertEqual(root["items"].path, "items")
            XCTAssertEqual(items[3][key: "snippet"].path, "items[3].snippet")
            XCTAssertEqual(root["items[1]"].path, "items[1]")
        }
    }

    func testABasePathPrefixesEveryPath() throws {
        let base: KeyPath = "response.body"
        let nodes = [JSONNode(try JSONDocument(#"{"a":[true]}"#), path: base), JSONNode(try JSONParser.parse(#"{"a":[true]}"#), path: base)]
        for n in nodes {
            XCTAssertEqual(n["a[0]"].path, "response.body.a[0]")
            XCTAssertThrowsError(try n["a[0]"].string()) { e in
                XCTAssertEqual("\(e)", "response.body.a[0]: expected string, found bool")
            }
            XCTAssertEqual(try n["a"].elements().map(\.path), ["response.body.a[0]"])
        }
    }

    func testElementsAreASequenceWithPaths() throws {
        for (label, root) in try both(#"{"list":[1,[2,3],{"x":4},"five",null]}"#) {
            let elements = try root["list"].elements()
            XCTAssertEqual(elements.count, 5, label)
            XCTAssertEqual(elements.map(\.path.description), ["list[0]", "list[1]", "list[2]", "list[3]", "list[4]"], label)
            XCTAssertEqual(elements.map { $0.typeName ?? "-" }, ["number", "array", "object", "string", "null"], label)
            XCTAssertEqual(try root["list"].array().count, 5, label)
            XCTAssertNil(try root["absent"].optionalElements(), label)
            XCTAssertThrowsError(try root["list[3]"].elements(), label)
            XCTAssertEqual(try root["list[1]"].elements().compactMap { try? $0.int() }, [2, 3], label)
            XCTAssertEqual(try root["list[2].x"].int(), 4, label)
            XCTAssertEqual(try root[key: "list"][index: 2][key: "x"].int(), 4, label)
        }
    }

    func testDuplicateKeysReadTheLastAndEscapedKeysMatch() throws {
        for (label, root) in try both(#"{"k":1,"other":true,"k":2,"\u0061":"escaped a","caf\u00e9":"x","e\u0301":"combining"}"#) {
            XCTAssertEqual(try root["k"].int(), 2, label)
            XCTAssertEqual(try root["a"].string(), "escaped a", label)
            XCTAssertEqual(try root[key: "café"].string(), "x", label)
            // Keys match by String equality, as JSONObject's lookups do: canonically equivalent spellings match.
            XCTAssertEqual(try root[key: "é"].string(), "combining", label)
            XCTAssertEqual(try root.object().entries.map(\.key).count, 6, label)
        }
        let tape = try JSONDocument(#"{"K":1}"#).root()
        XCTAssertEqual(try tape[key: "\u{212A}"].int(), 1, "KELVIN SIGN is canonically K, as in JSONObject")
    }

    func testStringsDecodeWhenReadAndCopyAsJSON() throws {
        let text = #"{"plain":"hello world, longer than fifteen bytes","esc":"a\"b\\c\/d\n\u00e9\ud83d\ude00\u0001","utf8":"Привет 中文 😀","empty":""}"#
        let doc = try JSONDocument(text)
        let root = doc.root()
        XCTAssertEqual(try root["plain"].string(), "hello world, longer than fifteen bytes")
        XCTAssertEqual(try root["esc"].string(), "a\"b\\c/d\né😀\u{1}")
        XCTAssertEqual(try root["utf8"].string(), "Привет 中文 😀")
        XCTAssertEqual(try root["empty"].string(), "")

        for key in ["plain", "esc", "utf8", "empty"] {
            var canonical: [UInt8] = []
            XCTAssertTrue(try root[key: key].appendJSONString(to: &canonical))
            var expected: [UInt8] = []
            JSONWriter.writeString(try root[key: key].string(), into: &expected)
            XCTAssertEqual(canonical, expected, "canonical copy of \(key) is JSONWriter's output")
        }
        var verbatim: [UInt8] = []
        try root["esc"].appendJSONString(to: &verbatim, verbatim: true)
        XCTAssertEqual(String(decoding: verbatim, as: UTF8.self), #""a\"b\\c\/d\n\u00e9\ud83d\ude00\u0001""#)
        XCTAssertEqual(try JSONParser.parse(verbatim), .string("a\"b\\c/d\né😀\u{1}"), "verbatim is valid JSON of the same string")

        XCTAssertEqual(root["plain"].withRawStringBytes { Array($0) + [$1 ? 1 : 0] }, Array("hello world, longer than fifteen bytes".utf8) + [0])
        XCTAssertEqual(root["esc"].withRawStringBytes { $1 }, true)
        XCTAssertNil(root["absent"].withRawStringBytes { _, _ in 0 })
        var none: [UInt8] = []
        XCTAssertFalse(try root["absent"].appendJSONString(to: &none))
        XCTAssertThrowsError(try JSONDocument("[1]").root()["[0]"].appendJSONString(to: &none)) { e in
            XCTAssertEqual("\(e)", "[0]: expected string, found number")
        }
        XCTAssertEqual(none, [])
    }

    func testWriteJSONMatchesJSONWriter() throws {
        for text in [#"{ "a" : [ 1 , -2.50e3 , "x\u0041\/" , true , null , { } , [ ] ] , "b" : { "c" : "\ud83d\ude00" } }"#,
                     "\"\\u000a\\u001f\\u007f\"", "-0", " [[[[]]]] ", #"{"a":1,"a":2}"#] {
            let doc = try JSONDocument(text)
            var out: [UInt8] = []
            doc.root().writeJSON(to: &out)
            XCTAssertEqual(out, JSONWriter.serialize(doc.value), text)
        }
    }

    func testNumbersReadLikeJSONNumber() throws {
        let literals = ["0", "-0", "-0.0", "1", "-1", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
                        "-9223372036854775809", "123456789012345", "1234567890123456", "12345678901234567890", "1.5", "1e2",
                        "-1.5e3", "1e400", "-1e400", "1e-400", "5e-324", "0.30000000000000004", "9007199254740993", "1E+2", "100"]
        for literal in literals {
            let node = try JSONDocument("[\(literal)]").root()[index: 0]
            let number = JSONNumber(text: literal)
            XCTAssertEqual(try node.double().bitPattern, number.double.bitPattern, literal)
            XCTAssertEqual(node.numberInt64(), number.int64, literal)
            XCTAssertEqual(try node.string(allowNumber: true), literal)
            XCTAssertEqual(node.value, .number(number))
        }
    }

    func testPathsAndWritesOfDeepNodesNeedNoStack() throws {
        // 100,000 levels with the limit raised: walked, its path found and written without recursion.
        let depth = 100_000
        let bytes = Array(repeating: UInt8(ascii: "["), count: depth) + Array(repeating: UInt8(ascii: "]"), count: depth)
        let doc = try JSONDocument(bytes, maxDepth: depth)
        XCTAssertEqual(doc.valueCount, depth)
        var innermost = doc.root()
        for _ in 1..<depth { innermost = innermost[index: 0] }
        XCTAssertEqual(innermost.path.components.count, depth - 1)
        XCTAssertThrowsError(try innermost.string()) { e in
            XCTAssertTrue("\(e)".hasSuffix("[0][0]: expected string, found array"))
        }
        var out: [UInt8] = []
        doc.root().writeJSON(to: &out)
        XCTAssertEqual(out, bytes)
        XCTAssertThrowsError(try JSONDocument(bytes, maxDepth: depth - 1))
    }

    func testValueOfASubtreeAndKinds() throws {
        let root = try JSONDocument(#"{"a":{"b":[1,"2",null]},"t":true}"#).root()
        XCTAssertEqual(root["a"].value, .object(JSONObject([("b", .array([.int(1), .string("2"), .null]))])))
        XCTAssertEqual(root["a.b"].kind, .array)
        XCTAssertEqual(root["t"].kind, .bool)
        XCTAssertNil(root["nope"].kind)
        XCTAssertTrue(root["a.b[2]"].isMissing)
        XCTAssertTrue(root["nope"].isMissing)
        XCTAssertFalse(root["t"].isMissing)
        XCTAssertEqual(try root["t"].bool(), true)
        XCTAssertEqual(try root["a.b[1]"].int(allowString: true), 2)
    }
    /// `textMayHold` never misses a byte of a value's text: around empty objects (which have
    /// no offset of their own on the tape), nested ones, strings, escapes and the last value.
    func testTextMayHoldSeesEveryByteOfAValue() throws {
        let elements: [(String, Bool)] = [
            ("{}", false), (#"{"a":"$"}"#, true), (#"{"a":{}}"#, false), (#""$""#, true), (#"{"b":[1,{}]}"#, false),
            (#"{"c":"\u0024"}"#, true), ("[]", false), ("[{}]", false), ("7", false), (#"{"d":{"e":{}}}"#, false),
            (#"{"$k":1}"#, true), (#"[{},{"f":"x$"}]"#, true), ("{ }", false), (#"{"g":"$"}"#, true),
        ]
        for rotation in 0..<elements.count {
            let list = Array(elements[rotation...] + elements[..<rotation])
            let doc = try JSONDocument("[" + list.map(\.0).joined(separator: " ,\n") + "]")
            for (k, node) in try doc.root().array().enumerated() {
                XCTAssertEqual(node.textMayHold(UInt8(ascii: "$"), UInt8(ascii: "\\")), list[k].1, "\(list[k].0) at \(k) of \(list.map(\.0))")
            }
        }
        XCTAssertTrue(JSONNode(JSONValue.string("x")).textMayHold(0x24, 0x24), "a tree node has no text: may")
        XCTAssertTrue(try JSONDocument(#"{"a":{}}"#).root()[key: "b"].textMayHold(0x24, 0x24), "absent: no text either")
    }

    /// `members` lists an object's keys and values in document order, duplicates as written.
    func testMembersInDocumentOrder() throws {
        let doc = try JSONDocument(#"{"b":1,"a":{"x":[2]},"b":"three","caf\u00e9":null}"#)
        let members = doc.root().members
        XCTAssertEqual(members.map(\.key), ["b", "a", "b", "café"])
        XCTAssertEqual(members.map { $0.value.value }, [.number(JSONNumber(1)), try JSONParser.parse(#"{"x":[2]}"#), .string("three"), .null])
        XCTAssertEqual(try members[1].value[key: "x"].array().count, 1)
        XCTAssertEqual(try JSONDocument("[1]").root().members.count, 0)
        XCTAssertEqual(try JSONDocument("{}").root().members.count, 0)
        XCTAssertEqual(JSONNode(try JSONParser.parse(#"{"k":true,"k":false}"#)).members.map { $0.value.value }, [.bool(true), .bool(false)])
        // A member's node knows where it is, on a tape and on a tree (for its errors).
        XCTAssertEqual(members[1].value[key: "x"].path, try KeyPath(parsing: "a.x"))
        let tree = JSONNode(try JSONParser.parse(#"{"k":{"x":1}}"#), path: try KeyPath(parsing: "base"))
        XCTAssertEqual(tree.members[0].value[key: "x"].path, try KeyPath(parsing: "base.k.x"))
    }
}
