/// Renders parts of a page as an article's two forms: `content`, plain text with its
/// paragraphs separated by one blank line, and `content_html`, HTML that keeps only the
/// allow-list (Docs/processors/fulltext.md#sanitizing): `p`, `br`, `h2`-`h6`, `ul`, `ol`, `li`,
/// `blockquote`, `pre`, `code`, `em`, `strong`, `a` (an absolute http(s) `href` only), `img`
/// (an absolute http(s) `src`, and `alt`), `figure`, `figcaption`, and the table elements
/// (`table`, `caption`, `thead`, `tbody`, `tfoot`, `tr`, `th`, `td`).
///
/// Safety does not depend on recognising what is dangerous: the output is written from the
/// parsed tree, element by element, and only the names and attributes above are ever written
/// (every other element's text is kept, its tags are not; the content of `script`, `style`,
/// forms, embedded objects, SVG and MathML is dropped whole). Text and attribute values are
/// escaped; URLs are resolved against the page and kept only when the result is http(s), so
/// `javascript:`, `data:` and `vbscript:` links, encoded or not, never pass.
///
/// The tree is at most `HTMLDocument.maxDepth` deep, so the walk recurses.
public struct HTMLSanitizer {
    public struct Output: Equatable, Sendable {
        public var text: String
        public var html: String
    }

    private let doc: HTMLDocument
    private let skipping: Set<HTMLDocument.Node>
    private var html = ""
    private var blocks: [String] = []
    private var line = ""
    private var pendingSpace = false
    /// Inside an element whose inline content needs no `<p>` around it (`p`, `li`, `td`, ...).
    private var inlineContext = 0
    /// An open `<p>` around loose inline content of a block container (a `div`'s text).
    private var looseOpen = false
    private var preDepth = 0
    private var linkDepth = 0

    /// Renders `blocks` (nodes of `doc`, in order; each with its subtree) except the nodes in
    /// `skipping` and their subtrees.
    public static func render(_ doc: HTMLDocument, blocks nodes: [HTMLDocument.Node], skipping: Set<HTMLDocument.Node> = []) -> Output {
        var s = HTMLSanitizer(doc: doc, skipping: skipping)
        for n in nodes { s.node(n, depth: 0) }
        s.closeLoose()
        s.flush()
        return Output(text: s.blocks.joined(separator: "\n\n"), html: s.html)
    }

    private init(doc: HTMLDocument, skipping: Set<HTMLDocument.Node>) {
        self.doc = doc
        self.skipping = skipping
    }

    // MARK: element classes

    /// Elements dropped with everything inside them.
    static let dropped: Set<String> = [
        "script", "style", "noscript", "template", "iframe", "frame", "frameset", "object", "embed", "applet", "param", "form", "input", "button",
        "select", "option", "optgroup", "textarea", "datalist", "output", "svg", "math", "canvas", "audio", "video", "source", "track", "map", "area",
        "head", "title", "meta", "link", "base", "dialog", "slot", "portal", "fencedframe",
    ]
    /// Allowed block elements written as themselves (h1 becomes h2).
    static let blockAllowed: Set<String> = ["p", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "blockquote", "pre", "figure", "figcaption",
                                            "table", "caption", "thead", "tbody", "tfoot", "tr", "th", "td"]
    /// Block elements of the page whose own text needs no `<p>` (it is a paragraph already).
    static let inlineContainers: Set<String> = ["p", "h2", "h3", "h4", "h5", "h6", "li", "pre", "figure", "figcaption", "caption", "th", "td"]
    /// Other elements that start a new line of text (their tags are not written).
    static let blockLike: Set<String> = [
        "div", "section", "article", "main", "header", "footer", "aside", "nav", "address", "center", "hgroup", "details", "summary", "dl", "dt",
        "dd", "fieldset", "legend", "hr", "body", "html", "menu", "dir", "listing", "plaintext", "xmp", "picture",
    ]
    /// Inline elements mapped to an allowed one.
    static let inlineMapped: [String: String] = ["em": "em", "i": "em", "cite": "em", "dfn": "em", "var": "em", "strong": "strong", "b": "strong",
                                                 "code": "code", "kbd": "code", "samp": "code", "tt": "code"]

