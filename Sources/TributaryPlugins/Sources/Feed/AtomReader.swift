import TributaryPluginKit
import TributaryCore

/// Atom 1.0 (and the older 0.3 namespace) `<feed><entry>`, including YouTube channel feeds,
/// whose entries carry `yt:videoId`, `yt:channelId` and a `media:group`.
enum AtomReader {
    /// One `<entry>`, read whole. An entry with no author of its own leaves `author` nil: the
    /// feed's authors stand in when items are made (the feed's `<author>` may come later).
    static func entry(_ el: XMLElementNode) -> FeedEntry {
        let ns = FeedNamespace.self
        var e = FeedEntry()
        e.nativeID = el.childText(ns.atom, "id")
        e.title = el.child(ns.atom, "title").flatMap(text).flatMap(FeedText.title)
        let links = el.children(ns.atom, "link")
        let alternates = links.filter { ($0.attribute("rel") ?? "alternate") == "alternate" }
        let preferred = alternates.first { ($0.attribute("type") ?? "text/html").lowercased().contains("html") } ?? alternates.first
        e.url = preferred.flatMap { Links.absolute($0.attribute("href"), base: $0.base) }
        let content = el.child(ns.atom, "content").flatMap { $0.attribute("src") == nil ? $0 : nil }
        e.summary = el.child(ns.atom, "summary").flatMap(text) ?? content.flatMap(text)
        e.setDate([el.childText(ns.atom, "published"), el.childText(ns.atom, "updated"), el.childText(ns.atom, "issued"),
                   el.childText(ns.atom, "modified"), el.childText(ns.dc, "date")])
        e.author = authors(el) ?? FeedText.names(el.children(ns.dc, "creator").compactMap { FeedText.title($0.trimmedText) })
        for c in el.children(ns.atom, "category") { e.addTag(c.attribute("label") ?? c.attribute("term")) }
        e.image = FeedImages.media(el)
            ?? links.first { $0.attribute("rel") == "enclosure" && FeedImages.isImage($0) }.flatMap { Links.absolute($0.attribute("href"), base: $0.base) }
            ?? FeedImages.itunes(el)
        if let video = el.childText(ns.youtube, "videoId") {
            let group = el.child(ns.media, "group")
            e.youtubeVideoID = video
            e.youtubeChannelID = el.childText(ns.youtube, "channelId")
            if e.title == nil { e.title = FeedText.title(group?.childText(ns.media, "title")) }
            e.summary = FeedText.plain(text: group?.child(ns.media, "description")?.ownText)
            if let views = group?.descendant(ns.media, "statistics")?.attribute("views").flatMap({ Int64(FeedText.trim($0)) }) {
                e.data["views"] = .number(JSONNumber(views))
            }
        }
        return e
    }

    /// Plain text of an Atom text construct (`type` text, html or xhtml); nil when empty.
    static func text(_ el: XMLElementNode) -> String? {
        switch (el.attribute("type") ?? "text").lowercased() {
        case "html", "text/html":
            return FeedText.plain(html: el.ownText)
        case "xhtml", "application/xhtml+xml":
            // The content is a single xhtml <div> whose children are the markup.
            let div = el.elements.count == 1 ? el.elements[0] : el
            return FeedText.plain(html: div.innerMarkup)
        case let type where type.contains("/") && !type.hasPrefix("text/"):
            return nil  // base64 media or other non-text content
        default:
            return FeedText.plain(text: el.ownText)
        }
    }

    /// `author/name` of each author of an entry or feed, joined.
    static func authors(_ el: XMLElementNode) -> String? {
        FeedText.names(el.children(FeedNamespace.atom, "author").compactMap { FeedText.title($0.childText(FeedNamespace.atom, "name")) })
    }
}
