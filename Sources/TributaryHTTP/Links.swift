import TributaryBase
import TributaryJSON
import TributaryOptions
import FoundationEssentials
import Glibc
import Dispatch

/// Links found in documents (a feed's entries, an API's fields, a playlist's streams): relative
/// references resolved (RFC 3986) against the document's URL or xml:base, and only absolute
/// http(s) URLs kept for items.
public enum Links {
    public static func resolve(_ link: String, against base: String) -> String {
        let link = link.trimmingWhitespaceAndNewlines
        if isHTTP(link) { return encoded(link) }
        if link.hasPrefix("//") { return (hasPrefixIgnoringASCIICase(base, "http://") ? "http:" : "https:") + encoded(link) }
        guard let b = URL(string: encoded(base)), let u = URL(string: encoded(link), relativeTo: b) else { return link }
        return u.absoluteString
    }

    public static func encoded(_ s: String) -> String {
        if s.utf8.allSatisfy(isURLByte) { return s }
        return s.percentEncoded(keeping: isURLByte)
    }

    /// Characters a URL may hold as written; anything else (spaces, Cyrillic) is percent-encoded
    /// before parsing, so `https://e.org/новости/1` still resolves. ASCII only.
    static func isURLCharacter(_ c: Unicode.Scalar) -> Bool {
        c.isASCII && isURLByte(UInt8(c.value))
    }

    /// The same for one UTF-8 byte (a byte of a multi-byte scalar is never one): letters,
    /// digits and `-._~:/?#[]@!$&'()*+,;=%`, by a switch rather than a search per byte.
    @inline(__always) static func isURLByte(_ b: UInt8) -> Bool {
        switch b {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
        case 0x21, 0x23...0x2F, 0x3A, 0x3B, 0x3D, 0x3F, 0x40, 0x5B, 0x5D, 0x5F, 0x7E: return true
        default: return false
        }
    }

    /// `s.lowercased().hasPrefix(prefix)` for a lowercase ASCII `prefix`, without making the
    /// lowercased copy.
    static func hasPrefixIgnoringASCIICase(_ s: String, _ prefix: StaticString) -> Bool {
        let p = UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
        // The string's bytes in place: its `utf8` iterator cost about 600 instructions for the
        // two prefixes of every link.
        return s.withUTF8Bytes { b -> Bool in
            guard b.count >= p.count else { return false }
            for k in 0..<p.count {
                let c = b[k]
                if (c >= 0x41 && c <= 0x5A ? c | 0x20 : c) != p[k] { return false }
            }
            return true
        }
    }

    /// Starts with `http://` or `https://`, in any case.
    static func isHTTP(_ s: String) -> Bool {
        s.withUTF8Bytes { isHTTP(bytes: $0) }
    }

    /// An absolute http(s) URL that `isPlainHTTP` takes as it is: one pass over its bytes.
    static func isPlainAbsolute(_ s: String) -> Bool {
        s.withUTF8Bytes { isHTTP(bytes: $0) && isPlainHTTP(bytes: $0) }
    }

