import TributaryPluginKit
import FoundationEssentials
import TributaryCore

/// The `html` source: items from any web page (Docs/sources/html.md). `items` is an XPath that
/// selects one element per item, `fields` maps item fields to XPaths relative to it. The page
/// is read by libxml2's HTML parser in the encoding a browser would choose (HTTP header, BOM,
/// `<meta>`, detection). An `items` expression that matches nothing fails the source: a page
/// whose markup changed must not look like a quiet day.
public struct HTMLSource: FeedSource {
    public static let descriptor = SourceDescriptor(type: "html", summary: "any web page: url, items XPath, fields XPaths relative to each item", options: options,
                                                    aliases: ["web", "webpage", "scrape", "scraper", "xpath"]) { settings, reader in
        HTMLSource(settings: settings, reader: reader)
    }

    enum Fields {
        static func xpath(_ name: String, _ help: String) -> Option<String> {
            Option.string(name, help).checked(HTMLFieldRule.problem)
        }
        static let id = xpath("id", "native id; default: the url field, else a hash of the page URL and the title")
        static let title = xpath("title", "title text (an item whose title is empty is skipped with a warning)").required
        static let url = xpath("url", "link to the thing, made absolute against the page (its <base href>)")
        static let summary = xpath("summary", "plain-text summary")
        static let image = xpath("image", "thumbnail URL, made absolute against the page")
        static let author = xpath("author", "author name")
        static let published = xpath("published", "publication date, read like feed dates (RFC 3339, RFC 822, unix seconds)")
        static let all: [any OptionDeclaration] = [id, title, url, summary, image, author, published]
    }

    static let url = Option.url("url", "the page's URL (http, https, or file: for a saved page)").aliases("link", "href", "page").required
    static let items = Option.string("items", "XPath 1.0 selecting one element per item, e.g. //article").aliases("item", "xpath", "selector").required
        .checked(HTMLFieldRule.problem)
    static let fields = Option.object("fields", Fields.all, "XPaths of the item fields, relative to each item element").required
    static let kind = Option.itemKind("item kind ([a-z][a-z0-9_]*)")
    static let headers = Option.stringMap("headers", "extra request headers (Accept-Language, a Cookie)")
    public static let options: [any OptionDeclaration] = [url, items, fields, kind, headers]

    /// The id family: `html:<url | scoped id | sha1:...>`.
    static let family = "html"
    /// How many items `tributary test` shows field by field.
    static let explainedItems = 3

    let url: String
    let items: String
    /// The configured rules, in `HTMLFieldRule.Field` order.
    let rules: [HTMLFieldRule]
    let kind: String
    let headers: [(name: String, value: String)]

    init?(settings: SourceSettings, reader: OptionReader) {
        url = reader[Self.url]
        items = reader[Self.items]
        let fr = reader[Self.fields]
        let given: [HTMLFieldRule.Field: String] = [
            .id: fr[Fields.id], .title: fr[Fields.title], .url: fr[Fields.url], .summary: fr[Fields.summary],
            .image: fr[Fields.image], .author: fr[Fields.author], .published: fr[Fields.published],
        ].compactMapValues { $0 }
        rules = HTMLFieldRule.Field.allCases.compactMap { f in given[f].map { HTMLFieldRule(field: f, expression: $0) } }
        kind = reader[Self.kind]
        headers = (reader[Self.headers] ?? []).map { (name: $0.0, value: $0.1) }
        Secrets.registerCredentials(headers.map { ($0.name, $0.value) })
    }

    func rule(_ field: HTMLFieldRule.Field) -> HTMLFieldRule? { rules.first { $0.field == field } }

    public func fetch(_ context: FetchContext) async throws(SourceError) {
        let response = try await context.get(url, headers: headers, allowFile: url.hasPrefix("file:"))
        let shown = "GET \(Redactor.redactURL(url))"
        // The page is parsed and read in one synchronous step: the document (not Sendable) never
        // lives across a suspension, and is freed before the items are delivered.
        let page: HTMLPageItems
        do throws(HTMLPageItems.Failure) {
            page = try HTMLPageItems.read(response.body, url: response.url, contentType: response.header("Content-Type"), source: self, context: context)
        } catch {
            throw SourceError("\(shown): \(error.message)")
        }
        if !page.skipped.isEmpty {
            let positions = page.skipped.prefix(5).map(String.init).joined(separator: ", ") + (page.skipped.count > 5 ? ", ..." : "")
            context.warn("\(shown): skipped \(page.skipped.count) of \(page.matched) matched items: their title is empty (fields.title \(rule(.title)?.expression ?? "") matched no text); \(page.skipped.count == 1 ? "item" : "items") \(positions)")
        }
        if let first = page.unreadableDates.first {
            let n = page.unreadableDates.count
            context.warn("\(shown): \(n) \(n == 1 ? "date" : "dates") in no known format, left out (e.g. \"\(first.prefix(40))\")")
        }
        try await context.emit(page.items)
    }

    /// The item id of one item: `html:` + its `id` field (a URI as it is, anything else
    /// qualified with the page's host, since a bare `1042` only means something on its page),
    /// else its url, else a SHA-1 of the configured page URL and its title.
    func itemID(id: String?, url itemURL: String?, title: String) -> String {
        if let id { return "\(Self.family):\(scoped(id))" }
        if let itemURL { return "\(Self.family):\(itemURL)" }
        return "\(Self.family):sha1:" + Digest.hex(Digest.sha1(Array((url + "\n" + title).utf8)))
    }

    /// A native id that is a URI (`https://...`, `urn:...`, `tag:...`) is global already;
    /// another is qualified with the page's host (`html:news.example.org:1042`).
    func scoped(_ native: String) -> String {
        if let colon = native.firstIndex(of: ":"), let first = native.first, first.isASCII, first.isLetter,
           native[..<colon].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") }) {
            return native
        }
        if let u = URL(string: Links.encoded(url)), let host = u.host, !host.isEmpty { return host.lowercased() + ":" + native }
        return (url.hasPrefix("file://") ? String(url.dropFirst(7)) : url) + ":" + native
    }
}
