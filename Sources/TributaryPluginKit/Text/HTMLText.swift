import TributaryCore

/// Turns HTML fragments from APIs and feeds into plain text: character references decoded
/// (`&amp;`, `&#39;`, `&#x4E2D;` and every HTML5 name, `HTMLEntities.swift`), tags removed, block
/// elements as line breaks, runs of white space folded.
public enum HTMLText {
    /// Decodes character references as HTML5 does in text: every named reference of the HTML5
    /// table (`&Uuml;`, `&rarr;`, `&frac12;`, ...), the legacy names also without `;` (`&copy 2026`,
    /// `&amp`), the longest name that matches winning (`&notit;` is `¬it;`), and numeric ones
    /// (`&#8217;`, `&#x4E2D;`). Unknown or malformed references (`&unknown;`, `&#0;`, `&#xZZ;`, a
    /// bare `&`) are left as written.
    public static func decodeEntities(_ s: String) -> String { decode(s, attribute: false) }

    /// The same for an attribute value (a URL in `href`): a legacy name without `;` is left alone
    /// when a letter, digit or `=` follows it, so `?a=1&copy=2` keeps its parameter (HTML5's rule).
    public static func decodeAttributeEntities(_ s: String) -> String { decode(s, attribute: true) }

    private static func decode(_ s: String, attribute: Bool) -> String {
        guard s.utf8.contains(UInt8(ascii: "&")) else { return s }
        var s = s
        return s.withUTF8 { b -> String in
            var out = [UInt8]()
            out.reserveCapacity(b.count)
            var i = 0
            while i < b.count {
                if b[i] == UInt8(ascii: "&"), let (bytes, end) = reference(b, at: i, attribute: attribute) {
                    out += bytes
                    i = end
                } else {
                    out.append(b[i])
                    i += 1
                }
            }
            return String(decoding: out, as: UTF8.self)
        }
    }

    private static func isAlphanumeric(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
    }

    /// The reference that starts at `b[at]` (an `&`): its text as UTF-8 and the index after it,
    /// or nil when it is not one.
    private static func reference(_ b: UnsafeBufferPointer<UInt8>, at: Int, attribute: Bool) -> ([UInt8], Int)? {
        var j = at + 1
        guard j < b.count else { return nil }
        if b[j] == UInt8(ascii: "#") {
            j += 1
            let hex = j < b.count && (b[j] == UInt8(ascii: "x") || b[j] == UInt8(ascii: "X"))
            if hex { j += 1 }
            let digitsStart = j
            var value: UInt32 = 0
            while j < b.count {
                let c = b[j]
                let digit: UInt32
                switch c {
                case 0x30...0x39: digit = UInt32(c - 0x30)
                case 0x41...0x46 where hex: digit = UInt32(c - 0x41 + 10)
                case 0x61...0x66 where hex: digit = UInt32(c - 0x61 + 10)
                default: digit = UInt32.max
                }
                if digit == UInt32.max { break }
                value = min(value * (hex ? 16 : 10) + digit, 0x110000)  // past Unicode stays past it
                j += 1
            }
            guard j > digitsStart, j < b.count, b[j] == UInt8(ascii: ";"), value != 0, let scalar = Unicode.Scalar(value) else { return nil }
            return (Array(String(Character(scalar)).utf8), j + 1)
        }
        let nameStart = j
        while j < b.count, j - nameStart < longestReferenceName, isAlphanumeric(b[j]) { j += 1 }
        guard j > nameStart else { return nil }
        if j < b.count, b[j] == UInt8(ascii: ";"),
           let value = namedReferences[String(decoding: UnsafeBufferPointer(rebasing: b[nameStart...j]), as: UTF8.self)] {
            return (Array(value.utf8), j + 1)
        }
        // A legacy name without its `;`: the longest that prefixes the run of letters and digits.
        var length = min(j - nameStart, longestLegacyReferenceName)
        while length >= 2 {
            let end = nameStart + length
            if let value = namedReferences[String(decoding: UnsafeBufferPointer(rebasing: b[nameStart..<end]), as: UTF8.self)] {
                if attribute, end < b.count, isAlphanumeric(b[end]) || b[end] == UInt8(ascii: "=") { return nil }
                return (Array(value.utf8), end)
            }
            length -= 1
        }
        return nil
    }

    /// One trimmed line of text from an API field: entities decoded, every run of white space
    /// (newlines included) folded to one space; nil when nothing is left.
    public static func singleLine(_ s: String?) -> String? {
        guard let s else { return nil }
        let folded = decodeEntities(s).split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        return folded.isEmpty ? nil : folded
    }

    static let blockTags: Set<String> = ["br", "p", "div", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "hr", "ul", "ol", "table"]

    /// HTML to readable plain text: tags dropped (script/style content too), `<br>`/`<p>` and
    /// other blocks as line breaks, entities decoded, spaces folded, at most one blank line.
    public static func toPlainText(_ html: String) -> String {
        var text = ""
        var i = html.startIndex
        var skipUntil: String? = nil
        // The first ">" at or after the last place searched from, so that text with many "<" and
        // few ">" is read once, not once per "<".
        var knownClose: String.Index? = nil
        var noCloseLeft = false
        func close(after i: String.Index) -> String.Index? {
            if noCloseLeft { return nil }
            if let c = knownClose, c >= i { return c }
            knownClose = html[i...].firstIndex(of: ">")
            if knownClose == nil { noCloseLeft = true }
            return knownClose
        }
        while i < html.endIndex {
            let c = html[i]
            let next = html.index(after: i) < html.endIndex ? html[html.index(after: i)] : " "
            if c == "<", next.isLetter || next == "/" || next == "!", let close = close(after: i) {
                let inner = html[html.index(after: i)..<close].lowercased()
                let isEnd = inner.hasPrefix("/")
                let name = String(inner.drop(while: { $0 == "/" }).prefix(while: { $0.isLetter || $0.isNumber }))
                if let skip = skipUntil {
                    if isEnd && name == skip { skipUntil = nil }
                } else if !isEnd && (name == "script" || name == "style") {
                    skipUntil = name
                } else if name == "br" || (!isEnd && blockTags.contains(name)) {
                    text += "\n"
                }
                i = html.index(after: close)
                continue
            }
            if skipUntil == nil { text.append(c) }
            i = html.index(after: i)
        }
        let decoded = decodeEntities(text).replacingNBSP()
        var lines: [String] = []
        for raw in decoded.split(separator: "\n", omittingEmptySubsequences: false) {
            let folded = raw.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).joined(separator: " ")
            if folded.isEmpty && (lines.last?.isEmpty ?? true) { continue }
            lines.append(folded)
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines.joined(separator: "\n")
    }
}

extension String {
    fileprivate func replacingNBSP() -> String {
        String(unicodeScalars.map { $0 == "\u{A0}" ? " " : Character($0) })
    }
}
