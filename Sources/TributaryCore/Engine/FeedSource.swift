/// A source of items: one configured instance of a source type (a search, a feed, an API).
///
/// Contract:
/// - `fetch` performs one run's fetching through `context.http` only (so retries, limits,
///   recording and replay apply) and returns the items in the order the API gave them.
/// - Items are built with `context.item(...)`, which fills `source`, `type` and `fetched`;
///   ids are `<family>:<native id>`, stable across runs; titles are never empty.
/// - Any failure throws a `SourceError` whose message names the URL (redacted), the key path
///   and what was expected. A source never prints and never writes output.
/// - A source that can deliver part of its results (one city of several failed) returns what
///   it has and reports the rest through `context.warn`, or throws `SourceError(partial:)`.
public protocol FeedSource: Sendable {
    func fetch(_ context: FetchContext) async throws(SourceError) -> [Item]
}

/// One source type in the registry: its name, what it reads, its options, and how to build an
/// instance from validated options (recording further errors on the reader and returning nil).
public struct SourceDescriptor: Sendable {
    public let type: String
    public let summary: String
    public let options: [OptionSpec]
    public let make: @Sendable (SourceSettings, OptionReader) -> (any FeedSource)?

    public init(type: String, summary: String, options: [OptionSpec], make: @escaping @Sendable (SourceSettings, OptionReader) -> (any FeedSource)?) {
        self.type = type
        self.summary = summary
        self.options = options
        self.make = make
    }
}

/// Why a source failed, already readable: `GET https://api/x?key=***: items[3].title: expected string, found number`.
public struct SourceError: Error, CustomStringConvertible, Sendable {
    public let message: String
    /// Items fetched before the failure (a partial result is still delivered).
    public let partial: [Item]

    public init(_ message: String, partial: [Item] = []) {
        self.message = Redactor.redactText(message)
        self.partial = partial
    }

    public init(_ error: HTTPError) {
        self.init(error.description)
        self.isInterruption = error.kind == .cancelled
    }

    /// The run was stopped (SIGINT/SIGTERM) before the source finished: not the source's fault.
    public private(set) var isInterruption = false

    public static func interrupted(partial: [Item]) -> SourceError {
        var e = SourceError("interrupted", partial: partial)
        e.isInterruption = true
        return e
    }

    public var description: String { message }
}

/// What a source gets for one run.
public struct FetchContext: Sendable {
    public let settings: SourceSettings
    public let http: HTTPClient
    /// When this run fetched (the same for every item of the run).
    public let fetched: Timestamp
    /// When this source last ran successfully, from state (nil: first run, or no state), so a
    /// source can ask an API only for what is newer.
    public let previousSuccess: Timestamp?
    private let warnHandler: @Sendable (String) -> Void
    private let logHandler: (@Sendable (String) -> Void)?

    public init(settings: SourceSettings, http: HTTPClient, fetched: Timestamp, previousSuccess: Timestamp? = nil, warn: @escaping @Sendable (String) -> Void, log: (@Sendable (String) -> Void)? = nil) {
        self.settings = settings
        self.http = http
        self.fetched = fetched
        self.previousSuccess = previousSuccess
        self.warnHandler = warn
        self.logHandler = log
    }

    /// Logs a warning on stderr, prefixed by the source name (secrets redacted).
    public func warn(_ message: String) { warnHandler(Redactor.redactText(message)) }

    /// Logs an informational line on stderr, prefixed by the source name (secrets redacted).
    public func log(_ message: String) { (logHandler ?? warnHandler)(Redactor.redactText(message)) }

    /// A new item with `source`, `type` and `fetched` filled in.
    public func item(id: String, kind: String, title: String) -> Item {
        Item(id: id, source: settings.name, type: settings.type, kind: kind, title: title, fetched: fetched)
    }

    /// GET (or any method) through the shared client; the response body is returned for 2xx.
    public func get(_ url: String, headers: [(name: String, value: String)] = [], method: String = "GET", body: [UInt8]? = nil, allowFile: Bool = false) async throws(SourceError) -> HTTPResponse {
        do {
            return try await http.fetch(HTTPRequest(method: method, url: url, headers: headers, body: body, timeout: settings.timeout, allowFile: allowFile))
        } catch {
            throw SourceError(error)
        }
    }

    /// Parses a response body as JSON; a syntax error names the URL, line and column.
    public func parseJSON(_ response: HTTPResponse, method: String = "GET") throws(SourceError) -> JSONValue {
        do {
            return try JSONParser.parse(response.body)
        } catch {
            let url = Redactor.redactURL(response.url)
            if response.body.isEmpty { throw SourceError("\(method) \(url): empty response body, expected JSON") }
            let head = String(decoding: response.body.prefix(200), as: UTF8.self).lowercased()
            if head.contains("<html") || head.contains("<!doctype") {
                throw SourceError("\(method) \(url): got an HTML page, expected JSON (\(response.header("Content-Type") ?? "no content type"))")
            }
            throw SourceError("\(method) \(url): invalid JSON at \(error.line):\(error.column): \(error.message)")
        }
    }
}
