import TributaryBase

/// The one validating pass that builds a document's tape (see `JSONTapeEntry`): strict RFC 8259,
/// UTF-8 validated, `\u` escapes checked (surrogates paired), numbers checked against the
/// grammar, nesting limited to `maxDepth`. Nothing is decoded and nothing is allocated per value.
///
/// It is iterative: an open container's tape entry holds the index of the container around it
/// (in `end`, until it closes), so nesting needs neither recursion nor a side stack. Errors and
/// their messages are those of the recursive parser it replaced (kept as the test oracle in
/// TributaryTestSupport), at the same byte offsets.
struct JSONTapeParser {
    /// Invariant for every read below: `base` points at `count` initialized bytes, and a byte
    /// is read only at an index proven `< count` by the surrounding check.
    private let base: UnsafePointer<UInt8>
    private let count: Int
    private let maxDepth: Int
    private var pos = 0
    private(set) var tape: JSONTapeBuffer

    /// `bytes` must be non-empty and at most `JSONTapeEntry.maxDocumentBytes` long.
    init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        precondition(!bytes.isEmpty && bytes.count <= JSONTapeEntry.maxDocumentBytes)
        self.base = bytes.baseAddress!
        self.count = bytes.count
        self.maxDepth = maxDepth
        // About one value per 16 bytes in API responses; the buffer doubles when that is short.
        self.tape = JSONTapeBuffer(capacity: bytes.count / 16 + 16, limit: bytes.count)
    }

    // MARK: Structure

    /// Parses the whole document into `tape`. On failure the caller frees `tape`.
    ///
    /// The open container's state lives in locals (`parent`, `isObject`, `members`, `lastKey`);
    /// opening a child saves it into the parent's entry (`length`, `offset`) and closing the
    /// child restores it, so each value costs no tape traffic beyond its own entry.
    mutating func parse() throws(RawError) {
        skipWhitespace()
        let none = Int(JSONTapeEntry.noParent)
        var parent = none
        var isObject = false
        var members = 0
        var lastKey = 0
        var depth = 0
        value: while true {
            // A value starts at `pos` (whitespace skipped).
            guard pos < count else { throw failure("unexpected end of input, expected a value") }
            let b = base[pos]
            switch b {
            case UInt8(ascii: "\""):
                try string()
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                if depth > maxDepth { throw failure("nesting deeper than \(maxDepth) levels") }
                if parent != none {
                    tape[parent].length = UInt32(truncatingIfNeeded: members)
                    if isObject { tape[parent].offset = UInt32(truncatingIfNeeded: lastKey) }
                }
                isObject = b == UInt8(ascii: "{")
                let index = tape.count
                tape.append(JSONTapeEntry(kind: isObject ? JSONTapeEntry.object : JSONTapeEntry.array, flags: 0,
                                          offset: UInt32(truncatingIfNeeded: pos), length: 0, end: UInt32(truncatingIfNeeded: parent)))
                parent = index
                members = 0
                lastKey = index
                pos += 1
                skipWhitespace()
                if pos < count && base[pos] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    pos += 1
                    close(&parent, &isObject, &members, &lastKey)
                    depth -= 1
                } else {
                    if isObject { try key(&lastKey) }
                    continue value
                }
            case UInt8(ascii: "t"):
                try literal("true", JSONTapeEntry.true)
            case UInt8(ascii: "f"):
                try literal("false", JSONTapeEntry.false)
            case UInt8(ascii: "n"):
                try literal("null", JSONTapeEntry.null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                try number()
            default:
                throw failure("unexpected \(describeCurrent()), expected a value")
            }
            // A value just ended: what follows depends on the container it is in.
            while true {
                if parent == none {
                    skipWhitespace()
                    if pos != count { throw failure("unexpected \(describeCurrent()) after the JSON value") }
                    return
                }
                members += 1
                skipWhitespace()
                guard pos < count else {
                    throw failure(isObject ? "unexpected end of input, expected ',' or '}'" : "unexpected end of input, expected ',' or ']'")
                }
                let c = base[pos]
                if c == UInt8(ascii: ",") {
                    pos += 1
                    skipWhitespace()
                    if isObject { try key(&lastKey) }
                    continue value
                }
                guard c == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else {
                    throw failure(isObject ? "unexpected \(describeCurrent()), expected ',' or '}'" : "unexpected \(describeCurrent()), expected ',' or ']'")
                }
                pos += 1
                close(&parent, &isObject, &members, &lastKey)
                depth -= 1
            }
        }
    }

    /// Closes the open container `parent`: its entry gets its member count, its `end` (the
    /// index past its last descendant) and, for an object, its last key; the container around
    /// it becomes the open one again, with the state its entry saved.
    @inline(__always)
    private mutating func close(_ parent: inout Int, _ isObject: inout Bool, _ members: inout Int, _ lastKey: inout Int) {
        let outer = tape[parent].end
        tape[parent].end = UInt32(truncatingIfNeeded: tape.count)
        tape[parent].length = UInt32(truncatingIfNeeded: members)
        if isObject { tape[parent].offset = UInt32(truncatingIfNeeded: lastKey) }
        guard outer != JSONTapeEntry.noParent else {
            parent = Int(JSONTapeEntry.noParent)
            return
        }
        parent = Int(outer)
        let e = tape[parent]
        isObject = e.kind == JSONTapeEntry.object
        members = Int(e.length)
        lastKey = Int(e.offset)
    }

    /// An object key and its colon, leaving `pos` at the value (whitespace skipped). The key's
    /// entry links back to the object's previous key (`lastKey`), then becomes the last key.
    @inline(__always)
    private mutating func key(_ lastKey: inout Int) throws(RawError) {
        guard pos < count else { throw failure("unexpected end of input, expected '\"' (an object key)") }
        guard base[pos] == UInt8(ascii: "\"") else { throw failure("unexpected \(describeCurrent()), expected '\"' (an object key)") }
        let index = tape.count
        try string()
        tape[index].end = UInt32(truncatingIfNeeded: lastKey)
        lastKey = index
        skipWhitespace()
        guard pos < count, base[pos] == UInt8(ascii: ":") else { throw failure("unexpected \(describeCurrent()), expected ':'") }
        pos += 1
        skipWhitespace()
    }

    @inline(__always)
    private mutating func skipWhitespace() {
        while pos < count {
            let b = base[pos]
            // Fast exit: every byte above the space is not whitespace.
            if b > 0x20 { return }
            if b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { pos += 1 } else { return }
        }
    }

    @inline(__always)
    private mutating func scalar(_ kind: UInt8, flags: UInt8, from start: Int) {
        tape.append(JSONTapeEntry(kind: kind, flags: flags, offset: UInt32(truncatingIfNeeded: start),
                                  length: UInt32(truncatingIfNeeded: pos - start), end: UInt32(truncatingIfNeeded: tape.count + 1)))
    }

    // MARK: Scalars

    private mutating func literal(_ word: StaticString, _ kind: UInt8) throws(RawError) {
        let start = pos
        let n = word.utf8CodeUnitCount
        let w = word.utf8Start
        for i in 0..<n {
            guard pos < count, base[pos] == w[i] else {
                throw failure("invalid literal, expected '\(word)'", at: start)
            }
            pos += 1
        }
        scalar(kind, flags: 0, from: start)
    }

    @inline(__always) private func isDigit(_ b: UInt8) -> Bool { b &- 0x30 < 10 }

    private mutating func number() throws(RawError) {
        let start = pos
        var integer = true
        if base[pos] == UInt8(ascii: "-") { pos += 1 }
        guard pos < count, isDigit(base[pos]) else { throw failure("invalid number: expected a digit") }
        if base[pos] == UInt8(ascii: "0") {
            pos += 1
            if pos < count && isDigit(base[pos]) { throw failure("invalid number: leading zero") }
        } else {
            while pos < count && isDigit(base[pos]) { pos += 1 }
        }
        if pos < count && base[pos] == UInt8(ascii: ".") {
            integer = false
            pos += 1
            guard pos < count, isDigit(base[pos]) else { throw failure("invalid number: expected a digit after '.'") }
            while pos < count && isDigit(base[pos]) { pos += 1 }
        }
        if pos < count && (base[pos] == UInt8(ascii: "e") || base[pos] == UInt8(ascii: "E")) {
            integer = false
            pos += 1
            if pos < count && (base[pos] == UInt8(ascii: "+") || base[pos] == UInt8(ascii: "-")) { pos += 1 }
            guard pos < count, isDigit(base[pos]) else { throw failure("invalid number: expected a digit in the exponent") }
            while pos < count && isDigit(base[pos]) { pos += 1 }
        }
        scalar(JSONTapeEntry.number, flags: integer ? JSONTapeEntry.isInteger : 0, from: start)
    }

    // MARK: Strings

    /// A string at `pos` (its opening quote), value or key. Plain bytes are skipped eight at a
    /// time; escapes and multi-byte sequences are checked where they are.
    @inline(__always)
    private mutating func string() throws(RawError) {
        let open = pos
        pos += 1
        let start = pos
        var flags: UInt8 = 0
        while true {
            // Invariant: pos + 8 <= count, so the eight bytes at base + pos are in the buffer.
            while pos &+ 8 <= count {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + pos).loadUnaligned(as: UInt64.self))
                let special = Self.specialBytes(word)
                if special == 0 {
                    pos &+= 8
                    continue
                }
                pos &+= special.trailingZeroBitCount &>> 3
                break
            }
            guard pos < count else { throw failure("unterminated string (opened at byte \(open))") }
            let b = base[pos]
            if b == UInt8(ascii: "\"") { break }
            if b == UInt8(ascii: "\\") {
                flags |= JSONTapeEntry.hasEscapes
                try escape()
            } else if b < 0x20 {
                throw failure("control character 0x\(String(b, radix: 16, uppercase: true)) in string must be escaped")
            } else if b >= 0x80 {
                flags |= JSONTapeEntry.hasNonASCII
                // The common sequences inline (two bytes, and three outside the E0/ED ranges);
                // everything else, errors included, in utf8Sequence. Invariant: pos + k < count
                // is checked before base[pos + k] is read.
                if b >= 0xC2 && b <= 0xDF && pos + 1 < count && base[pos + 1] & 0xC0 == 0x80 {
                    pos += 2
                } else if b >= 0xE1 && b <= 0xEF && b != 0xED && pos + 2 < count
                            && base[pos + 1] & 0xC0 == 0x80 && base[pos + 2] & 0xC0 == 0x80 {
                    pos += 3
                } else {
                    try utf8Sequence()
                }
            } else {
                pos += 1
            }
        }
        scalar(JSONTapeEntry.string, flags: flags, from: start)
        pos += 1
    }

    /// The high bit of each byte of `w` that is `"`, `\`, below 0x20 or above 0x7F. Bits above
    /// the lowest one may be false positives (borrows), so only the lowest is used.
    @inline(__always)
    static func specialBytes(_ w: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quote = w ^ (ones &* 0x22)
        let backslash = w ^ (ones &* 0x5C)
        let quoteZero = (quote &- ones) & ~quote
        let backslashZero = (backslash &- ones) & ~backslash
        let control = (w &- ones &* 0x20) & ~w
        return (quoteZero | backslashZero | control | w) & highs
    }

    /// One UTF-8 sequence whose lead byte (>= 0x80) is at `pos` (RFC 3629: no overlongs, no
    /// surrogates, nothing above U+10FFFF).
    private mutating func utf8Sequence() throws(RawError) {
        let b0 = base[pos]
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
        guard pos + need < count else { throw failure("truncated UTF-8 sequence") }
        let b1 = base[pos + 1]
        guard b1 >= lo && b1 <= hi else { throw failure("invalid UTF-8 sequence") }
        var i = 2
        while i <= need {
            if base[pos + i] & 0xC0 != 0x80 { throw failure("invalid UTF-8 sequence") }
            i += 1
        }
        pos += need + 1
    }

    /// One escape whose backslash is at `pos`.
    private mutating func escape() throws(RawError) {
        let at = pos
        pos += 1
        guard pos < count else { throw failure("unterminated escape sequence") }
        let c = base[pos]
        pos += 1
        switch c {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
             UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return
        case UInt8(ascii: "u"):
            let scalar = try hex4()
            if scalar >= 0xD800 && scalar <= 0xDBFF {
                guard pos + 1 < count, base[pos] == UInt8(ascii: "\\"), base[pos + 1] == UInt8(ascii: "u") else {
                    throw failure("lone high surrogate in \\u escape", at: at)
                }
                pos += 2
                let low = try hex4()
                guard low >= 0xDC00 && low <= 0xDFFF else { throw failure("high surrogate not followed by a low surrogate", at: at) }
            } else if scalar >= 0xDC00 && scalar <= 0xDFFF {
                throw failure("lone low surrogate in \\u escape", at: at)
            }
        default:
            throw failure("invalid escape sequence", at: at)
        }
    }

    private mutating func hex4() throws(RawError) -> UInt32 {
        guard pos + 4 <= count else { throw failure("truncated \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            guard let d = JSONEscapes.hexValue(base[pos]) else { throw failure("invalid hex digit in \\u escape") }
            v = v << 4 | UInt32(d)
            pos += 1
        }
        return v
    }

    // MARK: Errors

    private func failure(_ message: String, at offset: Int? = nil) -> RawError {
        RawError(offset: offset ?? pos, message: message)
    }

    private func describeCurrent() -> String {
        guard pos < count else { return "end of input" }
        let b = base[pos]
        if b >= 0x21 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
        return "byte 0x" + String(b, radix: 16, uppercase: true)
    }
}
