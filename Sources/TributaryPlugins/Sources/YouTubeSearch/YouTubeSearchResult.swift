import TributaryPluginKit
import FoundationEssentials
import Glibc
import Dispatch
import TributaryCore

/// Maps one `search.list` result (`youtube#searchResult`) to an item. The result's kind comes from
/// `id.kind`, not from the request's `type`, so mixed responses map each result on its own.
enum YouTubeSearchResult {
    enum Outcome {
        case item(Item)
        /// A kind this version does not know (reported, not fatal).
        case unknownKind(String, KeyPath)
    }

    /// A result kind: its name (`video`) gives the rest, as the API and the items name them.
    struct Kind {
        let name: String
        let url: @Sendable (String) -> String

        /// Where the result's id is in `id` (`videoId`).
        var idKey: String { name + "Id" }
        /// The id's key in the item's `data` (`video_id`).
        var dataKey: String { name + "_id" }
        /// What a title says when the result has none (`YouTube video`).
        var label: String { "YouTube " + name }
    }

    static let kinds: [String: Kind] = [
        "youtube#video": Kind(name: "video") { "https://www.youtube.com/watch?v=" + URLEncoding.encode($0) },
        "youtube#channel": Kind(name: "channel") { "https://www.youtube.com/channel/" + URLEncoding.encode($0) },
        "youtube#playlist": Kind(name: "playlist") { "https://www.youtube.com/playlist?list=" + URLEncoding.encode($0) },
    ]

    /// Best first: the API sends the sizes the video has, `maxres` and `standard` only for some.
    static let thumbnailSizes = ["maxres", "standard", "high", "medium", "default"]

    static func item(from node: JSONNode, context: FetchContext) throws(JSONAccessError) -> Outcome {
        let idNode = node[key: "id"]
        let kindNode = idNode[key: "kind"]
        let kindName = try kindNode.string()
        guard let kind = kinds[kindName] else { return .unknownKind(kindName, kindNode.path) }
        let nativeNode = idNode[key: kind.idKey]
        let native = try nativeNode.string(allowNumber: true).trimmingWhitespaceAndNewlines
        if native.isEmpty { throw JSONAccessError(path: nativeNode.path, expected: "a non-empty \(kind.idKey)", found: "\"\"") }

        let snippet = node[key: "snippet"]
        if !snippet.isMissing { _ = try snippet.object() }
        let title = try text(snippet[key: "title"])
        let description = try text(snippet[key: "description"])
        let channelTitle = try text(snippet[key: "channelTitle"])

        var item = context.item(id: "youtube:\(kind.name):\(native)", kind: kind.name, title: title.map(oneLine) ?? fallbackTitle(kind, native, description))
        item.summary = description
        item.url = kind.url(native)
        item.image = try bestThumbnail(snippet[key: "thumbnails"])
        item.author = channelTitle.map(oneLine)
        let published = snippet[key: "publishedAt"]
        if let s = try published.optionalString(), !s.isEmpty {
            guard let t = Timestamp.parseRFC3339(s) else {
                throw JSONAccessError(path: published.path, expected: "an RFC 3339 date", found: "\"\(s.count > 40 ? String(s.prefix(40)) + "..." : s)\"")
            }
            item.published = t
        }
        item.data[kind.dataKey] = .string(native)
        if kind.dataKey != "channel_id", let channelID = try snippet[key: "channelId"].optionalString(allowNumber: true), !channelID.isEmpty {
            item.data["channel_id"] = .string(channelID)
        }
        if let channelTitle { item.data["channel_title"] = .string(channelTitle) }
        if let live = try snippet[key: "liveBroadcastContent"].optionalString(), !live.isEmpty {
            item.data["live_broadcast_content"] = .string(live)
        }
        return .item(item)
    }

    /// Entity-decoded, trimmed text; nil when absent or blank. The API HTML-escapes titles and descriptions.
    static func text(_ node: JSONNode) throws(JSONAccessError) -> String? {
        guard let raw = try node.optionalString(allowNumber: true) else { return nil }
        let t = HTMLText.decodeEntities(raw).trimmingWhitespaceAndNewlines
        return t.isEmpty ? nil : t
    }

    static func oneLine(_ s: String) -> String {
        s.split(whereSeparator: \.isNewline).map { $0.trimmingBlanks }.filter { !$0.isEmpty }.joined(separator: " ")
    }

    /// The start of the description, else `YouTube video <id>`.
    static func fallbackTitle(_ kind: Kind, _ native: String, _ description: String?) -> String {
        if let d = description.map(oneLine), !d.isEmpty {
            return d.count > 80 ? String(d.prefix(79)) + "…" : d
        }
        return "\(kind.label) \(native)"
    }

    static func bestThumbnail(_ thumbnails: JSONNode) throws(JSONAccessError) -> String? {
        if thumbnails.isMissing { return nil }
        _ = try thumbnails.object()
        for size in thumbnailSizes {
            let u = thumbnails[key: size][key: "url"]
            if let s = try u.optionalString()?.trimmingBlanks, s.hasPrefix("https://") || s.hasPrefix("http://") {
                return s
            }
        }
        return nil
    }
}
