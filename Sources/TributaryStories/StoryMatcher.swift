// One story once: which story an item tells, and whether it is the first item of it
// (Docs/stories.md).
//
// An item's keys (StoryKeys) fetch the records that may tell its story; each is verified:
// - the same item (same id, same URL) seen again: its own story, first if it was first;
// - match url: the same canonical URL is the same story, whenever it was seen (while
//   remembered);
// - match title: published within `within` of each other, not from the same source or the same
//   site under another URL (a recurring headline), no number and no name on each side that the other
//   lacks, and similar enough: Jaccard similarity of the token sets at least `jaccard`, or one
//   set almost inside the other (`containment`).
// The best verified record gives the story (same item, then URL, then the most similar title,
// then the earliest published, then the smallest story id); with none, the item opens a story
// whose id is the hash of its canonical URL (or id).

public struct StoryOptions: Sendable, Equatable {
    public enum Scope: String, Sendable { case all, tags }

    public var matchURL: Bool
    public var matchTitle: Bool
    /// Seconds: titles match only between items published at most this far apart.
    public var within: Int64
    public var scope: Scope
    /// Titles with fewer content tokens than this match by URL only ("Morning briefing").
    public var minimumTokens: Int
    /// Jaccard similarity at or above which two titles tell one story (once no rule forbids it).
    public var jaccard: Double
    /// The Jaccard similarity enough when both titles carry the same specific numbers.
    public var jaccardSameNumbers: Double
    /// Seconds: items published at most this far apart need only `jaccardSoon`.
    public var soon: Int64
    public var jaccardSoon: Double
    /// Or: this share of the shorter title's tokens is in the longer one...
    public var containment: Double
    /// ... and the shorter has at least this many tokens.
    public var containmentTokens: Int
    /// MinHash bands per title (keys per item: at most bands + 3).
    public var bands: Int

    public init(matchURL: Bool = true, matchTitle: Bool = true, within: Int64 = 72 * 3600, scope: Scope = .all,
                minimumTokens: Int = 3, jaccard: Double = 0.55, jaccardSameNumbers: Double = 0.3, soon: Int64 = 6 * 3600, jaccardSoon: Double = 0.45,
                containment: Double = 0.9, containmentTokens: Int = 4, bands: Int = 8) {
        self.matchURL = matchURL
        self.matchTitle = matchTitle
        self.within = within
        self.scope = scope
        self.minimumTokens = minimumTokens
        self.jaccard = jaccard
        self.jaccardSameNumbers = jaccardSameNumbers
        self.soon = soon
        self.jaccardSoon = jaccardSoon
        self.containment = containment
        self.containmentTokens = containmentTokens
        self.bands = bands
    }
}

/// What the matcher needs of an item.
public struct StoryItem: Sendable {
    public var id: String
    public var url: String?
    public var title: String?
    /// Seconds since 1970.
    public var published: Int64?
    public var tags: [String]
    /// The source's name: items of one source never match by title under different URLs.
    public var source: String?

    public init(id: String, url: String? = nil, title: String? = nil, published: Int64? = nil, tags: [String] = [], source: String? = nil) {
        self.id = id
        self.url = url
        self.title = title
        self.published = published
        self.tags = tags
        self.source = source
    }
}

public struct StoryAssignment: Sendable, Equatable, CustomStringConvertible {
    public enum Match: String, Sendable {
        /// No remembered item tells this story: the item opens it.
        case none
        /// This very item was seen before.
        case sameItem
        case url
        case title
    }

    public var story: StoryID
    /// Whether the item is the story's first (the one `action: drop` emits).
    public var isFirst: Bool
    public var match: Match

    public init(story: StoryID, isFirst: Bool, match: Match) {
        self.story = story
        self.isFirst = isFirst
        self.match = match
    }

    public var description: String { "\(story) \(isFirst ? "first" : "copy") (\(match.rawValue))" }
}

/// An item looked up but not yet remembered (StoryMatcher.match, then remember).
public struct PreparedStoryItem: Sendable {
    public var record: StoryRecord
    public var keys: [UInt64]
    /// Remembering adds nothing (the same item, or the same URL with the same title).
    public var redundant: Bool
}

