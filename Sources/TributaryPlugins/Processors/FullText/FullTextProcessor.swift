import TributaryPluginKit
import TributaryCore

/// The `fulltext` processor (Docs/processors/fulltext.md): fetches the page at each new item's
/// `url` and adds the article's text as `content` and its sanitized HTML as `content_html`.
///
/// - Only items the delivery would emit are fetched (`ProcessorContext.wouldEmit`: not already
///   emitted, not a `stories` copy, not cut by the first run); the others go on unchanged, to
///   be dropped after the processors.
/// - Each URL is fetched at most once: the outcome (the article, or a lasting reason there is
///   none: a 404, not an HTML page, too large, no article) is kept in the state under the URL
///   (`FullTextCache`) and reused by later runs and other workers. A failure that may pass (a
///   timeout, a 5xx, a refused connection) is not kept.
/// - It fails open: an item whose page gives no article goes on without `content`, with a
///   warning naming the item, the URL and why, counted as `no content`.
/// - Pages go through the source's HTTP client (retries, conditional GET, record and replay,
///   the transport's per-host cap) with this processor's own `timeout`, `max_size` and
///   `concurrency_per_host`.
public struct FullTextProcessor: Processor {
    public static let descriptor = ProcessorDescriptor(
        type: "fulltext", summary: "fetches each new item's page and adds its article as content (text) and content_html (sanitized HTML)",
        options: [maxSize, timeout, concurrencyPerHost, rules]) { reader in make(reader) }

    static let maxSize = Option.size("max_size", "largest page fetched; a longer one gives no content").defaulted(5 << 20)
    static let timeout = Option.duration("timeout", atLeast: 0.1, "time limit for fetching one page (each attempt)").defaulted(20)
    static let concurrencyPerHost = Option.integer("concurrency_per_host", 1...32, "pages fetched at once from one host").defaulted(2)
    static let rules = Option.objectMap("rules", FullTextRule.options,
                                        "per host (`example.com` also covers its subdomains): XPath expressions used instead of the automatic extraction")

    /// The label of the count of items delivered without content.
    static let noContent = "no content"

    let settings: Settings

    struct Settings: Sendable {
        var maxSize: Int
        var timeout: Double
        var perHost: Int
        var rules: [String: FullTextRule]
    }

    static func make(_ reader: OptionReader) -> FullTextProcessor? {
        var byHost: [String: FullTextRule] = [:]
        for (host, r) in reader[rules] ?? [] {
            guard let rule = FullTextRule.make(r) else { continue }
            byHost[host.lowercased()] = rule
        }
        return FullTextProcessor(settings: Settings(maxSize: reader[maxSize], timeout: reader[timeout], perHost: reader[concurrencyPerHost], rules: byHost))
    }

    public func start(_ context: ProcessorContext) async -> any ProcessorRun {
        Run(settings: settings, context: context, gate: HostGate(limit: settings.perHost))
    }

    struct Run: ProcessorRun {
        let settings: Settings
        let context: ProcessorContext
        let gate: HostGate

        func process(_ items: [Item]) async -> [Item] {
            let admitted = await context.wouldEmit(items)
            // The pages to read: each URL once, for the items that will be emitted and have none yet.
            var wanted: [String] = []
            var seen = Set<String>()
            for (item, admit) in zip(items, admitted) where admit && item.content == nil {
                guard let url = item.url, url.hasPrefix("http://") || url.hasPrefix("https://"), seen.insert(url).inserted else { continue }
                wanted.append(url)
            }
            guard !wanted.isEmpty else { return items }
            var outcomes = await cached(wanted)
            let missing = wanted.filter { outcomes[$0] == nil }
            if !missing.isEmpty {
                let fetched = await fetchAll(missing)
                var keep: [(key: String, value: [UInt8])] = []
                for (url, result) in fetched {
                    outcomes[url] = result.outcome
                    if result.lasting { keep.append((url, result.outcome.encoded())) }
                }
                if let store = context.store, !keep.isEmpty {
                    do throws(StateError) { try await store.put(FullTextCache.namespace, keep) } catch {
                        context.warn("fulltext: cannot keep \(keep.count) page(s) in the state (they will be fetched again): \(error.message)")
                    }
                }
            }
            var out = items
            for i in out.indices where admitted[i] && out[i].content == nil {
                guard let url = out[i].url, let outcome = outcomes[url] else { continue }
                switch outcome {
                case .article(let text, let html):
                    out[i].content = text
                    out[i].contentHTML = html
                case .none(let reason):
                    context.count(FullTextProcessor.noContent)
                    context.warn("\(out[i].id): no content: \(reason) (\(url))")
                }
            }
            return out
        }

        /// What the state keeps for these URLs.
        private func cached(_ urls: [String]) async -> [String: FullTextCache] {
            guard let store = context.store else { return [:] }
            let found: [String: [UInt8]]
            do throws(StateError) { found = try await store.get(FullTextCache.namespace, urls) } catch {
                context.warn("fulltext: cannot read the pages kept in the state (fetching them): \(error.message)")
                return [:]
            }
            var out: [String: FullTextCache] = [:]
            for (url, bytes) in found {
                if let c = FullTextCache(encoded: bytes) { out[url] = c }
            }
            return out
        }

        private func fetchAll(_ urls: [String]) async -> [(String, FullTextPage.Result)] {
            await withTaskGroup(of: (String, FullTextPage.Result).self) { group in
                for url in urls {
                    // Each page on a worker thread in turn: the step's own thread would read
                    // them all on one core (`WorkerThreads`).
                    group.addTask(executorPreference: WorkerThreads.next()) {
                        let host = URLEncoding.hostKey(url)
                        await gate.enter(host)
                        let r = await FullTextPage.read(url, http: context.http, settings: settings)
                        await gate.leave(host)
                        return (url, r)
                    }
                }
                var out: [(String, FullTextPage.Result)] = []
                out.reserveCapacity(urls.count)
                for await r in group { out.append(r) }
                return out
            }
        }
    }
}
