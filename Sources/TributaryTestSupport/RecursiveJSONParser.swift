#if canImport(Glibc)
import Glibc
#endif
import TributaryCore

/// TEST SUPPORT ONLY: the recursive-descent parser Tributary used before the tape
/// (`JSONDocument`), kept unchanged as the oracle of the differential test and as the "before"
/// of the JSON benchmark. Production code parses with `JSONDocument` / `JSONParser`.
///
/// Strict RFC 8259 parser from raw bytes: validates UTF-8, decodes `\u` escapes with surrogate
/// pairs (lone surrogates rejected), keeps numbers as their literal text, and limits nesting so
/// hostile input becomes an error instead of a stack overflow (recursion is bounded by maxDepth).
public enum RecursiveJSONParser {
    public static func parse(_ bytes: [UInt8], maxDepth: Int = 512) throws(JSONParseError) -> JSONValue {
        let result: Result<JSONValue, JSONParseError> = bytes.withUnsafeBufferPointer { buf in
            var p = Parser(buf: buf, maxDepth: maxDepth)
            do {
                p.skipWhitespace()
                let v = try p.parseValue(depth: 0)
                p.skipWhitespace()
                if p.pos != buf.count { throw p.failure("unexpected \(p.describeCurrent()) after the JSON value") }
                return .success(v)
            } catch let e as RawError {
                return .failure(makeError(buf, e))
            } catch {
                return .failure(makeError(buf, RawError(offset: 0, message: "\(error)")))
            }
        }
        return try result.get()
    }

    public static func parse(_ text: String, maxDepth: Int = 512) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8), maxDepth: maxDepth)
    }

    private static func makeError(_ buf: UnsafeBufferPointer<UInt8>, _ e: RawError) -> JSONParseError {
        var line = 1
        var lineStart = 0
        var i = 0
        let end = min(e.offset, buf.count)
        while i < end {
            if buf[i] == 0x0A { line += 1; lineStart = i + 1 }
            i += 1
        }
        return JSONParseError(offset: e.offset, line: line, column: e.offset - lineStart + 1, message: e.message)
    }
}

private struct RawError: Error {
    let offset: Int
    let message: String
}

private struct Parser {
    let buf: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    var pos = 0
    var scratch: [UInt8] = []

    init(buf: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.buf = buf
        self.maxDepth = maxDepth
    }

    func failure(_ message: String, at offset: Int? = nil) -> RawError {
        RawError(offset: offset ?? pos, message: message)
    }

    func describeCurrent() -> String {
        guard pos < buf.count else { return "end of input" }
        let b = buf[pos]
        if b >= 0x21 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
        return "byte 0x" + String(b, radix: 16, uppercase: true)
    }

    mutating func skipWhitespace() {
        while pos < buf.count {
            let b = buf[pos]
            if b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { pos += 1 } else { return }
        }
    }

