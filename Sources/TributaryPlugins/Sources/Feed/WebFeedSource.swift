import Foundation
import TributaryCore

/// The `feed` source: one RSS 2.0, RSS 1.0 (RDF), Atom 1.0 or JSON Feed 1.1 document, the format
/// detected from the document itself (Docs/sources/feed.md). A YouTube channel's Atom feed
/// gives `video` items with the same ids as `youtube.search`, so the two dedupe.
public struct WebFeedSource: FeedSource {
    public static let descriptor = SourceDescriptor(type: "feed", summary: "RSS 2.0, RSS 1.0, Atom 1.0 and JSON Feed 1.1 documents (e.g. a YouTube channel's Atom feed)", options: options) { settings, reader in
        WebFeedSource(settings: settings, reader: reader)
    }

    static let url = Option.url("url", "the feed URL (http, https, or file: for a local document)").required.checked { url in
        url.hasPrefix("file:") || URL(string: Links.encoded(url))?.host != nil ? nil : "\"\(Redactor.redactURL(url))\" has no host"
    }
    static let kind = Option.itemKind("item kind of ordinary entries ([a-z][a-z0-9_]*); YouTube channel feed entries are always \"video\"")
    static let headers = Option.stringMap("headers", "extra request headers")
    public static let options: [any OptionDeclaration] = [url, kind, headers]

    /// The id family of ordinary entries: `feed:<guid | atom:id | JSON Feed id | link | hash>`.
    static let family = "feed"

    let url: String
    let kind: String
    let headers: [(name: String, value: String)]

    init?(settings: SourceSettings, reader: OptionReader) {
        self.url = reader[Self.url]
        self.kind = reader[Self.kind]
        self.headers = (reader[Self.headers] ?? []).map { (name: $0.0, value: $0.1) }
        Secrets.registerCredentials(headers.map { ($0.name, $0.value) })
    }

    /// One document, delivered as one batch of its entries.
    public func fetch(_ context: FetchContext) async throws(SourceError) {
        let response = try await context.get(url, headers: headers, allowFile: url.hasPrefix("file:"))
        let shown = "GET \(Redactor.redactURL(url))"
        let document: FeedDocument
        do {
            document = try read(response, context: context)
        } catch let e as FeedFormatError {
            throw SourceError("\(shown): \(e.message)")
        } catch let e as XMLSyntaxError {
            throw SourceError("\(shown): \(e)")
        } catch let e as JSONAccessError {
            throw SourceError("\(shown): \(e)")
        } catch let e as SourceError {
            throw e
        } catch {
            throw SourceError("\(shown): \(error)")
        }
        var items: [Item] = []
        var skipped = 0
        var unreadable: [String] = []
        for entry in document.entries {
            if let d = entry.unreadableDate { unreadable.append(d) }
            guard let item = self.item(entry, feedTitle: document.title, context: context) else {
                skipped += 1
                continue
            }
            items.append(item)
        }
        if skipped > 0 {
            context.warn("\(shown): skipped \(skipped) of \(document.entries.count) \(document.format) entries with no id, link, title or text")
        }
        if let first = unreadable.first {
            context.warn("\(shown): \(unreadable.count) \(unreadable.count == 1 ? "date" : "dates") in no known format, left out (e.g. \"\(first.prefix(40))\")")
        }
        try await context.emit(items)
    }

    /// Detects the format and reads the document.
    func read(_ response: HTTPResponse, context: FetchContext) throws -> FeedDocument {
        let body = response.body
        var start = body.startIndex
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { start += 3 }
        while start < body.endIndex, [0x20, 0x09, 0x0A, 0x0D].contains(body[start]) { start += 1 }
        let contentType = response.header("Content-Type") ?? "no content type"
        guard start < body.endIndex else { throw FeedFormatError("empty response body, expected an RSS, Atom or JSON feed") }
        switch body[start] {
        case UInt8(ascii: "{"):
            let doc = try context.parseJSON(response)
            guard JSONFeedReader.version(doc) != nil else {
                let found = doc.objectValue?["version"].map { String(decoding: JSONWriter.serialize($0), as: UTF8.self) }
                throw FeedFormatError("a JSON document that is not a JSON Feed (" + (found.map { "\"version\" is \($0.prefix(60))" } ?? "no \"version\"")
                    + ", expected \"\(JSONFeedReader.versionPrefix)1.1\")")
            }
            return try JSONFeedReader.read(doc, base: response.url)
        case UInt8(ascii: "["):
            throw FeedFormatError("a JSON array, not a feed (expected an RSS, Atom or JSON feed)")
        case UInt8(ascii: "<"):
            if HTMLPage.looksLikeHTML(body[start...]) { throw htmlError(response, contentType) }
            let root: XMLElementNode
            do {
                root = try XMLTreeParser.parse(Array(body), baseURL: response.url)
            } catch {
                if HTMLPage.mentionsHTML(body) { throw htmlError(response, contentType) }
                throw error
            }
            switch (root.namespace, root.name) {
            case (_, "rss"): return RSSReader.read(root)
            case (let ns, "RDF") where FeedNamespace.rdf.contains(ns): return RSSReader.read(root)
            case (let ns, "feed") where FeedNamespace.atom.contains(ns): return AtomReader.read(root)
            case (_, "html"): throw htmlError(response, contentType)
            case (let ns, let name):
                throw FeedFormatError("an XML document with root element <\(name)>\(ns.isEmpty ? "" : " (namespace \(ns))"), not an RSS, Atom or JSON feed")
            }
        default:
            let head = FeedText.singleLine(String(decoding: body[start...].prefix(40), as: UTF8.self))
            throw FeedFormatError("not an RSS, Atom or JSON feed: the body starts with \"\(head)\" (\(contentType))")
        }
    }

    func htmlError(_ response: HTTPResponse, _ contentType: String) -> FeedFormatError {
        var message = "got an HTML page, expected an RSS, Atom or JSON feed (\(contentType))"
        if let link = HTMLPage.feedLinks(response.body, base: response.url).first {
            message += "; the page names a feed: \(link)"
        }
        return FeedFormatError(message)
    }

    /// The item for one entry, or nil when the entry has nothing to identify or show.
    func item(_ entry: FeedEntry, feedTitle: String?, context: FetchContext) -> Item? {
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
        item.tags = entry.tags
        for (k, v) in entry.data.entries { item.data[k] = v }
        if let feedTitle { item.data["feed_title"] = .string(feedTitle) }
    }
}

/// A document that is not a feed at all, described by what it is.
struct FeedFormatError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
