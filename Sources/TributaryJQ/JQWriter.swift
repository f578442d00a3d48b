import CJQ

/// Writes jq values as compact JSON, byte for byte what `jq -c` (jq 1.6's `jv_dump_term` with
/// no flags) writes, without going through it: jq 1.6 builds its text one character at a time
/// (a function call and a reference-count check per byte), which made printing an item cost
/// more than running most programs on it (Docs/processors/jq.md, "Performance").
///
/// The values are only read (borrowed); every reference taken for reading is released.
struct JQWriter {
    /// Nesting deeper than this is refused rather than written: Tributary's JSON parser
    /// (JSONDocument) reads no deeper, and the writer recurses once per level.
    static let maxDepth = 512

    let api: UnsafePointer<tributary_jq>

    struct TooDeep: Error {}

    /// Appends the compact JSON of `v` (not consumed) to `out`.
    func append(_ v: jv, to out: inout [UInt8]) throws(TooDeep) {
        var bytes = JQBytes(capacity: 256)
        try append(v, to: &bytes)
        out.append(contentsOf: UnsafeBufferPointer(start: bytes.base, count: bytes.count))
    }

    /// Appends the compact JSON of `v` (not consumed) to `out`.
    func append(_ v: jv, to out: inout JQBytes, depth: Int = 0) throws(TooDeep) {
        switch tributary_jv_get_kind(api, v) {
        case JV_KIND_NULL: out.append(Self.null)
        case JV_KIND_TRUE: out.append(Self.true)
        case JV_KIND_FALSE: out.append(Self.false)
        case JV_KIND_NUMBER: Self.appendNumber(tributary_jv_number_value(api, v), to: &out)
        case JV_KIND_STRING: appendString(v, to: &out)
        case JV_KIND_ARRAY:
            guard depth < Self.maxDepth else { throw TooDeep() }
            out.append(UInt8(ascii: "["))
            let n = tributary_jv_array_length(api, tributary_jv_copy(api, v))
            var i: Int32 = 0
            while i < n {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                let e = tributary_jv_array_get(api, tributary_jv_copy(api, v), i)
                defer { tributary_jv_free(api, e) }
                try append(e, to: &out, depth: depth + 1)
                i += 1
            }
            out.append(UInt8(ascii: "]"))
        case JV_KIND_OBJECT:
            guard depth < Self.maxDepth else { throw TooDeep() }
            out.append(UInt8(ascii: "{"))
            var it = tributary_jv_object_iter(api, v)
            var first = true
            while tributary_jv_object_iter_valid(api, v, it) != 0 {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                let key = tributary_jv_object_iter_key(api, v, it)
                appendString(key, to: &out)
                tributary_jv_free(api, key)
                out.append(UInt8(ascii: ":"))
                let value = tributary_jv_object_iter_value(api, v, it)
                defer { tributary_jv_free(api, value) }
                try append(value, to: &out, depth: depth + 1)
                it = tributary_jv_object_iter_next(api, v, it)
            }
            out.append(UInt8(ascii: "}"))
        default:
            // jq_next never gives an invalid value as an output; write what jq would not crash on.
            out.append(Self.null)
        }
    }

    /// The UTF-8 bytes of a string value (not consumed), valid while `v` is.
    func stringBytes(_ v: jv) -> UnsafeBufferPointer<UInt8> {
        let n = Int(tributary_jv_string_length_bytes(api, tributary_jv_copy(api, v)))
        guard n > 0, let p = tributary_jv_string_value(api, v) else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(start: UnsafeRawPointer(p).assumingMemoryBound(to: UInt8.self), count: n)
    }

    func appendString(_ v: jv, to out: inout JQBytes) {
        Self.appendQuoted(stringBytes(v), to: &out)
    }

    private static let null = Array("null".utf8), `true` = Array("true".utf8), `false` = Array("false".utf8)
    private static let hex = Array("0123456789abcdef".utf8)

