/// One unified item, the unit every source produces and every sink consumes (Docs/contract.md#items).
/// `id` is stable across runs for the same real-world thing: `<family>:<native id>`.
public struct Item: Sendable, Equatable {
    public var id: String
    public var source: String
    public var type: String
    public var kind: String
    public var title: String
    /// Seconds since 1970 (UTC).
    public var published: Timestamp?
    public var fetched: Timestamp
    public var tags: [String]
    public var geo: Geo?
    /// Kind-specific fields, snake_case keys, in insertion order.
    public var data: JSONObject

    // The optional texts are kept as strings (empty when absent) and a bit each in `present`.
    // With seven `String?`s stored, Swift built every new item on the stack and copied it out
    // (a retain of each of its strings, then a release of each), inside the initializer:
    // Optional<String> members make the struct one it moves through memory (2026-12-05,
    // Docs/PERFORMANCE.md). The properties below read and write them as before.
    @usableFromInline var storedSummary: String
    @usableFromInline var storedContent: String
    @usableFromInline var storedContentHTML: String
    @usableFromInline var storedURL: String
    @usableFromInline var storedImage: String
    @usableFromInline var storedAuthor: String
    @usableFromInline var storedStory: String
    @usableFromInline var present: UInt8

    @usableFromInline static let summaryBit: UInt8 = 1, contentBit: UInt8 = 2, contentHTMLBit: UInt8 = 4, urlBit: UInt8 = 8
    @usableFromInline static let imageBit: UInt8 = 16, authorBit: UInt8 = 32, storyBit: UInt8 = 64

    @inlinable
    public var summary: String? {
        get { present & Self.summaryBit != 0 ? storedSummary : nil }
        set { Self.store(newValue, in: &storedSummary, bit: Self.summaryBit, of: &present) }
    }
    /// The article's main text, plain: paragraphs separated by one blank line (the `fulltext`
    /// processor sets it, Docs/contract.md#items); nil without one. Not part of `contentHash`.
    @inlinable
    public var content: String? {
        get { present & Self.contentBit != 0 ? storedContent : nil }
        set { Self.store(newValue, in: &storedContent, bit: Self.contentBit, of: &present) }
    }
    /// The same content as sanitized HTML (`content_html`); nil without one.
    @inlinable
    public var contentHTML: String? {
        get { present & Self.contentHTMLBit != 0 ? storedContentHTML : nil }
        set { Self.store(newValue, in: &storedContentHTML, bit: Self.contentHTMLBit, of: &present) }
    }
    @inlinable
    public var url: String? {
        get { present & Self.urlBit != 0 ? storedURL : nil }
        set { Self.store(newValue, in: &storedURL, bit: Self.urlBit, of: &present) }
    }
    @inlinable
    public var image: String? {
        get { present & Self.imageBit != 0 ? storedImage : nil }
        set { Self.store(newValue, in: &storedImage, bit: Self.imageBit, of: &present) }
    }
    @inlinable
    public var author: String? {
        get { present & Self.authorBit != 0 ? storedAuthor : nil }
        set { Self.store(newValue, in: &storedAuthor, bit: Self.authorBit, of: &present) }
    }
    /// The story it tells (`story:` + 16 hex digits), given by the `stories` stage
    /// (Docs/stories.md); nil without one.
    @inlinable
    public var story: String? {
        get { present & Self.storyBit != 0 ? storedStory : nil }
        set { Self.store(newValue, in: &storedStory, bit: Self.storyBit, of: &present) }
    }

    /// `value` into `slot` and its bit into `present`; an absent value leaves the slot empty,
    /// so two items that say the same are equal field for field.
    @inlinable
    static func store(_ value: String?, in slot: inout String, bit: UInt8, of present: inout UInt8) {
        if let value {
            slot = value
            present |= bit
        } else {
            slot = ""
            present &= ~bit
        }
    }