/// One thread at a time uses a matcher (its key buffer and its WordSightings are its own); any
/// number of matchers can share a store (InMemoryStoryStore locks; a SQL store is shared by the
/// database). Two workers that see two copies of a new story at the same moment each open it
/// unless the store makes the second wait for the first's insert: copies that share the first
/// item's canonical URL get the same id either way (StoryID.first).
public final class StoryMatcher {
    public let options: StoryOptions
    public let store: any StoryStore
    /// Which words the titles read so far wrote in lower case, and which capitalized: resolves
    /// the capitalized words whose case says nothing (WordSightings). Learned from every title
    /// looked up.
    public let sightings = WordSightings()
    /// Records the store returned, over all items (the cost of verification).
    public private(set) var candidatesSeen = 0

    public init(options: StoryOptions = StoryOptions(), store: any StoryStore) {
        self.options = options
        self.store = store
    }

    /// Looks `item` up and remembers it: its story, and whether it opens it. `now` (seconds
    /// since 1970) stands in for a missing `published` and is when it is recorded.
    public func assign(_ item: StoryItem, now: Int64) -> StoryAssignment {
        let (assignment, prepared) = match(item, now: now)
        remember(prepared)
        return assignment
    }

    /// Looks `item` up without changing any state (a dry run, or an engine that records only
    /// after its sinks wrote the item: then `remember` the prepared item).
    public func match(_ item: StoryItem, now: Int64) -> (StoryAssignment, PreparedStoryItem) {
        match(prepare(item, now: now))
    }

    /// What `item` is filed and looked up under (its record, as it would open a story, and its
    /// keys), without a lookup: an engine that reads a store in batches loads the keys of a
    /// whole batch first, then matches each item (`match(_:)`).
    public func prepare(_ item: StoryItem, now: Int64) -> PreparedStoryItem {
        Self.prepare(item, now: now, options: options)
    }

    /// `prepare` without a matcher: it reads only the options, so any number of threads can
    /// prepare the items of one batch at once (the `stories` stage does, on a large batch).
    public static func prepare(_ item: StoryItem, now: Int64, options: StoryOptions) -> PreparedStoryItem {
        let canonical = item.url.flatMap { URLCanonicalizer.canonicalize($0) }
        let webURL = canonical.flatMap { $0.hostLength > 0 ? $0 : nil }
        let itemHash = stableHash(item.id, seed: HashSeed.itemID)
        let identity = canonical?.hash ?? itemHash
        let hasURL = canonical != nil
        var origin: UInt32 = 0
        if let source = item.source {
            origin = UInt32(truncatingIfNeeded: stableHash(source, seed: HashSeed.host)) | 1
        } else if let web = webURL {
            origin = web.hostHash
        }
        let host: UInt32 = webURL.map { URLCanonicalizer.sharedHosts.contains($0.host) ? 0 : $0.hostHash } ?? 0
        var title = TitleSignature()
        if options.matchTitle, let t = item.title {
            title = TitleAnalyzer.signature(t, host: webURL?.host)
        }
        var tags: [UInt32] = []
        if options.scope == .tags {
            tags = item.tags.map { UInt32(truncatingIfNeeded: stableHash($0, seed: HashSeed.tag)) }.sorted()
        }
        let published = item.published ?? now
        let record = StoryRecord(story: StoryID.first(canonicalURL: canonical, itemID: item.id), item: itemHash, identity: identity,
                                 hasURL: hasURL, origin: origin, host: host, published: published, seen: now, first: true, title: title, tags: tags)

        // Most telling first (StoryStore.candidates): identity, exact title, numbers (when the
        // title has specific numbers), bands.
        var keys: [UInt64] = []
        keys.reserveCapacity(options.bands + 3)
        keys.append(StoryKeys.identity(identity))
        if options.matchTitle && title.count >= options.minimumTokens {
            keys.append(StoryKeys.exactTitle(title))
            if let n = StoryKeys.numbers(title) { keys.append(n) }
            StoryKeys.appendBands(title, bands: options.bands, to: &keys)
        }
        return PreparedStoryItem(record: record, keys: keys, redundant: false)
    }

