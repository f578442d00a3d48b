import TributaryBase

/// Compact JSON output straight into a byte buffer: UTF-8 with non-ASCII written as itself,
/// `"`, `\` and control characters escaped, numbers written as their literal text.
public enum JSONWriter {
    public static func serialize(_ value: JSONValue) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(value, into: &out)
        return out
    }

    /// The value as compact JSON: written by `JSONLineBuffer`, the one walk of a value, into
    /// its own memory, then appended at once.
    public static func write(_ value: JSONValue, into out: inout [UInt8]) {
        var buffer = JSONLineBuffer(capacity: 256)
        defer { buffer.deallocate() }
        buffer.appendValue(value)
        out.append(contentsOf: buffer.bytes)
    }

    /// Whether any of the eight bytes of `w` is below 0x20, `"` or `\\` (exact: the classic
    /// has-less and has-zero-byte word tests, which never miss and only over-report bits above
    /// a match, not whether there is one).
    @inline(__always)
    static func needsEscape(_ w: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let control = (w &- ones &* 0x20) & ~w & highs
        let q = w ^ (ones &* 0x22)
        let quote = (q &- ones) & ~q & highs
        let bs = w ^ (ones &* 0x5C)
        let backslash = (bs &- ones) & ~bs & highs
        return control | quote | backslash != 0
    }

    public static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { bytes in
            guard let src = bytes.baseAddress else { return }
            let n = bytes.count
            // Eight bytes at a time while none needs escaping (almost all text), then byte by
            // byte to the first that does, if any.
            var clean = 0
            while clean + 8 <= n && !needsEscape(UnsafeRawPointer(src + clean).loadUnaligned(as: UInt64.self)) { clean += 8 }
            while clean < n && !isSpecial(src[clean]) { clean += 1 }
            out.append(contentsOf: UnsafeBufferPointer(start: src, count: clean))
            guard clean < n else { return }
            // The rest escaped a slice at a time, so a long text needs no room for six times it.
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: escapeSlice * 6) { tmp in
                var at = clean
                while at < n {
                    let k = min(escapeSlice, n - at)
                    let end = escape(src + at, count: k, to: tmp.baseAddress!)
                    out.append(contentsOf: UnsafeBufferPointer(start: tmp.baseAddress!, count: end - tmp.baseAddress!))
                    at += k
                }
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// How many bytes of a string are escaped at once (`escape` needs six times that).
    static let escapeSlice = 4096

    /// A byte that is escaped in a JSON string: `"`, `\` or a control character.
    @inline(__always)
    static func isSpecial(_ b: UInt8) -> Bool { b < 0x20 || b == 0x22 || b == 0x5C }

    /// The `n` bytes at `src` as the inside of a JSON string (no quotes) at `dst`, which has room
    /// for `6 * n` bytes; returns the end of what was written. The one escaping routine, for
    /// `writeString` and `JSONLineBuffer`: runs that need none are copied whole, found eight
    /// bytes at a time, and a summary's line breaks do not turn the rest of it into a byte loop.
    static func escape(_ src: UnsafePointer<UInt8>, count n: Int, to dst: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        var d = dst
        var i = 0
        var runStart = 0
        while i < n {
            while i + 8 <= n && !needsEscape(UnsafeRawPointer(src + i).loadUnaligned(as: UInt64.self)) { i += 8 }
            let stop = min(i + 8, n)
            while i < stop && !isSpecial(src[i]) { i += 1 }
            guard i < stop else { continue }
            let run = i - runStart
            if run > 0 {
                d.update(from: src + runStart, count: run)
                d += run
            }
            let b = src[i]
            i += 1
            runStart = i
            d[0] = 0x5C
            switch b {
            case 0x22: d[1] = 0x22
            case 0x5C: d[1] = 0x5C
            case 0x0A: d[1] = UInt8(ascii: "n")
            case 0x0D: d[1] = UInt8(ascii: "r")
            case 0x09: d[1] = UInt8(ascii: "t")
            case 0x08: d[1] = UInt8(ascii: "b")
            case 0x0C: d[1] = UInt8(ascii: "f")
            default:
                // `\u00XX`, lowercase hex: b is below 0x20, so its high digit is 0 or 1.
                let low = b & 0xF
                d[1] = UInt8(ascii: "u")
                d[2] = UInt8(ascii: "0")
                d[3] = UInt8(ascii: "0")
                d[4] = UInt8(ascii: "0") + (b >> 4)
                d[5] = low < 10 ? UInt8(ascii: "0") + low : UInt8(ascii: "a") + low - 10
                d += 6
                continue
            }
            d += 2
        }
        let run = n - runStart
        if run > 0 {
            d.update(from: src + runStart, count: run)
            d += run
        }
        return d
    }
}

extension JSONWriter {
    /// Indented output (two spaces, `"key": value`), for files people read (the config schema).
    public static func prettyPrinted(_ value: JSONValue) -> [UInt8] {
        var out: [UInt8] = []
        pretty(value, indent: 0, into: &out)
        out.append(0x0A)
        return out
    }

    private static func pretty(_ value: JSONValue, indent: Int, into out: inout [UInt8]) {
        let pad = { (n: Int, out: inout [UInt8]) in out.append(contentsOf: [UInt8](repeating: 0x20, count: n * 2)) }
        switch value {
        case .array(let items) where !items.isEmpty:
            out.append(contentsOf: "[\n".utf8)
            for (i, item) in items.enumerated() {
                pad(indent + 1, &out)
                pretty(item, indent: indent + 1, into: &out)
                out.append(contentsOf: (i + 1 < items.count ? ",\n" : "\n").utf8)
            }
            pad(indent, &out)
            out.append(UInt8(ascii: "]"))
        case .object(let o) where !o.isEmpty:
            out.append(contentsOf: "{\n".utf8)
            for (i, e) in o.entries.enumerated() {
                pad(indent + 1, &out)
                writeString(e.key, into: &out)
                out.append(contentsOf: ": ".utf8)
                pretty(e.value, indent: indent + 1, into: &out)
                out.append(contentsOf: (i + 1 < o.count ? ",\n" : "\n").utf8)
            }
            pad(indent, &out)
            out.append(UInt8(ascii: "}"))
        default:
            write(value, into: &out)
        }
    }
}
