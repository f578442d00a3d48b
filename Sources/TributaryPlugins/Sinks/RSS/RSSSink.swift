import TributaryPluginKit
import TributaryCore

/// `rss`: an RSS 2.0 file of the newest `max_items` items across runs, rewritten atomically
/// after every batch so a reader never sees a partial file and an item is only recorded as
/// emitted once it is in the file. The window, its state and its read-back without state are
/// `FeedFile`'s; this type only renders and reads RSS.
public enum RSSSink {
    public static let descriptor = FeedFileOptions.descriptor(RSSFormat.self, summary: "an RSS 2.0 file of the newest items")
}

/// RSS 2.0 with the Dublin Core (`dc:creator`) and Media RSS (`media:thumbnail`) namespaces,
/// and with `self_url` an `atom:link rel="self"` (the RSS Advisory Board's recommendation). An
/// item's `content_html` is its `content:encoded` (RSS's content module, escaped like every
/// text), whose namespace is declared only when an item of the file has one; the plain
/// `content` has no element of its own.
/// Every text is escaped and stripped of what XML 1.0 forbids (`XML.escape`).
struct RSSFormat: FeedFormat {
    static let type = "rss"
    static let documentName = "an RSS 2.0 document"
    /// RSS's content module (`content:encoded`).
    static let contentNamespace = "http://purl.org/rss/1.0/modules/content/"

    func render(_ items: [Item], feed: FeedChannel, now: Timestamp) -> [UInt8] {
        var x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        x += "<rss version=\"2.0\" xmlns:dc=\"http://purl.org/dc/elements/1.1/\" xmlns:media=\"http://search.yahoo.com/mrss/\""
            + (items.contains { $0.contentHTML != nil } ? " xmlns:content=\"\(Self.contentNamespace)\"" : "")
            + (feed.selfURL == nil ? "" : " xmlns:atom=\"http://www.w3.org/2005/Atom\"") + ">\n<channel>\n"
        x += "  <title>\(XML.escape(feed.title))</title>\n  <link>\(XML.escape(feed.link))</link>\n"
        if let selfURL = feed.selfURL { x += "  <atom:link href=\"\(XML.escapeAttribute(selfURL))\" rel=\"self\" type=\"application/rss+xml\"/>\n" }
        x += "  <description>\(XML.escape(feed.description))</description>\n"
        x += "  <generator>tributary/\(Tributary.version)</generator>\n  <lastBuildDate>\(now.rfc822)</lastBuildDate>\n"
        for item in items {
            x += "  <item>\n    <title>\(XML.escape(item.title))</title>\n"
            if let url = item.url { x += "    <link>\(XML.escape(url))</link>\n" }
            if let s = item.summary { x += "    <description>\(XML.escape(s))</description>\n" }
            if let html = item.contentHTML { x += "    <content:encoded>\(XML.escape(html))</content:encoded>\n" }
            if let a = item.author { x += "    <dc:creator>\(XML.escape(a))</dc:creator>\n" }
            for tag in item.tags { x += "    <category>\(XML.escape(tag))</category>\n" }
            x += "    <guid isPermaLink=\"false\">\(XML.escape(item.id))</guid>\n"
            x += "    <pubDate>\((item.published ?? item.fetched).rfc822)</pubDate>\n"
            if let img = item.image { x += "    <media:thumbnail url=\"\(XML.escapeAttribute(img))\"/>\n" }
            x += "  </item>\n"
        }
        x += "</channel>\n</rss>\n"
        return Array(x.utf8)
    }

    /// The items of a file `render` wrote: `guid` is the id, `pubDate` the date.
    func readBack(_ bytes: [UInt8]) throws(FeedReadError) -> [Item] {
        let root: XML.Element
        do { root = try XML.parse(bytes) } catch { throw FeedReadError(error.description) }
        guard root.name == "rss", let channel = root.child("channel") else {
            throw FeedReadError("its root element is <\(root.name)>, not <rss> holding a <channel>")
        }
        return try FeedFormats.readBack(channel.children("item"), type: Self.type, noun: "item",
                                        id: ("<guid>", { $0.child("guid")?.text }),
                                        date: ("RFC 822 <pubDate>", { $0.child("pubDate").flatMap { Timestamp.parseRFC822($0.text) } })) { item, e in
            item.title = e.child("title")?.text ?? ""
            item.published = item.fetched
            item.url = e.child("link")?.text
            item.summary = e.child("description")?.text
            item.contentHTML = e.child("content:encoded")?.text
            item.author = e.child("dc:creator")?.text
            item.tags = e.children("category").map(\.text)
            item.image = e.child("media:thumbnail")?.attribute("url")
        }
    }
}
