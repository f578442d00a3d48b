import TributaryPluginKit
import FoundationEssentials
import Glibc
import Dispatch
import TributaryCore

/// `webhook`: POSTs each batch to a URL, `batch` items per request, through the project's curl
/// transport (its own, made on the first request and stopped in `close`), with the retry
/// policy of `HTTPClient`: connection errors, timeouts, 429 (honouring Retry-After, at most
/// 60 s) and every 5xx are retried with exponential backoff, up to `retries` more attempts; any
/// other status (a 4xx, a 3xx: redirects are not followed) fails at once. `write` returns only
/// when every request of the batch was answered 2xx; otherwise it throws, and the engine does
/// not record the batch, so the next run sends the same items again, with the same
/// `Idempotency-Key` per request (`WebhookPayload`).
///
/// The answer is decided on its status line: only the first few KiB of a response body are
/// read (for error messages), for at most a couple of seconds after the head
/// (`HTTPRequest.BodyPeek`), so a 2xx with a huge or endless body is a 2xx.
///
/// A 413 (Content Too Large) splits the request's items in two halves, each sent as a request
/// of its own (and split again on a 413), down to a single item: one that is still answered
/// 413 can never be delivered, and is rejected (`SinkContext.reject`) while the rest go out.
///
/// `write` runs on the delivery thread and waits there for the async client
/// (`BatchHandOff`); the run's interruption (`SinkContext.interruption`) cancels the request in
/// flight or the wait before a retry, so SIGINT/SIGTERM still ends the run.
///
/// The URL is a secret as a whole (Slack's and Discord's webhook URLs carry their token in the
/// path): messages show it as `scheme://host/***`, and its value, its password and its secret
/// query values are registered as secrets, as are the configured header values and `secret`,
/// so none of them reaches a message or a log line.
public final class WebhookSink: Sink {
    public static let descriptor = SinkDescriptor(type: "webhook", summary: "POST the items to a URL (JSON Lines or a JSON array, or what a template makes), signed, retried",
                                                  options: options, makeWithTemplate: { reader, template in WebhookSink(reader: reader, template: template) })

    static let url = Option.httpURL("url", "where the items are sent (shown as scheme://host/***: its path may hold a token); {idempotency_key} in it is replaced by each request's Idempotency-Key").asSecret.required
    static let method = Option.choice("method", ["POST", "PUT"], "the request method (PUT: an endpoint that names each message in its URL, such as Matrix's, with {idempotency_key})").defaulted("POST")
    static let headers = Option.stringMap("headers", "extra request headers, e.g. Authorization (their values are treated as secrets)")
        .checked(WebhookPayload.headersProblem)
    static let format = Option.choice("format", WebhookFormat.self, "jsonl: the items as JSON Lines (application/x-ndjson); json: one JSON array (application/json)")
        .defaulted(.jsonl)
    static let batch = Option.integer("batch", 1...10_000, "items per request").defaulted(100)
    static let secret = Option.secret("secret", "signs each body: X-Tributary-Signature: sha256=<hex HMAC-SHA256 of the body>")
    static let timeout = Option.duration("timeout", atLeast: 0.001, "time allowed for one attempt of one request").defaulted(10)
    static let retries = Option.integer("retries", 0...10, "further attempts of a request after a connection error, a timeout, 429 or 5xx").defaulted(5)
    public static let options: [any OptionDeclaration] = [url, method, headers, format, batch, secret, timeout, retries]

    /// In `url`: replaced by each request's `Idempotency-Key` (a transaction id that stays the
    /// same when the request is sent again).
    static let keyPlaceholder = "{idempotency_key}"

    /// How much of a response body is read, for error messages only, and for how long after the
    /// head: the status line decides.
    static let peek = HTTPRequest.BodyPeek(bytes: 4096, seconds: 2)

    /// Header names whose values are not treated as secrets.
    static let publicHeaders: Set<String> = ["accept", "accept-language", "user-agent", "x-source"]

    let url: String
    let method: String
    let headers: [(name: String, value: String)]
    let format: WebhookFormat
    let batchSize: Int
    let secret: [UInt8]?
    let timeout: Double
    let retries: Int
    /// The compiled `template` (Docs/templates.md): its outputs are the payloads.
    let template: (any ItemTemplate)?

    private let handOff = BatchHandOff()
    /// The sink's own transport, made by the first `write` and shut down by `close` (delivery
    /// thread only: the lock is never contended).
    private let transport = Locked<CurlTransport?>(nil)

    init(url: String, method: String = "POST", headers: [(name: String, value: String)] = [], format: WebhookFormat = .jsonl, batchSize: Int = 100,
         secret: String? = nil, timeout: Double = 10, retries: Int = 5, template: (any ItemTemplate)? = nil) {
        self.url = url
        self.method = method
        self.template = template
        self.headers = headers
        self.format = format
        self.batchSize = batchSize
        self.secret = secret.map { Array($0.utf8) }
        self.timeout = timeout
        self.retries = retries
        Self.registerSecrets(url: url, headers: headers)
    }