    /// Looks a prepared item up in the store: its story, whether it opens it, and the record to
    /// `remember` (its story decided).
    public func match(_ prepared: PreparedStoryItem) -> (StoryAssignment, PreparedStoryItem) {
        let record = prepared.record
        let titled = options.matchTitle && record.title.count >= options.minimumTokens
        var best: (record: StoryRecord, match: StoryAssignment.Match, score: Double)?
        var seen = 0
        var idTaken = false
        store.candidates(keys: prepared.keys) { r in
            seen += 1
            if r.pointee.story == record.story { idTaken = true }
            guard let (m, score) = verify(record, r) else { return }
            if let b = best, !better(r, m, score, than: b) { return }
            best = (r.pointee, m, score)
        }
        candidatesSeen += seen
        if titled { sightings.learn(record.title) }
        var out = record
        var redundant = false
        let assignment: StoryAssignment
        if let b = best {
            switch b.match {
            case .sameItem:
                assignment = StoryAssignment(story: b.record.story, isFirst: b.record.first, match: .sameItem)
                redundant = true
            default:
                assignment = StoryAssignment(story: b.record.story, isFirst: false, match: b.match)
                redundant = b.match == .url && b.record.title.exactKey == record.title.exactKey
            }
            out.story = b.record.story
            out.first = false
        } else {
            // The URL's id belongs to a story this item does not join (match: [title], or scope
            // tags without a shared tag): the item's own id makes another.
            if idTaken { out.story = StoryID(fmix64(record.story.value ^ record.item)) }
            assignment = StoryAssignment(story: out.story, isFirst: true, match: .none)
        }
        return (assignment, PreparedStoryItem(record: out, keys: prepared.keys, redundant: redundant))
    }

    /// Remembers an item prepared by `match`.
    public func remember(_ prepared: PreparedStoryItem) {
        guard !prepared.redundant else { return }
        store.insert(prepared.record, keys: prepared.keys)
    }

    /// Whether remembered record `r` tells the story of item `q`, how, and how well.
    func verify(_ q: borrowing StoryRecord, _ r: UnsafePointer<StoryRecord>) -> (StoryAssignment.Match, Double)? {
        if options.scope == .tags, !sharesTag(q.tags, r.pointee.tags) { return nil }
        if r.pointee.identity == q.identity {
            if r.pointee.item == q.item { return (.sameItem, 3) }
            if q.hasURL, r.pointee.hasURL, options.matchURL { return (.url, 2) }
        }
        guard options.matchTitle, let score = titleScore(q, r) else { return nil }
        return (.title, score)
    }

    /// The title rules (see the top of this file); nil when the titles do not tell one story.
    public func titleScore(_ q: borrowing StoryRecord, _ record: borrowing StoryRecord) -> Double? {
        withUnsafePointer(to: record) { titleScore(q, $0) }
    }

    func titleScore(_ q: borrowing StoryRecord, _ r: UnsafePointer<StoryRecord>) -> Double? {
        let na = q.title.count, nb = r.pointee.title.count
        guard na >= options.minimumTokens, nb >= options.minimumTokens else { return nil }
        let rp = r.pointee.published
        let gap = q.published > rp ? q.published &- rp : rp &- q.published
        guard gap <= options.within else { return nil }
        if q.identity != r.pointee.identity, q.origin != 0 && q.origin == r.pointee.origin || q.host != 0 && q.host == r.pointee.host { return nil }
        // The blooms bound the shared tokens: too few for any threshold, and the tokens are
        // never read (most candidates from the bands end here).
        let atMost = Double(min((q.title.bloom & r.pointee.title.bloom).nonzeroBitCount, min(na, nb)))
        let lowest = min(options.jaccard, options.jaccardSoon, options.jaccardSameNumbers)
        if atMost < lowest * Double(na + nb) / (1 + lowest), atMost < options.containment * Double(min(na, nb)) { return nil }
        var c = TitleComparison(q.title, r.pointee.title)
        if c.differentNumber || c.differentForm || c.oppositeDirection || c.followUp { return nil }
        let j = c.jaccard
        var needed = options.jaccard
        if gap <= options.soon { needed = min(needed, options.jaccardSoon) }
        if c.sameSpecificNumbers { needed = min(needed, options.jaccardSameNumbers) }
        guard j >= needed || min(c.countA, c.countB) >= options.containmentTokens && c.containment >= options.containment else { return nil }
        // Names last: only here do the sightings settle capitalized words of unknown kind.
        c.resolve(with: sightings, q.title, r.pointee.title)
        return c.differentName ? nil : j
    }

    func better(_ r: UnsafePointer<StoryRecord>, _ match: StoryAssignment.Match, _ score: Double, than b: (record: StoryRecord, match: StoryAssignment.Match, score: Double)) -> Bool {
        if score != b.score { return score > b.score }
        if r.pointee.published != b.record.published { return r.pointee.published < b.record.published }
        return r.pointee.story < b.record.story
    }

    func sharesTag(_ a: [UInt32], _ b: [UInt32]) -> Bool {
        var i = 0, j = 0
        while i < a.count, j < b.count {
            if a[i] == b[j] { return true }
            if a[i] < b[j] { i += 1 } else { j += 1 }
        }
        return false
    }
}
