import TributaryPluginKit

/// Finds what is not article text inside the chosen containers: hidden parts, the headline,
/// navigation, share bars, ads and their labels, related and "read also" links, newsletter
/// boxes, bylines and author boxes, pull quotes, comment sections and forum replies. One walk
/// over the containers' subtrees; a left-out element's subtree is not visited.
struct ArticleCleaner {
    typealias Node = HTMLDocument.Node

    let doc: HTMLDocument
    let stats: ArticleStats
    private(set) var skipping: Set<Node> = []
    /// Visible text of the kept parts, and how much of it is link text.
    private(set) var keptText = 0
    private(set) var keptLinkText = 0
    /// Kept headings that are links (an index page's teasers) and kept paragraphs.
    private(set) var linkHeadings = 0
    private(set) var keptParagraphs = 0

    /// The page's titles (`<title>`, `og:title`, `twitter:title`) as lower-case ASCII bytes
    /// with white space folded, and their visible lengths: a heading they contain is the
    /// headline, not article text.
    private let titles: [[UInt8]]
    private let longestTitle: Int32
    private var headlineSeen = false

    init(_ doc: HTMLDocument, _ stats: ArticleStats) {
        self.doc = doc
        self.stats = stats
        var titles: [[UInt8]] = []
        if let t = doc.first("title") { titles.append(Self.folded(doc.textContent(t))) }
        for i in 0..<doc.count where doc.kinds[i] == .element && doc.names[i] == "meta" {
            let n = Node(i)
            if let p = doc.attribute(n, "property") ?? doc.attribute(n, "name"), p == "og:title" || p == "twitter:title", let c = doc.attribute(n, "content") {
                titles.append(Self.folded(c))
            }
        }
        self.titles = titles.filter { !$0.isEmpty }
        longestTitle = Int32(self.titles.map { ArticleStats.measure(String(decoding: $0, as: UTF8.self)).length }.max() ?? 0)
    }

