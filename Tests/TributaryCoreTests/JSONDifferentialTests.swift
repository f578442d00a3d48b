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

// Differential test of the tape parser (`JSONDocument`) against the recursive parser it replaced
// (`RecursiveJSONParser`, kept in TributaryTestSupport as the oracle). Seeded, so a failure
// replays: documents come from a JSON grammar, then most of them are damaged (bytes replaced,
// inserted or deleted, truncated, slices repeated, wrapped in deep nesting). Both parsers must
// agree on accept/reject, on the exact error (offset, line, column, message), and on the value;
// accepted documents are also read through tape and tree nodes, which must agree on every
// accessor, path and error message, and written from the tape, which must match JSONWriter.

/// Valid JSON texts from the grammar, with whitespace, escapes and UTF-8 of every length.
private struct DocumentGenerator {
    var rng: SeededGenerator

    static let keyPool = ["a", "b", "id", "title", "snippet", "", "a.b", "é", "\\u0061", "k\\n", "\\ud83d\\ude00", "items"]
    static let escapes = ["\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t", "\\u0000", "\\u001f", "\\u001F", "\\u0022",
                          "\\u005c", "\\u005C", "\\u002f", "\\u007f", "\\u0080", "\\u00e9", "\\u00E9", "\\u07ff", "\\u0800",
                          "\\ud7ff", "\\ue000", "\\uffff", "\\uFFFE", "\\ud800\\udc00", "\\uD83D\\uDE00", "\\udbff\\udfff", "\\u000a", "\\u000D"]
    static let scalars: [UInt32] = [0x80, 0xE9, 0x7FF, 0x800, 0x4E2D, 0xD7FF, 0xE000, 0xFEFF, 0xFFFD, 0xFFFF, 0x10000, 0x1F600, 0x10FFFF, 0x2028, 0x7F]

    mutating func whitespace(into out: inout [UInt8]) {
        guard rng.chance(15) else { return }
        for _ in 0..<(1 + rng.below(3)) { out.append(rng.pick([0x20, 0x0A, 0x0D, 0x09])) }
    }

    mutating func string(into out: inout [UInt8], key: Bool = false) {
        out.append(0x22)
        if key && rng.chance(70) {
            out += Array(rng.pick(Self.keyPool).utf8)
        } else {
            for _ in 0..<rng.below(key ? 3 : 6) {
                switch rng.below(10) {
                case 0, 1, 2:
                    // Plain ASCII runs of every length, so the 8-byte scan meets every alignment.
                    for _ in 0..<rng.below(20) { out.append(UInt8(0x20 + rng.below(0x5F)).replacingSpecial) }
                case 3, 4: out += Array(rng.pick(Self.escapes).utf8)
                case 5, 6:
                    let s = rng.chance(50) ? rng.pick(Self.scalars) : UInt32(0x80 + rng.below(0x3000))
                    if let u = Unicode.Scalar(s) { out += Array(String(Character(u)).utf8) }
                case 7: out += Array("{}[],:0-1e\"".utf8.dropLast())
                default: out += Array("https://i.ytimg.com/vi/x/hq.jpg".utf8)
                }
            }
        }
        out.append(0x22)
    }

    mutating func number(into out: inout [UInt8]) {
        if rng.chance(10) {
            out += Array(rng.pick(["0", "-0", "1E+2", "1e400", "-1e400", "1e-400", "5e-324", "9223372036854775807", "9223372036854775808",
                                   "-9223372036854775808", "-9223372036854775809", "0.30000000000000004", "123456789012345",
                                   "1234567890123456", "-0.0", "1" + String(repeating: "0", count: 40), "2.5E3", "0e0", "1.50"]).utf8)
            return
        }
        if rng.chance(30) { out.append(UInt8(ascii: "-")) }
        if rng.chance(20) {
            out.append(UInt8(ascii: "0"))
        } else {
            out.append(UInt8(ascii: "1") + UInt8(rng.below(9)))
            for _ in 0..<rng.below(rng.chance(10) ? 25 : 6) { out.append(UInt8(ascii: "0") + UInt8(rng.below(10))) }
        }
        if rng.chance(30) {
            out.append(UInt8(ascii: "."))
            for _ in 0..<(1 + rng.below(5)) { out.append(UInt8(ascii: "0") + UInt8(rng.below(10))) }
        }
        if rng.chance(20) {
            out.append(rng.pick([UInt8(ascii: "e"), UInt8(ascii: "E")]))
            if rng.chance(50) { out.append(rng.pick([UInt8(ascii: "+"), UInt8(ascii: "-")])) }
            for _ in 0..<(1 + rng.below(3)) { out.append(UInt8(ascii: "0") + UInt8(rng.below(10))) }
        }
    }