    // MARK: walking

    private mutating func node(_ n: HTMLDocument.Node, depth: Int) {
        guard !skipping.contains(n) else { return }
        if !doc.isElement(n) {
            text(doc.text(n))
            return
        }
        var name = doc.name(n)
        if Self.dropped.contains(name) { return }
        if doc.attribute(n, "hidden") != nil || doc.attribute(n, "aria-hidden") == "true" { return }
        if name == "h1" { name = "h2" }
        if name == "dt" || name == "dd" { name = "p" }
        switch name {
        case "br":
            lineBreak()
        case "img":
            image(n)
        case "a":
            link(n, depth: depth)
        case "hr":
            closeLoose()
            flush()
        default:
            if Self.blockAllowed.contains(name) {
                block(n, name: name, depth: depth)
            } else if Self.blockLike.contains(name) {
                closeLoose()
                flush()
                children(n, depth: depth)
                closeLoose()
                flush()
            } else if let mapped = Self.inlineMapped[name] {
                inline(n, tag: preDepth > 0 && mapped == "code" ? nil : mapped, depth: depth)
            } else {
                inline(n, tag: nil, depth: depth)
            }
        }
    }

    private mutating func children(_ n: HTMLDocument.Node, depth: Int) {
        for c in doc.children(n) { node(c, depth: depth + 1) }
    }

    /// An allowed block element: written when it holds text or an image.
    private mutating func block(_ n: HTMLDocument.Node, name: String, depth: Int) {
        closeLoose()
        flush()
        let mark = html.utf8.count
        let blocksBefore = blocks.count
        html += "<\(name)>"
        let opens = html.utf8.count
        let keepsInline = Self.inlineContainers.contains(name)
        if keepsInline { inlineContext += 1 }
        if name == "pre" { preDepth += 1 }
        children(n, depth: depth)
        closeLoose()
        flush()
        if name == "pre" { preDepth -= 1 }
        if keepsInline { inlineContext -= 1 }
        if !hasContent(from: opens) && blocks.count == blocksBefore {
            html = String(html.utf8.prefix(mark))!
            return
        }
        html += "</\(name)>"
    }

    private func hasContent(from offset: Int) -> Bool {
        let tail = html.utf8.dropFirst(offset)
        var inTag = false
        var sawImage = false
        var i = tail.startIndex
        while i < tail.endIndex {
            let c = tail[i]
            if c == UInt8(ascii: "<") {
                inTag = true
                if tail[tail.index(after: i)...].starts(with: "img ".utf8) { sawImage = true }
            } else if c == UInt8(ascii: ">") {
                inTag = false
            } else if !inTag && c != 0x20 && c != 0x0A && c != 0x09 {
                return true
            }
            i = tail.index(after: i)
        }
        return sawImage
    }

    /// An inline element: its tag (when mapped) around its content.
    private mutating func inline(_ n: HTMLDocument.Node, tag: String?, depth: Int) {
        guard let tag else { children(n, depth: depth); return }
        openLooseIfNeeded()
        spaceBeforeTag()
        let mark = html.utf8.count
        html += "<\(tag)>"
        let opens = html.utf8.count
        children(n, depth: depth)
        if html.utf8.count == opens {
            html = String(html.utf8.prefix(mark))!
            return
        }
        html += "</\(tag)>"
    }

    private mutating func link(_ n: HTMLDocument.Node, depth: Int) {
        guard linkDepth == 0, let href = doc.absoluteURL(doc.attribute(n, "href")) else {
            children(n, depth: depth)
            return
        }
        openLooseIfNeeded()
        spaceBeforeTag()
        let mark = html.utf8.count
        html += "<a href=\"\(Self.escapeAttribute(href))\">"
        let opens = html.utf8.count
        linkDepth += 1
        children(n, depth: depth)
        linkDepth -= 1
        if html.utf8.count == opens {
            html = String(html.utf8.prefix(mark))!
            return
        }
        html += "</a>"
    }

