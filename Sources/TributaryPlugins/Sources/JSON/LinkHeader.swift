import TributaryPluginKit

/// Web links in HTTP `Link` header fields (RFC 8288 section 3): `<url>; rel="next"`, several
/// links in one field separated by commas, several fields, parameters in any order, `rel` a
/// quoted or bare token, or a quoted list of relation types (`rel="next last"`) compared
/// case-insensitively. A target may hold commas and semicolons (it ends at `>`); a quoted
/// parameter value may hold them too, and `\` escapes in it.
enum LinkHeader {
    struct Link: Equatable {
        /// The target as written between `<` and `>` (resolve it against the response's URL).
        var target: String
        /// The relation types, lowercased.
        var rels: [String]
    }

    /// The links of all `Link` fields of a response, in order.
    static func links(_ headers: [(name: String, value: String)]) -> [Link] {
        headers.filter { $0.name.lowercased() == "link" }.flatMap { parse($0.value) }
    }

    /// The target of the first link with relation type `next`, or nil.
    static func next(_ headers: [(name: String, value: String)]) -> String? {
        links(headers).first { $0.rels.contains("next") }?.target
    }

    /// The links of one field value. Malformed parts are skipped up to the next link (a
    /// server's typo costs that link, not the others).
    static func parse(_ value: String) -> [Link] {
        let b = Array(value.utf8)
        var i = 0
        var out: [Link] = []
        func skipSpace() { while i < b.count, b[i] == 0x20 || b[i] == 0x09 { i += 1 } }
        /// Skips to just past the next comma outside quotes and angle brackets.
        func skipToNextLink() {
            var quoted = false
            while i < b.count {
                let c = b[i]
                if quoted {
                    if c == 0x5C { i += 1 } else if c == 0x22 { quoted = false }
                } else if c == 0x22 {
                    quoted = true
                } else if c == 0x2C {
                    i += 1
                    return
                }
                i += 1
            }
        }
        while i < b.count {
            skipSpace()
            if i < b.count, b[i] == 0x2C { i += 1; continue }
            guard i < b.count else { break }
            guard b[i] == 0x3C, let close = b[(i + 1)...].firstIndex(of: 0x3E) else {
                skipToNextLink()
                continue
            }
            let target = String(decoding: b[(i + 1)..<close], as: UTF8.self).trimmingWhitespaceAndNewlines
            i = close + 1
            var rels: [String] = []
            // Parameters: `; name[=value]` until a comma or the end.
            while true {
                skipSpace()
                guard i < b.count, b[i] == 0x3B else { break }
                i += 1
                skipSpace()
                let nameStart = i
                while i < b.count, b[i] != 0x3D, b[i] != 0x3B, b[i] != 0x2C, b[i] != 0x20, b[i] != 0x09 { i += 1 }
                let name = String(decoding: b[nameStart..<i], as: UTF8.self).lowercased()
                skipSpace()
                var paramValue = ""
                if i < b.count, b[i] == 0x3D {
                    i += 1
                    skipSpace()
                    if i < b.count, b[i] == 0x22 {
                        i += 1
                        var v: [UInt8] = []
                        while i < b.count, b[i] != 0x22 {
                            if b[i] == 0x5C, i + 1 < b.count { i += 1 }
                            v.append(b[i])
                            i += 1
                        }
                        i += 1  // the closing quote (or past the end)
                        paramValue = String(decoding: v, as: UTF8.self)
                    } else {
                        let start = i
                        while i < b.count, b[i] != 0x3B, b[i] != 0x2C, b[i] != 0x20, b[i] != 0x09 { i += 1 }
                        paramValue = String(decoding: b[start..<i], as: UTF8.self)
                    }
                }
                // RFC 8288 3.3: only the first `rel` parameter counts.
                if name == "rel" && rels.isEmpty {
                    rels = paramValue.lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
                }
            }
            skipSpace()
            if i < b.count, b[i] != 0x2C { skipToNextLink() }
            out.append(Link(target: target, rels: rels))
        }
        return out
    }
}
