/// A source of items: one configured instance of a source type (a search, a feed, an API).
///
/// Contract:
/// - `fetch` performs one run's fetching through `context.http` only (so retries, limits,
///   recording and replay apply) and hands over each page's items with
///   `try await context.emit(items)` as soon as they are parsed, in the order the API gave
///   them. `emit` returns once the batch before it, if any, is delivered (written by every
///   sink, recorded in state): the engine holds each batch until the next `emit` or the end of
///   `fetch`, and delivers the last with the run's record (`HeldBatch`). That is the
///   back-pressure that keeps memory bounded by the pages in flight.
/// - When `emit` throws, the source stops and rethrows: the run is stopping (a sink failed,
///   the reader of stdout left, a signal) or the source reached its `max_items`.
/// - Items are built with `context.item(...)`, which fills `source`, `type` and `fetched`;
///   ids are `<family>:<native id>`, stable across runs; titles are never empty.
/// - Any failure throws a `SourceError` whose message names the URL (redacted), the key path
///   and what was expected. Items emitted before the failure stay delivered. A source never
///   prints and never writes output; it reports through `context.warn` and `context.log`.
public protocol FeedSource: Sendable {
    func fetch(_ context: FetchContext) async throws(SourceError)
}

/// One source type in the registry: its name, what it reads, its options, and how to build an
/// instance from validated options (recording further errors on the reader and returning nil).
public struct SourceDescriptor: Sendable {
    public let type: String
    public let summary: String
    public let options: [OptionSpec]
    public let make: @Sendable (SourceSettings, OptionReader) -> (any FeedSource)?
    /// How the kinds this type makes read as a line of text, where not `ItemLine.standard`.
    public let lines: [ItemLine]
    /// The type names people write when they mean this one (`rss` and `atom` for `feed`): an
    /// unknown type that is one of them is pointed here, before any spelling suggestion.
    public let aliases: [String]

    public init(type: String, summary: String, options: [any OptionDeclaration], lines: [ItemLine] = [], aliases: [String] = [],
                make: @escaping @Sendable (SourceSettings, OptionReader) -> (any FeedSource)?) {
        self.type = type
        self.summary = summary
        self.options = options.map(\.spec)
        self.lines = lines
        self.aliases = aliases
        self.make = make
    }
}

/// Why a source ended before it was done, already readable: `GET https://api/x?key=***:
/// items[3].title: expected string, found number`.
public struct SourceError: Error, CustomStringConvertible, Sendable {
    private enum Code: Sendable {
        case failed
        /// SIGINT/SIGTERM, or cancellation: not the source's fault.
        case interrupted
        /// Delivery stopped: a sink failed or the reader of stdout left.
        case deliveryStopped
        /// The source reached its `max_items`: done, not failed.
        case enough
    }

    public let message: String
    private let code: Code
    /// The HTTP failure behind this error, when there is one (status and body included).
    public let http: HTTPError?

    public init(_ message: String) {
        self.message = Redactor.redactText(message)
        self.code = .failed
        self.http = nil
    }

    public init(_ error: HTTPError) {
        self.message = Redactor.redactText(error.description)
        self.code = error.kind == .cancelled ? .interrupted : .failed
        self.http = error
    }

    private init(message: String, code: Code) {
        self.message = message
        self.code = code
        self.http = nil
    }

    /// The run was stopped (SIGINT/SIGTERM) before the source finished: not the source's fault.
    public var isInterruption: Bool { code == .interrupted }
    /// Delivery stopped under the source (a sink failed, stdout closed): not its fault either.
    public var isDeliveryStop: Bool { code == .deliveryStopped }
    /// The source delivered its `max_items`.
    public var isEnough: Bool { code == .enough }

    public static let interrupted = SourceError(message: "interrupted", code: .interrupted)
    public static let enough = SourceError(message: "max_items reached", code: .enough)
    public static func deliveryStopped(_ why: String) -> SourceError { SourceError(message: why, code: .deliveryStopped) }

    public var description: String { message }
}

/// What a source gets for one run. A class: a source's async functions each keep the context,
/// and a copy of the struct it was retained each of its dozen fields (its settings among them).
public final class FetchContext: Sendable {
    public let settings: SourceSettings
    public let http: HTTPClient
    /// When this run fetched (the same for every item of the run).
    public let fetched: Timestamp
    /// When this source last ran successfully, from state (nil: first run, or no state), so a
    /// source can ask an API only for what is newer.
    public let previousSuccess: Timestamp?
    /// How many requests may usefully run at once (`http.concurrency`): a source that fans out
    /// over many URLs or places keeps at most this many in flight.
    public let parallelism: Int
    /// True under `tributary test NAME`: the run is someone writing or debugging this source's
    /// config, and the source may say what its rules matched (`explain`). False in `run` and
    /// `watch`, where those lines would be noise.
    public let explains: Bool
    /// This run's incremental cursor (`CursorSlot`): read the stored value with
    /// `storedCursor()`, propose the next one with `proposeCursor(_:)`.
    public let cursorSlot: CursorSlot
    private let emitHandler: @Sendable ([Item]) async throws(SourceError) -> Void
    private let warnHandler: @Sendable (String) -> Void
    private let logHandler: (@Sendable (String) -> Void)?

