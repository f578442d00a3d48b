import TributaryBase
#if canImport(Glibc)
import Glibc
#endif

/// String escapes of text the tape parser has validated: decoding into UTF-8, and rewriting into
/// the canonical form `JSONWriter` writes. Every function here trusts that validation (each `\`
/// starts a complete escape, `\u` high surrogates are followed by a low one), so none of them
/// checks bounds beyond `count`.
enum JSONEscapes {
    @inline(__always)
    static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: return b - 0x30
        case 0x41...0x46: return b - 0x41 + 10
        case 0x61...0x66: return b - 0x61 + 10
        default: return nil
        }
    }

    /// The four validated hex digits at `p`.
    @inline(__always)
    private static func hex4(_ p: UnsafePointer<UInt8>) -> UInt32 {
        var v: UInt32 = 0
        for i in 0..<4 { v = v << 4 | UInt32(hexValue(p[i]) ?? 0) }
        return v
    }

    /// The escape at `p` (its backslash): the byte it stands for when it is a one-letter escape,
    /// or the scalar of a `\u` escape (a surrogate pair combined), and its length in bytes.
    @inline(__always)
    private static func escape(at p: UnsafePointer<UInt8>) -> (scalar: UInt32, length: Int) {
        switch p[1] {
        case UInt8(ascii: "b"): return (0x08, 2)
        case UInt8(ascii: "f"): return (0x0C, 2)
        case UInt8(ascii: "n"): return (0x0A, 2)
        case UInt8(ascii: "r"): return (0x0D, 2)
        case UInt8(ascii: "t"): return (0x09, 2)
        case UInt8(ascii: "u"):
            let s = hex4(p + 2)
            guard s >= 0xD800 && s <= 0xDBFF else { return (s, 6) }
            // Validated: a low surrogate escape follows at p + 6.
            let low = hex4(p + 8)
            return (0x10000 + ((s - 0xD800) << 10) + (low - 0xDC00), 12)
        default: return (UInt32(p[1]), 2)  // " \ /
        }
    }

    /// How many of the `n` bytes at `p` come before the first backslash (all `n` without one):
    /// a run of plain text, copied in one go.
    @inline(__always)
    private static func plainRun(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int {
        guard let hit = memchr(p, 0x5C, n) else { return n }
        return UnsafePointer<UInt8>(hit.assumingMemoryBound(to: UInt8.self)) - p
    }

    /// Writes the UTF-8 of `s` at `dst` (room for 4 bytes); returns the bytes written.
    @inline(__always)
    private static func encode(_ s: UInt32, _ dst: UnsafeMutablePointer<UInt8>) -> Int {
        if s < 0x80 {
            dst[0] = UInt8(s)
            return 1
        } else if s < 0x800 {
            dst[0] = UInt8(0xC0 | (s >> 6))
            dst[1] = UInt8(0x80 | (s & 0x3F))
            return 2
        } else if s < 0x10000 {
            dst[0] = UInt8(0xE0 | (s >> 12))
            dst[1] = UInt8(0x80 | ((s >> 6) & 0x3F))
            dst[2] = UInt8(0x80 | (s & 0x3F))
            return 3
        }
        dst[0] = UInt8(0xF0 | (s >> 18))
        dst[1] = UInt8(0x80 | ((s >> 12) & 0x3F))
        dst[2] = UInt8(0x80 | ((s >> 6) & 0x3F))
        dst[3] = UInt8(0x80 | (s & 0x3F))
        return 4
    }

    /// Decodes the validated string bytes `src[0..<count]` (escapes as written) into `dst`.
    /// Invariant: `dst` has room for `count` bytes; no escape decodes to more bytes than it
    /// takes (`\n` 2 -> 1, `\uXXXX` 6 -> at most 3, a surrogate pair 12 -> 4), so that is enough.
    /// Returns the number of bytes written.
    static func decode(_ src: UnsafePointer<UInt8>, count: Int, into dst: UnsafeMutablePointer<UInt8>) -> Int {
        var i = 0
        var o = 0
        while i < count {
            // Copy the run up to the next backslash (or the end) in one go.
            let run = plainRun(src + i, count - i)
            if run > 0 {
                (dst + o).update(from: src + i, count: run)
                i += run
                o += run
            }
            guard i < count else { break }
            let (scalar, length) = escape(at: src + i)
            o += encode(scalar, dst + o)
            i += length
        }
        return o
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Appends `"..."` for the validated string bytes `src[0..<count]`, byte for byte what
    /// `JSONWriter.writeString` writes for the decoded string, without decoding it: plain runs
    /// are copied as they are (they hold no quote, backslash or control byte), and each escape is
    /// rewritten to the writer's form (`\u00e9` -> `é`, `\/` -> `/`, `\u000a` -> `\n`).
    static func appendCanonical(_ src: UnsafePointer<UInt8>, count: Int, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var i = 0
        while i < count {
            let run = plainRun(src + i, count - i)
            if run > 0 {
                out.append(contentsOf: UnsafeBufferPointer(start: src + i, count: run))
                i += run
            }
            guard i < count else { break }
            let (scalar, length) = escape(at: src + i)
            i += length
            switch scalar {
            case 0x22: out.append(0x5C); out.append(0x22)
            case 0x5C: out.append(0x5C); out.append(0x5C)
            case 0x0A: out.append(0x5C); out.append(UInt8(ascii: "n"))
            case 0x0D: out.append(0x5C); out.append(UInt8(ascii: "r"))
            case 0x09: out.append(0x5C); out.append(UInt8(ascii: "t"))
            case 0x08: out.append(0x5C); out.append(UInt8(ascii: "b"))
            case 0x0C: out.append(0x5C); out.append(UInt8(ascii: "f"))
            case 0..<0x20:
                out.append(contentsOf: "\\u00".utf8)
                out.append(hexDigits[Int(scalar >> 4)])
                out.append(hexDigits[Int(scalar & 0xF)])
            default:
                var utf8: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
                withUnsafeMutableBytes(of: &utf8) { raw in
                    // Invariant: the tuple is 4 bytes, encode writes at most 4.
                    let p = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
                    let n = encode(scalar, p)
                    out.append(contentsOf: UnsafeBufferPointer(start: p, count: n))
                }
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
