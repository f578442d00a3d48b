import TributaryPluginKit
import FoundationEssentials
import Glibc
import Dispatch
import TributaryCore

/// The `feed` source: RSS 2.0, RSS 1.0 (RDF), Atom 1.0 or JSON Feed 1.1 documents (`url`, or
/// several `urls` fetched concurrently, each a document of its own), the format detected from
/// the document itself (Docs/sources/feed.md), each read as it is parsed. A YouTube channel's
/// Atom feed gives `video` items with the same ids as `youtube.search`, so the two dedupe.
public struct WebFeedSource: FeedSource {
    public static let descriptor = SourceDescriptor(type: "feed", summary: "RSS 2.0, RSS 1.0, Atom 1.0 and JSON Feed 1.1 documents (e.g. a YouTube channel's Atom feed)", options: options,
                                                    aliases: ["rss", "atom", "rdf", "jsonfeed", "json_feed", "opml"]) { settings, reader in
        WebFeedSource(settings: settings, reader: reader)
    }

    static let url = Option.url("url", "the feed URL (http, https, or file: for a local document)").aliases("link", "href", "feed", "xml_url", "xmlUrl").checked { hostProblem($0) }
    static let urls = Option.urlList("urls", fileAllowed: true, "several feeds, fetched concurrently, each a document of its own").checked { urls in
        urls.enumerated().lazy.compactMap { i, u in hostProblem(u).map { "[\(i)]: " + $0 } }.first
    }
    static let kind = Option.itemKind("item kind of ordinary entries ([a-z][a-z0-9_]*); YouTube channel feed entries are always \"video\"")
    static let headers = Option.stringMap("headers", "extra request headers")
    static let tags = Option.stringList("tags", "tags added to every item, after the entry's own (duplicates dropped)")
    static let title = Option.string("title", "the feed's name for people: `export opml` writes it, and items get it as data.feed_title when the document has no title")
    static let siteURL = Option.httpURL("site_url", "the site's home page, for people: `export opml` writes it as htmlUrl (never fetched)")
    public static let options: [any OptionDeclaration] = [url, urls, kind, headers, tags, title, siteURL]

    static func hostProblem(_ url: String) -> String? {
        url.hasPrefix("file:") || URL(string: Links.encoded(url))?.host != nil ? nil : "\"\(Redactor.redactURL(url))\" has no host"
    }

    /// The id family of ordinary entries: `feed:<guid | atom:id | JSON Feed id | link | hash>`.
    static let family = "feed"

    /// The document being read (the first of `urls` until `fetch` fans out).
    private(set) var url: String
    /// Every document of the source: `url`, then `urls`.
    let urls: [String]
    let kind: String
    let headers: [(name: String, value: String)]
    /// Added to every item's own tags.
    let tags: [String]
    let title: String?
    let siteURL: String?
    /// The source's name (`export opml` titles an untitled feed with it).
    let name: String

    init?(settings: SourceSettings, reader: OptionReader) {
        self.name = settings.name
        self.urls = (reader[Self.url].map { [$0] } ?? []) + (reader[Self.urls] ?? [])
        if urls.isEmpty { reader.error(nil, "needs \"url\" or \"urls\"") }
        self.url = urls.first ?? ""
        self.kind = reader[Self.kind]
        self.headers = (reader[Self.headers] ?? []).map { (name: $0.0, value: $0.1) }
        Secrets.registerCredentials(headers.map { ($0.name, $0.value) })
        self.tags = reader[Self.tags] ?? []
        self.title = reader[Self.title]
        self.siteURL = reader[Self.siteURL]
    }

    /// Entries per emitted batch: a feed of up to this many entries is delivered in one piece,
    /// as before streaming; a larger one in batches while the rest is still being parsed.
    static let batchSize = 500

    /// Each document on its own, at most `context.parallelism` at once. A failing URL fails only
    /// itself: the source then fails naming (at most three of) the URLs that did.
    public func fetch(_ context: FetchContext) async throws(SourceError) {
        if urls.count <= 1 { return try await fetchDocument(context) }
        let failures = try await FanOut.run(urls, limit: context.parallelism) { document throws(SourceError) in
            var one = self
            one.url = document
            try await one.fetchDocument(context)
        }
        guard !failures.isEmpty else { return }
        throw SourceError(FanOut.summary(failures.map(\.error.message), of: urls.count, noun: "URLs"))
    }

