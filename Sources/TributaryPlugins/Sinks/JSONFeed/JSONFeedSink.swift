import TributaryPluginKit
import TributaryCore

/// `jsonfeed`: a JSON Feed 1.1 file of the newest `max_items` items across runs, with the rss
/// sink's window and atomic replace (`FeedFile`); an item's `id` is the item id.
public enum JSONFeedSink {
    public static let descriptor = FeedFileOptions.descriptor(type: "jsonfeed", summary: "a JSON Feed 1.1 file of the newest items") { title, link, description, selfURL in
        JSONFeedFormat(title: title, link: link, description: description, selfURL: selfURL)
    }

    /// A jsonfeed sink writing `path` (what the descriptor makes from a config).
    public static func make(path: String, title: String, link: String, description: String, maxItems: Int, selfURL: String? = nil) -> FeedFile {
        FeedFile(format: JSONFeedFormat(title: title, link: link, description: description, selfURL: selfURL), path: path, maxItems: maxItems)
    }
}

/// JSON Feed 1.1 (https://jsonfeed.org/version/1.1): `link` is `home_page_url`, `self_url` is
/// `feed_url` (when given); per item `id`,
/// `url`, `title`, `content_text` (the summary, or empty: an item must have content),
/// `image`, `date_published` (RFC 3339: `published`, else `fetched`), `authors` and `tags`.
/// Written indented, UTF-8 with non-ASCII as itself; the JSON writer escapes every control
/// character, so the file is valid JSON whatever the item text holds.
struct JSONFeedFormat: FeedFormat {
    let title: String
    let link: String
    let description: String
    /// Where the file is served (`self_url`), if given.
    var selfURL: String? = nil

    static let version = "https://jsonfeed.org/version/1.1"
    var type: String { "jsonfeed" }
    var documentName: String { "a JSON Feed 1.1 document" }

    func render(_ items: [Item], now: Timestamp) -> [UInt8] {
        let entries: [JSONValue] = items.map { item in
            var o: [(key: String, value: JSONValue)] = [("id", .string(item.id))]
            if let url = item.url { o.append(("url", .string(url))) }
            o.append(("title", .string(item.title)))
            o.append(("content_text", .string(item.summary ?? "")))
            if let img = item.image { o.append(("image", .string(img))) }
            o.append(("date_published", .string((item.published ?? item.fetched).rfc3339)))
            if let a = item.author { o.append(("authors", .array([.object(JSONObject([("name", .string(a))]))]))) }
            if !item.tags.isEmpty { o.append(("tags", .array(item.tags.map { .string($0) }))) }
            return .object(JSONObject(o))
        }
        var members: [(key: String, value: JSONValue)] = [("version", .string(Self.version)), ("title", .string(title)), ("home_page_url", .string(link))]
        if let selfURL { members.append(("feed_url", .string(selfURL))) }
        members += [("description", .string(description)), ("items", .array(entries))]
        let feed = JSONObject(members)
        return JSONWriter.prettyPrinted(.object(feed))
    }

    /// The items of a file `render` wrote: `id` is the id, `date_published` the date.
    func readBack(_ bytes: [UInt8]) throws(FeedReadError) -> [Item] {
        let root: JSONValue
        do { root = try JSONParser.parse(bytes) } catch { throw FeedReadError("not JSON: \(error)") }
        guard let feed = root.objectValue, let version = feed["version"]?.stringValue, version.hasPrefix("https://jsonfeed.org/version/1") else {
            throw FeedReadError("it is not an object with \"version\": \"\(Self.version)\"")
        }
        guard let list = feed["items"]?.arrayValue else { throw FeedReadError("it has no \"items\" array") }
        var items: [Item] = []
        for (n, value) in list.enumerated() {
            guard let o = value.objectValue, let id = o["id"]?.stringValue, !id.isEmpty else { throw FeedReadError("item \(n + 1) has no \"id\" string") }
            guard let text = o["date_published"]?.stringValue, let date = Timestamp.parseRFC3339(text) else {
                throw FeedReadError("item \(n + 1) (\(id)) has no RFC 3339 \"date_published\"")
            }
            var item = FeedFormats.readBackItem(type: type, id: id, title: o["title"]?.stringValue ?? "", date: date)
            item.published = date
            item.url = o["url"]?.stringValue
            item.summary = o["content_text"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
            item.image = o["image"]?.stringValue
            item.author = o["authors"]?.arrayValue?.first?.objectValue?["name"]?.stringValue
            item.tags = o["tags"]?.arrayValue?.compactMap(\.stringValue) ?? []
            items.append(item)
        }
        return items
    }
}