    public init(settings: SourceSettings, http: HTTPClient, fetched: Timestamp, previousSuccess: Timestamp? = nil, parallelism: Int = 32,
                explains: Bool = false, cursor: CursorSlot = .empty(),
                emit: @escaping @Sendable ([Item]) async throws(SourceError) -> Void,
                warn: @escaping @Sendable (String) -> Void, log: (@Sendable (String) -> Void)? = nil) {
        self.settings = settings
        self.http = http
        self.fetched = fetched
        self.previousSuccess = previousSuccess
        self.parallelism = max(1, parallelism)
        self.explains = explains
        self.cursorSlot = cursor
        self.emitHandler = emit
        self.warnHandler = warn
        self.logHandler = log
    }

    /// Hands over a page's items: delivers the batch handed over before and returns when it is
    /// written and recorded (this one is held until the next call or the end of `fetch`);
    /// throws when the source should stop (see `FeedSource`).
    public func emit(_ items: [Item]) async throws(SourceError) {
        guard !items.isEmpty else { return }
        try await emitHandler(items)
    }

    /// The cursor value the source's last successful run proposed (nil: none kept, or no
    /// state); read from the state when called. A state that cannot be read is an error.
    public func storedCursor() async throws(SourceError) -> String? { try await cursorSlot.stored() }

    /// Proposes the cursor value to keep for the next run (the last call wins). It is kept only
    /// if this run succeeds, with the run's record, after every batch was written (`CursorSlot`):
    /// propose only values of items already handed to `emit` and delivered.
    public func proposeCursor(_ value: String) { cursorSlot.propose(value) }

    /// Logs a warning on stderr, prefixed by the source name (secrets redacted).
    public func warn(_ message: String) { warnHandler(Redactor.redactText(message)) }

    /// Logs an informational line on stderr, prefixed by the source name (secrets redacted).
    public func log(_ message: String) { (logHandler ?? warnHandler)(Redactor.redactText(message)) }

    /// Under `tributary test` only (`explains`): logs `message` like `log`, one line per call,
    /// to show the person writing the config what the source's rules matched (`items //article:
    /// 12 matches`). Elsewhere it does nothing, and `message` is never built.
    public func explain(_ message: @autoclosure () -> String) {
        guard explains else { return }
        log(message())
    }

    /// Tells the schedule how often the document says to ask again (an RSS `<ttl>`,
    /// `sy:updatePeriod`): with `interval: "auto"` the source never runs sooner than the
    /// largest such hint of its run (Docs/scheduling.md). `why` names it: `ttl 2h`.
    public func suggestInterval(atLeast seconds: Double, because why: String) {
        http.ledger?.noteHint(IntervalHint(seconds: seconds, why: why))
    }

    /// A new item with `source`, `type` and `fetched` filled in, and the other fields given.
    /// A source that has every field at hand passes them here rather than setting them on the
    /// item after: an item made, filled in and returned was copied once more on the way out.
    /// The texts are taken, not borrowed: a caller's last use of one hands it over, where a
    /// borrowed one was retained again to be stored.
    public func item(id: consuming String, kind: consuming String, title: consuming String, summary: consuming String? = nil,
                     url: consuming String? = nil, image: consuming String? = nil, author: consuming String? = nil,
                     published: Timestamp? = nil, tags: consuming [String] = [], geo: Geo? = nil,
                     data: consuming JSONObject = JSONObject()) -> Item {
        Item(id: id, source: settings.name, type: settings.type, kind: kind, title: title, summary: summary, url: url, image: image,
             author: author, published: published, fetched: fetched, tags: tags, geo: geo, data: data)
    }

    /// GET (or any method) through the shared client; the response body is returned for 2xx.
    /// `page`: which page of a paginated source this is, for `--verbose`'s line per request.
    public func get(_ url: String, headers: [(name: String, value: String)] = [], method: String = "GET", body: [UInt8]? = nil, allowFile: Bool = false, page: Int? = nil) async throws(SourceError) -> HTTPResponse {
        var request = HTTPRequest(method: method, url: url, headers: headers, body: body, timeout: settings.timeout, allowFile: allowFile)
        request.page = page
        do {
            return try await http.fetch(request)
        } catch {
            throw SourceError(error)
        }
    }

    /// Parses a response body as JSON; a syntax error names the URL, line and column.
    public func parseJSON(_ response: HTTPResponse, method: String = "GET") throws(SourceError) -> JSONValue {
        try parseJSONDocument(response, method: method).value
    }

    /// The response body as a parsed `JSONDocument` (a tape: read it through `JSONNode(doc)`,
    /// whose accessors and `kind` build no tree), or an error naming the URL and what went wrong.
    public func parseJSONDocument(_ response: HTTPResponse, method: String = "GET") throws(SourceError) -> JSONDocument {
        do {
            return try JSONDocument(response.body)
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
