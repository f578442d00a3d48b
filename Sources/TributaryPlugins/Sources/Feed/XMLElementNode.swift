import TributaryPluginKit
import TributaryCore

/// One element of the piece of a feed being read (an entry, or a piece of feed metadata; see
/// FeedStreamBuilder): namespace URI and local name (namespace processing is on, so
/// `media:thumbnail` and `<thumbnail xmlns="http://search.yahoo.com/mrss/">` are the same thing),
/// attributes as written, and its content in document order. `base` is the effective xml:base
/// (the document URL, overridden by `xml:base` attributes on the way down).
///
/// Trees are shallow by construction: FeedStreamBuilder keeps markup nested deeper than
/// `FeedStreamBuilder.maxDepth` as `.markup` text of the deepest element, so neither the walks
/// below nor the release of a tree recurse more than that many levels, whatever the input.
final class XMLElementNode {
    enum Content {
        case element(XMLElementNode)
        case text(String)
        /// Markup kept as text (elements past the depth or count limit), text inside it escaped:
        /// HTML-like content rebuilt by `innerMarkup` as it was.
        case markup(String)
    }

    let namespace: String
    let name: String
    /// Attribute names as written (`url`, `xml:base`, `rdf:about`), in document order.
    let attributes: [(name: String, value: String)]
    let base: String
    var content: [Content] = []
    /// Bytes of text and markup held (FeedStreamBuilder's cap per element).
    var heldBytes = 0
    /// Set when text past the cap was dropped.
    var wasCut = false

    init(namespace: String, name: String, attributes: [(name: String, value: String)], base: String) {
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

    /// The element's own text, trimmed; nil when empty.
    var trimmedText: String? {
        let t = ownText.trimmingWhitespaceAndNewlines
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
        var pending = elements.reversed() as [XMLElementNode]
        while let e = pending.popLast() {
            if e.matches(namespaces, name) && test(e) { return e }
            pending.append(contentsOf: e.elements.reversed())
        }
        return nil
    }

    /// An attribute by local name: `about` finds `rdf:about` as well as `about`.
    func attribute(_ localName: String) -> String? {
        for a in attributes where a.name == localName { return a.value }
        let suffix = ":" + localName
        for a in attributes where a.name.hasSuffix(suffix) && !a.name.hasPrefix("xmlns") { return a.value }
        return nil
    }

    /// HTML held by the element: its text (escaped HTML or CDATA), or, when a feed put raw
    /// markup in it (well-formed, so it parsed as elements), that markup rebuilt.
    var htmlContent: String {
        let hasMarkup = content.contains { if case .text = $0 { return false } else { return true } }
        return hasMarkup ? innerMarkup : ownText
    }

    /// The markup of the content, rebuilt with text escaped (for Atom `xhtml` content, which
    /// arrives as elements and is then turned into plain text like any HTML). Iterative.
    var innerMarkup: String {
        var s = ""
        var stack: [(node: XMLElementNode, next: Int)] = [(self, 0)]
        while var top = stack.popLast() {
            guard top.next < top.node.content.count else {
                if !stack.isEmpty { s += "</" + top.node.name + ">" }
                continue
            }
            let c = top.node.content[top.next]
            top.next += 1
            stack.append(top)
            switch c {
            case .text(let t): s += Self.escape(t)
            case .markup(let m): s += m
            case .element(let e) where e.content.isEmpty: s += "<" + e.name + "/>"
            case .element(let e):
                s += "<" + e.name + ">"
                stack.append((e, 0))
            }
        }
        return s
    }

    static func escape(_ t: String) -> String {
        guard t.utf8.contains(where: { $0 == UInt8(ascii: "&") || $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">") }) else { return t }
        return t.replacingScalars { u in
            switch u {
            case "&": return "&amp;"
            case "<": return "&lt;"
            case ">": return "&gt;"
            default: return nil
            }
        }
    }
}
