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
        var i = s.utf8.makeIterator()
        for expected in p {
            guard let b = i.next() else { return false }
            let lower = b >= 0x41 && b <= 0x5A ? b | 0x20 : b
            if lower != expected { return false }
        }
        return true
    }

    /// Starts with `http://` or `https://`, in any case.
    static func isHTTP(_ s: String) -> Bool {
        hasPrefixIgnoringASCIICase(s, "http://") || hasPrefixIgnoringASCIICase(s, "https://")
    }

    /// The link when it is an absolute http(s) URL with a host, else nil.
    public static func httpOnly(_ s: String?) -> String? {
        guard let s, !s.isEmpty, isHTTP(s) else { return nil }
        guard let u = URL(string: s), let host = u.host, !host.isEmpty else { return nil }
        return s
    }

    /// `resolve` then `httpOnly`.
    public static func absolute(_ link: String?, base: String) -> String? {
        guard let link else { return nil }
        let trimmed = link.trimmingWhitespaceAndNewlines
        guard !trimmed.isEmpty else { return nil }
        return httpOnly(resolve(trimmed, against: base))
    }
}
