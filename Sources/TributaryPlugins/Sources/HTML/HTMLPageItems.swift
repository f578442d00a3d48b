import TributaryPluginKit
import TributaryCore

/// One page of the `html` source read into items: the `items` XPath's elements in document
/// order, each read by the field rules. Items whose title is empty are left out (their
/// positions kept for the warning); dates in no known format are left out of their items (kept
/// for the warning). Under `tributary test` it explains, through `FetchContext.explain`, what
/// each expression matched on the first `HTMLSource.explainedItems` items.
struct HTMLPageItems {
    /// Why the page gave no items at all: `no items matched //article`, an expression libxml2
    /// could not evaluate, libxml2 missing. The source adds `GET <url>: ` in front.
    struct Failure: Error {
        var message: String
        /// The `items` expression matched nothing (the message may then say what the page was).
        var noMatch = false
        init(_ message: String, noMatch: Bool = false) {
            self.message = message
            self.noMatch = noMatch
        }
    }

    var items: [Item] = []
    /// How many elements `items` matched.
    var matched = 0
    /// The 1-based positions of the matched elements skipped for an empty title.
    var skipped: [Int] = []
    /// The `published` texts no date format reads, in order.
    var unreadableDates: [String] = []

    /// Parses `body` (`url`: where it came from, after redirects; `contentType`: the HTTP
    /// header, whose charset wins over the page's own) and reads its items.
    static func read(_ body: [UInt8], url: String, contentType: String?, source: HTMLSource, context: FetchContext) throws(Failure) -> HTMLPageItems {
        switch HTMLDocument.parse(body, url: url, contentType: contentType) {
        case .success(let doc):
            context.explain("page \(Redactor.redactURL(url)): \(body.count) bytes read as \(doc.charset) (\(doc.charsetOrigin.rawValue))"
                            + (doc.baseURL != doc.url ? "; links resolve against <base href> \(Redactor.redactURL(doc.baseURL))" : ""))
            do throws(Failure) {
                return try read(doc, source: source, context: context)
            } catch {
                // Where nothing matched because the answer is no web page at all, say so.
                var failure = error
                if error.noMatch, let note = notAPage(body, contentType: contentType) { failure.message += " (\(note))" }
                throw failure
            }
        case .failure(let e):
            throw Failure(e.description)
        }
    }

    /// Reads the items of a parsed page.
    static func read(_ doc: HTMLDocument, source: HTMLSource, context: FetchContext) throws(Failure) -> HTMLPageItems {
        let matches: [HTMLDocument.Match]
        do throws(HTMLDocument.XPathError) { matches = try doc.select(source.items) } catch {
            throw Failure("items \(error.message)")
        }
        let nodes = matches.compactMap { m -> HTMLDocument.Node? in
            if case .node(let n) = m { return n }
            return nil
        }
        guard !nodes.isEmpty else {
            if !matches.isEmpty {
                context.explain("items \(source.items): \(matches.count) \(matches.count == 1 ? "value" : "values"), no elements")
                throw Failure("items \"\(source.items)\" selects \(matches.count == 1 ? "a value" : "values") (an attribute, a string, a number), not elements: each item needs an element for its fields to read from")
            }
            context.explain("items \(source.items): 0 matches")
            throw Failure("no items matched \(source.items)", noMatch: true)
        }
        var page = HTMLPageItems()
        page.matched = nodes.count
        context.explain("items \(source.items): \(nodes.count) \(nodes.count == 1 ? "match" : "matches")")
        page.items.reserveCapacity(nodes.count)
        for (i, node) in nodes.enumerated() {
            let explained = context.explains && i < HTMLSource.explainedItems
            var values: [HTMLFieldRule.Field: String] = [:]
            var readings: [(HTMLFieldRule, HTMLFieldRule.Reading)] = []
            for rule in source.rules {
                let reading: HTMLFieldRule.Reading
                do throws(HTMLDocument.XPathError) { reading = try rule.read(doc, item: node) } catch {
                    throw Failure("fields.\(rule.field.rawValue) \(error.message)")
                }
                values[rule.field] = reading.value
                if explained { readings.append((rule, reading)) }
            }
            let itemURL = doc.absoluteURL(values[.url])
            let image = doc.absoluteURL(values[.image])
            var published: Timestamp?
            if let text = values[.published] {
                published = Timestamp.parseAny(text)
                if published == nil { page.unreadableDates.append(text) }
            }
            if explained {
                for (rule, reading) in readings {
                    let meaning: String?
                    switch rule.field {
                    case .url: meaning = reading.value.map { _ in itemURL ?? "not an http(s) link: left out" }
                    case .image: meaning = reading.value.map { _ in image ?? "not an http(s) link: left out" }
                    case .published: meaning = reading.value.map { _ in published?.rfc3339 ?? "no known date format: left out" }
                    case .title: meaning = reading.value == nil ? "empty: the item is skipped" : nil
                    default: meaning = nil
                    }
                    context.explain("  [\(i + 1)] " + Self.explanation(rule, reading, meaning: meaning))
                }
            }
            guard let title = values[.title] else {
                page.skipped.append(i + 1)
                continue
            }
            var item = context.item(id: source.itemID(id: values[.id], url: itemURL, title: title), kind: source.kind, title: title)
            item.summary = values[.summary]
            item.url = itemURL
            item.image = image
            item.author = values[.author]
            item.published = published
            page.items.append(item)
        }
        if context.explains && nodes.count > HTMLSource.explainedItems {
            context.explain("  ... \(nodes.count - HTMLSource.explainedItems) more")
        }
        return page
    }

    /// What the response is when it is not a web page: empty, or of a type that is neither
    /// HTML nor XML (`application/json`); nil for a page.
    static func notAPage(_ body: [UInt8], contentType: String?) -> String? {
        if body.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) { return "the response body is empty" }
        guard let type = contentType?.split(separator: ";").first.map({ String($0).trimmingWhitespaceAndNewlines.lowercased() }), !type.isEmpty else { return nil }
        if type.contains("html") || type.contains("xml") || type == "text/plain" || type == "application/octet-stream" { return nil }
        return "the response is \(type), not a web page"
    }

    /// `title .//h2/a: "Headline"`, `url .//a/@href: "/news/1" -> https://e.org/news/1`,
    /// `image .//img/@src: no match`, `(3 matches, the first used)` after a value; the arrow
    /// shows what the value became when that differs from the text.
    static func explanation(_ rule: HTMLFieldRule, _ reading: HTMLFieldRule.Reading, meaning: String?) -> String {
        var line = "\(rule.field.rawValue) \(rule.expression): "
        if let v = reading.value {
            line += "\"" + (v.count > 100 ? String(v.prefix(100)) + "..." : v) + "\""
        } else {
            line += reading.matches == 0 ? "no match" : "\"\" (empty)"
        }
        if reading.matches > 1 { line += " (\(reading.matches) matches, the first used)" }
        if let meaning, meaning != reading.value { line += " -> " + meaning }
        return line
    }
}
