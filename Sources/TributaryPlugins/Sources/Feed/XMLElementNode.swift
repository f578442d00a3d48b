import Foundation

/// One element of a parsed XML document: namespace URI and local name (namespace processing is
/// on, so `media:thumbnail` and `<thumbnail xmlns="http://search.yahoo.com/mrss/">` are the same
/// thing), attributes as written, and its content in document order. `base` is the effective
/// xml:base (the document URL, overridden by `xml:base` attributes on the way down).
final class XMLElementNode {
    enum Content {
        case element(XMLElementNode)
        case text(String)
    }

    let namespace: String
    let name: String
    /// Attribute names as written (`url`, `xml:base`, `rdf:about`).
    let attributes: [String: String]
    let base: String
    var content: [Content] = []

    init(namespace: String, name: String, attributes: [String: String], base: String) {
        self.namespace = namespace
        self.name = name
        self.attributes = attributes
        self.base = base
    }

    /// Child elements, in order.
    var elements: [XMLElementNode] {
        content.compactMap { if case .element(let e) = $0 { return e } else { return nil } }
    }

    /// The element's own character data (CDATA included), children's text excluded.
    var ownText: String {
        var s = ""
        for c in content { if case .text(let t) = c { s += t } }
        return s
    }

    /// All character data inside the element, children's included.
    var allText: String {
        var s = ""
        for c in content {
            switch c {
            case .text(let t): s += t
            case .element(let e): s += e.allText
            }
        }
        return s
    }

    /// The element's own text, trimmed; nil when empty.
    var trimmedText: String? {
        let t = ownText.trimmingCharacters(in: .whitespacesAndNewlines)
        return t.isEmpty ? nil : t
    }

    func matches(_ namespaces: Set<String>, _ name: String) -> Bool {
        self.name == name && namespaces.contains(namespace)
    }

    /// The first child element with this name in one of these namespaces.
    func child(_ namespaces: Set<String>, _ name: String) -> XMLElementNode? {
        for c in content { if case .element(let e) = c, e.matches(namespaces, name) { return e } }
        return nil
    }

    func children(_ namespaces: Set<String>, _ name: String) -> [XMLElementNode] {
        elements.filter { $0.matches(namespaces, name) }
    }

    /// Trimmed text of the first matching child.
    func childText(_ namespaces: Set<String>, _ name: String) -> String? {
        child(namespaces, name)?.trimmedText
    }

    /// The first matching element anywhere below this one (depth-first, document order).
    func descendant(_ namespaces: Set<String>, _ name: String, where test: (XMLElementNode) -> Bool = { _ in true }) -> XMLElementNode? {
        for e in elements {
            if e.matches(namespaces, name) && test(e) { return e }
            if let d = e.descendant(namespaces, name, where: test) { return d }
        }
        return nil
    }

    /// An attribute by local name: `about` finds `rdf:about` as well as `about`.
    func attribute(_ localName: String) -> String? {
        if let v = attributes[localName] { return v }
        for (k, v) in attributes where k.hasSuffix(":" + localName) && !k.hasPrefix("xmlns") { return v }
        return nil
    }

    /// HTML held by the element: its text (escaped HTML or CDATA), or, when a feed put raw
    /// markup in it (well-formed, so it parsed as elements), that markup rebuilt.
    var htmlContent: String {
        elements.isEmpty ? ownText : innerMarkup
    }

    /// The markup of the content, rebuilt with text escaped (for Atom `xhtml` content, which
    /// arrives as elements and is then turned into plain text like any HTML).
    var innerMarkup: String {
        var s = ""
        for c in content {
            switch c {
            case .text(let t): s += Self.escape(t)
            case .element(let e) where e.content.isEmpty:
                s += "<" + e.name + "/>"
            case .element(let e):
                s += "<" + e.name + ">" + e.innerMarkup + "</" + e.name + ">"
            }
        }
        return s
    }

    static func escape(_ t: String) -> String {
        guard t.contains(where: { $0 == "&" || $0 == "<" || $0 == ">" }) else { return t }
        var out = ""
        out.reserveCapacity(t.utf8.count + 16)
        for ch in t {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.append(ch)
            }
        }
        return out
    }
}
