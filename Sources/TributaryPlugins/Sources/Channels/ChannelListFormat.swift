import TributaryPluginKit
import TributaryCore

/// The `{"channel": [...]}` list of the original TV app (Docs/origins.md): `key` (a number
/// used as an identifier), `name`, `img_url` / `img`, `isLocked`, `priority`, `tag1` / `tag2`
/// hashtags, `videoUrl` and `videoUrlArr`. Every wrong type is an error naming its key path.
enum ChannelListFormat {
    static func channels(in document: JSONValue) throws(JSONAccessError) -> [Channel] {
        let root = JSONNode(document)
        _ = try root.object()
        var out: [Channel] = []
        for el in try root[key: "channel"].array() {
            _ = try el.object()
            var c = Channel(id: try el[key: "key"].identifier(), name: try el[key: "name"].optionalString() ?? "")
            // The app's own main stream first, then the alternatives (duplicates dropped).
            if let main = try el[key: "videoUrl"].trimmedString() { c.addStream(ChannelStream(url: main)) }
            for u in try el[key: "videoUrlArr"].trimmedStrings() { c.addStream(ChannelStream(url: u)) }
            c.logo = try el[key: "img_url"].trimmedString()
            if c.logo == nil { c.logo = try el[key: "img"].trimmedString() }
            c.locked = try el[key: "isLocked"].optionalBool(lenient: true)
            c.priority = try el[key: "priority"].optionalInt(allowString: true)
            for key in ["tag1", "tag2"] {
                if let tag = try el[key: key].trimmedString() { c.tags.append(tag) }
            }
            // The hashtags are the list's categories: `#музыкальный` -> `музыкальный`.
            c.categories = c.tags.map(ChannelsSource.categoryKey).filter { !$0.isEmpty }
            out.append(c)
        }
        return out
    }
}