    /// `s` as bytes, ASCII letters lower case, runs of ASCII white space as one space, trimmed.
    static func folded(_ s: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count)
        var space = false
        for b in s.utf8 {
            if b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D || b == 0x0C {
                space = !out.isEmpty
            } else {
                if space { out.append(0x20); space = false }
                out.append(b >= 0x41 && b <= 0x5A ? b | 0x20 : b)
            }
        }
        return out
    }

    /// Whether element `n` repeats the page's title (most of it, in a heading, a bold line, ...).
    private func isHeadline(_ n: Node) -> Bool {
        let i = Int(n)
        let length = stats.text[i]
        guard length >= 8 && length <= longestTitle else { return false }
        let heading = stats.tags[i] == .heading
        switch stats.tags[i] {
        case .heading: break
        case .inline, .p, .div, .other, .header, .cell: if length * 2 < longestTitle { return false }
        default: return false
        }
        let t = Self.folded(doc.textContent(n))
        guard !t.isEmpty else { return false }
        return titles.contains { title in
            (heading || t.count * 2 >= title.count) && title.count >= t.count && (0...(title.count - t.count)).contains { at in
                title[at] == t[0] && title[at..<(at + t.count)].elementsEqual(t)
            }
        }
    }

    /// Labels that open a comment section: everything after one is not the article.
    static let commentLabels: [String] = ["comments", "comment", "reader comments", "responses", "replies", "discussion", "leave a comment", "leave a reply",
                                          "join the discussion", "answers", "answer", "join the conversation", "kommentare", "commentaires", "comentarios", "commenti",
                                          "reacties", "komentarze", "комментарии", "评论", "留言", "コメント"]

    private func isCommentLabel(_ n: Node) -> Bool {
        let i = Int(n)
        guard stats.text[i] <= 30, stats.linkText[i] == 0 else { return false }
        switch stats.tags[i] {
        case .heading, .inline, .p, .div, .header: break
        default: return false
        }
        var s = HTMLDocument.collapse(doc.textContent(n)).lowercased()
        while let l = s.last, l == ":" || l == "." || l == ")" || l == " " { s.removeLast() }
        while let f = s.first, f.isNumber || f == " " || f == "(" { s.removeFirst() }
        if let open = s.firstIndex(of: "(") { s = String(s[..<open]) }
        while s.last == " " { s.removeLast() }
        return Self.commentLabels.contains(s)
    }

    /// Leaves out everything after `n` inside `root`: its following siblings and those of
    /// its ancestors.
    private mutating func cutAfter(_ n: Node, root: Node) {
        var c = n
        while c != root && c != HTMLDocument.none {
            var s = doc.nextSiblings[Int(c)]
            while s != HTMLDocument.none {
                if !skipping.contains(s) { skip(s) }
                s = doc.nextSiblings[Int(s)]
            }
            c = doc.parents[Int(c)]
        }
    }

    /// In an element whose text is lines separated by `<br>`: the lines that are mostly a link
    /// ("SEE ALSO: <a>...</a>").
    private mutating func skipLinkLines(_ n: Node) {
        var lineStart = doc.firstChildren[Int(n)]
        var text: Int32 = 0, links: Int32 = 0
        var c = lineStart
        while true {
            let isBreak = c == HTMLDocument.none || (doc.kinds[Int(c)] == .element && (stats.tags[Int(c)] == .br || stats.tags[Int(c)] != .inline && stats.tags[Int(c)] != .a))
            if isBreak {
                if text > 0 && text < 200 && links * 10 > text * 6 {
                    var k = lineStart
                    while k != c { if !skipping.contains(k) { skip(k) }; k = doc.nextSiblings[Int(k)] }
                }
                guard c != HTMLDocument.none else { break }
                lineStart = doc.nextSiblings[Int(c)]
                text = 0
                links = 0
            } else {
                text += stats.text[Int(c)]
                links += stats.linkText[Int(c)]
            }
            c = doc.nextSiblings[Int(c)]
        }
    }

    /// Short texts that are labels of boilerplate, not text (compared lower case, without
    /// trailing punctuation).
    static let labels: Set<String> = [
        "advertisement", "advertisment", "advertising", "ad", "ads", "sponsored", "sponsored content", "paid content", "promoted", "anzeige", "werbung",
        "publicité", "publicidad", "pubblicità", "реклама", "广告", "広告", "share", "share this", "share this article", "share this story", "share on facebook",
        "share on twitter", "tweet", "email", "print", "comments", "leave a comment", "read more", "continue reading", "read also", "related",
        "related articles", "related posts", "related stories", "more stories", "you may also like", "recommended", "subscribe", "sign up", "follow us",
        "skip to content", "skip to main content", "back to top", "loading", "story continues below advertisement", "article continues below",
        "scroll to continue with content", "click to expand",
    ]

    mutating func clean(_ root: Node) {
        let rootText = stats.text[Int(root)]
        keptText += Int(rootText)
        keptLinkText += Int(stats.linkText[Int(root)])
        var stack: [Node] = []
        pushChildren(root, onto: &stack)
        checkPosts(root, rootNode: root)
        if stats.ownText[Int(root)] >= 25 && stats.ownLinkText[Int(root)] > 0 { skipLinkLines(root) }
        while let n = stack.popLast() {
            let i = Int(n)
            guard doc.kinds[i] == .element else { continue }
            if skipping.contains(n) { continue }
            if !headlineSeen && isHeadline(n) {
                headlineSeen = true
                skip(n)
                continue
            }
            if isCommentLabel(n) {
                skip(n)
                cutAfter(n, root: root)
                continue
            }
            if leavesOut(n, rootText: rootText) {
                skip(n)
                continue
            }
            switch stats.tags[i] {
            case .heading:
                if stats.text[i] > 0 && stats.linkText[i] * 10 >= stats.text[i] * 8 { linkHeadings += 1 }
            case .p, .pre, .li, .blockquote:
                if stats.text[i] >= 50 { keptParagraphs += 1 }
            default:
                if stats.ownText[i] >= 50 { keptParagraphs += 1 }
            }
            // Nothing inside preformatted text is boilerplate (`<span class="hljs-comment">`).
            if stats.tags[i] == .pre { continue }
            checkPosts(n, rootNode: root)
            if stats.ownText[i] >= 25 && stats.ownLinkText[i] > 0 { skipLinkLines(n) }
            pushChildren(n, onto: &stack)
        }
    }

    private func pushChildren(_ n: Node, onto stack: inout [Node]) {
        let mark = stack.count
        var c = doc.firstChildren[Int(n)]
        while c != HTMLDocument.none {
            if doc.kinds[Int(c)] == .element { stack.append(c) }
            c = doc.nextSiblings[Int(c)]
        }
        stack[mark...].reverse()
    }

    private mutating func skip(_ n: Node) {
        skipping.insert(n)
        keptText -= Int(stats.text[Int(n)])
        keptLinkText -= Int(stats.linkText[Int(n)])
    }

    /// Whether element `n` (inside a container with `rootText` of text) is not article text.
    private func leavesOut(_ n: Node, rootText: Int32) -> Bool {
        let i = Int(n)
        let tag = stats.tags[i]
        let text = stats.text[i]
        if stats.invisible[i] { return tag != .invisible }  // the sanitizer drops script, style, ... itself
        let hint = stats.hints[i]
        let big = text * 2 > rootText
        switch tag {
        case .inline, .a, .br, .img, .time:
            // Inside a paragraph only what is hidden goes (a `tooltip` span is still text).
            return hint.contains(.negative) && !hint.contains(.positive) && text < 100 && tag != .a && tag != .img
        case .h1, .nav, .footer, .form:
            return !big || tag == .h1
        case .header:
            return text * 10 < rootText * 3
        case .aside:
            return hint.contains(.negative) || hint.contains(.minor) || text < 50 || stats.linkText[i] * 10 > text * 3 || !hint.contains(.positive) && text < 200
        default:
            break
        }
        // A paragraph of prose is text whatever its class says (`<p class="paywall">`).
        let prose = tag == .p && text >= 80 && stats.linkText[i] * 10 < text
        // A heading's own class is about its looks (`anchorWithStickyNavbar`); boilerplate
        // headings go with their boxes.
        if hint.contains(.negative) && !(hint.contains(.positive) && big) && !prose && tag != .heading { return true }
        if hint.contains(.minor) && text < 400 && tag != .heading && tag != .figcaption && tag != .pre && tag != .table { return true }
        // A small box with a form (a newsletter sign-up), but not a code block with its Copy button.
        if stats.inputs[i] > 0 && text < 300 && !contains(n, .pre) { return true }
        guard text > 0 else { return false }
        let links = stats.linkText[i]
        switch tag {
        case .list, .table:
            if links * 2 > text { return true }
        case .p, .li, .heading, .cell, .blockquote, .pre, .figcaption:
            if text < 200 && links * 10 > text * 6 && tag != .heading { return true }
        default:
            if links * 2 > text { return true }
            if text < 300 && links * 3 > text && stats.paragraphs[i] <= 1 { return true }
        }
        if text <= 40 && isLabel(n) { return true }
        return false
    }

    private func contains(_ n: Node, _ tag: ArticleStats.Tag) -> Bool {
        for d in doc.descendants(n) where stats.tags[Int(d)] == tag { return true }
        return false
    }

    private func isLabel(_ n: Node) -> Bool {
        var s = HTMLDocument.collapse(doc.textContent(n)).lowercased()
        while let l = s.last, l == ":" || l == "." || l == "!" || l == "…" || l == "»" || l == "›" || l == ">" || l == " " { s.removeLast() }
        return Self.labels.contains(s)
    }

    // MARK: forum threads and comment lists

    /// Two or more children of `parent` alike (same element name and class) that each name who
    /// wrote them or when, and hold text with some structure: posts of a thread, comments or
    /// answers. The first is the opening post unless the container has text before them (the
    /// article or question they answer): then all of them go.
    private mutating func checkPosts(_ parent: Node, rootNode: Node) {
        var first = HTMLDocument.none
        var firstClass: Substring? = nil
        var items: [Node] = []
        var c = doc.firstChildren[Int(parent)]
        while c != HTMLDocument.none {
            let i = Int(c)
            if doc.kinds[i] == .element && !stats.invisible[i] && stats.bylines[i] > 0 && stats.text[i] >= 50 && stats.hasBlockChild[i] && !skipping.contains(c) {
                if first == HTMLDocument.none {
                    first = c
                    firstClass = Self.firstClass(doc, c)
                    items.append(c)
                } else if doc.names[i] == doc.names[Int(first)] && Self.firstClass(doc, c) == firstClass {
                    items.append(c)
                }
            }
            c = doc.nextSiblings[i]
        }
        guard items.count >= 2 else { return }
        // Items in a live blog's or an article's sections are not posts when they read like the
        // article: a post names its author, a section does not always; keep it simple: posts.
        let replies = hasTextBefore(items[0], within: rootNode)
        for item in replies ? items[...] : items.dropFirst() { skip(item) }
    }

    /// The first word of an element's class: what alike items share (`answer`, `answer accepted`).
    static func firstClass(_ doc: HTMLDocument, _ n: Node) -> Substring? {
        doc.attribute(n, "class").flatMap { $0.split(separator: " ", omittingEmptySubsequences: true).first }
    }

    /// Whether there is article-like text before `n` inside `root`.
    private func hasTextBefore(_ n: Node, within root: Node) -> Bool {
        var c = n
        while c != root && c != HTMLDocument.none {
            let p = doc.parents[Int(c)]
            guard p != HTMLDocument.none else { break }
            var s = doc.firstChildren[Int(p)]
            var before: Int32 = 0
            while s != c && s != HTMLDocument.none {
                let si = Int(s)
                if !skipping.contains(s) && !stats.invisible[si] && !stats.hints[si].contains(.negative) && stats.tags[si] != .h1 && stats.tags[si] != .header {
                    before += stats.text[si] - stats.linkText[si]
                }
                s = doc.nextSiblings[si]
            }
            if before >= 200 { return true }
            c = p
        }
        return false
    }
}
