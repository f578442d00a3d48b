import TributaryPluginKit
import TributaryCore

/// Text clean-up shared by the feed readers.
enum FeedText {
    /// A title: entities decoded (feeds often escape twice), markup dropped when the title
    /// plainly holds HTML, all white space folded to single spaces. Nil when nothing is left.
    static func title(_ raw: String?) -> String? {
        guard let raw else { return nil }
        let t = stripInlineTags(HTMLText.decodeEntities(raw))
        let s = singleLine(t)
        return s.isEmpty ? nil : s
    }

    /// Tags a title may carry (`<b>`, `<em>`, `<a href>`, `<br/>`...). Only these are dropped,
    /// so `Vec<T>` or `<Sendable>` in a title stay as written.
    static let inlineTags: Set<String> = [
        "a", "abbr", "b", "big", "br", "cite", "code", "del", "em", "font", "i", "img", "ins", "kbd", "mark", "p", "q",
        "s", "small", "span", "strike", "strong", "sub", "sup", "time", "tt", "u", "var", "div",
    ]

    static func stripInlineTags(_ s: String) -> String {
        guard s.contains("<") else { return s }
        var out = ""
        var rest = Substring(s)
        while let open = rest.firstIndex(of: "<") {
            out += rest[..<open]
            let after = rest[rest.index(after: open)...]
            let name = after.drop(while: { $0 == "/" }).prefix(while: { $0.isLetter || $0.isNumber }).lowercased()
            if inlineTags.contains(name), let close = after.firstIndex(of: ">") {
                if name == "br" || name == "p" || name == "div" { out += " " }
                rest = after[after.index(after: close)...]
            } else {
                out += "<"
                rest = after
            }
        }
        out += rest
        return out
    }

    /// HTML (description, content:encoded, content_html, Atom `html`) to plain text; nil when empty.
    static func plain(html: String?) -> String? {
        guard let html else { return nil }
        let t = FeedText.trim(HTMLText.toPlainText(html))
        return t.isEmpty ? nil : t
    }

    /// Text that is already plain (media:description, content_text): line breaks kept,
    /// CRLF normalised, ends trimmed.
    static func plain(text: String?) -> String? {
        guard let text else { return nil }
        let t = FeedText.trim(FeedText.unixNewlines(text))
        return t.isEmpty ? nil : t
    }

    /// RSS `description` is HTML by convention, but plenty of feeds put plain text there with
    /// meaningful line breaks; treat it as HTML only when it has markup or entities.
    static func plain(description: String?) -> String? {
        guard let description else { return nil }
        return looksLikeHTML(description) || description.contains("&") ? plain(html: description) : plain(text: description)
    }

    /// The text without white space at either end.
    static func trim<S: StringProtocol>(_ s: S) -> String {
        var t = Substring(s)
        while let f = t.first, f.isWhitespace { t.removeFirst() }
        while let l = t.last, l.isWhitespace { t.removeLast() }
        return String(t)
    }

    /// CRLF and lone CR as LF.
    static func unixNewlines(_ s: String) -> String {
        guard s.unicodeScalars.contains("\r") else { return s }
        var out = String.UnicodeScalarView()
        var previousCR = false
        for u in s.unicodeScalars {
            if u == "\r" { out.append("\n"); previousCR = true; continue }
            if u == "\n" && previousCR { previousCR = false; continue }
            previousCR = false
            out.append(u)
        }
        return String(out)
    }

    static func singleLine(_ s: String) -> String {
        s.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    /// True when the text has a closing tag, a line break tag or a paragraph: then it is
    /// markup, while `Vec<T>` or `a < b` in a title is not.
    static func looksLikeHTML(_ s: String) -> Bool {
        guard s.contains("<") else { return false }
        let lower = s.lowercased()
        return lower.contains("</") || lower.contains("<br") || lower.contains("<p>") || lower.contains("<p ") || lower.contains("<img ") || lower.contains("/>")
    }

    /// RSS `author` is `email (Name)` by the spec; people want the name.
    static func rssAuthor(_ raw: String?) -> String? {
        guard let raw else { return nil }
        let t = singleLine(HTMLText.decodeEntities(raw))
        if let open = t.firstIndex(of: "("), t.hasSuffix(")"), t[..<open].contains("@") {
            let name = FeedText.trim(t[t.index(after: open)..<t.index(before: t.endIndex)])
            if !name.isEmpty { return name }
        }
        return t.isEmpty ? nil : t
    }

    /// A fallback title from the summary: its first line, at most 80 characters.
    static func headline(_ summary: String) -> String {
        let first = summary.split(whereSeparator: { $0.isNewline }).first.map(String.init) ?? summary
        let line = singleLine(first)
        return line.count > 80 ? String(line.prefix(79)) + "…" : line
    }

    /// Names joined with ", ", or nil when there are none.
    static func names(_ list: [String]) -> String? {
        var seen: [String] = []
        for n in list where !seen.contains(n) { seen.append(n) }
        return seen.isEmpty ? nil : seen.joined(separator: ", ")
    }
}
