import TributaryPluginKit
import TributaryCore

/// JSON Feed 1.1 (and 1.0): `{"version": "https://jsonfeed.org/version/1.1", "items": [...]}`.
/// Every field is read through `JSONNode`, so a wrong type names its key path
/// (`items[3].tags: expected array, found string`).
enum JSONFeedReader {
    static let versionPrefix = "https://jsonfeed.org/version/"

    /// The `version` string when the document is a JSON Feed, else nil.
    static func version(_ doc: JSONValue) -> String? {
        guard case .string(let v)? = doc.objectValue?["version"], v.hasPrefix(versionPrefix) || v.hasPrefix("http://jsonfeed.org/version/") else { return nil }
        return v
    }

    static func read(_ doc: JSONValue, base: String) throws(JSONAccessError) -> FeedDocument {
        let root = JSONNode(doc)
        let feedAuthor = try authors(root)
        var entries: [FeedEntry] = []
        for item in try root[key: "items"].array() {
            entries.append(try entry(item, base: base, feedAuthor: feedAuthor))
        }
        let title = try root[key: "title"].optionalString(allowNumber: true).flatMap(FeedText.title)
        return FeedDocument(format: "JSON Feed", title: title, entries: entries)
    }

    static func entry(_ item: JSONNode, base: String, feedAuthor: String?) throws(JSONAccessError) -> FeedEntry {
        _ = try item.object()
        var e = FeedEntry()
        e.nativeID = try item[key: "id"].optionalString(allowNumber: true).map(FeedText.trim).flatMap { $0.isEmpty ? nil : $0 }
        let external = Links.absolute(try item[key: "external_url"].optionalString(), base: base)
        e.url = Links.absolute(try item[key: "url"].optionalString(), base: base) ?? external
        if let external, external != e.url { e.data["external_url"] = .string(external) }
        e.title = FeedText.title(try item[key: "title"].optionalString(allowNumber: true))
        let summary = try item[key: "summary"].optionalString(allowNumber: true)
        let contentText = try item[key: "content_text"].optionalString(allowNumber: true)
        let contentHTML = try item[key: "content_html"].optionalString(allowNumber: true)
        e.summary = FeedText.plain(text: summary) ?? FeedText.plain(text: contentText) ?? FeedText.plain(html: contentHTML)
        let image = try item[key: "image"].optionalString()
        let banner = try item[key: "banner_image"].optionalString()
        e.image = Links.absolute(image, base: base) ?? Links.absolute(banner, base: base)
        e.setDate([try item[key: "date_published"].optionalString(), try item[key: "date_modified"].optionalString()])
        e.author = try authors(item) ?? feedAuthor
        let tags = item[key: "tags"]
        if case .string(let one)? = tags.value { e.addTag(one) } else { for t in try tags.stringArray(allowNumber: true) { e.addTag(t) } }
        for a in try item[key: "attachments"].optionalArray() ?? [] {
            let url = Links.absolute(try a[key: "url"].optionalString(), base: base)
            let mime = try a[key: "mime_type"].optionalString() ?? ""
            guard let url else { continue }
            if mime.lowercased().hasPrefix("image/") {
                if e.image == nil { e.image = url }
            } else if e.data["attachment_url"] == nil {
                e.data["attachment_url"] = .string(url)
                if !mime.isEmpty { e.data["attachment_type"] = .string(mime) }
                if let size = try a[key: "size_in_bytes"].optionalInt(allowString: true) { e.data["attachment_size"] = .number(JSONNumber(size)) }
            }
        }
        if let lang = try item[key: "language"].optionalString(), !lang.isEmpty { e.data["language"] = .string(lang) }
        return e
    }

    /// `authors[].name` (1.1), else `author.name` (1.0).
    static func authors(_ node: JSONNode) throws(JSONAccessError) -> String? {
        var names: [String] = []
        for a in try node[key: "authors"].optionalArray() ?? [] {
            if let n = try a[key: "name"].optionalString(allowNumber: true).flatMap(FeedText.title) { names.append(n) }
        }
        if names.isEmpty, let n = try node[key: "author"][key: "name"].optionalString(allowNumber: true).flatMap(FeedText.title) { names.append(n) }
        return FeedText.names(names)
    }
}
