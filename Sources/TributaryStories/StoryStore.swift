// Where stories are remembered. The matcher asks a store for the records filed under some keys
// and files new records under theirs; a store is a multimap from 64-bit keys to records, which is
// what a SQL table with an index on the key is:
//
//   CREATE TABLE story_keys (key INTEGER NOT NULL, record INTEGER NOT NULL);
//   CREATE INDEX story_keys_key ON story_keys (key);
//   CREATE TABLE story_records (record INTEGER PRIMARY KEY, story INTEGER, item INTEGER,
//       identity INTEGER, origin INTEGER, host INTEGER, published INTEGER, seen INTEGER, first INTEGER,
//       title BLOB, tags BLOB);
//
// (64-bit values go in as their bit pattern: Int64(bitPattern:).) Retention: delete the records
// whose `seen` is older than the retention, and their keys.

/// `story:` + 16 lower-case hex digits.
public struct StoryID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var value: UInt64

    public init(_ value: UInt64) { self.value = value }

    /// Parses `story:` + 16 hex digits (either case).
    public init?(_ text: String) {
        guard text.hasPrefix("story:"), text.utf8.count == 22, let v = UInt64(text.dropFirst(6), radix: 16) else { return nil }
        value = v
    }

    public var description: String {
        let hex = String(value, radix: 16)
        return "story:" + String(repeating: "0", count: 16 - hex.utf8.count) + hex
    }

    public static func < (a: StoryID, b: StoryID) -> Bool { a.value < b.value }

    /// The story id a first item gives its story: the hash of its canonical URL, or of its id
    /// when it has no URL. Two processes that see the same first item give the same id.
    public static func first(canonicalURL: CanonicalURL?, itemID: String) -> StoryID {
        if let url = canonicalURL { return StoryID(url.hash) }
        return StoryID(stableHash(itemID, seed: HashSeed.itemID))
    }
}

/// One remembered item: what verification needs to decide whether a later item tells its story.
/// (The fields verification reads first come first, with the title's bloom: one cache line.)
public struct StoryRecord: Sendable, Equatable {
    /// The hash of the item's canonical URL (its id's hash when it has no URL): equal
    /// identities are one page.
    public var identity: UInt64
    /// The hash of the item's id: the same item seen again gets its own answer back.
    public var item: UInt64
    /// Seconds since 1970: when it was published (when it was seen, without a date). The
    /// `within` window is measured on this.
    public var published: Int64
    /// The hash of the source that delivered it (or of its URL's host): one outlet never
    /// repeats a story under another link, so equal origins with different identities are a
    /// recurring headline, not a copy. 0 when unknown.
    public var origin: UInt32
    /// The hash of the canonical URL's host (0 without a URL, or for a shortener or a feed
    /// proxy whose host says nothing of the publisher): one site does not publish one story
    /// under two links either, so equal hosts with different identities do not match by title.
    public var host: UInt32
    /// Whether `identity` is a URL's (not an id's).
    public var hasURL: Bool
    /// Whether the item opened its story.
    public var first: Bool
    public var title: TitleSignature
    /// The story the item belongs to.
    public var story: StoryID
    /// Seconds since 1970: when it was recorded. Retention is measured on this.
    public var seen: Int64
    /// Hashes of the item's tags, sorted (empty unless the scope is `tags`).
    public var tags: [UInt32]

    public init(story: StoryID, item: UInt64, identity: UInt64, hasURL: Bool, origin: UInt32, host: UInt32, published: Int64, seen: Int64,
                first: Bool, title: TitleSignature, tags: [UInt32]) {
        self.story = story
        self.item = item
        self.identity = identity
        self.hasURL = hasURL
        self.origin = origin
        self.host = host
        self.published = published
        self.seen = seen
        self.first = first
        self.title = title
        self.tags = tags
    }
}

public protocol StoryStore: AnyObject {
    /// Calls `visit` with each record filed under any of `keys` (each record once), by pointer:
    /// the matcher reads a few fields of most candidates, so the store's own memory is read in
    /// place (a store that decodes rows passes a pointer to each, valid during the call). Keys
    /// come most telling first: the identity, the exact title and the numbers keys (StoryKeys),
    /// then the MinHash bands; a store may stop reading band keys once it has a few dozen
    /// records. `visit` must not call the store.
    func candidates(keys: [UInt64], _ visit: (UnsafePointer<StoryRecord>) -> Void)
    /// Files `record` under each of `keys`.
    func insert(_ record: StoryRecord, keys: [UInt64])
}

extension StoryStore {
    /// The records `candidates(keys:_:)` visits, as an array.
    public func candidates(keys: [UInt64]) -> [StoryRecord] {
        var out: [StoryRecord] = []
        candidates(keys: keys) { out.append($0.pointee) }
        return out
    }
}

extension StoryRecord {
    /// The record as a store that keeps bytes holds it (the engine's state: a value of the
    /// `stories` namespace): a version byte (1), then little-endian `story`, `item`,
    /// `identity`, `published`, `seen` (8 bytes each), `origin`, `host` (4 each), a flags byte
    /// (1: `hasURL`, 2: `first`), the number of tags and their hashes (4 each), then the title's
    /// `TitleSignature.encoded`.
    public var encoded: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(51 + 4 * tags.count + 4 * title.count + 2)
        out.append(1)
        func put<T: FixedWidthInteger>(_ v: T) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
        put(story.value)
        put(item)
        put(identity)
        put(published)
        put(seen)
        put(origin)
        put(host)
        out.append((hasURL ? 1 : 0) | (first ? 2 : 0))
        out.append(UInt8(min(tags.count, 255)))
        for t in tags.prefix(255) { put(t) }
        out.append(contentsOf: title.encoded)
        return out
    }

    /// The inverse of `encoded`; nil when the bytes are not a record of this version.
    public init?(encoded bytes: [UInt8]) {
        guard bytes.count >= 51, bytes[0] == 1 else { return nil }
        var at = 1
        func get<T: FixedWidthInteger>(_: T.Type) -> T {
            var v: T = 0
            withUnsafeMutableBytes(of: &v) { d in
                for i in 0..<MemoryLayout<T>.size { d[i] = bytes[at + i] }
            }
            at += MemoryLayout<T>.size
            return T(littleEndian: v)
        }
        let story = get(UInt64.self), item = get(UInt64.self), identity = get(UInt64.self)
        let published = get(Int64.self), seen = get(Int64.self)
        let origin = get(UInt32.self), host = get(UInt32.self)
        let flags = bytes[at]
        let tagCount = Int(bytes[at + 1])
        at += 2
        guard bytes.count >= at + 4 * tagCount else { return nil }
        var tags: [UInt32] = []
        tags.reserveCapacity(tagCount)
        for _ in 0..<tagCount { tags.append(get(UInt32.self)) }
        guard let title = TitleSignature(encoded: Array(bytes[at...])) else { return nil }
        self.init(story: StoryID(story), item: item, identity: identity, hasURL: flags & 1 != 0, origin: origin, host: host, published: published,
                  seen: seen, first: flags & 2 != 0, title: title, tags: tags)
    }
}
