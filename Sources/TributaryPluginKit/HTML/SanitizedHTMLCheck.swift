/// An independent reading of `HTMLSanitizer`'s output, for the fuzz target and the tests: the
/// output is the sanitizer's own canonical form (lower-case names, attributes in double quotes,
/// text escaped), so a strict scan of it finds any element, attribute or URL the allow-list
/// does not permit, and any `<` that does not open one of its tags.
package enum SanitizedHTMLCheck {
    static let elements: Set<String> = ["p", "br", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "blockquote", "pre", "code", "em", "strong", "a", "img",
                                        "figure", "figcaption", "table", "caption", "thead", "tbody", "tfoot", "tr", "th", "td"]

    /// What is wrong with `html`, or nil.
    package static func problem(_ html: String) -> String? {
        let b = Array(html.utf8)
        var i = 0
        while i < b.count {
            if b[i] == UInt8(ascii: ">") { return "a raw > in text at \(i)" }
            guard b[i] == UInt8(ascii: "<") else { i += 1; continue }
            i += 1
            if i < b.count && b[i] == UInt8(ascii: "/") { i += 1 }
            let start = i
            while i < b.count, (b[i] >= 0x61 && b[i] <= 0x7A) || (b[i] >= 0x30 && b[i] <= 0x39) { i += 1 }
            let name = String(decoding: b[start..<i], as: UTF8.self)
            guard elements.contains(name) else { return "element <\(name)> at \(start)" }
            while i < b.count && b[i] != UInt8(ascii: ">") {
                guard b[i] == 0x20 else { return "unexpected byte \(b[i]) in <\(name)> at \(i)" }
                i += 1
                let a = i
                while i < b.count, b[i] >= 0x61 && b[i] <= 0x7A { i += 1 }
                let attr = String(decoding: b[a..<i], as: UTF8.self)
                guard (name == "a" && attr == "href") || (name == "img" && (attr == "src" || attr == "alt")) else { return "attribute \(attr) on <\(name)>" }
                guard i + 1 < b.count, b[i] == UInt8(ascii: "="), b[i + 1] == UInt8(ascii: "\"") else { return "unquoted \(attr)" }
                i += 2
                let v = i
                while i < b.count && b[i] != UInt8(ascii: "\"") {
                    if b[i] == UInt8(ascii: "<") || b[i] == UInt8(ascii: ">") { return "raw < or > in \(attr)" }
                    i += 1
                }
                guard i < b.count else { return "unterminated \(attr)" }
                let value = String(decoding: b[v..<i], as: UTF8.self)
                if attr != "alt", !(value.hasPrefix("http://") || value.hasPrefix("https://")) { return "\(attr)=\"\(value)\" is not http(s)" }
                i += 1
            }
            guard i < b.count else { return "unterminated tag <\(name)" }
            i += 1
        }
        return nil
    }
}
