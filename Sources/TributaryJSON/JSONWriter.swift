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

    public static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { bytes in
            guard let src = bytes.baseAddress else { return }
            let n = bytes.count
            // Eight bytes at a time while none needs escaping (almost all text), then byte by
            // byte to the first that does, if any.
            var clean = 0
            while clean + 8 <= n && escapeFlags(UnsafeRawPointer(src + clean).loadUnaligned(as: UInt64.self)) == 0 { clean += 8 }
            while clean < n && !isSpecial(src[clean]) { clean += 1 }
            out.append(contentsOf: UnsafeBufferPointer(start: src, count: clean))
            guard clean < n else { return }
            // The rest escaped a slice at a time, so a long text needs no room for six times it.
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: escapeSlice * 6 + escapeSlack) { tmp in
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
    /// for `6 * n + escapeSlack` bytes; returns the end of what was written. The one escaping
    /// routine, for `writeString` and `JSONLineBuffer`. Eight bytes are loaded, tested and stored
    /// at a time, where a byte needing an escape is only located within its word (the lowest
    /// flag of `escapeFlags` is exact), so text needing none costs no copy call and no byte loop;
    /// the last bytes of a string of eight or more are the word ending at its end, shifted, so a
    /// short field does not fall back to a byte loop either. A word may be stored past the end
    /// of what is written (up to `escapeSlack` bytes): those bytes are overwritten or left unused.
    static func escape(_ src: UnsafePointer<UInt8>, count n: Int, to dst: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        var d = UnsafeMutableRawPointer(dst)
        var i = 0
        // Whole words.
        while i &+ 8 <= n {
            // Little-endian order, so that a flag's bit position counts bytes from the start
            // (a no-op where the machine is little-endian; stored back the same way).
            let w = UInt64(littleEndian: UnsafeRawPointer(src + i).loadUnaligned(as: UInt64.self))
            d.storeBytes(of: w.littleEndian, as: UInt64.self)
            let flags = escapeFlags(w)
            if flags == 0 {
                i &+= 8
                d += 8
                continue
            }
            let k = flags.trailingZeroBitCount &>> 3
            d += k
            i &+= k
            d = writeEscape(src[i], at: d)
            i &+= 1
        }
        // The rest, fewer than eight bytes: the word ending at the string's end, its bytes
        // already written shifted out (their flags with them), when the string has eight.
        var left = n &- i
        if left > 0 && n >= 8 {
            var w = UInt64(littleEndian: UnsafeRawPointer(src + (n &- 8)).loadUnaligned(as: UInt64.self)) &>> UInt64((8 &- left) &* 8)
            while left > 0 {
                d.storeBytes(of: w.littleEndian, as: UInt64.self)
                let valid: UInt64 = left >= 8 ? ~0 : (1 &<< UInt64(left &* 8)) &- 1
                let flags = escapeFlags(w) & valid
                if flags == 0 {
                    d += left
                    break
                }
                let k = flags.trailingZeroBitCount &>> 3
                d += k
                d = writeEscape(UInt8(truncatingIfNeeded: w &>> UInt64(k &* 8)), at: d)
                w = k &+ 1 >= 8 ? 0 : w &>> UInt64((k &+ 1) &* 8)
                left &-= k &+ 1
            }
        } else {
            // A string shorter than eight bytes.
            while i < n {
                let b = src[i]
                if isSpecial(b) {
                    d = writeEscape(b, at: d)
                } else {
                    d.storeBytes(of: b, as: UInt8.self)
                    d += 1
                }
                i &+= 1
            }
        }
        return d.assumingMemoryBound(to: UInt8.self)
    }

    /// Bytes `escape` may store past the end of what it writes (one word).
    static let escapeSlack = 8

    /// The high bit of each byte of `w` that needs an escape (below 0x20, `"`, `\\`), and
    /// possibly of bytes above such a byte (borrows): the lowest flag is always exact, and the
    /// mask is zero exactly when no byte needs one (the has-less and has-zero-byte word tests).
    @inline(__always)
    static func escapeFlags(_ w: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let control = (w &- ones &* 0x20) & ~w
        let q = w ^ (ones &* 0x22)
        let bs = w ^ (ones &* 0x5C)
        return (control | ((q &- ones) & ~q) | ((bs &- ones) & ~bs)) & highs
    }

    /// The escape of `b` (`"`, `\\` or a control character) at `d`; returns its end.
    @inline(__always)
    static func writeEscape(_ b: UInt8, at d: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer {
        let p = d.assumingMemoryBound(to: UInt8.self)
        p[0] = 0x5C
        switch b {
        case 0x22: p[1] = 0x22
        case 0x5C: p[1] = 0x5C
        case 0x0A: p[1] = UInt8(ascii: "n")
        case 0x0D: p[1] = UInt8(ascii: "r")
        case 0x09: p[1] = UInt8(ascii: "t")
        case 0x08: p[1] = UInt8(ascii: "b")
        case 0x0C: p[1] = UInt8(ascii: "f")
        default:
            // `\u00XX`, lowercase hex: b is below 0x20, so its high digit is 0 or 1.
            let low = b & 0xF
            p[1] = UInt8(ascii: "u")
            p[2] = UInt8(ascii: "0")
            p[3] = UInt8(ascii: "0")
            p[4] = UInt8(ascii: "0") + (b >> 4)
            p[5] = low < 10 ? UInt8(ascii: "0") + low : UInt8(ascii: "a") + low - 10
            return d + 6
        }
        return d + 2
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
