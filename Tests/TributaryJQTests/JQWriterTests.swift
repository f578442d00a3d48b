import XCTest
import CJQ
import Foundation
import TributaryTestSupport
@testable import TributaryJQ

/// JQWriter against libjq's own printer (`jv_dump_string`, what `jq -c` runs): the same bytes
/// for numbers of every shape, every ASCII character, non-ASCII text and the test fixtures.
final class JQWriterTests: XCTestCase {
    var api: UnsafePointer<tributary_jq> { try! JQLibrary.shared().get().api }

    /// libjq's compact text of `v` (consumed).
    func jqDump(_ v: jv) -> [UInt8] {
        let s = tributary_jv_dump_compact(api, v)
        defer { tributary_jv_free(api, s) }
        return Array(JQWriter(api: api).stringBytes(s))
    }

    /// The writer's text of `v` (consumed).
    func ours(_ v: jv) -> [UInt8] {
        var out: [UInt8] = []
        try! JQWriter(api: api).append(v, to: &out)
        tributary_jv_free(api, v)
        return out
    }

    func assertSame(_ v: jv, _ what: @autoclosure () -> String, file: StaticString = #filePath, line: UInt = #line) -> Bool {
        let a = ours(tributary_jv_copy(api, v))
        let b = jqDump(v)
        if a != b {
            XCTFail("\(what()): ours \(String(decoding: a, as: UTF8.self)), jq \(String(decoding: b, as: UTF8.self))", file: file, line: line)
            return false
        }
        return true
    }

    func testNumbersOfEveryShape() {
        var values: [Double] = [0, -0.0, 1, -1, 3, 0.1, 0.5, 1.5, 100, 1e15, 1e15 + 1, 1e16 - 2, 1e16, 1e16 + 2, 1e17,
                                1e20, 1e21, 1e22, 1e100, 1e300, 1.5e300, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
                                .infinity, -.infinity, .nan, 1e-3, 1e-4, 1.5e-4, 1e-5, 1.2345e-5, .leastNormalMagnitude,
                                .leastNonzeroMagnitude, 0.3, 2.0 / 3.0, 1.0 / 3.0, 123.456, 1234567.125, 0.000123, 1e-7, 4.35,
                                0.1 + 0.2, 1e23]
        // Literals Swift would warn about (not exactly representable, subnormal).
        values += ["12345678901234567", "9007199254740993", "9223372036854775807", "18446744073709551615",
                   "2.2250738585072009e-308", "5e-310", "5e-324"].map { Double($0)! }
        for e in -330...310 { values.append(Double("1e\(e)")!); values.append(Double("4.7e\(e)")!) }
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<100_000 { values.append(Double(bitPattern: rng.next())) }
        for _ in 0..<50_000 { values.append(Double(Int64.random(in: -1_000_000_000_000_000...1_000_000_000_000_000, using: &rng)) / 1000) }
        for _ in 0..<50_000 { values.append(Double.random(in: -1e6...1e6, using: &rng)) }
        var failures = 0
        for d in values where failures < 10 {
            if !assertSame(tributary_jv_number(api, d), "\(d) (bits \(String(d.bitPattern, radix: 16)))") { failures += 1 }
        }
    }

    func testEveryASCIICharacterAndNonASCIIText() {
        for b in UInt8(0)...UInt8(0x7F) {
            let v = [b, UInt8(ascii: "a"), b].withUnsafeBufferPointer { p in
                p.withMemoryRebound(to: CChar.self) { tributary_jv_string_sized(api, $0.baseAddress, 3) }
            }
            _ = assertSame(v, "byte \(b)")
        }
        // Every position in and past an eight-byte word, beside bytes above 0x7F.
        let filler = Array("aé東😀bcdefghijklmno".utf8)
        for b in [UInt8(0), 0x01, 0x08, 0x0A, 0x1F, 0x20, 0x22, 0x2F, 0x5C, 0x7E, 0x7F] {
            for at in 0..<filler.count {
                var t = filler
                t.insert(b, at: at)
                let v = t.withUnsafeBufferPointer { p in
                    p.withMemoryRebound(to: CChar.self) { tributary_jv_string_sized(api, $0.baseAddress, Int32($0.count)) }
                }
                _ = assertSame(v, "byte \(b) at \(at)")
            }
        }
        for s in ["", "é", "😀", "東京 Walker", "Привет мир", "\u{2028}\u{2029}", "\u{FEFF}x", "\u{10FFFF}", "a\"b\\c/d"] {
            _ = assertSame(JQState.string(s, api), s)
        }
    }

    func testTheFixtures() throws {
        let root = BinaryRunner.packageRoot + "/Tests/Fixtures"
        let files = try XCTUnwrap(FileManager.default.enumerator(atPath: root)).compactMap { $0 as? String }.filter { $0.hasSuffix(".json") }
        XCTAssertGreaterThan(files.count, 10)
        for f in files {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: root + "/" + f))
            let v = bytes.withUnsafeBytes { tributary_jv_parse_sized(api, $0.baseAddress?.assumingMemoryBound(to: CChar.self), Int32($0.count)) }
            guard tributary_jv_get_kind(api, v) != JV_KIND_INVALID else {
                tributary_jv_free(api, v)
                continue  // a fixture that is not JSON on purpose
            }
            _ = assertSame(v, f)
        }
    }
}