    convenience init(reader: OptionReader, template: (any ItemTemplate)?) {
        self.init(url: reader[Self.url], method: reader[Self.method], headers: (reader[Self.headers] ?? []).map { (name: $0.0, value: $0.1) }, format: reader[Self.format],
                  batchSize: reader[Self.batch], secret: reader[Self.secret], timeout: reader[Self.timeout], retries: reader[Self.retries], template: template)
    }

    /// Every configured header value (but those of `publicHeaders`), the URL and its path
    /// (`Secrets.registerURL`), its password and its secret-named query values become
    /// registered secrets (`Secrets`).
    static func registerSecrets(url: String, headers: [(name: String, value: String)]) {
        Secrets.registerURL(url)
        for h in headers where !publicHeaders.contains(h.name.lowercased()) {
            Secrets.register(h.value)
            if let space = h.value.firstIndex(of: " ") { Secrets.register(String(h.value[h.value.index(after: space)...])) }
        }
        if let scheme = url.firstRange(of: "://") {
            let rest = url[scheme.upperBound...]
            let authority = rest[..<(rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex)]
            if let at = authority.lastIndex(of: "@") {
                let info = authority[..<at]
                if let colon = info.firstIndex(of: ":") { Secrets.register(String(info[info.index(after: colon)...])) } else { Secrets.register(String(info)) }
            }
        }
        if let q = url.firstIndex(of: "?") {
            let query = url[url.index(after: q)...].prefix { $0 != "#" }
            let pairs = query.split(separator: "&").compactMap { (pair: Substring) -> (String, String)? in
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2 else { return nil }
                let name = String(parts[0]), value = String(parts[1])
                return (name.percentDecoded ?? name, value.percentDecoded ?? value)
            }
            Secrets.registerCredentials(pairs.filter { Redactor.isSecretParameter($0.0) })
        }
    }

    /// The URL as messages show it: `scheme://host[:port]/***`, without user info, path or query.
    var shownURL: String { Self.shown(url) }

    static func shown(_ url: String) -> String {
        guard let scheme = url.firstRange(of: "://") else { return "***" }
        let rest = url[scheme.upperBound...]
        var authority = rest[..<(rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex)]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        return String(url[..<scheme.upperBound]) + authority + "/***"
    }

    public func open(_ context: SinkContext) throws(SinkError) {
        handOff.open(context)
    }

    public func write(_ items: [Item]) throws(SinkError) {
        guard !items.isEmpty else { return }
        let context = handOff.context
        let transport = self.transport.withLock { t in
            let made = t ?? CurlTransport(settings: HTTPSettings())
            t = made
            return made
        }
        let parts: [WebhookPart]
        if let template {
            parts = TemplateRendering.render(items, with: template, context: context, sink: "webhook").flatMap { item, outputs in
                outputs.enumerated().map { WebhookPart(item: item, output: $0.element, index: $0.offset) }
            }
        } else {
            parts = items.map(WebhookPart.init(item:))
        }
        let noun = template == nil ? "item" : "payload"
        let requests = (parts.count + batchSize - 1) / batchSize
        for r in 0..<requests {
            let chunk = Array(parts[(r * batchSize)..<min((r + 1) * batchSize, parts.count)])
            let place = requests == 1 ? "\(chunk.count) \(noun)\(chunk.count == 1 ? "" : "s")" : "request \(r + 1) of \(requests) (\(chunk.count) \(noun)s)"
            try send(chunk, place: place, transport: transport, context: context)
        }
    }

    /// Sends `chunk` as one request; after a 413, as two requests of its halves (each split
    /// again on a 413), down to one item, which is then rejected: it can never be delivered.
    private func send(_ chunk: [WebhookPart], place: String, transport: CurlTransport, context: SinkContext) throws(SinkError) {
        guard let bytes = try post(chunk, place: place, transport: transport, context: context) else { return }
        let noun = template == nil ? "items" : "payloads"
        if chunk.count == 1 {
            context.reject(chunk[0].item, reason: "webhook: \(method) \(shownURL): HTTP 413 for this \(template == nil ? "item" : "payload") alone (a body of \(bytes) bytes): the receiver takes no request this large; not delivered")
            return
        }
        let middle = (chunk.count + 1) / 2
        let halves = [Array(chunk[..<middle]), Array(chunk[middle...])]
        context.warn("webhook: \(method) \(shownURL): HTTP 413 for \(place) (a body of \(bytes) bytes); sending them again as two requests of \(halves[0].count) and \(halves[1].count)")
        for (n, half) in halves.enumerated() {
            try send(half, place: "\(n == 0 ? "the first" : "the second") \(half.count) of those \(chunk.count) \(noun)", transport: transport, context: context)
        }
    }

