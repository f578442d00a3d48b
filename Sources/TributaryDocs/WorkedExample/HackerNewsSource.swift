import TributaryCore

/// The `hn` source: Hacker News items matching a query, from the Algolia HN Search API
/// (https://hn.algolia.com/api). One request per run, newest first.
public struct HackerNewsSource: FeedSource {
    public static let descriptor = SourceDescriptor(
        type: "hn", summary: "Hacker News items matching a query (Algolia HN Search API)", options: options
    ) { _, reader in
        HackerNewsSource(reader: reader)
    }

    static let query = Option.string("query", "search words, sent percent-encoded").required
        .checked { $0.trimmingBlanks.isEmpty ? "must not be empty" : nil }
    static let tags = Option.choice("tags", ["story", "comment", "show_hn", "ask_hn"], "which items to search").defaulted("story")
    static let maxResults = Option.integer("max_results", 1...1000, "results per run (hitsPerPage)").defaulted(30)
    static let baseURL = Option.baseURL("base_url", "API root (a compatible or recorded server)").defaulted("https://hn.algolia.com/api/v1")
    public static let options: [any OptionDeclaration] = [query, tags, maxResults, baseURL]

    let url: String

    init(reader: OptionReader) {
        url = URLEncoding.appendQuery(reader[Self.baseURL] + "/search_by_date", [
            ("query", reader[Self.query].trimmingBlanks),
            ("tags", reader[Self.tags]),
            ("hitsPerPage", String(reader[Self.maxResults])),
        ])
    }

    public func fetch(_ context: FetchContext) async throws(SourceError) {
        let response = try await context.get(url, headers: [("Accept", "application/json")])
        let document = try context.parseJSONDocument(response)
        let items: [Item]
        do {
            items = try Self.items(from: JSONNode(document), context: context)
        } catch {
            throw SourceError("GET \(Redactor.redactURL(url)): \(error)")
        }
        try await context.emit(items)  // the last batch: written and recorded with the run when fetch returns
    }

    /// The mapping, apart from the fetching, so a test can feed it a document.
    static func items(from root: JSONNode, context: FetchContext) throws(JSONAccessError) -> [Item] {
        var items: [Item] = []
        for hit in try root[key: "hits"].array() {
            let id = try hit[key: "objectID"].string(allowNumber: true)
            var title = try hit[key: "title"].optionalString() ?? ""
            if title.trimmingBlanks.isEmpty { title = "Hacker News item \(id)" }  // never empty
            var item = context.item(id: "hn:\(id)", kind: "story", title: title.trimmingBlanks)
            item.url = try hit[key: "url"].optionalString() ?? "https://news.ycombinator.com/item?id=\(id)"
            item.author = try hit[key: "author"].optionalString()
            if let t = try hit[key: "created_at_i"].optionalInt() { item.published = Timestamp(seconds: Double(t)) }
            if let points = try hit[key: "points"].optionalInt() { item.data["points"] = .int(Int(points)) }
            if let comments = try hit[key: "num_comments"].optionalInt() { item.data["comments"] = .int(Int(comments)) }
            items.append(item)
        }
        return items
    }
}
