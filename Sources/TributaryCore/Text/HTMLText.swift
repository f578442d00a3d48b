/// Turns HTML fragments from APIs and feeds into plain text: entities decoded (`&amp;`,
/// `&#39;`, `&#x4E2D;`, the common named ones), tags removed, block elements as line breaks,
/// runs of white space folded.
public enum HTMLText {
    static let named: [String: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{A0}",
        "ndash": "–", "mdash": "—", "hellip": "…", "laquo": "«", "raquo": "»", "lsquo": "‘", "rsquo": "’",
        "ldquo": "“", "rdquo": "”", "copy": "©", "reg": "®", "trade": "™", "deg": "°", "euro": "€",
        "pound": "£", "yen": "¥", "cent": "¢", "times": "×", "divide": "÷", "middot": "·", "bull": "•",
        "eacute": "é", "egrave": "è", "agrave": "à", "aacute": "á", "ccedil": "ç", "ouml": "ö", "uuml": "ü",
        "auml": "ä", "szlig": "ß", "ntilde": "ñ", "iacute": "í", "oacute": "ó", "uacute": "ú",
    ]

    /// Decodes character references; unknown or malformed ones are left as written.
    public static func decodeEntities(_ s: String) -> String {
        guard s.contains("&" as Character) else { return s }
        var out = ""
        out.reserveCapacity(s.utf8.count)
        var i = s.startIndex
        while i < s.endIndex {
            let c = s[i]
            guard c == "&", let semi = s[i...].prefix(12).firstIndex(of: ";") else {
                out.append(c)
                i = s.index(after: i)
                continue
            }
            let name = s[s.index(after: i)..<semi]
            var replacement: String? = nil
            if name.hasPrefix("#x") || name.hasPrefix("#X") {
                if let v = UInt32(name.dropFirst(2), radix: 16), let u = Unicode.Scalar(v), v != 0 { replacement = String(Character(u)) }
            } else if name.hasPrefix("#") {
                if let v = UInt32(name.dropFirst()), let u = Unicode.Scalar(v), v != 0 { replacement = String(Character(u)) }
            } else {
                replacement = named[String(name)]
            }
            if let replacement {
                out += replacement
                i = s.index(after: semi)
            } else {
                out.append(c)
                i = s.index(after: i)
            }
        }
        return out
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
        while i < html.endIndex {
            let c = html[i]
            let next = html.index(after: i) < html.endIndex ? html[html.index(after: i)] : " "
            if c == "<", next.isLetter || next == "/" || next == "!", let close = html[i...].firstIndex(of: ">") {
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