    public init(
        id: String, source: String, type: String, kind: String, title: String,
        summary: String? = nil, content: String? = nil, contentHTML: String? = nil, url: String? = nil, image: String? = nil, author: String? = nil,
        published: Timestamp? = nil, fetched: Timestamp, tags: [String] = [], story: String? = nil, geo: Geo? = nil,
        data: JSONObject = JSONObject()
    ) {
        self.id = id
        self.source = source
        self.type = type
        self.kind = kind
        self.title = title
        var bits: UInt8 = 0
        if let summary { storedSummary = summary; bits |= Self.summaryBit } else { storedSummary = "" }
        if let content { storedContent = content; bits |= Self.contentBit } else { storedContent = "" }
        if let contentHTML { storedContentHTML = contentHTML; bits |= Self.contentHTMLBit } else { storedContentHTML = "" }
        if let url { storedURL = url; bits |= Self.urlBit } else { storedURL = "" }
        if let image { storedImage = image; bits |= Self.imageBit } else { storedImage = "" }
        if let author { storedAuthor = author; bits |= Self.authorBit } else { storedAuthor = "" }
        if let story { storedStory = story; bits |= Self.storyBit } else { storedStory = "" }
        present = bits
        self.published = published
        self.fetched = fetched
        self.tags = tags
        self.geo = geo
        self.data = data
    }
}

extension Item {
    /// The longest id an item may have, in UTF-8 bytes (Docs/contract.md#items): every state
    /// backend and every sink takes an id up to this length. The engine skips an item with a
    /// longer id, with a warning naming its source, and delivers the rest of its batch.
    public static let maxIDBytes = 16384

    /// Why the engine skips this item, or nil when its id is within `maxIDBytes`.
    public var idLengthProblem: String? {
        let n = id.utf8.count
        guard n > Self.maxIDBytes else { return nil }
        let head = String(id.unicodeScalars.prefix(60).map(Character.init))
        return "item skipped: its id is \(n) bytes, longer than the \(Self.maxIDBytes) an id may have (id \"\(head)...\", title \"\(title.prefix(80))\")"
    }
}

/// A latitude/longitude pair in degrees.
public struct Geo: Sendable, Equatable {
    public var lat: Double
    public var lon: Double
    public init(lat: Double, lon: Double) {
        self.lat = lat
        self.lon = lon
    }
    public var isValid: Bool { lat.isFinite && lon.isFinite && abs(lat) <= 90 && abs(lon) <= 180 }
}

extension Item {
    /// The item as one JSON Lines record (without the newline), keys in Docs/contract.md order,
    /// optional fields omitted when absent.
    public func jsonLine() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(512)
        appendJSON(into: &out)
        return out
    }

    public func appendJSON(into out: inout [UInt8]) {
        let writer = ItemJSONWriter(capacity: 512)
        withUnsafePointer(to: self) { writer.append($0, into: &out) }
    }

    /// The item as a JSON value: the object its line writes (`appendJSON`), field for field and
    /// in the same order, built directly (what the jq processor runs a plain program on).
    public func jsonValue() -> JSONValue {
        var o: [(key: String, value: JSONValue)] = []
        o.reserveCapacity(16)
        o.append(("id", .string(id)))
        o.append(("source", .string(source)))
        o.append(("type", .string(type)))
        o.append(("kind", .string(kind)))
        o.append(("title", .string(title)))
        if let summary { o.append(("summary", .string(summary))) }
        if let content { o.append(("content", .string(content))) }
        if let contentHTML { o.append(("content_html", .string(contentHTML))) }
        if let url { o.append(("url", .string(url))) }
        if let image { o.append(("image", .string(image))) }
        if let author { o.append(("author", .string(author))) }
        if let published { o.append(("published", .string(published.rfc3339))) }
        o.append(("fetched", .string(fetched.rfc3339)))
        if !tags.isEmpty { o.append(("tags", .array(tags.map { .string($0) }))) }
        if let story { o.append(("story", .string(story))) }
        if let geo, geo.isValid { o.append(("geo", .object(JSONObject([("lat", .double(geo.lat)), ("lon", .double(geo.lon))])))) }
        if !data.isEmpty { o.append(("data", .object(data))) }
        return .object(JSONObject(o))
    }
}
