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

    public static func write(_ value: JSONValue, into out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let n): out.append(contentsOf: n.text.utf8)
        case .string(let s): writeString(s, into: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                write(item, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let obj): write(obj, into: &out)
        }
    }

    /// An object, members in order.
    public static func write(_ object: JSONObject, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        for (i, entry) in object.entries.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            writeString(entry.key, into: &out)
            out.append(UInt8(ascii: ":"))
            write(entry.value, into: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

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
            guard let base = bytes.baseAddress else { return }
            let n = bytes.count
            var runStart = 0
            var i = 0
            while i < n {
                // Eight bytes at a time while none needs escaping (almost all text), then byte
                // by byte through the chunk that holds one, and on by words after it: a
                // summary's line breaks do not turn the rest of it into a byte loop.
                while i + 8 <= n && !needsEscape(UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)) { i += 8 }
                let stop = min(i + 8, n)
                while i < stop {
                    let b = base[i]
                    if b < 0x20 || b == 0x22 || b == 0x5C { break }
                    i += 1
                }
                guard i < stop else { continue }
                let b = base[i]
                if runStart < i { out.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: i - runStart)) }
                i += 1
                runStart = i
                out.append(UInt8(ascii: "\\"))
                switch b {
                case 0x22: out.append(0x22)
                case 0x5C: out.append(0x5C)
                case 0x0A: out.append(UInt8(ascii: "n"))
                case 0x0D: out.append(UInt8(ascii: "r"))
                case 0x09: out.append(UInt8(ascii: "t"))
                case 0x08: out.append(UInt8(ascii: "b"))
                case 0x0C: out.append(UInt8(ascii: "f"))
                default:
                    out.append(contentsOf: "u00".utf8)
                    out.append(hexDigits[Int(b >> 4)])
                    out.append(hexDigits[Int(b & 0xF)])
                }
            }
            if runStart < n { out.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: n - runStart)) }
        }
        out.append(UInt8(ascii: "\""))
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
