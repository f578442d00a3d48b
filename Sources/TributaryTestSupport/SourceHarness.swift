import Foundation
import TributaryCore

/// The one way plugin tests build and fetch a source: from a config object, through the real
/// config loader, against canned responses (recordings) or a live loopback server, with every
/// emitted item, warning, log line and request collected. Async: no semaphores around tasks.
public struct SourceHarness: Sendable {
    public let registry: Registry

    public init(registry: Registry) { self.registry = registry }

    /// What one fetch did.
    public struct Fetch: Sendable {
        /// Every item the source emitted, in order.
        public var items: [Item] = []
        /// The batches as emitted (a page, a place, a document).
        public var batches: [[Item]] = []
        /// How the fetch ended: nil when the source succeeded.
        public var sourceError: SourceError?
        /// The failure's message (nil when the source succeeded).
        public var error: String? { sourceError?.message }
        public var warnings: [String] = []
        public var logs: [String] = []
        /// Every request the source sent, in order (retries included).
        public var requests: [HTTPRequest] = []
    }

    /// Builds the one source of `source` (a config object).
    public func configure(_ source: String, directory: String = NSTemporaryDirectory(), env: [String: String] = [:]) throws -> ConfiguredSource {
        let config = try ConfigLoader.load(bytes: Array(#"{"sources":[\#(source)]}"#.utf8), file: "t.json", directory: directory, registry: registry, environment: { env[$0] })
        guard let configured = config.sources.first else { throw ConfigError(messages: ["the config holds no source"]) }
        return configured
    }

    /// The config errors of a config holding `source` (empty when it loads).
    public func configErrors(_ source: String, env: [String: String] = [:]) -> [String] {
        configErrors(document: #"{"sources":[\#(source)]}"#, env: env)
    }

    /// The config errors of a whole config document.
    public func configErrors(document: String, env: [String: String] = [:]) -> [String] {
        do {
            _ = try ConfigLoader.load(bytes: Array(document.utf8), file: "t.json", directory: NSTemporaryDirectory(), registry: registry, environment: { env[$0] })
            return []
        } catch {
            return error.messages
        }
    }

    /// Fetches `configured` once through `transport`.
    public func fetch(_ configured: ConfiguredSource, transport: any HTTPTransport, retries: Int = 0, backoffBase: Double = 0.01,
                      fetched: Timestamp = Timestamp(seconds: 1_800_000_000), previousSuccess: Timestamp? = nil, parallelism: Int = 8,
                      explain: Bool = false) async -> Fetch {
        let box = Locked(Fetch())
        let watched = WatchedTransport(inner: transport, box: box)
        var client = HTTPClient(transport: watched, retries: retries, backoffBase: backoffBase)
        client.auth = configured.settings.auth
        let context = FetchContext(
            settings: configured.settings, http: client, fetched: fetched,
            previousSuccess: previousSuccess, parallelism: parallelism, explains: explain,
            emit: { items throws(SourceError) in box.withLock { $0.items += items; $0.batches.append(items) } },
            warn: { m in box.withLock { $0.warnings.append(m) } },
            log: { m in box.withLock { $0.logs.append(m) } })
        do throws(SourceError) { try await configured.source.fetch(context) } catch {
            box.withLock { $0.sourceError = error }
        }
        return box.withLock { $0 }
    }

    /// Builds `source` and fetches it once over the network (libcurl, e.g. against a loopback
    /// server), with a transport made for this fetch and shut down after it.
    public func fetchOverHTTP(_ source: String, retries: Int = 0, backoffBase: Double = 0.05, settings: HTTPSettings = HTTPSettings(),
                              env: [String: String] = [:], previousSuccess: Timestamp? = nil) async throws -> Fetch {
        let configured = try configure(source, env: env)
        let transport = CurlTransport(settings: settings)
        defer { transport.shutdown() }
        return await fetch(configured, transport: transport, retries: retries, backoffBase: backoffBase, previousSuccess: previousSuccess)
    }

    /// Builds `source` and fetches it once from `responses` (written as recordings and
    /// replayed: no network).
    public func fetch(_ source: String, responses: [CannedResponse], env: [String: String] = [:], previousSuccess: Timestamp? = nil,
                      explain: Bool = false) async throws -> Fetch {
        let dir = TempDir()
        defer { dir.remove() }
        for (i, r) in responses.enumerated() {
            let rec = Recording(method: r.method, url: r.url, status: r.status, headers: r.headers, body: r.body)
            _ = dir.write("r\(i).json", String(decoding: rec.encoded(), as: UTF8.self))
        }
        let configured = try configure(source, directory: dir.path, env: env)
        return await fetch(configured, transport: try ReplayTransport(directory: dir.path), previousSuccess: previousSuccess, explain: explain)
    }

    /// `fetch(_:responses:)` with (url, status, body text) triples of one content type.
    public func fetch(_ source: String, _ responses: [(url: String, status: Int, body: String)], contentType: String = "application/json",
                      env: [String: String] = [:]) async throws -> Fetch {
        try await fetch(source, responses: responses.map { CannedResponse(url: $0.url, status: $0.status, body: $0.body, contentType: contentType) }, env: env)
    }
}

/// One canned answer for `SourceHarness.fetch(_:responses:)`.
public struct CannedResponse: Sendable {
    public var method: String
    public var url: String
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(method: String = "GET", url: String, status: Int = 200, headers: [(name: String, value: String)] = [], body: [UInt8]) {
        self.method = method
        self.url = url
        self.status = status
        self.headers = headers
        self.body = body
    }

    public init(url: String, status: Int = 200, body: String, contentType: String = "application/json") {
        self.init(url: url, status: status, headers: [("Content-Type", contentType)], body: Array(body.utf8))
    }
}

/// Notes every request on its way to the real transport.
private struct WatchedTransport: HTTPTransport {
    let inner: any HTTPTransport
    let box: Locked<SourceHarness.Fetch>

    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        box.withLock { $0.requests.append(request) }
        return try await inner.send(request)
    }
}
