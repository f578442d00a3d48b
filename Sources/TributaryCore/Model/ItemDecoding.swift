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
    public var contentHash: String {
        var copy = self
        copy.source = ""
        copy.type = ""
        copy.fetched = Timestamp(seconds: 0)
        copy.story = nil
        copy.content = nil
        copy.contentHTML = nil
        copy.data["updated"] = nil
        return Digest.hex(Array(Digest.sha1(copy.jsonLine()).prefix(10)))
    }
}
