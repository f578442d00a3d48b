import TributaryPluginKit

/// Measurements of every node of a page, made in two linear passes over the tree's arrays
/// (nodes are numbered in document order, so a parent comes before its children): what text a
/// reader sees under each node, how much of it is link text, its commas, its paragraphs, and
/// what the element's names and attributes say.
///
/// Lengths count characters that are not white space (a CJK character counts twice: it
/// carries about as much as a short word).
struct ArticleStats {
    typealias Node = HTMLDocument.Node

    /// Element kinds that matter to the extractor.
    enum Tag: UInt8 {
        case other, inline, a, p, heading, h1, list, li, table, cell, pre, blockquote, figure, figcaption, div, article, main, section,
             nav, aside, footer, header, form, input, hr, br, img, time, body, invisible
    }

    let count: Int
    var tags: [Tag]
    var hints: [ArticleHint]
    /// Not seen by a reader: script, style, template, hidden, `display:none`, ... and all under them.
    var invisible: [Bool]
    /// Visible text under the node.
    var text: [Int32]
    /// Visible text under the node that is inside a link.
    var linkText: [Int32]
    /// The text that belongs to the element itself as a paragraph: its text outside any block
    /// element below it (the whole text of a `p`; a `div`'s loose text).
    var ownText: [Int32]
    var ownLinkText: [Int32]
    var ownCommas: [Int32]
    /// Paragraph elements under the node (p, pre, blockquote, li, or blocks with own text).
    var paragraphs: [Int32]
    /// Form controls under the node (input, button, select, textarea, form).
    var inputs: [Int32]
    /// Images under the node.
    var images: [Int32]
    /// Elements under the node (and the node) that name who wrote it or when: `<time>`, an
    /// author, user, avatar or date class.
    var bylines: [Int32]
    /// Whether the element has a block element among its children.
    var hasBlockChild: [Bool]
    /// Characters that are neither text nor white space (U+FFFD, controls): a binary file read as HTML.
    var garbage = 0
    var totalText = 0

    static let tagOf: [String: Tag] = {
        var t: [String: Tag] = [:]
        for n in ["span", "em", "strong", "b", "i", "u", "small", "code", "sub", "sup", "font", "abbr", "cite", "q", "mark", "label", "s", "strike",
                  "del", "ins", "kbd", "var", "big", "tt", "dfn", "bdi", "bdo", "data", "nobr", "wbr", "samp", "picture", "source"] { t[n] = .inline }
        for n in ["script", "style", "noscript", "template", "iframe", "frame", "frameset", "object", "embed", "applet", "param", "select", "option",
                  "optgroup", "textarea", "datalist", "output", "svg", "math", "canvas", "audio", "video", "track", "map", "area", "head", "title",
                  "meta", "link", "base", "dialog", "slot", "portal"] { t[n] = .invisible }
        t["a"] = .a; t["p"] = .p; t["h1"] = .h1
        for n in ["h2", "h3", "h4", "h5", "h6"] { t[n] = .heading }
        for n in ["ul", "ol", "dl", "menu"] { t[n] = .list }
        for n in ["li", "dt", "dd"] { t[n] = .li }
        t["table"] = .table; t["td"] = .cell; t["th"] = .cell
        t["pre"] = .pre; t["blockquote"] = .blockquote; t["figure"] = .figure; t["figcaption"] = .figcaption
        t["div"] = .div; t["article"] = .article; t["main"] = .main; t["section"] = .section
        t["nav"] = .nav; t["aside"] = .aside; t["footer"] = .footer; t["header"] = .header
        t["form"] = .form; t["input"] = .input; t["button"] = .input; t["hr"] = .hr; t["br"] = .br; t["img"] = .img; t["time"] = .time
        t["body"] = .body
        return t
    }()

