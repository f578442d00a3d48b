import TributaryPluginKit
import TributaryCore

/// RSS 2.0 (and 0.9x) `<rss><channel><item>` and RSS 1.0 `<rdf:RDF>` with `<item>` beside the
/// channel, plus the usual modules: Dublin Core, content:encoded, Media RSS, iTunes, atom:link.
/// The channel's title is FeedStreamBuilder's.
enum RSSReader {
    /// One `<item>`, read whole (FeedStreamBuilder hands each one over as it ends).
    static func entry(_ item: XMLElementNode) -> FeedEntry {
        let ns = FeedNamespace.self
        var e = FeedEntry()
        let guidNode = item.child(ns.rss, "guid")
        let guid = guidNode?.trimmedText
        let link = Links.absolute(item.childText(ns.rss, "link"), base: item.child(ns.rss, "link")?.base ?? item.base)
            ?? alternateAtomLink(item)
            ?? (guidNode?.attribute("isPermaLink")?.lowercased() == "false" ? nil : Links.absolute(guid, base: item.base))
        e.url = link
        e.nativeID = guid ?? item.attribute("about").map(FeedText.trim).flatMap { $0.isEmpty ? nil : $0 }
        e.title = FeedText.title(item.childText(ns.rss, "title") ?? item.childText(ns.dc, "title"))
        e.summary = FeedText.plain(description: item.child(ns.rss, "description")?.htmlContent)
            ?? FeedText.plain(html: item.child(ns.content, "encoded")?.htmlContent)
            ?? FeedText.plain(text: item.descendant(ns.media, "description")?.ownText)
            ?? FeedText.plain(text: item.childText(ns.itunes, "summary"))
        e.setDate([item.childText(ns.rss, "pubDate"), item.childText(ns.dc, "date"), item.childText(ns.atom, "updated"), item.childText(ns.atom, "published")])
        e.author = FeedText.rssAuthor(item.childText(ns.rss, "author"))
            ?? FeedText.names(item.children(ns.dc, "creator").compactMap { FeedText.title($0.trimmedText) })
            ?? FeedText.title(item.childText(ns.itunes, "author"))
        for c in item.children(ns.rss, "category") { e.addTag(c.ownText) }
        for c in item.children(ns.dc, "subject") { e.addTag(c.ownText) }
        let enclosures = item.children(ns.rss, "enclosure")
        let imageEnclosure = enclosures.first(where: FeedImages.isImage)
        e.image = FeedImages.media(item)
            ?? imageEnclosure.flatMap { Links.absolute($0.attribute("url"), base: $0.base) }
            ?? FeedImages.itunes(item)
        if let enc = enclosures.first(where: { !FeedImages.isImage($0) }), let u = Links.absolute(enc.attribute("url"), base: enc.base) {
            e.data["enclosure_url"] = .string(u)
            if let t = enc.attribute("type"), !t.isEmpty { e.data["enclosure_type"] = .string(t) }
            if let l = enc.attribute("length").flatMap({ Int64(FeedText.trim($0)) }), l > 0 { e.data["enclosure_length"] = .number(JSONNumber(l)) }
        }
        if let d = item.childText(ns.itunes, "duration") { e.data["duration"] = .string(d) }
        if let c = Links.absolute(item.childText(ns.rss, "comments"), base: item.base) { e.data["comments_url"] = .string(c) }
        return e
    }

    static func alternateAtomLink(_ item: XMLElementNode) -> String? {
        for l in item.children(FeedNamespace.atom, "link") where (l.attribute("rel") ?? "alternate") == "alternate" {
            if let u = Links.absolute(l.attribute("href"), base: l.base) { return u }
        }
        return nil
    }
}
