import Foundation

/// Links found in documents (a feed's entries, an API's fields, a playlist's streams): relative
/// references resolved (RFC 3986) against the document's URL or xml:base, and only absolute
/// http(s) URLs kept for items.
public enum Links {
    /// Characters a URL may hold as written; anything else (spaces, Cyrillic) is percent-encoded
    /// before parsing, so `https://e.org/новости/1` still resolves.
    static let urlCharacters: CharacterSet = {
        var set = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0x21)...Unicode.Scalar(0x7E)))
        set.insert(charactersIn: "-._~:/?#[]@!$&'()*+,;=%")
        return set
    }()

    public static func resolve(_ link: String, against base: String) -> String {
        let link = link.trimmingCharacters(in: .whitespacesAndNewlines)
        let lower = link.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") { return encoded(link) }
        if link.hasPrefix("//") { return (base.lowercased().hasPrefix("http://") ? "http:" : "https:") + encoded(link) }
        guard let b = URL(string: encoded(base)), let u = URL(string: encoded(link), relativeTo: b) else { return link }
        return u.absoluteString
    }

    public static func encoded(_ s: String) -> String {
        if s.unicodeScalars.allSatisfy(isURLCharacter) { return s }
        return s.addingPercentEncoding(withAllowedCharacters: urlCharacters) ?? s
    }

    /// `urlCharacters.contains(c)` without building the CharacterSet (CoreFoundation), which
    /// config validation would otherwise pay for at every start: the set is ASCII only.
    static func isURLCharacter(_ c: Unicode.Scalar) -> Bool {
        switch c.value {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
        default: return c.isASCII && "-._~:/?#[]@!$&'()*+,;=%".unicodeScalars.contains(c)
        }
    }

    /// The link when it is an absolute http(s) URL with a host, else nil.
    public static func httpOnly(_ s: String?) -> String? {
        guard let s, !s.isEmpty else { return nil }
        let lower = s.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else { return nil }
        guard let u = URL(string: s), let host = u.host, !host.isEmpty else { return nil }
        return s
    }

    /// `resolve` then `httpOnly`.
    public static func absolute(_ link: String?, base: String) -> String? {
        guard let link, !link.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return nil }
        return httpOnly(resolve(link, against: base))
    }
}
