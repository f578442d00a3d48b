import TributaryPluginKit
import TributaryCore

/// Turns the events of an RSS 2.0, RSS 1.0 or Atom document into entries as it is parsed, one
/// entry at a time: only the piece being read (an `<item>` or `<entry>`, the feed's `<title>` or an
/// Atom feed `<author>`) is held as a tree of XMLElementNode, and it is read and dropped when it
/// ends. Everything else outside the entries (a channel `<description>`, `<image>`, `rdf:Seq`) is
/// skipped without being kept. So memory holds the body, the entries not yet handed out, and one
/// entry, however large the document.
///
/// Limits on what one piece keeps (each one reported by `warnings`):
/// - `maxTextBytes` of text per element; what follows is dropped (at a character boundary).
/// - `maxDepth` levels of elements below the piece's root and `maxElements` elements in one
///   piece; markup past them is kept as text of the deepest element (`.markup`: the markup as
///   written, text escaped), so HTML in a description still turns into its text, and no walk
///   over a tree, nor its release, goes deeper than `maxDepth`.
final class FeedStreamBuilder: XMLEventHandler {
    enum Format: String {
        case rss2 = "RSS 2.0"
        case rss1 = "RSS 1.0"
        case atom = "Atom"
    }

    /// What the root element said the document is, when it is not a feed.
    enum NotAFeed {
        case html
        case other(name: String, namespace: String)
    }

    static let maxTextBytes = 1 << 20
    static let maxDepth = 64
    static let maxElements = 10_000

    let baseURL: String
    private(set) var format: Format?
    private(set) var notAFeed: NotAFeed?
    private(set) var sawRoot = false
    private(set) var feedTitle: String?
    private var titleSeen = false
    private var authorNames: [String] = []
    /// RSS `<ttl>` (minutes), and the syndication module's `sy:updatePeriod` /
    /// `sy:updateFrequency`, as the channel (or Atom feed) gives them.
    private(set) var ttl: String?
    private(set) var updatePeriod: String?
    private(set) var updateFrequency: String?
    /// Entries read and not yet taken.
    private(set) var entries: [FeedEntry] = []
    private(set) var entryCount = 0

    /// Elements cut at `maxTextBytes`: how many, and the first one's name.
    private(set) var cutTexts = 0
    private(set) var firstCut: String?
    /// Pieces whose markup went past `maxDepth` or `maxElements` and was kept as text.
    private(set) var flattened = 0

    /// The bases of the open containers (the root; `channel` in RSS), outermost first.
    private var containers: [String] = []
    /// The open elements of the piece being read (empty when none), its root first.
    private var tree: [XMLElementNode] = []
    private var treeElements = 0
    private var treeFlattened = false
    /// Open elements inside the deepest tree node that are kept as markup, innermost last.
    private var markupNames: [String] = []
    /// Open elements inside a skipped element.
    private var skipping = 0
    private var pendingText: [UInt8] = []
    private var pendingMarkup: [UInt8] = []

    init(baseURL: String) { self.baseURL = baseURL }

    var wantsToStop: Bool { notAFeed != nil }

    /// Atom: the feed's authors, for entries that name none.
    var feedAuthor: String? { FeedText.names(authorNames) }

    /// Up to `count` of the entries read so far, removed from the builder.
    func take(_ count: Int) -> [FeedEntry] {
        let n = min(count, entries.count)
        let out = Array(entries[..<n])
        entries.removeFirst(n)
        return out
    }

    // MARK: events

