import Foundation
import TributaryCore

/// The `youtube.search` source: YouTube Data API v3 `search.list` (Docs/sources/youtube.search.md).
/// One request per page (each costs 100 quota units), `nextPageToken` followed up to `pages`.
public struct YouTubeSearchSource: FeedSource {
    public static let descriptor = SourceDescriptor(type: "youtube.search", summary: "YouTube Data API v3 search.list: videos, channels and playlists matching a query", options: options) { settings, reader in
        YouTubeSearchSource(settings: settings, reader: reader)
    }

    static let orders = ["date", "rating", "relevance", "title", "videoCount", "viewCount"]
    static let resultTypes = ["video", "channel", "playlist"]
    static let defaultBaseURL = "https://www.googleapis.com"
    static let maxPages = 10

    public static let options: [OptionSpec] = [
        OptionSpec("query", .string, required: true, "search terms (q), sent percent-encoded (RFC 3986, UTF-8)"),
        OptionSpec("api_key", .string, required: true, secret: true, "API key (key); never printed, logged or recorded"),
        OptionSpec("order", .enumeration(orders), default: "date", "result order"),
        OptionSpec("max_results", .integer(min: 1, max: 50), default: "25", "results per page (maxResults), 1 to 50"),
        OptionSpec("pages", .integer(min: 1, max: maxPages), default: "1", "pages to read, 1 to 10, following nextPageToken (each page costs 100 quota units)"),
        OptionSpec("result_type", .stringOrList, default: "video", "what to search for (type): \"video\", \"channel\", \"playlist\" (a list or a comma-separated string)"),
        OptionSpec("region_code", .string, "ISO 3166-1 alpha-2 country the results are for (regionCode), e.g. \"BR\""),
        OptionSpec("relevance_language", .string, "ISO 639-1 language the results are most relevant to (relevanceLanguage), e.g. \"pt\", \"zh-Hans\""),
        OptionSpec("safe_search", .enumeration(["none", "moderate", "strict"]), default: "the API's (moderate)", "restricted-content filtering (safeSearch)"),
        OptionSpec("since_last_run", .bool, default: "true", "ask only for results published after the last successful run (publishedAfter, from state)"),
        OptionSpec("base_url", .url, default: defaultBaseURL, "API root (a compatible or recorded server)"),
    ]

    let query: String
    let apiKey: String
    let order: String
    let maxResults: Int
    let pages: Int
    let types: [String]
    let regionCode: String?
    let relevanceLanguage: String?
    let safeSearch: String?
    let sinceLastRun: Bool
    let baseURL: String

    init?(settings: SourceSettings, reader: OptionReader) {
        let query = reader.string("query") ?? ""
        if reader.has("query") && reader.string("query") != nil && query.trimmingWhitespaceAndNewlines.isEmpty {
            reader.error("query", "must not be empty")
        }
        self.query = query
        let key = reader.string("api_key") ?? ""
        if reader.string("api_key") != nil && key.trimmingBlanks.isEmpty {
            reader.error("api_key", "must not be empty (get one at https://console.cloud.google.com/apis/credentials)")
        }
        self.apiKey = key.trimmingBlanks
        self.order = reader.string("order") ?? "date"
        self.maxResults = reader.int("max_results") ?? 25
        self.pages = reader.int("pages") ?? 1
        self.types = Self.readTypes(reader)
        self.regionCode = reader.string("region_code").map { $0.uppercased() }
        if let r = regionCode, !(r.count == 2 && r.unicodeScalars.allSatisfy { ("A"..."Z").contains($0) }) {
            reader.error("region_code", "expected a two-letter ISO 3166-1 country code such as \"BR\", found \"\(reader.string("region_code") ?? r)\"")
        }
        self.relevanceLanguage = reader.string("relevance_language")
        if let l = relevanceLanguage, !Self.isLanguageTag(l) {
            reader.error("relevance_language", "expected an ISO 639-1 language code such as \"pt\" or \"zh-Hans\", found \"\(l)\"")
        }
        self.safeSearch = reader.string("safe_search")
        self.sinceLastRun = reader.bool("since_last_run") ?? true
        var base = reader.string("base_url") ?? Self.defaultBaseURL
        if !(base.hasPrefix("http://") || base.hasPrefix("https://")) {
            reader.error("base_url", "expected an http:// or https:// URL, found \"\(base)\"")
        }
        if base.contains("?" as Character) || base.contains("#" as Character) {
            reader.error("base_url", "expected the API root without a query, found \"\(Redactor.redactURL(base))\"")
        }
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
    }