    /// Sends one request until it is answered 2xx (nil), or 413 (the body's size: the caller
    /// splits it), or throws.
    private func post(_ chunk: [WebhookPart], place: String, transport: CurlTransport, context: SinkContext) throws(SinkError) -> Int? {
        let interruption = context.interruption
        let payload = WebhookPayload(parts: chunk, format: format, single: batchSize == 1, secret: secret, extraHeaders: headers)
        let target = url.contains(Self.keyPlaceholder) ? url.replacing(Self.keyPlaceholder, with: payload.key) : url
        let request = HTTPRequest(method: method, url: target, headers: payload.headers, body: payload.body, timeout: timeout, followRedirects: false,
                                  peek: Self.peek)
        let attempts = AttemptLog(inner: transport, method: method, limit: retries + 1, shown: shownURL, shouldRetry: Self.shouldRetry, warn: { context.warn($0) })
        var client = HTTPClient(transport: attempts, retries: retries, timeout: timeout)
        client.shouldRetry = Self.shouldRetry
        // --verbose: each attempt, under the URL as the sink shows it (its path and query can
        // be the secret, as in Slack's and Discord's hook URLs: never shown).
        if let log = context.requestLog {
            let shown = shownURL
            client.requestLog = { record in
                var r = record
                r.url = shown
                r.error = r.error?.replacing(target, with: shown)
                log(r)
            }
        }
        let outcome = handOff.wait { [client] () throws(HTTPError) in
            try await client.fetch(request)
        }
        let tries = attempts.count
        let after = tries > 1 ? ", after \(tries) attempts" : ""
        let notSent = "; \(place) not delivered: the batch is not recorded and is sent again next run"
        switch outcome {
        case .success(let response) where (200..<300).contains(response.status):
            return nil
        case .failure(let e) where e.kind == .status && e.status == 413 && !interruption.isSet:
            return payload.body.count
        case .success(let response):
            var what = "HTTP \(response.status)"
            if (300..<400).contains(response.status) {
                what += " (a redirect\(response.header("Location").map { " to \(Redactor.redactURL($0))" } ?? ""), not followed: set url to the final address)"
            }
            throw failure("\(method) \(shownURL): \(what), expected a 2xx answer\(after)\(notSent)")
        case .failure(let e) where e.kind == .cancelled || interruption.isSet:
            throw failure("\(method) \(shownURL): interrupted before a 2xx answer\(after)\(notSent)")
        case .failure(let e):
            let kind = e.kind != .status ? "" : Self.shouldRetry(e) ? ", expected a 2xx answer" : ", expected a 2xx answer (\(e.status ?? 0) is not retried)"
            throw failure("\(describe(e))\(kind)\(after)\(notSent)")
        }
    }

    /// What went wrong with a request, naming the URL as `shownURL` (never `e.url`, which would
    /// show the path).
    func describe(_ e: HTTPError) -> String {
        switch e.kind {
        case .status:
            return "\(method) \(shownURL): HTTP \(e.status ?? 0)\(e.message.isEmpty ? "" : " " + e.message)" + (e.bodySnippet.map { ": " + $0 } ?? "")
        default:
            return "\(method) \(shownURL): \(e.message)"
        }
    }

    /// Connection errors, timeouts, 429 and every 5xx get another attempt.
    static let shouldRetry: @Sendable (HTTPError) -> Bool = { e in
        e.isRetryable || (e.kind == .status && (500...599).contains(e.status ?? 0))
    }

    public func close() throws(SinkError) {
        let made = transport.withLock { t -> CurlTransport? in
            defer { t = nil }
            return t
        }
        made?.shutdown()
    }

    private func failure(_ message: String) -> SinkError {
        SinkError(Redactor.redactText("webhook: " + message))
    }
}

/// The transport one request's attempts go through: counts them, and warns about each failed
/// one that will be retried (`webhook: POST <url>: attempt 1 of 6: HTTP 503; retrying`).
final class AttemptLog: HTTPTransport {
    let inner: any HTTPTransport
    let method: String
    let limit: Int
    let shown: String
    let shouldRetry: @Sendable (HTTPError) -> Bool
    let warn: @Sendable (String) -> Void
    private let attempts = Locked(0)

    init(inner: any HTTPTransport, method: String = "POST", limit: Int, shown: String, shouldRetry: @escaping @Sendable (HTTPError) -> Bool, warn: @escaping @Sendable (String) -> Void) {
        self.inner = inner
        self.method = method
        self.limit = limit
        self.shown = shown
        self.shouldRetry = shouldRetry
        self.warn = warn
    }

    var count: Int { attempts.withLock { $0 } }

    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        let n = attempts.withLock { a -> Int in
            a += 1
            return a
        }
        do {
            let response = try await inner.send(request)
            if response.status >= 400 {
                note(n, "HTTP \(response.status)", HTTPError(kind: .status, method: request.method, url: request.url, message: "", status: response.status))
            }
            return response
        } catch {
            note(n, error.message, error)
            throw error
        }
    }

    private func note(_ n: Int, _ problem: String, _ error: HTTPError) {
        guard n < limit, shouldRetry(error), !Task.isCancelled else { return }
        warn("webhook: \(method) \(shown): attempt \(n) of \(limit): \(problem); retrying")
    }
}