    func startElement(namespace declared: String, prefix: String?, name: String, attributes: [(name: String, value: String)]) {
        if skipping > 0 {
            skipping += 1
            return
        }
        // An undeclared prefix: take the namespace the well-known prefix always means.
        let namespace = declared.isEmpty ? prefix.flatMap { FeedNamespace.wellKnownPrefixes[$0] } ?? "" : declared
        if let parent = tree.last {
            if !markupNames.isEmpty || tree.count >= Self.maxDepth || treeElements >= Self.maxElements {
                flushText()
                if markupNames.isEmpty { treeFlattened = true }
                appendMarkup(Array(("<" + name + ">").utf8))
                markupNames.append(name)
                return
            }
            flushText()
            let node = XMLElementNode(namespace: namespace, name: name, attributes: attributes, base: Self.base(attributes, parent.base))
            parent.content.append(.element(node))
            tree.append(node)
            treeElements += 1
            return
        }
        let parentBase = containers.last ?? baseURL
        guard sawRoot else {
            sawRoot = true
            switch (namespace, name) {
            case (_, "rss"): format = .rss2
            case (let ns, "RDF") where FeedNamespace.rdf.contains(ns): format = .rss1
            case (let ns, "feed") where FeedNamespace.atom.contains(ns): format = .atom
            case (_, "html"): notAFeed = .html
            default: notAFeed = .other(name: name, namespace: namespace)
            }
            containers.append(Self.base(attributes, parentBase))
            return
        }
        let rss = FeedNamespace.rss.contains(namespace)
        let atom = FeedNamespace.atom.contains(namespace)
        let schedule = FeedNamespace.syndication.contains(namespace) && (name == "updatePeriod" || name == "updateFrequency")
        let read: Bool
        switch (format, containers.count) {
        case (.rss2?, 1), (.rss1?, 1):
            if rss && name == "channel" {
                containers.append(Self.base(attributes, parentBase))
                return
            }
            read = rss && name == "item"
        case (.rss2?, 2), (.rss1?, 2):
            read = rss && (name == "item" || (name == "title" && !titleSeen) || name == "ttl") || schedule
        case (.atom?, 1):
            read = atom && (name == "entry" || name == "author" || (name == "title" && !titleSeen)) || schedule
        default:
            read = false
        }
        guard read else {
            skipping = 1
            return
        }
        tree = [XMLElementNode(namespace: namespace, name: name, attributes: attributes, base: Self.base(attributes, parentBase))]
        treeElements = 1
        treeFlattened = false
    }

    func endElement() {
        if skipping > 0 {
            skipping -= 1
            return
        }
        if let name = markupNames.popLast() {
            appendMarkup(Array(("</" + name + ">").utf8))
            if markupNames.isEmpty { flushMarkup() }
            return
        }
        guard let node = tree.popLast() else {
            _ = containers.popLast()
            return
        }
        flush(into: node)
        if tree.isEmpty {
            if treeFlattened { flattened += 1 }
            finish(node)
        }
    }

    func text(_ utf8: UnsafeBufferPointer<UInt8>) {
        guard skipping == 0, let node = tree.last else { return }
        if !markupNames.isEmpty {
            var escaped: [UInt8] = []
            escaped.reserveCapacity(utf8.count)
            for b in utf8 {
                switch b {
                case UInt8(ascii: "&"): escaped += Array("&amp;".utf8)
                case UInt8(ascii: "<"): escaped += Array("&lt;".utf8)
                case UInt8(ascii: ">"): escaped += Array("&gt;".utf8)
                default: escaped.append(b)
                }
            }
            appendMarkup(escaped)
            return
        }
        let kept = room(node, utf8.count, utf8)
        pendingText += utf8[..<kept]
    }

    // MARK: pieces

    /// How many of `count` new bytes the deepest node may still take (at a character boundary
    /// when it cannot take them all); notes the cut.
    private func room<C: RandomAccessCollection<UInt8>>(_ node: XMLElementNode, _ count: Int, _ bytes: C) -> Int where C.Index == Int {
        let left = Self.maxTextBytes - node.heldBytes
        if count <= left {
            node.heldBytes += count
            return count
        }
        var k = max(left, 0)
        while k > 0, bytes[bytes.startIndex + k] & 0xC0 == 0x80 { k -= 1 }  // not inside a character
        node.heldBytes = Self.maxTextBytes
        if !node.wasCut {
            node.wasCut = true
            cutTexts += 1
            if firstCut == nil { firstCut = node.name }
        }
        return k
    }

