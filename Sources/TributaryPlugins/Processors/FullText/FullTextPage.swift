import TributaryPluginKit
import TributaryCore

/// One page of the `fulltext` processor: fetched, checked to be HTML, parsed, its article
/// found (the host's rule, else `ArticleExtractor`) and rendered (`HTMLSanitizer`).
enum FullTextPage {
    struct Result: Sendable {
        let outcome: FullTextCache
        /// Whether the outcome holds for later runs (kept in the state): an article, or a
        /// reason that will not pass by itself (404, not HTML, too large, no article).
        let lasting: Bool
    }

    static func read(_ url: String, http: HTTPClient, settings: FullTextProcessor.Settings) async -> Result {
        var client = http
        client.timeout = settings.timeout
        var request = HTTPRequest(url: url, headers: [("Accept", "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5")], timeout: settings.timeout)
        request.bodyLimit = HTTPRequest.BodyLimit(bytes: settings.maxSize, option: "max_size")
        let response: HTTPResponse
        do throws(HTTPError) { response = try await client.fetch(request) } catch {
            switch error.kind {
            case .status:
                let status = error.status ?? 0
                let lasting = status >= 400 && status < 500 && status != 408 && status != 429
                return Result(outcome: .none(reason: "HTTP \(status)"), lasting: lasting)
            case .bodyTooLarge:
                return Result(outcome: .none(reason: "the page is larger than max_size (\(ByteSizes.format(settings.maxSize)))"), lasting: true)
            default:
                return Result(outcome: .none(reason: error.message), lasting: false)
            }
        }
        if let problem = notHTML(response) { return Result(outcome: .none(reason: problem), lasting: true) }
        return Result(outcome: extract(response.body, url: response.url.isEmpty ? url : response.url, contentType: response.header("Content-Type"), rules: settings.rules), lasting: true)
    }

    /// Why the answer is not an HTML page (a PDF, an image, JSON), or nil. Without a type, the
    /// first bytes decide.
    static func notHTML(_ response: HTTPResponse) -> String? {
        let head = response.body.prefix(512)
        if head.starts(with: Array("%PDF-".utf8)) { return "not an HTML page (a PDF document)" }
        let type = (response.header("Content-Type") ?? "").split(separator: ";").first.map { $0.trimmingWhitespaceAndNewlines.lowercased() } ?? ""
        if type == "text/html" || type == "application/xhtml+xml" { return looksBinary(head) ? "not an HTML page (binary data served as \(type))" : nil }
        if type.isEmpty || type == "text/plain" || type == "application/octet-stream" {
            if looksBinary(head) { return "not an HTML page (binary data)" }
            return head.contains(UInt8(ascii: "<")) ? nil : "not an HTML page (no markup)"
        }
        return "not an HTML page (\(type))"
    }

    private static func looksBinary(_ b: ArraySlice<UInt8>) -> Bool {
        // UTF-16 pages start with a byte order mark; other zero bytes mean binary data.
        if b.starts(with: [0xFF, 0xFE]) || b.starts(with: [0xFE, 0xFF]) { return false }
        return b.contains(0)
    }

    /// The page's article, or why it has none.
    static func extract(_ body: [UInt8], url: String, contentType: String?, rules: [String: FullTextRule]) -> FullTextCache {
        var host = URLEncoding.hostKey(url)
        if let colon = host.lastIndex(of: ":"), !host.hasSuffix("]") { host = String(host[..<colon]) }
        let rule = FullTextRule.find(host, in: rules)
        let doc: HTMLDocument
        // libxml2's tree (for XPath) only when a rule needs it.
        switch HTMLDocument.parse(body, url: url, contentType: contentType, xpath: rule != nil) {
        case .success(let d): doc = d
        case .failure(let e): return .none(reason: "web pages need \(e)")
        }
        var removed = Set<HTMLDocument.Node>()
        if let rule {
            for expr in rule.remove {
                guard let matches = try? doc.select(expr) else { continue }
                for case .node(let n) in matches { removed.insert(n) }
            }
            if let content = rule.content {
                let nodes: [HTMLDocument.Node]
                do throws(HTMLDocument.XPathError) {
                    nodes = try doc.select(content).compactMap { if case .node(let n) = $0 { return n } else { return nil } }
                } catch {
                    return .none(reason: "the rule's content \(error.message)")
                }
                // A node inside another matched one is rendered with it already.
                let chosen = Set(nodes)
                let outer = nodes.filter { n in
                    var p = doc.parent(n)
                    while p != HTMLDocument.none { if chosen.contains(p) { return false }; p = doc.parent(p) }
                    return true
                }
                let out = HTMLSanitizer.render(doc, blocks: outer, skipping: removed)
                return out.text.isEmpty ? .none(reason: "the rule's content \"\(content)\" matched no text") : .article(text: out.text, html: out.html)
            }
        }
        guard let found = ArticleExtractor.extract(doc) else { return .none(reason: "no article found on the page") }
        let out = HTMLSanitizer.render(doc, blocks: found.blocks, skipping: found.skipping.union(removed))
        return out.text.isEmpty ? .none(reason: "no article found on the page") : .article(text: out.text, html: out.html)
    }
}
