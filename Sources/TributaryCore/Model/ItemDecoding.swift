import FoundationEssentials
import Glibc
import Dispatch

extension Item {
    /// Reads an item back from its JSON Lines form (the feed files' windows kept in state).
    public init(jsonLine bytes: [UInt8]) throws {
        let n = JSONNode(try JSONParser.parse(bytes))
        guard let fetched = Timestamp.parseRFC3339(try n["fetched"].string()) else {
            throw JSONAccessError(path: "fetched", expected: "an RFC 3339 date", found: "string")
        }
        self.init(id: try n["id"].string(), source: try n["source"].string(), type: try n["type"].string(),
                  kind: try n["kind"].string(), title: try n["title"].string(), fetched: fetched)
        summary = try n["summary"].optionalString()
        content = try n["content"].optionalString()
        contentHTML = try n["content_html"].optionalString()
        url = try n["url"].optionalString()
        image = try n["image"].optionalString()
        author = try n["author"].optionalString()
        published = try n["published"].optionalString().flatMap(Timestamp.parseRFC3339)
        tags = try n["tags"].stringArray()
        story = try n["story"].optionalString()
        if !n["geo"].isMissing { geo = Geo(lat: try n["geo.lat"].double(), lon: try n["geo.lon"].double()) }
        if !n["data"].isMissing { data = try n["data"].object() }
    }

    /// A hash of what the item says (not when or by which source it was fetched, nor the story
    /// the run gave it), to notice content that changed under the same id (`emit_updates`).
    /// The page text a processor added (`content`, `content_html`) is not part of it either: an
    /// item is the same item whether or not its page was fetched, so page text added later (or a
    /// page that changed, or could not be fetched this time) never makes an update, and a state
    /// written before these fields existed keeps matching.
    ///
    /// The first 10 bytes of the SHA-1 of the item's record with `source` and `type` empty,
    /// `fetched` at 0 and those fields left out (`ItemJSONWriter.appendForContentHash`), in hex.
    /// States keep these: the bytes hashed never change.
    public var contentHash: String {
        var line: [UInt8] = []
        line.reserveCapacity(512)
        return withUnsafePointer(to: self) { Item.contentHash($0, ItemJSONWriter(capacity: 512), &line) }
    }

    /// `contentHash` of each of `items`, in order, through one writer and one buffer (a batch's
    /// hashes: no copy of an item, no writer per item).
    public static func contentHashes(_ items: [Item]) -> [String] {
        let writer = ItemJSONWriter(capacity: 512)
        var line: [UInt8] = []
        line.reserveCapacity(512)
        return items.withUnsafeBufferPointer { buffer in
            buffer.indices.map { contentHash(buffer.baseAddress! + $0, writer, &line) }
        }
    }

    private static func contentHash(_ item: UnsafePointer<Item>, _ writer: ItemJSONWriter, _ line: inout [UInt8]) -> String {
        line.removeAll(keepingCapacity: true)
        writer.appendForContentHash(item, into: &line)
        return Digest.hex(Array(Digest.sha1(line).prefix(10)))
    }
}