    /// `"video"`, `"video,channel"` or `["video", "playlist"]`: each part checked, duplicates dropped.
    static func readTypes(_ reader: OptionReader) -> [String] {
        guard let raw = reader.stringList("result_type") else { return ["video"] }
        var out: [String] = []
        for part in raw.flatMap({ $0.split(separator: ",", omittingEmptySubsequences: false) }) {
            let t = part.trimmingBlanks
            guard resultTypes.contains(t) else {
                var msg = "expected \"video\", \"channel\" or \"playlist\" (or several, comma-separated), found \"\(t)\""
                if let s = Suggest.closest(to: t, in: resultTypes) { msg += " (did you mean \"\(s)\"?)" }
                reader.error("result_type", msg)
                continue
            }
            if !out.contains(t) { out.append(t) }
        }
        if out.isEmpty && raw.isEmpty { reader.error("result_type", "expected at least one of \"video\", \"channel\", \"playlist\"") }
        return out
    }

    /// Language tags as the API takes them: `pt`, `zh-Hans`, `es-419`.
    static func isLanguageTag(_ s: String) -> Bool {
        let parts = s.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...3).contains(first.count), first.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("A"..."Z").contains($0) }) else { return false }
        return parts.dropFirst().allSatisfy { p in
            (2...8).contains(p.count) && p.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) }
        }
    }

    /// How far before the last successful run `publishedAfter` reaches back: the search index
    /// lags behind uploads, and items seen twice are dropped by state anyway.
    static let publishedAfterOverlap = 3600.0

    /// The request URL of one page; parameters in a fixed order (recordings depend on it).
    func pageURL(token: String?, publishedAfter: Timestamp? = nil) -> String {
        var q: [(String, String)] = [
            ("part", "snippet"),
            ("q", query),
            ("order", order),
            ("maxResults", String(maxResults)),
            ("type", types.joined(separator: ",")),
        ]
        if let regionCode { q.append(("regionCode", regionCode)) }
        if let relevanceLanguage { q.append(("relevanceLanguage", relevanceLanguage)) }
        if let safeSearch { q.append(("safeSearch", safeSearch)) }
        if let publishedAfter { q.append(("publishedAfter", publishedAfter.rfc3339)) }
        if let token { q.append(("pageToken", token)) }
        q.append(("key", apiKey))
        return URLEncoding.appendQuery(baseURL + "/youtube/v3/search", q)
    }

    /// One request per page, each page's results delivered as soon as they are mapped.
    public func fetch(_ context: FetchContext) async throws(SourceError) {
        var seenIDs: Set<String> = []
        var seenTokens: Set<String> = []
        var token: String? = nil
        let after = !sinceLastRun ? nil : context.previousSuccess.map { Timestamp(seconds: $0.seconds - Self.publishedAfterOverlap) }
        for page in 1...pages {
            let url = pageURL(token: token, publishedAfter: after)
            let shown = "GET \(Redactor.redactURL(url))"
            let response: HTTPResponse
            do {
                response = try await context.http.fetch(HTTPRequest(url: url, headers: [("Accept", "application/json")], timeout: context.settings.timeout))
            } catch {
                throw SourceError(YouTubeAPIError.describe(error))
            }
            let doc = try context.parseJSON(response)
            let root = JSONNode(doc)
            let pageItems: [Item]
            do {
                pageItems = try mapPage(root, shown: shown, context: context)
            } catch {
                throw SourceError("\(shown): \(error)")
            }
            try await context.emit(pageItems.filter { seenIDs.insert($0.id).inserted })
            guard page < pages else { break }
            let next: String?
            do { next = try root[key: "nextPageToken"].optionalString() } catch {
                throw SourceError("\(shown): \(error)")
            }
            guard let next, !next.isEmpty, seenTokens.insert(next).inserted else { break }
            token = next
        }
    }

    /// The items of one response page, in the API's order; results of unknown kinds are skipped with a warning.
    func mapPage(_ root: JSONNode, shown: String, context: FetchContext) throws(JSONAccessError) -> [Item] {
        let list = root[key: "items"]
        guard let results = try list.optionalArray() else {
            throw JSONAccessError(path: list.path, expected: "array of search results", found: list.value?.typeName)
        }
        var out: [Item] = []
        out.reserveCapacity(results.count)
        for node in results {
            switch try YouTubeSearchResult.item(from: node, context: context) {
            case .item(let item): out.append(item)
            case .unknownKind(let kind, let path):
                context.warn("\(shown): \(path): skipped a result of unknown kind \"\(kind)\"")
            }
        }
        return out
    }

}
