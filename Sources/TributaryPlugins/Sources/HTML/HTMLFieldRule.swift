import TributaryPluginKit
import TributaryCore

/// One item field of the `html` source and the XPath that reads it, relative to the item's
/// node (`fields.title: ".//h2/a"`).
///
/// A field's value is the string value of the XPath's first match: an element's (or text
/// node's) text with its white space folded (`HTMLDocument.normalizedText`), an attribute's or
/// a `string()`/`concat()` result trimmed. No match, or only white space, is no value.
struct HTMLFieldRule: Sendable {
    /// The item fields a rule may fill, in the order items and `tributary test` show them.
    enum Field: String, CaseIterable, Sendable {
        case id, title, url, summary, image, author, published
    }

    let field: Field
    let expression: String

    /// What the rule read on one item: the value (nil: nothing), as matched (before `url`,
    /// `image` and `published` are interpreted), and how many matches there were.
    struct Reading {
        var value: String?
        var matches: Int
    }

    /// Evaluates the rule with `item` as the context node. Throws when libxml2 cannot evaluate
    /// the expression (an unknown function, a wrong argument): a fault of the rule, not of one
    /// item.
    func read(_ doc: HTMLDocument, item: HTMLDocument.Node) throws(HTMLDocument.XPathError) -> Reading {
        let matches = try doc.select(expression, from: item)
        guard let first = matches.first else { return Reading(value: nil, matches: 0) }
        let text: String
        switch first {
        case .node(let n): text = doc.normalizedText(n)
        case .value(let v): text = v.trimmingWhitespaceAndNewlines
        }
        return Reading(value: text.isEmpty ? nil : text, matches: matches.count)
    }

    /// The reason `expression` cannot be a rule (a config error on its key), or nil.
    static func problem(_ expression: String) -> String? {
        HTMLDocument.xpathProblem(expression).map { "\"\(expression)\" \($0)" }
    }
}
