import TributaryPluginKit
import TributaryCore

/// A host's rule (`rules` of the `fulltext` processor): `content`, an XPath selecting the
/// article's nodes, used instead of the automatic extraction; `remove`, XPaths of nodes left
/// out (with or without `content`: alone, they are taken out before the automatic extraction).
struct FullTextRule: Sendable {
    static let content = Option.string("content", "XPath selecting the article's nodes, in document order (used instead of the automatic extraction)")
        .checked { FullTextRule.problem($0) }
    static let remove = Option.stringList("remove", "XPaths of nodes to leave out (share bars, ads, related links)")
        .checked { list in list.lazy.compactMap { FullTextRule.problem($0) }.first }
    static let options: [any OptionDeclaration] = [content, remove]

    let content: String?
    let remove: [String]

    static func problem(_ expression: String) -> String? {
        HTMLDocument.xpathProblem(expression).map { "expected an XPath 1.0 expression, found \"\(expression)\": it \($0)" }
    }

    static func make(_ reader: OptionReader) -> FullTextRule? {
        let c = reader[content]
        let r = reader[remove] ?? []
        if c == nil && r.isEmpty {
            reader.error(content, "expected `content` or `remove` (a rule with neither does nothing)")
            return nil
        }
        return FullTextRule(content: c, remove: r)
    }

    /// The rule for `host` (lower case, no port): its own, else its parent domains' (`a.b.c`
    /// looks for `a.b.c`, `b.c`); a leading `www.` in the rule's key is ignored.
    static func find(_ host: String, in rules: [String: FullTextRule]) -> FullTextRule? {
        guard !rules.isEmpty else { return nil }
        var h = Substring(host)
        while true {
            if let r = rules[String(h)] ?? rules["www." + h] { return r }
            guard let dot = h.firstIndex(of: ".") else { return nil }
            h = h[h.index(after: dot)...]
            if !h.contains(".") { return nil }
        }
    }
}
