import TributaryBase
import TributaryJSON
import TributaryOptions
import FoundationEssentials
import Glibc
import Dispatch

/// What sources use to fetch: one transport plus the retry policy. Retries connection errors,
/// timeouts and 429/500/502/503/504 with exponential backoff and jitter, honouring
/// Retry-After (seconds or an HTTP date, capped at 60 s); never retries other 4xx.
public struct HTTPClient: Sendable {
    public let transport: any HTTPTransport
    public var retries: Int
    public var timeout: Double
    /// Base delay of the first retry, seconds (doubled on each further attempt).
    public var backoffBase: Double
    /// Request counts and conditional-GET validators for this source's run, if state is in use.
    public var ledger: RequestLedger?
    /// Which failures get another attempt: `HTTPError.isRetryable` unless a caller (the webhook
    /// sink: every 5xx) says otherwise.
    public var shouldRetry: @Sendable (HTTPError) -> Bool = { $0.isRetryable }
    /// The source's `auth` (`SourceAuth`: which credential, to which hosts); nil: no
    /// `Authorization` header is added. An OAuth2 token that a request is answered 401 with is
    /// fetched again once for that request, which is then sent once more.
    public var auth: SourceAuth?
    /// Where OAuth2 tokens are kept: the process's shared cache unless a test gives its own.
    public var tokens: OAuth2TokenCache = .shared
    /// The source's `proxy`: set on every request that does not name one itself.
    public var proxy: String?
    /// Told of every attempt when it ends (`--verbose`: a log line per request); nil: nothing
    /// is measured or built for it.
    public var requestLog: (@Sendable (HTTPRequestRecord) -> Void)?

    public init(transport: any HTTPTransport, retries: Int = 2, timeout: Double = 20, backoffBase: Double = 0.5, ledger: RequestLedger? = nil) {
        self.transport = transport
        self.retries = retries
        self.timeout = timeout
        self.backoffBase = backoffBase
        self.ledger = ledger
    }

