import TributaryPluginKit
import TributaryCore

/// `atom`: an Atom 1.0 file (RFC 4287) of the newest `max_items` items across runs, with the
/// rss sink's window and atomic replace (`FeedFile`); `<id>` is the item id.
public enum AtomSink {
    public static let descriptor = FeedFileOptions.descriptor(AtomFormat.self, summary: "an Atom 1.0 file of the newest items")
}

/// Atom 1.0 with Media RSS thumbnails. The feed's `<id>` and alternate link are `link`, and its
/// `rel="self"` link is `self_url` when given (RFC 4287 4.1.1 says a feed should have one); an
/// entry's `<updated>` is its `published` time, else `fetched`, and `<published>` is written
/// only for an item that has one. Texts are `type="text"` (the default), escaped like rss; no
/// `xml:lang`. Atom wants an author for every entry: when an item has none the feed carries
/// one, named after the feed's title. An entry has at most one `<content>`: the item's
/// `content_html` as `<content type="html">` (escaped, as RFC 4287 4.1.3.3 says), else its
/// plain `content` as `<content type="text">`; Atom wants a link or a content in every entry,
/// so an item with neither content nor url gets `<content type="text">` with its summary or
/// else its title. Reading back, `<summary>` is the summary, an html content the
/// `content_html`, and a text content the `content` unless it is that stand-in (no url and the
/// summary's or title's text), so a file read back renders as it was; with `content_html`
/// written, the plain `content` is not in the file.
struct AtomFormat: FeedFormat {
    static let type = "atom"
    static let documentName = "an Atom 1.0 document"

    func render(_ items: [Item], feed: FeedChannel, now: Timestamp) -> [UInt8] {
        var x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        x += "<feed xmlns=\"http://www.w3.org/2005/Atom\" xmlns:media=\"http://search.yahoo.com/mrss/\">\n"
        x += "  <id>\(XML.escape(feed.link))</id>\n  <title>\(XML.escape(feed.title))</title>\n"
        x += "  <subtitle>\(XML.escape(feed.description))</subtitle>\n"
        x += "  <link rel=\"alternate\" href=\"\(XML.escapeAttribute(feed.link))\"/>\n"
        if let selfURL = feed.selfURL { x += "  <link rel=\"self\" type=\"application/atom+xml\" href=\"\(XML.escapeAttribute(selfURL))\"/>\n" }
        if items.contains(where: { $0.author == nil }) { x += "  <author><name>\(XML.escape(feed.title))</name></author>\n" }
        x += "  <generator version=\"\(Tributary.version)\">tributary</generator>\n  <updated>\(now.rfc3339)</updated>\n"
        for item in items {
            x += "  <entry>\n    <id>\(XML.escape(item.id))</id>\n    <title>\(XML.escape(item.title))</title>\n"
            if let url = item.url { x += "    <link rel=\"alternate\" href=\"\(XML.escapeAttribute(url))\"/>\n" }
            if let p = item.published { x += "    <published>\(p.rfc3339)</published>\n" }
            x += "    <updated>\((item.published ?? item.fetched).rfc3339)</updated>\n"
            if let a = item.author { x += "    <author><name>\(XML.escape(a))</name></author>\n" }
            if let s = item.summary { x += "    <summary>\(XML.escape(s))</summary>\n" }
            if let html = item.contentHTML {
                x += "    <content type=\"html\">\(XML.escape(html))</content>\n"
            } else if let text = item.content {
                x += "    <content type=\"text\">\(XML.escape(text))</content>\n"
            } else if item.url == nil {
                x += "    <content type=\"text\">\(XML.escape(item.summary ?? item.title))</content>\n"
            }
            for tag in item.tags { x += "    <category term=\"\(XML.escapeAttribute(tag))\"/>\n" }
            if let img = item.image { x += "    <media:thumbnail url=\"\(XML.escapeAttribute(img))\"/>\n" }
            x += "  </entry>\n"
        }
        x += "</feed>\n"
        return Array(x.utf8)
    }

    /// The items of a file `render` wrote: `<id>` is the id, `<updated>` the date.
    func readBack(_ bytes: [UInt8]) throws(FeedReadError) -> [Item] {
        let root: XML.Element
        do { root = try XML.parse(bytes) } catch { throw FeedReadError(error.description) }
        guard root.name == "feed", root.attribute("xmlns") == "http://www.w3.org/2005/Atom" else {
            throw FeedReadError("its root element is <\(root.name)>, not <feed xmlns=\"http://www.w3.org/2005/Atom\">")
        }
        return try FeedFormats.readBack(root.children("entry"), type: Self.type, noun: "entry",
                                        id: ("<id>", { $0.child("id")?.text }),
                                        date: ("RFC 3339 <updated>", { $0.child("updated").flatMap { Timestamp.parseRFC3339($0.text) } })) { item, e in
            item.title = e.child("title")?.text ?? ""
            item.published = e.child("published").flatMap { Timestamp.parseRFC3339($0.text) }
            item.url = e.children("link").first { ($0.attribute("rel") ?? "alternate") == "alternate" }?.attribute("href")
            item.summary = e.child("summary")?.text
            if let content = e.child("content") {
                if content.attribute("type") == "html" {
                    item.contentHTML = content.text
                } else if item.url != nil || content.text != (item.summary ?? item.title) {
                    item.content = content.text
                }
            }
            item.author = e.child("author")?.child("name")?.text
            item.tags = e.children("category").compactMap { $0.attribute("term") }
            item.image = e.child("media:thumbnail")?.attribute("url")
        }
    }
}
