import TributaryPluginKit
import FoundationEssentials
import Glibc
import Dispatch
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

    static let query = Option.string("query", "search terms (q), sent percent-encoded (RFC 3986, UTF-8)").required
        .checked { $0.trimmingWhitespaceAndNewlines.isEmpty ? "must not be empty" : nil }
    static let apiKey = Option.secret("api_key", "API key (key); never printed, logged or recorded (get one at https://console.cloud.google.com/apis/credentials)").required
    static let order = Option.choice("order", orders, "result order").defaulted("date")
    static let maxResults = Option.integer("max_results", 1...50, "results per page (maxResults), 1 to 50").defaulted(25)
    static let pages = Option.integer("pages", 1...maxPages, "pages to read, 1 to 10, following nextPageToken (each page costs 100 quota units)").defaulted(1)
    static let resultType = Option.stringOrList("result_type", "what to search for (type): \"video\", \"channel\", \"playlist\" (a list or a comma-separated string)").documented(default: "video")
    static let regionCode = Option.string("region_code", "ISO 3166-1 alpha-2 country the results are for (regionCode), e.g. \"BR\"")
        .checked { r in
            let u = r.uppercased()
            return u.count == 2 && u.unicodeScalars.allSatisfy({ ("A"..."Z").contains($0) }) ? nil : "expected a two-letter ISO 3166-1 country code such as \"BR\", found \"\(r)\""
        }
    static let relevanceLanguage = Option.string("relevance_language", "ISO 639-1 language the results are most relevant to (relevanceLanguage), e.g. \"pt\", \"zh-Hans\"")
        .checked { isLanguageTag($0) ? nil : "expected an ISO 639-1 language code such as \"pt\" or \"zh-Hans\", found \"\($0)\"" }
    static let safeSearch = Option.choice("safe_search", ["none", "moderate", "strict"], "restricted-content filtering (safeSearch)").documented(default: "the API's (moderate)")
    static let sinceLastRun = Option.bool("since_last_run", "ask only for results published after the last successful run (publishedAfter, from state)").defaulted(true)
    static let baseURL = Option.baseURL("base_url", "API root (a compatible or recorded server)").defaulted(defaultBaseURL)
    public static let options: [any OptionDeclaration] = [query, apiKey, order, maxResults, pages, resultType, regionCode, relevanceLanguage, safeSearch, sinceLastRun, baseURL]

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
        self.query = reader[Self.query]
        self.apiKey = reader[Self.apiKey]
        self.order = reader[Self.order]
        self.maxResults = reader[Self.maxResults]
        self.pages = reader[Self.pages]
        self.types = Self.readTypes(reader)
        self.regionCode = reader[Self.regionCode].map { $0.uppercased() }
        self.relevanceLanguage = reader[Self.relevanceLanguage]
        self.safeSearch = reader[Self.safeSearch]
        self.sinceLastRun = reader[Self.sinceLastRun]
        self.baseURL = reader[Self.baseURL]
    }

    /// `"video"`, `"video,channel"` or `["video", "playlist"]`: each part checked, duplicates dropped.
    static func readTypes(_ reader: OptionReader) -> [String] {
        guard let raw = reader[resultType] else { return ["video"] }
        var out: [String] = []
        for part in raw.flatMap({ $0.split(separator: ",", omittingEmptySubsequences: false) }) {
            let t = part.trimmingBlanks
            guard resultTypes.contains(t) else {
                var msg = "expected \"video\", \"channel\" or \"playlist\" (or several, comma-separated), found \"\(t)\""
                if let s = Suggest.closest(to: t, in: resultTypes) { msg += " (did you mean \"\(s)\"?)" }
                reader.error(resultType, msg)
                continue
            }
            if !out.contains(t) { out.append(t) }
        }
        if out.isEmpty && raw.isEmpty { reader.error(resultType, "expected at least one of \"video\", \"channel\", \"playlist\"") }
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
            let root = try await context.getJSON(HTTPRequest(url: url, headers: [("Accept", "application/json")], timeout: context.settings.timeout),
                                                 apiError: YouTubeAPIError.shape)
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