    mutating func parseValue(depth: Int) throws(RawError) -> JSONValue {
        guard pos < buf.count else { throw failure("unexpected end of input, expected a value") }
        switch buf[pos] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw failure("unexpected \(describeCurrent()), expected a value")
        }
    }

    mutating func literal(_ word: StaticString) throws(RawError) {
        let start = pos
        let n = word.utf8CodeUnitCount
        let w = word.utf8Start
        for i in 0..<n {
            guard pos < buf.count, buf[pos] == w[i] else {
                throw failure("invalid literal, expected '\(word)'", at: start)
            }
            pos += 1
        }
    }

    mutating func parseObject(depth: Int) throws(RawError) -> JSONValue {
        if depth > maxDepth { throw failure("nesting deeper than \(maxDepth) levels") }
        pos += 1
        var entries: [(key: String, value: JSONValue)] = []
        skipWhitespace()
        if pos < buf.count && buf[pos] == UInt8(ascii: "}") { pos += 1; return .object(JSONObject(entries)) }
        while true {
            guard pos < buf.count else { throw failure("unexpected end of input, expected '\"' (an object key)") }
            guard buf[pos] == UInt8(ascii: "\"") else { throw failure("unexpected \(describeCurrent()), expected '\"' (an object key)") }
            let key = try parseString()
            skipWhitespace()
            guard pos < buf.count, buf[pos] == UInt8(ascii: ":") else {
                throw failure("unexpected \(describeCurrent()), expected ':'")
            }
            pos += 1
            skipWhitespace()
            let value = try parseValue(depth: depth)
            entries.append((key, value))
            skipWhitespace()
            guard pos < buf.count else { throw failure("unexpected end of input, expected ',' or '}'") }
            if buf[pos] == UInt8(ascii: ",") {
                pos += 1
                skipWhitespace()
                continue
            }
            if buf[pos] == UInt8(ascii: "}") { pos += 1; return .object(JSONObject(entries)) }
            throw failure("unexpected \(describeCurrent()), expected ',' or '}'")
        }
    }

    mutating func parseArray(depth: Int) throws(RawError) -> JSONValue {
        if depth > maxDepth { throw failure("nesting deeper than \(maxDepth) levels") }
        pos += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if pos < buf.count && buf[pos] == UInt8(ascii: "]") { pos += 1; return .array(items) }
        while true {
            items.append(try parseValue(depth: depth))
            skipWhitespace()
            guard pos < buf.count else { throw failure("unexpected end of input, expected ',' or ']'") }
            if buf[pos] == UInt8(ascii: ",") {
                pos += 1
                skipWhitespace()
                continue
            }
            if buf[pos] == UInt8(ascii: "]") { pos += 1; return .array(items) }
            throw failure("unexpected \(describeCurrent()), expected ',' or ']'")
        }
    }

    mutating func parseNumber() throws(RawError) -> JSONNumber {
        let start = pos
        if buf[pos] == UInt8(ascii: "-") { pos += 1 }
        guard pos < buf.count, isDigit(buf[pos]) else { throw failure("invalid number: expected a digit") }
        if buf[pos] == UInt8(ascii: "0") {
            pos += 1
            if pos < buf.count && isDigit(buf[pos]) { throw failure("invalid number: leading zero") }
        } else {
            while pos < buf.count && isDigit(buf[pos]) { pos += 1 }
        }
        if pos < buf.count && buf[pos] == UInt8(ascii: ".") {
            pos += 1
            guard pos < buf.count, isDigit(buf[pos]) else { throw failure("invalid number: expected a digit after '.'") }
            while pos < buf.count && isDigit(buf[pos]) { pos += 1 }
        }
        if pos < buf.count && (buf[pos] == UInt8(ascii: "e") || buf[pos] == UInt8(ascii: "E")) {
            pos += 1
            if pos < buf.count && (buf[pos] == UInt8(ascii: "+") || buf[pos] == UInt8(ascii: "-")) { pos += 1 }
            guard pos < buf.count, isDigit(buf[pos]) else { throw failure("invalid number: expected a digit in the exponent") }
            while pos < buf.count && isDigit(buf[pos]) { pos += 1 }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: buf[start..<pos]), as: UTF8.self)
        return JSONNumber(text: text)
    }

    @inline(__always) func isDigit(_ b: UInt8) -> Bool { b &- 0x30 < 10 }

    mutating func parseString() throws(RawError) -> String {
        let open = pos
        pos += 1
        let start = pos
        // Fast path: plain ASCII with no escapes.
        while pos < buf.count {
            let b = buf[pos]
            if b == UInt8(ascii: "\"") {
                let s = String(decoding: UnsafeBufferPointer(rebasing: buf[start..<pos]), as: UTF8.self)
                pos += 1
                return s
            }
            if b == UInt8(ascii: "\\") || b < 0x20 || b >= 0x80 { break }
            pos += 1
        }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: buf[start..<pos]))
        while pos < buf.count {
            let b = buf[pos]
            if b == UInt8(ascii: "\"") {
                pos += 1
                return String(decoding: scratch, as: UTF8.self)
            } else if b == UInt8(ascii: "\\") {
                try parseEscape()
            } else if b < 0x20 {
                throw failure("control character 0x\(String(b, radix: 16, uppercase: true)) in string must be escaped")
            } else if b < 0x80 {
                scratch.append(b)
                pos += 1
            } else {
                try copyUTF8Sequence()
            }
        }
        throw failure("unterminated string (opened at byte \(open))")
    }

    mutating func copyUTF8Sequence() throws(RawError) {
        let b0 = buf[pos]
        var need = 0
        var lo: UInt8 = 0x80
        var hi: UInt8 = 0xBF
        switch b0 {
        case 0xC2...0xDF: need = 1
        case 0xE0: need = 2; lo = 0xA0
        case 0xE1...0xEC, 0xEE, 0xEF: need = 2
        case 0xED: need = 2; hi = 0x9F
        case 0xF0: need = 3; lo = 0x90
        case 0xF1...0xF3: need = 3
        case 0xF4: need = 3; hi = 0x8F
        default: throw failure("invalid UTF-8 byte 0x\(String(b0, radix: 16, uppercase: true))")
        }
        guard pos + need < buf.count else { throw failure("truncated UTF-8 sequence") }
        let b1 = buf[pos + 1]
        guard b1 >= lo && b1 <= hi else { throw failure("invalid UTF-8 sequence", at: pos) }
        for i in 2..<(need + 1) where buf[pos + i] & 0xC0 != 0x80 {
            throw failure("invalid UTF-8 sequence", at: pos)
        }
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: buf[pos..<(pos + need + 1)]))
        pos += need + 1
    }

    mutating func parseEscape() throws(RawError) {
        let at = pos
        pos += 1
        guard pos < buf.count else { throw failure("unterminated escape sequence") }
        let c = buf[pos]
        pos += 1
        switch c {
        case UInt8(ascii: "\""): scratch.append(0x22)
        case UInt8(ascii: "\\"): scratch.append(0x5C)
        case UInt8(ascii: "/"): scratch.append(0x2F)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hex4()
            if scalar >= 0xD800 && scalar <= 0xDBFF {
                guard pos + 1 < buf.count, buf[pos] == UInt8(ascii: "\\"), buf[pos + 1] == UInt8(ascii: "u") else {
                    throw failure("lone high surrogate in \\u escape", at: at)
                }
                pos += 2
                let low = try hex4()
                guard low >= 0xDC00 && low <= 0xDFFF else { throw failure("high surrogate not followed by a low surrogate", at: at) }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if scalar >= 0xDC00 && scalar <= 0xDFFF {
                throw failure("lone low surrogate in \\u escape", at: at)
            }
            appendScalar(scalar)
        default:
            throw failure("invalid escape sequence", at: at)
        }
    }

    mutating func hex4() throws(RawError) -> UInt32 {
        guard pos + 4 <= buf.count else { throw failure("truncated \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = buf[pos]
            let d: UInt8
            switch b {
            case 0x30...0x39: d = b - 0x30
            case 0x41...0x46: d = b - 0x41 + 10
            case 0x61...0x66: d = b - 0x61 + 10
            default: throw failure("invalid hex digit in \\u escape")
            }
            v = v << 4 | UInt32(d)
            pos += 1
        }
        return v
    }

    mutating func appendScalar(_ s: UInt32) {
        if s < 0x80 {
            scratch.append(UInt8(s))
        } else if s < 0x800 {
            scratch.append(UInt8(0xC0 | (s >> 6)))
            scratch.append(UInt8(0x80 | (s & 0x3F)))
        } else if s < 0x10000 {
            scratch.append(UInt8(0xE0 | (s >> 12)))
            scratch.append(UInt8(0x80 | ((s >> 6) & 0x3F)))
            scratch.append(UInt8(0x80 | (s & 0x3F)))
        } else {
            scratch.append(UInt8(0xF0 | (s >> 18)))
            scratch.append(UInt8(0x80 | ((s >> 12) & 0x3F)))
            scratch.append(UInt8(0x80 | ((s >> 6) & 0x3F)))
            scratch.append(UInt8(0x80 | (s & 0x3F)))
        }
    }
}
