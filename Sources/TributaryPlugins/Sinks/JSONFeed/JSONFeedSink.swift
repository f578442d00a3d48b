import TributaryPluginKit
import TributaryCore

/// `jsonfeed`: a JSON Feed 1.1 file of the newest `max_items` items across runs, with the rss
/// sink's window and atomic replace (`FeedFile`); an item's `id` is the item id.
public enum JSONFeedSink {
    public static let descriptor = FeedFileOptions.descriptor(JSONFeedFormat.self, summary: "a JSON Feed 1.1 file of the newest items")
}

/// JSON Feed 1.1 (https://jsonfeed.org/version/1.1): `link` is `home_page_url`, `self_url` is
/// `feed_url` (when given); per item `id`, `url`, `title`, `content_html` (the item's, when it
/// has one), `content_text` (the item's `content`, else its summary, else empty: an item must
/// have content), `summary` (only beside a `content`: the item's summary), `image`,
/// `date_published` (RFC 3339: `published`, else `fetched`), `authors` and `tags`. Reading
/// back, a `summary` key makes `content_text` the content; without one, `content_text` is the
/// summary, so an item with a content and no summary comes back with that text as its
/// summary, which renders the same item again.
/// Written indented, UTF-8 with non-ASCII as itself; the JSON writer escapes every control
/// character, so the file is valid JSON whatever the item text holds.
struct JSONFeedFormat: FeedFormat {
    static let type = "jsonfeed"
    static let documentName = "a JSON Feed 1.1 document"
    static let version = "https://jsonfeed.org/version/1.1"

    func render(_ items: [Item], feed: FeedChannel, now: Timestamp) -> [UInt8] {
        let entries: [JSONValue] = items.map { item in
            var o: [(key: String, value: JSONValue)] = [("id", .string(item.id))]
            if let url = item.url { o.append(("url", .string(url))) }
            o.append(("title", .string(item.title)))
            if let html = item.contentHTML { o.append(("content_html", .string(html))) }
            // An empty content is none (it would read back as none).
            let content = item.content.flatMap { $0.isEmpty ? nil : $0 }
            o.append(("content_text", .string(content ?? item.summary ?? "")))
            if content != nil, let summary = item.summary { o.append(("summary", .string(summary))) }
            if let img = item.image { o.append(("image", .string(img))) }
            o.append(("date_published", .string((item.published ?? item.fetched).rfc3339)))
            if let a = item.author { o.append(("authors", .array([.object(JSONObject([("name", .string(a))]))]))) }
            if !item.tags.isEmpty { o.append(("tags", .array(item.tags.map { .string($0) }))) }
            return .object(JSONObject(o))
        }
        var members: [(key: String, value: JSONValue)] = [("version", .string(Self.version)), ("title", .string(feed.title)), ("home_page_url", .string(feed.link))]
        if let selfURL = feed.selfURL { members.append(("feed_url", .string(selfURL))) }
        members += [("description", .string(feed.description)), ("items", .array(entries))]
        return JSONWriter.prettyPrinted(.object(JSONObject(members)))
    }

    /// The items of a file `render` wrote: `id` is the id, `date_published` the date.
    func readBack(_ bytes: [UInt8]) throws(FeedReadError) -> [Item] {
        let root: JSONValue
        do { root = try JSONParser.parse(bytes) } catch { throw FeedReadError("not JSON: \(error)") }
        guard let document = root.objectValue, let version = document["version"]?.stringValue, version.hasPrefix("https://jsonfeed.org/version/1") else {
            throw FeedReadError("it is not an object with \"version\": \"\(Self.version)\"")
        }
        guard let list = document["items"]?.arrayValue else { throw FeedReadError("it has no \"items\" array") }
        return try FeedFormats.readBack(list, type: Self.type, noun: "item",
                                        id: ("\"id\" string", { $0.objectValue?["id"]?.stringValue }),
                                        date: ("RFC 3339 \"date_published\"", { $0.objectValue?["date_published"]?.stringValue.flatMap(Timestamp.parseRFC3339) })) { item, value in
            let o = value.objectValue ?? JSONObject()
            item.title = o["title"]?.stringValue ?? ""
            item.published = item.fetched
            item.url = o["url"]?.stringValue
            let text = o["content_text"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
            if let summary = o["summary"]?.stringValue {
                item.summary = summary
                item.content = text
            } else {
                item.summary = text
            }
            item.contentHTML = o["content_html"]?.stringValue
            item.image = o["image"]?.stringValue
            item.author = o["authors"]?.arrayValue?.first?.objectValue?["name"]?.stringValue
            item.tags = o["tags"]?.arrayValue?.compactMap(\.stringValue) ?? []
        }
    }
}