    /// `"` + the text escaped as jq escapes it + `"`. jq strings are valid UTF-8 (libjq
    /// replaces bad sequences when it makes a string), so bytes from 0x80 are copied as they
    /// are, as jq writes non-ASCII characters without --ascii-output.
    static func appendQuoted(_ s: UnsafeBufferPointer<UInt8>, to out: inout JQBytes) {
        out.append(UInt8(ascii: "\""))
        guard let base = s.baseAddress else {
            out.append(UInt8(ascii: "\""))
            return
        }
        let n = s.count
        var start = 0
        var i = 0
        while true {
            // The run of bytes that are written as they are: eight at a time while no byte of
            // the eight needs an escape, then one at a time.
            while i + 8 <= n && !SWAR.hasEscape(UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)) { i += 8 }
            while i < n {
                let b = base[i]
                if b < 0x20 || b == 0x22 || b == 0x5C || b == 0x7F { break }
                i += 1
            }
            if start < i { out.append(UnsafeBufferPointer(start: base + start, count: i - start)) }
            guard i < n else { break }
            let b = base[i]
            switch b {
            case 0x22: out.append(escapedQuote)
            case 0x5C: out.append(escapedBackslash)
            case 0x08: out.append(escapedB)
            case 0x09: out.append(escapedT)
            case 0x0A: out.append(escapedN)
            case 0x0C: out.append(escapedF)
            case 0x0D: out.append(escapedR)
            default:
                out.append([UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                            hex[Int(b >> 4)], hex[Int(b & 0xF)]])
            }
            i += 1
            start = i
        }
        out.append(UInt8(ascii: "\""))
    }

    private static let escapedQuote = Array(#"\""#.utf8), escapedBackslash = Array(#"\\"#.utf8)
    private static let escapedB = Array(#"\b"#.utf8), escapedT = Array(#"\t"#.utf8), escapedN = Array(#"\n"#.utf8)
    private static let escapedF = Array(#"\f"#.utf8), escapedR = Array(#"\r"#.utf8)

    /// A number as jq 1.6 prints it (`jvp_dtoa_fmt`): NaN as `null`, infinities as ±DBL_MAX,
    /// otherwise the shortest digits that read back as the same double, in plain notation
    /// unless the decimal point is more than 15 places past the digits or 4 or more zeros
    /// follow it (then `d[.ddd]e±XX`, at least two exponent digits): `3`, `-0`, `0.1`,
    /// `1e+20`, `9223372036854776000`, `1e-05`, `1.7976931348623157e+308`.
    static func appendNumber(_ value: Double, to out: inout JQBytes) {
        if value.isNaN {
            out.append(null)
            return
        }
        var d = value
        if d > Double.greatestFiniteMagnitude { d = .greatestFiniteMagnitude }
        if d < -Double.greatestFiniteMagnitude { d = -.greatestFiniteMagnitude }
        // Integers below 1e16 have at most 16 digits, never more than 15 zeros past their
        // significant digits: jq writes them as plain integers.
        if d == d.rounded(.towardZero), abs(d) < 1e16 {
            if d == 0 {
                if d.sign == .minus { out.append(UInt8(ascii: "-")) }
                out.append(UInt8(ascii: "0"))
                return
            }
            appendInteger(Int64(d), to: &out)
            return
        }
        // Swift's description has the same shortest round-trip digits as jq's dtoa (mode 0);
        // only the layout differs, so take the digits and the decimal exponent from it.
        var digits: [UInt8] = []
        digits.reserveCapacity(20)
        var negative = false
        var intLen = 0
        var seenPoint = false
        var exponent = 0
        var expNegative = false
        var inExponent = false
        for c in d.description.utf8 {
            switch c {
            case UInt8(ascii: "-"):
                if inExponent { expNegative = true } else { negative = true }
            case UInt8(ascii: "+"):
                break
            case UInt8(ascii: "."):
                seenPoint = true
            case UInt8(ascii: "e"), UInt8(ascii: "E"):
                inExponent = true
            default:
                if inExponent {
                    exponent = exponent * 10 + Int(c &- UInt8(ascii: "0"))
                } else {
                    digits.append(c)
                    if !seenPoint { intLen += 1 }
                }
            }
        }
        // value = 0.DIGITS * 10^decpt
        var decpt = intLen + (expNegative ? -exponent : exponent)
        var lead = 0
        while lead < digits.count - 1, digits[lead] == UInt8(ascii: "0") {
            lead += 1
            decpt -= 1
        }
        var end = digits.count
        while end > lead + 1, digits[end - 1] == UInt8(ascii: "0") { end -= 1 }
        let s = digits[lead..<end]
        if negative { out.append(UInt8(ascii: "-")) }
        if decpt <= -4 || decpt > s.count + 15 {
            out.append(s[s.startIndex])
            if s.count > 1 {
                out.append(UInt8(ascii: "."))
                out.append(contentsOf: s.dropFirst())
            }
            out.append(UInt8(ascii: "e"))
            var e = decpt - 1
            if e < 0 {
                out.append(UInt8(ascii: "-"))
                e = -e
            } else {
                out.append(UInt8(ascii: "+"))
            }
            if e < 10 { out.append(UInt8(ascii: "0")) }
            appendInteger(Int64(e), to: &out)
        } else if decpt <= 0 {
            out.append(UInt8(ascii: "0"))
            out.append(UInt8(ascii: "."))
            for _ in 0 ..< -decpt { out.append(UInt8(ascii: "0")) }
            out.append(contentsOf: s)
        } else {
            var left = decpt
            var i = s.startIndex
            while i < s.endIndex {
                out.append(s[i])
                i += 1
                left -= 1
                if left == 0 && i < s.endIndex { out.append(UInt8(ascii: ".")) }
            }
            while left > 0 {
                out.append(UInt8(ascii: "0"))
                left -= 1
            }
        }
    }

    static func appendInteger(_ v: Int64, to out: inout JQBytes) {
        var n = v.magnitude
        if v < 0 { out.append(UInt8(ascii: "-")) }
        var buf: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: enough for 20 digits
        withUnsafeMutableBytes(of: &buf) { raw in
            let p = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
            var i = raw.count
            repeat {
                i -= 1
                p[i] = UInt8(ascii: "0") + UInt8(n % 10)
                n /= 10
            } while n > 0
            out.append(UnsafeBufferPointer(start: p + i, count: raw.count - i))
        }
    }
}

/// Tests on eight bytes at once (one UInt64), the classic "SIMD within a register" forms: each
/// is exact as a yes/no for the word (a byte above 0x7F never counts as small).
enum SWAR {
    static let ones: UInt64 = 0x0101_0101_0101_0101
    static let highs: UInt64 = 0x8080_8080_8080_8080

    /// Some byte of `w` equals `b`.
    @inline(__always)
    static func has(_ w: UInt64, _ b: UInt8) -> Bool {
        let x = w ^ (ones &* UInt64(b))
        return (x &- ones) & ~x & highs != 0
    }

    /// Some byte of `w` is below `n` (n <= 128).
    @inline(__always)
    static func hasLess(_ w: UInt64, _ n: UInt8) -> Bool {
        (w &- ones &* UInt64(n)) & ~w & highs != 0
    }

    /// Some byte of `w` is one jq escapes in a string: a control character, `"`, `\\` or DEL.
    @inline(__always)
    static func hasEscape(_ w: UInt64) -> Bool {
        hasLess(w, 0x20) || has(w, 0x22) || has(w, 0x5C) || has(w, 0x7F)
    }

    /// Some byte of `w` ends a plain run in a JSON string: a control character, `"` or `\\`.
    @inline(__always)
    static func hasStringEnd(_ w: UInt64) -> Bool {
        hasLess(w, 0x20) || has(w, 0x22) || has(w, 0x5C)
    }
}
