import XCTest
import CJQ
import Foundation
import TributaryTestSupport
@testable import TributaryJQ

/// JQInputParser against libjq's parser (`jv_parse_sized`): whenever it reads a text, the value
/// is the one libjq reads (compared as libjq prints them, key order and numbers included), and
/// whatever libjq refuses, it leaves to libjq.
final class JQInputParserTests: XCTestCase {
    var api: UnsafePointer<tributary_jq> { try! JQLibrary.shared().get().api }

    /// libjq's text of `v` (consumed), or `invalid: <message>`.
    func shown(_ v: jv) -> String {
        if tributary_jv_get_kind(api, v) == JV_KIND_INVALID {
            let m = tributary_jv_invalid_get_msg(api, v)
            defer { tributary_jv_free(api, m) }
            return "invalid"
        }
        let s = tributary_jv_dump_compact(api, v)
        defer { tributary_jv_free(api, s) }
        return String(decoding: JQWriter(api: api).stringBytes(s), as: UTF8.self)
    }

    var read = 0, leftToLibjq = 0

    /// Checks the property on `text`; true when the fast parser read it.
    @discardableResult
    func check(_ text: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> Bool {
        var parser = JQInputParser(api: api)
        let fast = text.withUnsafeBytes { parser.parse($0) }
        let slow = text.withUnsafeBytes { tributary_jv_parse_sized(api, $0.baseAddress?.assumingMemoryBound(to: CChar.self), Int32($0.count)) }
        let want = shown(slow)
        guard let fast else {
            leftToLibjq += 1
            return false
        }
        read += 1
        let got = shown(fast)
        if got != want {
            XCTFail("\(String(decoding: text, as: UTF8.self).prefix(300)): fast \(got.prefix(300)), libjq \(want.prefix(300))", file: file, line: line)
        }
        return true
    }

    func testTrickyTexts() {
        let read: [String] = [
            #"{"a":1}"#, " {\"a\" : [ 1 , 2 ] }\n", "[]", "{}", "0", "-0", "1.5", "-1.5e-3", "1E5", "1e+5", "123456789012345678901234567890",
            "9223372036854775807", "9007199254740993", "1e400", "-1e400", "1e-400", "0.1", "4.35", "2.2250738585072009e-308",
            "true", "false", "null", #""""#, #""\u0000""#, #""\ud83d\ude00""#, #""\u00e9\u6771""#, #""\"\\\/\b\f\n\r\t""#,
            #"{"a":1,"a":2}"#, #"{"b":1,"a":2,"b":3}"#, "\"é😀東京\"", #"{"":""}"#, "[[[[]]]]", #"{"a":{"b":{"c":[1,{"d":null}]}}}"#,
            "\"a\u{7F}b\"",
        ]
        for t in read { XCTAssertTrue(check(Array(t.utf8)), "left to libjq: \(t)") }
        // Bytes that are not UTF-8 are read, and become U+FFFD as libjq makes them.
        XCTAssertTrue(check(Array(#"{"a":"x"#.utf8) + [0xFF, 0xC3, 0x28] + Array(#""}"#.utf8)))
        let left: [String] = [
            "", " ", "01", ".5", "+1", "1.", "nan", "NaN", "-", "tru", "truex", "nullnull", "[1,]", "{\"a\"}", "{\"a\":}", "{a:1}",
            "[1 2]", "1 2", "\"\u{01}\"", "\"\n\"", #""\ud800""#, #""\udc00""#, #""\ud800\u0041""#, #""\x""#, #""\u12""#, "\"abc",
            "[", "{", "\u{FEFF}{}", "{\"a\":1}}", "'a'", "\"\u{1F}\"",
        ]
        for t in left { XCTAssertFalse(check(Array(t.utf8)), "read: \(t)") }
        // Every position in and past an eight-byte word.
        for special in ["\\\"", "\\n", "\\u00e9", "\\\\", "é", "\u{1F}", "\u{01}", "\"", "\\ud83d\\ude00"] {
            for at in 0...20 {
                var body = "abcdefghijklmnopqrstu"
                body.insert(contentsOf: special, at: body.index(body.startIndex, offsetBy: at))
                check(Array("[\"\(body)\", {\"\(body)\": 1}]".utf8))
            }
        }
        let deep = String(repeating: "[", count: 300) + String(repeating: "]", count: 300)
        XCTAssertFalse(check(Array(deep.utf8)), "libjq refuses more than 256 levels")
        let fine = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        XCTAssertTrue(check(Array(fine.utf8)))
    }

    func testFixturesAndItemLines() throws {
        let root = BinaryRunner.packageRoot + "/Tests/Fixtures"
        let files = try XCTUnwrap(FileManager.default.enumerator(atPath: root)).compactMap { $0 as? String }.filter { $0.hasSuffix(".json") }
        for f in files {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: root + "/" + f)))
            check(bytes)
        }
        XCTAssertGreaterThan(read, 10)
    }

    /// Valid texts with random edits (characters that matter to JSON put in, taken out or
    /// replaced): every one the fast parser reads is read as libjq reads it.
    func testFuzzedTexts() throws {
        let root = BinaryRunner.packageRoot + "/Tests/Fixtures"
        let files = try XCTUnwrap(FileManager.default.enumerator(atPath: root)).compactMap { $0 as? String }.filter { $0.hasSuffix(".json") }
        var seeds: [[UInt8]] = try files.map { [UInt8](try Data(contentsOf: URL(fileURLWithPath: root + "/" + $0))) }.filter { $0.count < 20_000 }
        seeds.append(Array(#"{"id":"a:1","title":"T \"q\" \u00e9 \ud83d\ude00","n":-1.5e3,"tags":["x","y"],"geo":{"lat":1.25,"lon":-0.0},"data":{"big":12345678901234567890,"z":null,"t":true}}"#.utf8))
        let alphabet = Array(#"{}[]:,"\\/bfnrtu0123456789abcdefABCDEF-+.eE ntrufalse"#.utf8) + [0x00, 0x01, 0x1F, 0x7F, 0xC3, 0xA9, 0xFF, 0xED, 0xA0, 0x80]
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            var t = seeds.randomElement(using: &rng)!
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                let at = Int.random(in: 0..<max(t.count, 1), using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: if !t.isEmpty { t.remove(at: at) }
                case 1: t.insert(alphabet.randomElement(using: &rng)!, at: min(at, t.count))
                default: if !t.isEmpty { t[at] = alphabet.randomElement(using: &rng)! }
                }
            }
            check(t)
        }
        print("fuzzed: \(read) read here, \(leftToLibjq) left to libjq")
        XCTAssertGreaterThan(read, 1000)
        XCTAssertGreaterThan(leftToLibjq, 1000)
    }
}
