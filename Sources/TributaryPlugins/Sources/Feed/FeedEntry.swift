import TributaryPluginKit
import TributaryCore

/// One entry as a feed reader found it, before it becomes an `Item`: text already plain and
/// trimmed, links already absolute http(s). Fields the feed lacks stay nil.
struct FeedEntry {
    /// guid / atom:id / rdf:about / JSON Feed id, as written.
    var nativeID: String?
    var title: String?
    var summary: String?
    var url: String?
    var image: String?
    var author: String?
    var published: Timestamp?
    /// A date the feed gave but that no known format reads (reported once per fetch).
    var unreadableDate: String?
    var tags: [String] = []
    /// Set for a YouTube channel feed entry (`yt:videoId`): the item is a `video`.
    var youtubeVideoID: String?
    var youtubeChannelID: String?
    var data = JSONObject()

    mutating func addTag(_ raw: String?) {
        guard let raw else { return }
        let t = FeedText.singleLine(raw)
        if !t.isEmpty && !tags.contains(t) { tags.append(t) }
    }

    /// Sets `published` from the first date text that reads; remembers one that does not.
    mutating func setDate(_ candidates: [String?]) {
        for case let text? in candidates {
            let t = FeedText.trim(text)
            guard !t.isEmpty else { continue }
            if let d = Timestamp.parseRFC3339(t) ?? Timestamp.parseAny(t) {
                published = d
                unreadableDate = nil
                return
            }
            if unreadableDate == nil { unreadableDate = t }
        }
    }
}

/// A whole feed: the format it is in, the feed's own title, the entries in order, and for
/// Atom the feed's authors (for entries that name none). `warnings` are what the source would
/// report about the document (WebFeedSource.parse).
struct FeedDocument {
    var format: String
    var title: String?
    var entries: [FeedEntry]
    var feedAuthor: String? = nil
    var warnings: [String] = []
}