    init(_ doc: HTMLDocument) {
        let n = doc.count
        count = n
        tags = [Tag](repeating: .other, count: n)
        hints = [ArticleHint](repeating: [], count: n)
        invisible = [Bool](repeating: false, count: n)
        text = [Int32](repeating: 0, count: n)
        linkText = [Int32](repeating: 0, count: n)
        ownText = [Int32](repeating: 0, count: n)
        ownLinkText = [Int32](repeating: 0, count: n)
        ownCommas = [Int32](repeating: 0, count: n)
        paragraphs = [Int32](repeating: 0, count: n)
        inputs = [Int32](repeating: 0, count: n)
        images = [Int32](repeating: 0, count: n)
        hasBlockChild = [Bool](repeating: false, count: n)
        bylines = [Int32](repeating: 0, count: n)
        // The nearest block ancestor (or self) of each element, and whether it is inside a link.
        var block = [Node](repeating: HTMLDocument.none, count: n)
        var inLink = [Bool](repeating: false, count: n)

        let kinds = doc.kinds, parents = doc.parents, names = doc.names
        for i in 0..<n {
            let p = parents[i]
            let pi = Int(p)
            if kinds[i] == .text {
                guard p != HTMLDocument.none, !invisible[pi] else { continue }
                let m = Self.measure(doc.texts[i])
                garbage += m.garbage
                guard m.length > 0 else { continue }
                let owner = Int(block[pi])
                text[i] = m.length
                if inLink[pi] { linkText[i] = m.length }
                if owner >= 0 {
                    ownText[owner] += m.length
                    ownCommas[owner] += m.commas
                    if inLink[pi] { ownLinkText[owner] += m.length }
                }
                continue
            }
            let tag = Self.tagOf[names[i]] ?? .other
            tags[i] = tag
            let attrs = doc.attributes[i]
            var hidden = tag == .invisible || (p != HTMLDocument.none && invisible[pi])
            if !hidden && !attrs.isEmpty {
                hints[i] = ArticleHint.of(doc, Node(i))
                for a in attrs {
                    if a.name == "hidden" || (a.name == "aria-hidden" && a.value == "true") || (a.name == "style" && Self.hidesByStyle(a.value)) {
                        hidden = true
                    }
                }
                if tag == .input, doc.attribute(Node(i), "type")?.lowercased() == "hidden" { hidden = true }
            }
            invisible[i] = hidden
            // A link within the page (`#section`) is navigation of the text itself, not a way out of it.
            let linksOut = tag == .a && !(doc.attribute(Node(i), "href")?.hasPrefix("#") ?? false)
            inLink[i] = linksOut || (p != HTMLDocument.none && inLink[pi])
            let isBlock = tag != .inline && tag != .a && tag != .br && tag != .img && tag != .time && tag != .input && tag != .invisible
            block[i] = isBlock ? Node(i) : (p != HTMLDocument.none ? block[pi] : HTMLDocument.none)
            if isBlock && p != HTMLDocument.none && !hidden { hasBlockChild[pi] = true }
            if !hidden {
                if tag == .input || tag == .form { inputs[i] = 1 }
                if tag == .img { images[i] = 1 }
                if tag == .time || hints[i].contains(.byline) { bylines[i] = 1 }
            }
        }
        // Bottom-up sums: children have larger numbers than their parents.
        var i = n - 1
        while i >= 0 {
            if kinds[i] == .element && !invisible[i] {
                switch tags[i] {
                case .p, .pre, .blockquote, .li, .heading, .cell, .figcaption:
                    if text[i] > 0 { paragraphs[i] += 1 }
                default:
                    if ownText[i] >= 25 { paragraphs[i] += 1 }
                }
            }
            let p = Int(parents[i])
            if p >= 0 {
                text[p] += text[i]
                linkText[p] += linkText[i]
                paragraphs[p] += paragraphs[i]
                inputs[p] += inputs[i]
                images[p] += images[i]
                bylines[p] += bylines[i]
            }
            i -= 1
        }
        if doc.root != HTMLDocument.none { totalText = Int(text[Int(doc.root)]) }
    }

    /// `display:none` or `visibility:hidden` in a style attribute.
    static func hidesByStyle(_ style: String) -> Bool {
        var compact: [UInt8] = []
        compact.reserveCapacity(style.utf8.count)
        for b in style.utf8 where b != 0x20 && b != 0x09 && b != 0x0A && b != 0x0D { compact.append(b | (b >= 0x41 && b <= 0x5A ? 0x20 : 0)) }
        return compact.firstRange(of: Array("display:none".utf8)) != nil || compact.firstRange(of: Array("visibility:hidden".utf8)) != nil
    }

    /// A text node's visible length (characters other than white space), commas, and
    /// characters no text holds.
    static func measure(_ s: String) -> (length: Int32, commas: Int32, garbage: Int) {
        var s = s
        return s.withUTF8 { u in
            var length: Int32 = 0, commas: Int32 = 0, garbage = 0
            var i = 0
            let c = u.count
            while i < c {
                let b = u[i]
                if b < 0x80 {
                    if b > 0x20 {
                        length += 1
                        if b == 0x2C { commas += 1 }
                        if b == 0x7F { garbage += 1 }
                    } else if b != 0x20 && b != 0x09 && b != 0x0A && b != 0x0D && b != 0x0C {
                        garbage += 1
                    }
                    i += 1
                } else if b >= 0xE3 && b <= 0xE9 {
                    // CJK and kana (U+3000-U+9FFF): a character says about as much as a short word.
                    length += 2
                    // U+3001 (、) and U+FF0C (，) below are commas too.
                    if b == 0xE3 && i + 2 < c && u[i + 1] == 0x80 && u[i + 2] == 0x81 { commas += 1 }
                    i += 3
                } else if b >= 0xC0 {
                    if b == 0xEF && i + 2 < c {
                        if u[i + 1] == 0xBF && u[i + 2] == 0xBD { garbage += 1 }
                        else if u[i + 1] == 0xBC && u[i + 2] == 0x8C { commas += 1 }
                    }
                    // U+00A0, U+2000-U+200B, U+3000 and friends are white space: close enough to count as text.
                    if !(b == 0xC2 && i + 1 < c && u[i + 1] == 0xA0) { length += 1 }
                    i += 1
                } else {
                    i += 1
                }
            }
            return (length, commas, garbage)
        }
    }
}