    /// `isHTTP` of the text whose UTF-8 is `b`: "http" in any case (OR 0x20 lowercases the
    /// four letters and maps no other byte onto them), an optional `s`, then `://`.
    static func isHTTP(bytes b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard b.count >= 7, let p = b.baseAddress else { return false }
        let http = UInt32(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt32.self)) | 0x2020_2020
        guard http == 0x7074_7468 else { return false }   // "http", little-endian
        var i = 4
        if p[4] | 0x20 == UInt8(ascii: "s") { i = 5 }
        return b.count >= i + 3 && p[i] == UInt8(ascii: ":") && p[i + 1] == UInt8(ascii: "/") && p[i + 2] == UInt8(ascii: "/")
    }

    /// The link when it is an absolute http(s) URL with a host, else nil.
    public static func httpOnly(_ s: String?) -> String? {
        guard let s, !s.isEmpty, isHTTP(s) else { return nil }
        if isPlainHTTP(s) { return s }
        guard let u = URL(string: s), let host = u.host, !host.isEmpty else { return nil }
        return s
    }

    /// Whether `s` (which starts with http:// or https://) is an absolute URL that RFC 3986
    /// certainly accepts with a non-empty host, checked in one pass over its bytes without
    /// Foundation's parser: a host of letters, digits, `-` and `.`, an optional port of digits,
    /// then only unreserved characters, sub-delims, `:@/?`, `%` with two hex digits and at most
    /// one `#`. Most links are such URLs; anything else (userinfo, IPv6 literals, other bytes)
    /// returns false and goes to `URL(string:)`, so the answer never differs from it.
    static func isPlainHTTP(_ s: String) -> Bool {
        s.withUTF8Bytes { isPlainHTTP(bytes: $0) }
    }

    private static func isPlainHTTP(bytes b: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = b.count > 4 && (b[4] == 0x73 || b[4] == 0x53) ? 8 : 7   // past "https://" or "http://"
        let hostStart = i
        let classes = byteClasses
        while i < b.count && classes.has(b[i], ByteClasses.host) { i += 1 }
        guard i > hostStart else { return false }
        if i < b.count && b[i] == 0x3A {   // ":" port
            i += 1
            while i < b.count && b[i] >= 0x30 && b[i] <= 0x39 { i += 1 }
        }
        guard i == b.count || b[i] == 0x2F || b[i] == 0x3F || b[i] == 0x23 else { return false }
        var fragment = false
        while i < b.count {
            let c = b[i]
            if classes.has(c, ByteClasses.path) {
                i += 1
                continue
            }
            switch c {
            case 0x25:
                guard i + 2 < b.count, isHex(b[i + 1]), isHex(b[i + 2]) else { return false }
                i += 3
            case 0x23:
                if fragment { return false }
                fragment = true
                i += 1
            default:
                return false
            }
        }
        return true
    }

    /// The classes of every byte, a bit each, looked up with one load rather than matched
    /// against ranges byte by byte: `host`, the bytes a plain host takes (letters, digits, `-`
    /// and `.`); `path`, those a plain URL's path, query and fragment take as they are
    /// (unreserved characters, sub-delims, `:`, `@`, `/` and `?`, RFC 3986).
    private struct ByteClasses: @unchecked Sendable {   // the table is only read after init
        static let host: UInt8 = 1
        static let path: UInt8 = 2
        /// 256 bytes, made once (never freed).
        let table: UnsafePointer<UInt8>
        init() {
            let t = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
            t.initialize(repeating: 0, count: 256)
            func add(_ c: UInt8, _ bits: UInt8) { t[Int(c)] |= bits }
            for c in UInt8(0x30)...0x39 { add(c, Self.host | Self.path) }
            for c in UInt8(0x41)...0x5A { add(c, Self.host | Self.path) }
            for c in UInt8(0x61)...0x7A { add(c, Self.host | Self.path) }
            for c: UInt8 in [0x2D, 0x2E] { add(c, Self.host | Self.path) }
            for c: UInt8 in [0x5F, 0x7E, 0x21, 0x24, 0x26, 0x27, 0x28, 0x29, 0x2A, 0x2B, 0x2C, 0x3B, 0x3D, 0x3A, 0x40, 0x2F, 0x3F] { add(c, Self.path) }
            table = UnsafePointer(t)
        }
        @inline(__always) func has(_ c: UInt8, _ bits: UInt8) -> Bool { table[Int(c)] & bits != 0 }
    }
    private static let byteClasses = ByteClasses()

    @inline(__always) private static func isHex(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66)
    }

    /// `resolve` then `httpOnly`.
    public static func absolute(_ link: String?, base: String) -> String? {
        guard let link else { return nil }
        // Most links are absolute and plain already, with nothing to trim (a plain URL has no
        // white space at either end): the link itself, with nothing to resolve, encode or parse.
        if isPlainAbsolute(link) { return link }
        let trimmed = link.trimmedWhitespaceAndNewlines()
        guard !trimmed.isEmpty else { return nil }
        if isPlainAbsolute(trimmed) { return trimmed }
        return httpOnly(resolve(trimmed, against: base))
    }
}