    /// Sends `request` (with the source's timeout unless the request sets its own) and returns a
    /// 2xx/3xx response; any other status becomes an `HTTPError` of kind `.status` carrying the
    /// body, after retries where they apply.
    public func fetch(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        var req = request
        req.timeout = request.timeout ?? timeout
        req.proxy = request.proxy ?? proxy
        // Conditional GET: send the validators state has for this URL; a 304 answers with the
        // body kept from last time, so every source handles "nothing new" without special code.
        // The redacted key is built only when state has validators to look up; a fresh response
        // with validators builds it when it is recorded.
        let lookupKey = ledger?.hasValidators == true && req.method == "GET" ? ledger?.key(method: req.method, url: req.url) : nil
        var conditional = false
        if let lookupKey, let v = ledger?.validators(lookupKey) {
            let has = Set(req.headers.map { $0.name.lowercased() })
            if let e = v.etag, !has.contains("if-none-match") { req.headers.append(("If-None-Match", e)); conditional = true }
            if let m = v.lastModified, !has.contains("if-modified-since") { req.headers.append(("If-Modified-Since", m)); conditional = true }
        }
        // The source's credential, for its own hosts, unless the request carries its own.
        var credential: SourceAuth.Credential? = nil
        var refreshed = false
        if let auth, auth.applies(to: req.url), !req.headers.contains(where: { $0.name.lowercased() == "authorization" }) {
            let c = try await auth.credential(client: self)
            req.headers.append(("Authorization", c.header))
            credential = c
        }
        var attempt = 0
        while true {
            let outcome: Result<HTTPResponse, HTTPError>
            do throws(HTTPError) {
                ledger?.countRequest()
                let began = requestLog == nil ? 0 : DispatchTime.now().uptimeNanoseconds
                func note(_ status: Int?, bytes: Int = 0, notModified: Bool = false, error: HTTPError? = nil) {
                    guard let requestLog else { return }
                    requestLog(HTTPRequestRecord(method: req.method, url: req.url, status: status, error: error.map { "\($0.kind.rawValue): \($0.message)" },
                                                 bytes: bytes, seconds: Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9,
                                                 page: req.page, attempt: attempt + 1, notModified: notModified))
                }
                let resp: HTTPResponse
                do throws(HTTPError) { resp = try await transport.send(req) } catch {
                    if ![.cancelled, .noRecording, .invalidURL].contains(error.kind) { ledger?.countStatus(nil) }
                    note(nil, error: error)
                    throw error
                }
                if resp.status > 0 { ledger?.countStatus(resp.status) }
                if let ledger, ledger.collectsHints, resp.status > 0 {
                    ledger.noteHint(IntervalHint.of(status: resp.status, headers: resp.headers, now: Timestamp.now().seconds))
                }
                if resp.status == 304, conditional, let ledger, let lookupKey {
                    if let body = await ledger.storedBody(lookupKey) {
                        ledger.countNotModified()
                        note(304, bytes: body.count, notModified: true)
                        return HTTPResponse(status: 200, headers: [("X-Tributary-Cache", "not-modified")], body: body, url: resp.url)
                    }
                    // The body kept with the validators cannot be read (the ledger warned why):
                    // ask again without them, so the answer is whole instead of an empty 304.
                    note(304)
                    req.headers.removeAll { ["if-none-match", "if-modified-since"].contains($0.name.lowercased()) }
                    conditional = false
                    continue
                }
                note(resp.status, bytes: resp.body.count)
                if resp.status >= 400 || resp.status == 0 && !req.url.hasPrefix("file:") {
                    outcome = .failure(HTTPError(
                        kind: .status, method: req.method, url: req.url,
                        message: Self.statusText(resp.status), status: resp.status,
                        retryAfter: resp.header("Retry-After").flatMap(Self.parseRetryAfter),
                        body: Array(resp.body.prefix(64 * 1024))))
                } else {
                    outcome = .success(resp)
                }
            } catch {
                outcome = .failure(error)
            }
            switch outcome {
            case .success(let r):
                if req.method == "GET" { ledger?.recordFresh(method: req.method, url: request.url, response: r) }
                return r
            case .failure(let e):
                // An OAuth2 token answered 401 (revoked, expired early): one new token, one more try.
                if e.kind == .status, e.status == 401, !refreshed, let auth, case .oauth2(let c) = auth.auth, let stale = credential?.accessToken {
                    refreshed = true
                    tokens.invalidate(c, stale: stale)
                    let fresh = try await auth.credential(client: self)
                    req.headers.removeAll { $0.name.lowercased() == "authorization" }
                    req.headers.append(("Authorization", fresh.header))
                    credential = fresh
                    continue
                }
                guard shouldRetry(e), attempt < retries, !Task.isCancelled else { throw e }
                let delay = e.retryAfter.map { min($0, 60) } ?? backoff(attempt: attempt)
                attempt += 1
                do {
                    try await Task.sleep(nanoseconds: UInt64(max(0, delay) * 1e9))
                } catch {
                    throw HTTPError(kind: .cancelled, method: req.method, url: req.url, message: "cancelled while waiting to retry")
                }
            }
        }
    }

    func backoff(attempt: Int) -> Double {
        let base = backoffBase * pow(2, Double(attempt))
        return min(60, base * Double.random(in: 0.5...1.5))
    }

    /// `Retry-After: 7` or `Retry-After: Sun, 29 Nov 2026 10:00:00 GMT` -> seconds from now.
    public static func parseRetryAfter(_ value: String) -> Double? {
        let v = value.trimmingBlanks
        if let secs = Double(v), secs >= 0 { return min(secs, 60) }
        if let t = Timestamp.parseRFC822(v) { return min(max(0, t.seconds - Timestamp.now().seconds), 60) }
        return nil
    }

    static func statusText(_ code: Int) -> String {
        switch code {
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 429: return "Too Many Requests"
        case 500: return "Internal Server Error"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        default: return ""
        }
    }
}
