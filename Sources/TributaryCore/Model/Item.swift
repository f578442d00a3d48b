/// One unified item, the unit every source produces and every sink consumes (Docs/contract.md#items).
/// `id` is stable across runs for the same real-world thing: `<family>:<native id>`.
public struct Item: Sendable, Equatable {
    public var id: String
    public var source: String
    public var type: String
    public var kind: String
    public var title: String
    public var summary: String?
    /// The article's main text, plain: paragraphs separated by one blank line (the `fulltext`
    /// processor sets it, Docs/contract.md#items); nil without one. Not part of `contentHash`.
    public var content: String?
    /// The same content as sanitized HTML (`content_html`); nil without one.
    public var contentHTML: String?
    public var url: String?
    public var image: String?
    public var author: String?
    /// Seconds since 1970 (UTC).
    public var published: Timestamp?
    public var fetched: Timestamp
    public var tags: [String]
    /// The story it tells (`story:` + 16 hex digits), given by the `stories` stage
    /// (Docs/stories.md); nil without one.
    public var story: String?
    public var geo: Geo?
    /// Kind-specific fields, snake_case keys, in insertion order.
    public var data: JSONObject

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
        self.summary = summary
        self.content = content
        self.contentHTML = contentHTML
        self.url = url
        self.image = image
        self.author = author
        self.published = published
        self.fetched = fetched
        self.tags = tags
        self.story = story
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
