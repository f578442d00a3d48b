import TributaryPluginKit

/// Finds the element that holds a page's article: every paragraph (an element with its own
/// text, scaled by its commas and length, less its share of link text) gives its score to
/// its parent, half to its grandparent and a fading share to three more ancestors; an
/// element's score is that sum plus what its name and its class, id and role say, times the
/// share of its text that is not link text. The best element then moves up to an ancestor
/// when several other good candidates are inside that ancestor, when its parent scores
/// higher, or when it is its parent's only child (readability's steps, which keep an article
/// whose paragraphs are split over several containers whole).
struct ArticleScorer {
    typealias Node = HTMLDocument.Node

    let doc: HTMLDocument
    let stats: ArticleStats
    /// By element: its accumulated score (0: not a candidate).
    private(set) var scores: [Float]
    private(set) var candidates: [Node] = []

    init(_ doc: HTMLDocument, _ stats: ArticleStats) {
        self.doc = doc
        self.stats = stats
        scores = [Float](repeating: 0, count: stats.count)
        score()
    }

    /// What an element's name and hints add to its score.
    func bonus(_ n: Node) -> Float {
        let i = Int(n)
        var b: Float
        switch stats.tags[i] {
        case .div: b = 5
        case .article: b = 10
        case .pre, .cell, .blockquote: b = 3
        case .list, .li, .form: b = -3
        case .heading, .h1: b = -5
        case .nav, .aside, .footer: b = -25
        default: b = 0
        }
        let h = stats.hints[i]
        if h.contains(.positive) { b += 25 }
        if h.contains(.negative) { b -= 25 }
        if h.contains(.articleBody) { b += 50 }
        return b
    }

    /// The final score of a candidate.
    func finalScore(_ n: Node) -> Float {
        let i = Int(n)
        let t = stats.text[i]
        let density: Float = t > 0 ? Float(stats.linkText[i]) / Float(t) : 0
        return (scores[i] + bonus(n)) * (1 - density)
    }

    private mutating func score() {
        let parents = doc.parents
        for i in 0..<stats.count where stats.ownText[i] >= 25 && !stats.invisible[i] {
            let own = Float(stats.ownText[i])
            var s = 1 + Float(stats.ownCommas[i]) + min(own / 100, 3)
            s *= 1 - Float(stats.ownLinkText[i]) / own
            guard s > 0 else { continue }
            var start = Node(i)
            switch stats.tags[i] {
            case .p, .pre, .blockquote, .li, .heading, .h1, .cell, .figcaption:
                start = parents[i]
            default:
                if !stats.hasBlockChild[i] { start = parents[i] }
            }
            var level = 0
            var c = start
            while c != HTMLDocument.none && level < 5 {
                let ci = Int(c)
                if stats.tags[ci] == .body || doc.kinds[ci] != .element { break }
                if scores[ci] == 0 { candidates.append(c) }
                scores[ci] += level == 0 ? s : (level == 1 ? s / 2 : s / Float(level * 3))
                c = parents[ci]
                level += 1
            }
        }
    }

    /// The element that holds the article, or nil when no element has a paragraph.
    func best() -> Node? {
        var top: [(node: Node, score: Float)] = []
        for c in candidates {
            let s = finalScore(c)
            if top.count < 5 || s > top[top.count - 1].score {
                top.append((c, s))
                top.sort { $0.score > $1.score }
                if top.count > 5 { top.removeLast() }
            }
        }
        guard var best = top.first?.node, let bestScore = top.first?.score, bestScore > 0 else { return nil }
        let parents = doc.parents
        // Several close candidates under one ancestor: the ancestor holds the article.
        let close = top.dropFirst().filter { $0.score >= bestScore * 0.75 }.map(\.node)
        if close.count >= 2 {
            var a = parents[Int(best)]
            while a != HTMLDocument.none && stats.tags[Int(a)] != .body {
                let inside = close.filter { isAncestor(a, of: $0) }.count
                if inside >= 2 { best = a; break }
                a = parents[Int(a)]
            }
        }
        // A parent that scores higher than the best (its text spread over more children).
        var last = finalScore(best)
        var p = parents[Int(best)]
        let floor = last / 3
        while p != HTMLDocument.none && stats.tags[Int(p)] != .body {
            if scores[Int(p)] == 0 { p = parents[Int(p)]; continue }
            let s = finalScore(p)
            if s < floor { break }
            if s > last { best = p; last = s }
            p = parents[Int(p)]
        }
        // An only child says nothing its parent does not.
        while true {
            let p = parents[Int(best)]
            guard p != HTMLDocument.none, stats.tags[Int(p)] != .body, doc.kinds[Int(p)] == .element else { break }
            var elements = 0
            for c in doc.children(p) where doc.kinds[Int(c)] == .element && !stats.invisible[Int(c)] { elements += 1 }
            var looseText = false
            for c in doc.children(p) where doc.kinds[Int(c)] == .text && stats.text[Int(c)] > 0 { looseText = true; break }
            guard elements == 1 && !looseText else { break }
            best = p
        }
        return best
    }

    func isAncestor(_ a: Node, of n: Node) -> Bool {
        var c = doc.parents[Int(n)]
        while c != HTMLDocument.none {
            if c == a { return true }
            c = doc.parents[Int(c)]
        }
        return false
    }
}