    private func appendMarkup(_ bytes: [UInt8]) {
        guard let node = tree.last else { return }
        pendingMarkup += bytes[..<room(node, bytes.count, bytes)]
    }

    private func flushText() {
        guard !pendingText.isEmpty, let node = tree.last else { return }
        node.content.append(.text(String(decoding: pendingText, as: UTF8.self)))
        pendingText.removeAll(keepingCapacity: true)
    }

    private func flushMarkup() {
        guard !pendingMarkup.isEmpty, let node = tree.last else { return }
        node.content.append(.markup(String(decoding: pendingMarkup, as: UTF8.self)))
        pendingMarkup.removeAll(keepingCapacity: true)
    }

    /// The node is closing: what it still has pending is its own (tree.last is its parent now).
    private func flush(into node: XMLElementNode) {
        if !pendingText.isEmpty {
            node.content.append(.text(String(decoding: pendingText, as: UTF8.self)))
            pendingText.removeAll(keepingCapacity: true)
        }
        if !pendingMarkup.isEmpty {
            node.content.append(.markup(String(decoding: pendingMarkup, as: UTF8.self)))
            pendingMarkup.removeAll(keepingCapacity: true)
        }
    }

    /// A whole piece was read.
    private func finish(_ node: XMLElementNode) {
        let ns = FeedNamespace.self
        if node.matches(ns.syndication, "updatePeriod") { updatePeriod = node.trimmedText; return }
        if node.matches(ns.syndication, "updateFrequency") { updateFrequency = node.trimmedText; return }
        if node.matches(ns.rss, "ttl") { ttl = node.trimmedText; return }
        switch format {
        case .rss2?, .rss1?:
            if node.matches(ns.rss, "item") {
                entries.append(RSSReader.entry(node))
                entryCount += 1
            } else if node.matches(ns.rss, "title") {
                titleSeen = true
                feedTitle = FeedText.title(node.trimmedText)
            }
        case .atom?:
            if node.matches(ns.atom, "entry") {
                entries.append(AtomReader.entry(node))
                entryCount += 1
            } else if node.matches(ns.atom, "title") {
                titleSeen = true
                feedTitle = AtomReader.text(node).flatMap(FeedText.title)
            } else if node.matches(ns.atom, "author"), let name = FeedText.title(node.childText(ns.atom, "name")) {
                authorNames.append(name)
            }
        case nil:
            break
        }
    }

    /// How often the feed says to ask again, from `<ttl>` (minutes) or `sy:updatePeriod`
    /// (`hourly`, `daily`, `weekly`, `monthly`, `yearly`; default daily when only the frequency
    /// is given) divided by `sy:updateFrequency` (default 1); the longer of the two. Values
    /// that are not numbers or periods, and 0, say nothing.
    var intervalHint: IntervalHint? {
        var hint: IntervalHint? = nil
        if let t = ttl, let minutes = Double(t), minutes >= 1 {
            hint = IntervalHint(seconds: minutes * 60, why: "ttl " + IntervalHint.shown(minutes * 60))
        }
        if updatePeriod != nil || updateFrequency != nil {
            let periods: [String: Double] = ["hourly": 3600, "daily": 86400, "weekly": 7 * 86400, "monthly": 30 * 86400, "yearly": 365 * 86400]
            let word = updatePeriod?.lowercased() ?? "daily"
            let times = updateFrequency.flatMap { Double($0) } ?? 1
            if let period = periods[word], times >= 1 {
                let why = "sy:updatePeriod \(word)" + (times == 1 ? "" : " / sy:updateFrequency \(Int(times))")
                hint = IntervalHint.larger(hint, IntervalHint(seconds: period / times, why: why))
            }
        }
        return hint
    }

    /// The base of an element: its `xml:base` resolved against its parent's, else the parent's.
    static func base(_ attributes: [(name: String, value: String)], _ parent: String) -> String {
        guard let b = attributes.first(where: { $0.name == "xml:base" }) else { return parent }
        return Links.resolve(b.value, against: parent)
    }
}