    /// The image's URL: `src`, or where lazy loading keeps it (`data-src`, the first of
    /// `srcset`), absolute http(s) only.
    private mutating func image(_ n: HTMLDocument.Node) {
        let candidates = [doc.attribute(n, "src"), doc.attribute(n, "data-src"), doc.attribute(n, "data-lazy-src"), doc.attribute(n, "data-original"),
                          doc.attribute(n, "srcset").flatMap { $0.split(separator: ",").first.map { String($0.split(separator: " ").first ?? "") } }]
        let page = doc
        guard let src = candidates.lazy.compactMap({ page.absoluteURL($0) }).first else { return }
        openLooseIfNeeded()
        spaceBeforeTag()
        html += "<img src=\"\(Self.escapeAttribute(src))\""
        if let alt = doc.attribute(n, "alt").map(HTMLDocument.collapse), !alt.isEmpty { html += " alt=\"\(Self.escapeAttribute(alt))\"" }
        html += ">"
    }

    // MARK: text

    private mutating func text(_ raw: String) {
        if preDepth > 0 {
            guard !raw.isEmpty else { return }
            openLooseIfNeeded()
            if pendingSpace { line += " "; pendingSpace = false }
            line += raw
            html += Self.escapeText(raw)
            return
        }
        var out = ""
        var space = false
        for ch in raw.unicodeScalars {
            if Self.isSpace(ch) {
                space = true
            } else {
                if space { out.unicodeScalars.append(" "); space = false }
                out.unicodeScalars.append(ch)
            }
        }
        let leading = raw.unicodeScalars.first.map(Self.isSpace) ?? false
        if out.hasPrefix(" ") { out.removeFirst() }
        if out.isEmpty {
            if leading || space { pendingSpace = !line.isEmpty && !line.hasSuffix("\n") }
            return
        }
        openLooseIfNeeded()
        if (pendingSpace || leading) && !line.isEmpty && !line.hasSuffix("\n") && !line.hasSuffix(" ") {
            line += " "
            html += " "
        }
        pendingSpace = space
        line += out
        html += Self.escapeText(out)
    }

    /// White space that folds (Unicode's, but not the no-break space), ASCII without a table lookup.
    private static func isSpace(_ ch: Unicode.Scalar) -> Bool {
        if ch.value < 0x80 { return ch.value == 0x20 || (ch.value >= 0x09 && ch.value <= 0x0D) }
        return ch.properties.isWhitespace && ch != "\u{A0}"
    }

    private mutating func lineBreak() {
        if inlineContext == 0 && looseOpen && line.hasSuffix("\n") {
            // A second <br> in loose text: the end of a paragraph.
            closeLoose()
            flush()
            return
        }
        guard !line.isEmpty || preDepth > 0 else { return }
        line += "\n"
        html += "<br>"
        pendingSpace = false
    }

    /// A space pending from the text before an inline element's tag goes before the tag
    /// (`a <code>b</code>`, not `a<code> b</code>`).
    private mutating func spaceBeforeTag() {
        guard pendingSpace, preDepth == 0, !line.isEmpty, !line.hasSuffix("\n"), !line.hasSuffix(" ") else { return }
        line += " "
        html += " "
        pendingSpace = false
    }

    /// Loose text (a `div`'s own text, outside any paragraph element) goes in a `<p>`.
    private mutating func openLooseIfNeeded() {
        guard inlineContext == 0, !looseOpen else { return }
        html += "<p>"
        looseOpen = true
    }

    private mutating func closeLoose() {
        guard looseOpen else { return }
        looseOpen = false
        while html.hasSuffix("<br>") { html.removeLast(4) }
        if html.hasSuffix("<p>") { html.removeLast(3) } else { html += "</p>" }
    }

    private mutating func flush() {
        var t = Substring(line)
        while let f = t.first, f == " " || f == "\n" { t = t.dropFirst() }
        while let l = t.last, l == " " || l == "\n" { t = t.dropLast() }
        if !t.isEmpty { blocks.append(String(t)) }
        line = ""
        pendingSpace = false
    }

    // MARK: escaping

    static func escapeText(_ s: String) -> String {
        guard s.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E }) else { return s }
        var out = ""
        out.reserveCapacity(s.utf8.count + 16)
        for ch in s.unicodeScalars {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.unicodeScalars.append(ch)
            }
        }
        return out
    }

    static func escapeAttribute(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count + 16)
        for ch in s.unicodeScalars {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(ch)
            }
        }
        return out
    }
}
