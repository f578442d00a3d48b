import XCTest
@testable import TributaryCore
@testable import TributaryBase
@testable import TributaryJSON
@testable import TributaryOptions
@testable import TributaryHTTP
@testable import TributaryState
@testable import TributaryPostgres
@testable import TributaryPluginKit

/// The tape (`JSONDocument`): layout, decoding from it, writing from it, depth without a stack.
final class JSONDocumentTests: XCTestCase {
    func testTapeHasOneEntryPerValueAndContainersSkipTheirSubtree() throws {
        let doc = try JSONDocument(#"{"a":[1,{"b":null}],"c":"x"}"#)
        // object, "a", array, 1, object, "b", null, "c", "x"
        XCTAssertEqual(doc.valueCount, 9)
        XCTAssertEqual(doc.entry(0).end, 9)
        XCTAssertEqual(doc.entry(2).end, 7, "the array ends past its last descendant")
        XCTAssertEqual(doc.entry(4).end, 7)
        XCTAssertEqual(doc.entry(3).end, 4)
        XCTAssertEqual(doc.entry(2).length, 2, "an array counts its elements")
        XCTAssertEqual(doc.entry(0).length, 2, "an object counts its members")
        // Keys link backwards: the object holds its last key, each key the one before it.
        XCTAssertEqual(doc.entry(0).offset, 7)
        XCTAssertEqual(doc.entry(7).end, 1)
        XCTAssertEqual(doc.entry(1).end, 0)
        XCTAssertEqual(doc.tapeBytes % 16, 0)
    }

    func testStringsDecodeFromTheTapeAndCopyAsJSON() throws {
        let doc = try JSONDocument(#"["hello world, longer than fifteen bytes","a\"b\\c\/d\n\u00e9\ud83d\ude00\u0001","Привет 中文 😀",""]"#)
        XCTAssertEqual(doc.string(at: 1), "hello world, longer than fifteen bytes")
        XCTAssertEqual(doc.string(at: 2), "a\"b\\c/d\né😀\u{1}")
        XCTAssertEqual(doc.string(at: 3), "Привет 中文 😀")
        XCTAssertEqual(doc.string(at: 4), "")
        for i in 1...4 {
            var canonical: [UInt8] = []
            doc.appendString(at: i, verbatim: false, to: &canonical)
            var expected: [UInt8] = []
            JSONWriter.writeString(doc.string(at: i), into: &expected)
            XCTAssertEqual(canonical, expected, "canonical copy of string \(i) is JSONWriter's output")
        }
        var verbatim: [UInt8] = []
        doc.appendString(at: 2, verbatim: true, to: &verbatim)
        XCTAssertEqual(String(decoding: verbatim, as: UTF8.self), #""a\"b\\c\/d\n\u00e9\ud83d\ude00\u0001""#)
        XCTAssertEqual(try JSONParser.parse(verbatim), .string("a\"b\\c/d\né😀\u{1}"), "verbatim is valid JSON of the same string")
    }

    /// A string made from the tape without a second UTF-8 check (`copyingValidatedUTF8`) is
    /// the String the standard library makes of the same bytes, down to its ASCII mark: each
    /// sequence length, short (stored inline) and long, ASCII and not, at each end of the text;
    /// written as it is, with a one-letter escape beside it, and as `\u` escapes (ASCII, two-
    /// and three-byte scalars, a surrogate pair).
    func testTapeStringsAreTheStandardLibrarysStrings() throws {
        let pieces = ["", "a", "é", "中", "😀", "\u{7F}", "\u{80}", "\u{7FF}", "\u{800}", "\u{FFFF}", "\u{10000}", "\u{10FFFF}", "e\u{301}"]
        var texts: [String] = []
        for p in pieces {
            for filler in ["", "x", "fifteen bytes!!", String(repeating: "ascii ", count: 5)] {
                texts += [p + filler, filler + p, filler + p + filler, filler + "\n" + p]
            }
        }
        // (JSON text of a string, the string): as JSONWriter writes it (escapes only where
        // needed), and with every scalar of a few written as a \u escape.
        var cases: [([UInt8], String)] = texts.map { t in
            var json: [UInt8] = []
            JSONWriter.writeString(t, into: &json)
            return (json, t)
        }
        for t in ["A", "x é", "中文 and more text", "😀 emoji", "long ascii text only here"] {
            var json = Array(#"""#.utf8)
            for u in t.utf16 { json += Array(("\\u" + String(u, radix: 16).leftPadded(to: 4)).utf8) }
            json += Array(#"""#.utf8)
            cases.append((json, t))
        }
        var document = Array("[".utf8)
        for (i, c) in cases.enumerated() { document += (i > 0 ? Array(",".utf8) : []) + c.0 }
        document += Array("]".utf8)
        let doc = try JSONDocument(document)
        var escaped = 0
        for (i, c) in cases.enumerated() {
            let t = c.1
            if doc.entry(i + 1).flags & JSONTapeEntry.hasEscapes != 0 { escaped += 1 }
            let s = doc.string(at: i + 1)
            let reference = String(decoding: Array(t.utf8), as: UTF8.self)
            XCTAssertEqual(Array(s.utf8), Array(reference.utf8), t.debugDescription)
            XCTAssertEqual(s, reference, t.debugDescription)
            XCTAssertEqual(s.count, reference.count, t.debugDescription)
            XCTAssertEqual(s.hashValue, reference.hashValue, t.debugDescription)
            XCTAssertEqual(s.utf8Span.isKnownASCII, reference.utf8Span.isKnownASCII, "the ASCII mark of \(t.debugDescription)")
            XCTAssertEqual(s.utf8Span.isKnownASCII, t.utf8.allSatisfy { $0 < 0x80 }, t.debugDescription)
        }
        XCTAssertEqual(escaped, pieces.count * 4 + 5, "the escaped strings take the decoding path")
    }

    func testWriteMatchesJSONWriter() throws {
        for text in [#"{ "a" : [ 1 , -2.50e3 , "x\u0041\/" , true , null , { } , [ ] ] , "b" : { "c" : "\ud83d\ude00" } }"#,
                     "\"\\u000a\\u001f\\u007f\"", "-0", " [[[[]]]] ", #"{"a":1,"a":2}"#] {
            let doc = try JSONDocument(text)
            var out: [UInt8] = []
            doc.write(at: 0, to: &out)
            XCTAssertEqual(out, JSONWriter.serialize(doc.value), text)
        }
    }

    func testNestingFarBeyondTheDefaultNeedsNoStack() throws {
        // 100,000 levels with the limit raised: parsed and written without recursion.
        let depth = 100_000
        let bytes = Array(repeating: UInt8(ascii: "["), count: depth) + Array(repeating: UInt8(ascii: "]"), count: depth)
        let doc = try JSONDocument(bytes, maxDepth: depth)
        XCTAssertEqual(doc.valueCount, depth)
        var out: [UInt8] = []
        doc.write(at: 0, to: &out)
        XCTAssertEqual(out, bytes)
        XCTAssertThrowsError(try JSONDocument(bytes, maxDepth: depth - 1))
    }

    func testParseErrorsHaveLineAndColumn() {
        XCTAssertThrowsError(try JSONDocument("")) { e in
            XCTAssertEqual(e as? JSONParseError, JSONParseError(offset: 0, line: 1, column: 1, message: "unexpected end of input, expected a value"))
        }
        XCTAssertThrowsError(try JSONDocument("[1,\n  @]")) { e in
            XCTAssertEqual(e as? JSONParseError, JSONParseError(offset: 6, line: 2, column: 3, message: "unexpected '@', expected a value"))
        }
    }

    func testADetachedCopyIsEqualAndHoldsNoStringOfTheOriginal() throws {
        let original = try JSONParser.parse(#"{"name":"a-source-name-longer-than-15","url":"http://127.0.0.1:8080/a/long/path.json","n":12345678901234567890,"fields":{"title":"snippet.title.of.the.record","list":["an element longer than fifteen bytes","é—non-ASCII text, also long",true,null]}}"#)
        let copy = original.detached()
        XCTAssertEqual(copy, original)
        func strings(_ v: JSONValue) -> [String] {
            switch v {
            case .string(let s): return [s]
            case .number(let n): return [n.text]
            case .array(let a): return a.flatMap(strings)
            case .object(let o): return o.entries.flatMap { [$0.key] + strings($0.value) }
            default: return []
            }
        }
        func address(_ s: String) -> UnsafeRawPointer? {
            var s = s
            return s.withUTF8 { UnsafeRawPointer($0.baseAddress) }
        }
        let before = strings(original), after = strings(copy)
        XCTAssertEqual(before, after)
        let long = zip(before, after).filter { $0.0.utf8.count > 15 }
        XCTAssertEqual(long.count, 6, "the strings stored out of line: those a copy must not share")
        for (a, b) in long { XCTAssertNotEqual(address(a), address(b), "\(a) is the original's storage") }
    }
}

private extension String {
    func leftPadded(to n: Int) -> String { String(repeating: "0", count: max(0, n - count)) + self }
}