    /// One document (`url`), delivered as one batch of its entries.
    func fetchDocument(_ context: FetchContext) async throws(SourceError) {
        let response = try await context.get(url, headers: headers, allowFile: url.hasPrefix("file:"))
        let shown = "GET \(Redactor.redactURL(url))"
        let reader: FeedBodyReader
        do throws(FeedFormatError) {
            reader = try FeedBodyReader(response.body, url: response.url, contentType: response.header("Content-Type"))
        } catch {
            throw SourceError("\(shown): \(error.message)")
        }
        var skipped = 0
        var unreadable = 0
        var firstUnreadable: String?
        while true {
            let entries: [FeedEntry]
            do throws(FeedFormatError) {
                guard let next = try reader.next(max: Self.batchSize) else { break }
                entries = next
            } catch {
                throw SourceError("\(shown): \(error.message)")
            }
            var items: [Item] = []
            items.reserveCapacity(entries.count)
            for entry in entries {
                if let d = entry.unreadableDate {
                    unreadable += 1
                    if firstUnreadable == nil { firstUnreadable = d }
                }
                guard let item = self.item(entry, feedTitle: reader.title, feedAuthor: reader.feedAuthor, context: context) else {
                    skipped += 1
                    continue
                }
                items.append(item)
            }
            try await context.emit(items)
        }
        for w in reader.warnings { context.warn("\(shown): \(w)") }
        if let hint = reader.intervalHint { context.suggestInterval(atLeast: hint.seconds, because: hint.why) }
        if skipped > 0 {
            context.warn("\(shown): skipped \(skipped) of \(reader.entryCount) \(reader.format) entries with no id, link, title or text")
        }
        if let first = firstUnreadable {
            context.warn("\(shown): \(unreadable) \(unreadable == 1 ? "date" : "dates") in no known format, left out (e.g. \"\(first.prefix(40))\")")
        }
    }

    /// A whole feed body to its entries, without network or engine: what `fetch` makes of a
    /// response, in one piece and in memory (for fuzzing and tests). `baseURL` is where the body
    /// came from (relative links resolve against it). Throws what `fetch` reports after
    /// `GET <url>: `; the document's warnings come back in `FeedDocument.warnings`.
    static func parse(_ body: [UInt8], baseURL: String, contentType: String? = nil) throws(FeedFormatError) -> FeedDocument {
        let reader = try FeedBodyReader(body, url: baseURL, contentType: contentType)
        var entries: [FeedEntry] = []
        while let next = try reader.next(max: batchSize) { entries += next }
        return FeedDocument(format: reader.format, title: reader.title, entries: entries, feedAuthor: reader.feedAuthor, warnings: reader.warnings)
    }

    /// The item for one entry, or nil when the entry has nothing to identify or show.
    func item(_ entry: FeedEntry, feedTitle: String?, feedAuthor: String? = nil, context: FetchContext) -> Item? {
        var entry = entry
        if entry.author == nil { entry.author = feedAuthor }
        if let video = entry.youtubeVideoID {
            var item = context.item(id: "youtube:video:\(video)", kind: "video", title: entry.title ?? "YouTube video \(video)")
            item.url = "https://www.youtube.com/watch?v=" + URLEncoding.encode(video)
            item.data["video_id"] = .string(video)
            if let channel = entry.youtubeChannelID { item.data["channel_id"] = .string(channel) }
            // The same data keys as youtube.search, whose items these dedupe against.
            if let channelTitle = entry.author { item.data["channel_title"] = .string(channelTitle) }
            fill(&item, entry, feedTitle: feedTitle, skipURL: true)
            return item
        }
        let native = entry.nativeID.map(scoped) ?? entry.url ?? (entry.title ?? entry.summary).map { "sha1:" + Digest.hex(Digest.sha1(Array((url + "\n" + $0).utf8))) }
        guard let native else { return nil }
        let title = entry.title ?? entry.summary.map(FeedText.headline) ?? entry.url ?? "Untitled entry"
        var item = context.item(id: "\(Self.family):\(native)", kind: kind, title: title)
        fill(&item, entry, feedTitle: feedTitle, skipURL: false)
        return item
    }

    /// A native id that is a URI (`https://...`, `tag:...`, `urn:...`, `yt:video:...`) is
    /// global already; a bare one (`1042`, `n-1`) only means something within its feed, so it
    /// is qualified with the feed's host to keep two feeds' `1042` apart (ids are global, Docs/contract.md#state).
    func scoped(_ native: String) -> String {
        if let colon = native.firstIndex(of: ":"), let first = native.first, first.isASCII, first.isLetter,
           native[..<colon].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") }) {
            return native
        }
        return Self.scope(of: url) + ":" + native
    }

    /// The feed's host (`blog.example.org`), or for a `file:` URL its path.
    static func scope(of url: String) -> String {
        if let u = URL(string: Links.encoded(url)), let host = u.host, !host.isEmpty { return host.lowercased() }
        return url.hasPrefix("file://") ? String(url.dropFirst(7)) : url
    }

    private func fill(_ item: inout Item, _ entry: FeedEntry, feedTitle: String?, skipURL: Bool) {
        item.summary = entry.summary
        if !skipURL { item.url = entry.url }
        item.image = entry.image
        item.author = entry.author
        item.published = entry.published
        item.tags = entry.tags + tags.filter { !entry.tags.contains($0) }
        for (k, v) in entry.data.entries { item.data[k] = v }
        if let feedTitle = feedTitle ?? title { item.data["feed_title"] = .string(feedTitle) }
    }
}

/// A document that is not a feed at all, described by what it is.
struct FeedFormatError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
