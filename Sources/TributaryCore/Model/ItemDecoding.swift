import FoundationEssentials
import Glibc
import Dispatch

extension Item {
    /// Reads an item back from its JSON Lines form (the rss window kept in state).
    public init(jsonLine bytes: [UInt8]) throws {
        let n = JSONNode(try JSONParser.parse(bytes))
        guard let fetched = Timestamp.parseRFC3339(try n["fetched"].string()) else {
            throw JSONAccessError(path: "fetched", expected: "an RFC 3339 date", found: "string")
        }
        self.init(id: try n["id"].string(), source: try n["source"].string(), type: try n["type"].string(),
                  kind: try n["kind"].string(), title: try n["title"].string(), fetched: fetched)
        summary = try n["summary"].optionalString()
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
    /// the run gave it), to notice content that changed under the same id.
    public var contentHash: String {
        var copy = self
        copy.source = ""
        copy.type = ""
        copy.fetched = Timestamp(seconds: 0)
        copy.story = nil
        copy.data["updated"] = nil
        return Digest.hex(Array(Digest.sha1(copy.jsonLine()).prefix(10)))
    }
}