    mutating func value(depth: Int, into out: inout [UInt8]) {
        let roll = depth > 4 ? rng.below(6) : rng.below(9)
        switch roll {
        case 0: out += Array("null".utf8)
        case 1: out += Array((rng.chance(50) ? "true" : "false").utf8)
        case 2, 3: number(into: &out)
        case 4, 5: string(into: &out)
        case 6:
            out.append(UInt8(ascii: "["))
            whitespace(into: &out)
            let n = rng.below(5)
            for i in 0..<n {
                if i > 0 { out.append(UInt8(ascii: ",")); whitespace(into: &out) }
                value(depth: depth + 1, into: &out)
                whitespace(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        default:
            out.append(UInt8(ascii: "{"))
            whitespace(into: &out)
            let n = rng.below(5)
            for i in 0..<n {
                if i > 0 { out.append(UInt8(ascii: ",")); whitespace(into: &out) }
                string(into: &out, key: true)
                whitespace(into: &out)
                out.append(UInt8(ascii: ":"))
                whitespace(into: &out)
                value(depth: depth + 1, into: &out)
                whitespace(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    mutating func document() -> [UInt8] {
        var out: [UInt8] = []
        whitespace(into: &out)
        value(depth: 0, into: &out)
        whitespace(into: &out)
        return out
    }

    static let interesting: [UInt8] = [0x22, 0x5C, 0x7B, 0x7D, 0x5B, 0x5D, 0x2C, 0x3A, 0x30, 0x2D, 0x2E, 0x65, 0x75, 0x20, 0x0A,
                                       0x00, 0x1F, 0x7F, 0x80, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF]

    static let stringDamage: [[UInt8]] = [
        [0x5C], [0x5C, 0x75], [0x5C, 0x75, 0x44, 0x38, 0x30, 0x30], [0x5C, 0x75, 0x44, 0x43, 0x30, 0x30], [0x5C, 0x75, 0x64, 0x38, 0x30, 0x30, 0x5C],
        [0x5C, 0x75, 0x44, 0x38, 0x30, 0x30, 0x5C, 0x75, 0x30, 0x30, 0x34, 0x31], [0x5C, 0x75, 0x30, 0x30, 0x67, 0x31], [0x5C, 0x78], [0x5C, 0x5C, 0x22],
        [0x22, 0x22], [0x00], [0x1F], [0x09], [0x7F],
        [0x80], [0xBF], [0xC0, 0x80], [0xC1, 0xBF], [0xC2, 0x7F], [0xC2, 0x80], [0xDF, 0xC0],
        [0xE0, 0x80, 0x80], [0xE0, 0x9F, 0xBF], [0xE0, 0xA0, 0x80], [0xE2, 0x82], [0xE2, 0x82, 0xAC], [0xEC, 0xBF, 0xC0],
        [0xED, 0x9F, 0xBF], [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF], [0xEE, 0x80, 0x80], [0xEF, 0xBF, 0xBF],
        [0xF0, 0x80, 0x80, 0x80], [0xF0, 0x8F, 0xBF, 0xBF], [0xF0, 0x90, 0x80, 0x80], [0xF0, 0x9F, 0x98], [0xF3, 0xBF, 0xBF, 0xBF],
        [0xF4, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xFF], [0xF0, 0x9F, 0x98, 0x22],
    ]

    /// Damages a document: 1-3 edits, or a deep nesting wrapper.
    mutating func mutate(_ doc: [UInt8]) -> [UInt8] {
        var d = doc
        for _ in 0..<(1 + rng.below(3)) {
            let at = d.isEmpty ? 0 : rng.below(d.count + 1)
            switch rng.below(7) {
            case 0 where !d.isEmpty && at < d.count: d[at] = rng.chance(50) ? rng.pick(Self.interesting) : UInt8(rng.below(256))
            case 1: d.insert(rng.pick(Self.interesting), at: at)
            case 2 where at < d.count: d.remove(at: at)
            case 3: d = Array(d.prefix(at))
            case 4:
                // Backslashes, escapes and UTF-8 at and past every validity boundary, right after a
                // quote when there is one (inside a string), else anywhere.
                let quotes = d.indices.filter { d[$0] == 0x22 }
                let inside = quotes.isEmpty || rng.chance(20) ? at : quotes[rng.below(quotes.count)] + 1
                d.insert(contentsOf: rng.pick(Self.stringDamage), at: inside)
            case 5 where !d.isEmpty:
                let from = rng.below(d.count)
                let len = min(d.count - from, 1 + rng.below(12))
                d.insert(contentsOf: Array(d[from..<(from + len)]), at: at)
            default:
                let n = 1 + rng.below(14)
                let open: [UInt8] = rng.chance(50) ? [0x5B] : Array(#"{"k":"#.utf8)
                var wrapped: [UInt8] = []
                for _ in 0..<n { wrapped += open }
                wrapped += d
                let closeAll = rng.chance(70)
                for _ in 0..<(closeAll ? n : rng.below(n + 1)) { wrapped.append(open == [0x5B] ? 0x5D : 0x7D) }
                d = wrapped
            }
        }
        return d
    }
}

private extension UInt8 {
    /// Printable ASCII without the quote and backslash (those come from the escape list).
    var replacingSpecial: UInt8 { self == 0x22 || self == 0x5C ? 0x5F : self }
}

/// Strings by their UTF-8 bytes, numbers by their literal text, entries in order.
private func identical(_ a: JSONValue, _ b: JSONValue) -> Bool {
    switch (a, b) {
    case (.null, .null): return true
    case (.bool(let x), .bool(let y)): return x == y
    case (.number(let x), .number(let y)): return x.text == y.text
    case (.string(let x), .string(let y)): return Array(x.utf8) == Array(y.utf8)
    case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { identical($0, $1) }
    case (.object(let x), .object(let y)):
        return x.count == y.count && zip(x.entries, y.entries).allSatisfy { Array($0.key.utf8) == Array($1.key.utf8) && identical($0.value, $1.value) }
    default: return false
    }
}

private func outcome<T>(_ body: () throws -> T) -> String {
    do { return "ok \(try body())" } catch { return "error \(error)" }
}

private func printable(_ bytes: [UInt8]) -> String {
    bytes.prefix(160).map { $0 >= 0x20 && $0 < 0x7F ? String(Character(Unicode.Scalar($0))) : "\\x" + String($0, radix: 16) }.joined()
}

final class JSONDifferentialTests: XCTestCase {
    func testTapeParserAgreesWithTheRecursiveParser() {
        var gen = DocumentGenerator(rng: SeededGenerator(seed: 0x7261_7065_5F74_6170))
        var failures: [String] = []
        var accepted = 0
        var rejected = 0
        let cases = 100_000
        for n in 0..<cases {
            let valid = gen.document()
            let input = gen.rng.chance(30) ? valid : gen.mutate(valid)
            // Small limits now and then, so the depth check meets documents at and past it.
            let maxDepth = gen.rng.chance(15) ? gen.rng.below(8) : 512
            let expected: Result<JSONValue, JSONParseError>
            do throws(JSONParseError) { expected = .success(try RecursiveJSONParser.parse(input, maxDepth: maxDepth)) } catch { expected = .failure(error) }
            let actual: Result<JSONDocument, JSONParseError>
            do throws(JSONParseError) { actual = .success(try JSONDocument(input, maxDepth: maxDepth)) } catch { actual = .failure(error) }
            switch (expected, actual) {
            case (.failure(let e), .failure(let a)):
                rejected += 1
                if e != a { failures.append("case \(n): oracle \(e.offset) \(e) / tape \(a.offset) \(a)  input: \(printable(input))") }
            case (.success(let v), .success(let doc)):
                accepted += 1
                // Every accepted document: value and writer. One in 12 also through every node accessor.
                if let problem = compare(v, doc, nodes: accepted % 12 == 0) { failures.append("case \(n): \(problem)  input: \(printable(input))") }
            case (.success, .failure(let a)):
                failures.append("case \(n): oracle accepted, tape rejected: \(a)  input: \(printable(input))")
            case (.failure(let e), .success):
                failures.append("case \(n): oracle rejected (\(e)), tape accepted  input: \(printable(input))")
            }
            if failures.count >= 20 { break }
        }
        XCTAssertEqual(failures, [], "\(failures.count) disagreements:\n" + failures.joined(separator: "\n"))
        // The mix must exercise both sides.
        XCTAssertGreaterThan(accepted, cases / 5)
        XCTAssertGreaterThan(rejected, cases / 5)
    }

    /// The tape against the oracle's value: conversion, writing, and every node accessor.
    private func compare(_ v: JSONValue, _ doc: JSONDocument, nodes: Bool) -> String? {
        guard identical(doc.value, v) else { return "values differ: tape \(doc.value) oracle \(v)" }
        var written: [UInt8] = []
        doc.root().writeJSON(to: &written)
        guard written == JSONWriter.serialize(v) else { return "writeJSON differs: \(printable(written))" }
        guard nodes else { return nil }
        var problem: String? = nil
        compareNodes(doc.root(), JSONNode(v), v, &problem)
        return problem
    }

    private func compareNodes(_ tape: JSONNode, _ tree: JSONNode, _ v: JSONValue, _ problem: inout String?) {
        guard problem == nil else { return }
        func check(_ what: String, _ a: String, _ b: String) {
            if problem == nil && a != b { problem = "\(what) at \(tree.path): tape '\(a)' tree '\(b)'" }
        }
        check("path", tape.path.description, tree.path.description)
        check("kind", "\(String(describing: tape.kind))", "\(String(describing: tree.kind))")
        check("string", outcome { try tape.optionalString(allowNumber: true) }, outcome { try tree.optionalString(allowNumber: true) })
        check("strict string", outcome { try tape.string() }, outcome { try tree.string() })
        check("double", outcome { try tape.optionalDouble(allowString: true)?.bitPattern }, outcome { try tree.optionalDouble(allowString: true)?.bitPattern })
        check("int", outcome { try tape.optionalInt(allowString: true) }, outcome { try tree.optionalInt(allowString: true) })
        check("bool", outcome { try tape.optionalBool(lenient: true) }, outcome { try tree.optionalBool(lenient: true) })
        check("number", outcome { try tape.optionalNumber().map { "\($0.value.bitPattern) \($0.json)" } }, outcome { try tree.optionalNumber().map { "\($0.value.bitPattern) \($0.json)" } })
        check("object", outcome { try tape.object().count }, outcome { try tree.object().count })
        check("missing", outcome { try tape[key: "zz"][index: 2]["q.r"].string() }, outcome { try tree[key: "zz"][index: 2]["q.r"].string() })
        check("missing path", tape["zz[1].y"][key: "w"].path.description, tree["zz[1].y"][key: "w"].path.description)
        check("strings", outcome { try tape.stringArray(allowNumber: true) }, outcome { try tree.stringArray(allowNumber: true) })
        if case .string(let s) = v {
            var canonical: [UInt8] = []
            var verbatim: [UInt8] = []
            _ = try? tape.appendJSONString(to: &canonical)
            _ = try? tape.appendJSONString(to: &verbatim, verbatim: true)
            var expected: [UInt8] = []
            JSONWriter.writeString(s, into: &expected)
            check("canonical string", printable(canonical), printable(expected))
            let back = try? RecursiveJSONParser.parse(verbatim)
            check("verbatim string", "\(back.map { Array(($0.stringValue ?? "").utf8) } ?? [])", "\(Array(s.utf8))")
        }
        switch v {
        case .array(let items):
            guard let a = try? tape.elements(), let b = try? tree.elements(), a.count == items.count, b.count == items.count else {
                problem = "elements at \(tree.path)"
                return
            }
            for ((x, y), item) in zip(zip(a, b), items) { compareNodes(x, y, item, &problem) }
        case .object(let o):
            // A lookup finds the last duplicate (by String equality, as JSONObject does).
            for (k, _) in o.entries {
                if let target = o[k] { compareNodes(tape[key: k], tree[key: k], target, &problem) }
            }
        default:
            break
        }
    }
}
