import TributaryPluginKit

/// Finds the main article of a web page (the `fulltext` processor's automatic extraction).
///
/// 1. `ArticleStats`: two linear passes measure every node (visible text, link text, commas,
///    paragraphs, form controls, what its class and id say).
/// 2. `ArticleScorer`: paragraphs score their ancestors; the best element holds the article.
/// 3. On a forum thread whose best element is a reply, the opening post takes its place.
/// 4. The best element's siblings that read as article text join it (an article split
///    around an ad slot or a figure).
/// 5. `ArticleCleaner`: boilerplate inside is left out.
/// 6. No article (nil) when what is left is short, mostly links, a list of teasers, or not text.
///
/// Costs: linear in the page's nodes, a few arrays of integers per node.
public enum ArticleExtractor {
    typealias Node = HTMLDocument.Node

    /// Less visible text than this (characters other than white space; a CJK character counts
    /// two) is not an article.
    static let minimumText = 150

    public static func extract(_ doc: HTMLDocument) -> ArticleExtraction? {
        guard doc.root != HTMLDocument.none else { return nil }
        let stats = ArticleStats(doc)
        // A binary file (a PDF, an image) read as HTML: replacement and control characters.
        guard stats.totalText >= minimumText, stats.garbage * 50 < stats.totalText else { return nil }
        let scorer = ArticleScorer(doc, stats)
        guard var best = scorer.best() else { return nil }
        if let opening = openingPost(doc, stats, containing: best) { best = opening }
        let blocks = siblings(doc, stats, scorer, of: best)
        var cleaner = ArticleCleaner(doc, stats)
        for b in blocks { cleaner.clean(b) }
        guard cleaner.keptText >= minimumText, cleaner.keptLinkText * 2 < cleaner.keptText else { return nil }
        // An index page: headlines that are links, about one short text each.
        if cleaner.linkHeadings >= 4 && cleaner.keptParagraphs <= cleaner.linkHeadings * 2 { return nil }
        return ArticleExtraction(blocks: blocks, skipping: cleaner.skipping)
    }

    /// When `best` is inside a post of a thread (alike siblings that each name an author or a
    /// time) that is not the first, the same place in the first post.
    static func openingPost(_ doc: HTMLDocument, _ stats: ArticleStats, containing best: Node) -> Node? {
        var path: [Int] = []
        var a = best
        while a != HTMLDocument.none && stats.tags[Int(a)] != .body {
            let p = doc.parents[Int(a)]
            guard p != HTMLDocument.none else { break }
            if stats.bylines[Int(a)] > 0 && stats.hasBlockChild[Int(a)] {
                let cls = ArticleCleaner.firstClass(doc, a)
                let name = doc.names[Int(a)]
                var first = HTMLDocument.none
                var alike = 0
                for c in doc.children(p) where doc.kinds[Int(c)] == .element && doc.names[Int(c)] == name && ArticleCleaner.firstClass(doc, c) == cls
                    && stats.bylines[Int(c)] > 0 && stats.text[Int(c)] >= 50 && !stats.invisible[Int(c)] {
                    if first == HTMLDocument.none { first = c }
                    alike += 1
                }
                if alike >= 2 && first != a && first != HTMLDocument.none {
                    // The same child path below the first post, as far as it exists.
                    var target = first
                    for index in path.reversed() {
                        var k = 0
                        var found = HTMLDocument.none
                        for c in doc.children(target) where doc.kinds[Int(c)] == .element {
                            if k == index { found = c; break }
                            k += 1
                        }
                        guard found != HTMLDocument.none, stats.text[Int(found)] > 0 else { break }
                        target = found
                    }
                    return target
                }
                if alike >= 2 { return nil }
            }
            var k = 0
            for c in doc.children(p) where doc.kinds[Int(c)] == .element {
                if c == a { break }
                k += 1
            }
            path.append(k)
            a = p
        }
        return nil
    }

    /// `best` and those of its siblings that read as article text, in document order
    /// (readability's sibling step).
    static func siblings(_ doc: HTMLDocument, _ stats: ArticleStats, _ scorer: ArticleScorer, of best: Node) -> [Node] {
        let parent = doc.parents[Int(best)]
        guard parent != HTMLDocument.none else { return [best] }
        let bestScore = scorer.finalScore(best)
        let threshold = max(10, bestScore * 0.2)
        let bestClass = doc.attribute(best, "class")
        var out: [Node] = []
        for s in doc.children(parent) {
            let i = Int(s)
            if s == best { out.append(s); continue }
            guard doc.kinds[i] == .element, !stats.invisible[i], stats.text[i] > 0 else { continue }
            let hint = stats.hints[i]
            let tag = stats.tags[i]
            if hint.contains(.negative) || hint.contains(.minor) || tag == .nav || tag == .aside || tag == .footer || tag == .header || tag == .h1 || tag == .form {
                continue
            }
            if scorer.scores[i] > 0 {
                var s2 = scorer.finalScore(s)
                if let bestClass, !bestClass.isEmpty, doc.attribute(s, "class") == bestClass { s2 += bestScore * 0.2 }
                if s2 >= threshold { out.append(s); continue }
            }
            let text = stats.text[i]
            let links = stats.linkText[i]
            switch tag {
            case .p, .blockquote, .pre, .list, .table, .figure, .heading:
                if text > 80 && links * 4 < text {
                    out.append(s)
                } else if text > 0 && links == 0 && (tag != .p || endsSentence(doc, s)) {
                    out.append(s)
                }
            default:
                break
            }
        }
        return out
    }

    private static func endsSentence(_ doc: HTMLDocument, _ n: Node) -> Bool {
        let t = HTMLDocument.collapse(doc.textContent(n))
        guard let last = t.unicodeScalars.last else { return false }
        return ".!?。！？\"”".unicodeScalars.contains(last)
    }
}
