import TributaryBase
import TributaryJSON
import TributaryOptions

/// One HTTP request as sources describe it; the transport adds the fixed policy (timeouts,
/// redirects, protocols, decoding, User-Agent).
public struct HTTPRequest: Sendable, Equatable {
    public var method: String
    public var url: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]?
    /// Total time allowed for one attempt, in seconds; nil means the source's `timeout`.
    public var timeout: Double?
    /// True only for a URL written directly in the config: lets `file://` through (never via a redirect).
    public var allowFile: Bool
    /// False: a 3xx is the response, not followed (a webhook's POST must not turn into a GET
    /// elsewhere and count as delivered).
    public var followRedirects: Bool
    /// Set by a caller that decides on the status line and wants the body only for an error
    /// message (`BodyPeek`); nil: the whole body is the response (up to `http.max_body`).
    public var peek: BodyPeek?
    /// A smaller limit on the body than `http.max_body` for this request (the `fulltext`
    /// processor's `max_size`): a longer body fails with `bodyTooLarge` naming `option`.
    public var bodyLimit: BodyLimit?
    /// The response carries credentials (an OAuth2 token response): a transport that keeps
    /// responses (`RecordingTransport`) registers the tokens in it with `Secrets` before it
    /// keeps it (`OAuth2TokenResponse.registerSecrets`), so they are scrubbed from it.
    public var carriesCredentials = false
    /// The proxy this request goes through (`ProxyURL`; the source's `proxy`), nil: direct.
    public var proxy: String?
    /// Which page of a paginated source this is (1, 2, ...), for the request's log line
    /// (`--verbose`); nil when the source does not page.
    public var page: Int? = nil

    public struct BodyLimit: Sendable, Equatable {
        public var bytes: Int
        /// The option that set it, named in the error (`max_size`).
        public var option: String
        public init(bytes: Int, option: String) {
            self.bytes = bytes
            self.option = option
        }
    }

    /// Only the start of a response body: at most `bytes` of it are read, for at most `seconds`
    /// after the response's head (status line and headers) arrived. A response cut short so,
    /// or whose connection fails or times out once its head is in, is complete: its status,
    /// its headers and the body read so far. So a receiver that answers 2xx and then sends a
    /// body without end (or of gigabytes, or never finishes it) has answered 2xx.
    public struct BodyPeek: Sendable, Equatable {
        public var bytes: Int
        public var seconds: Double
        public init(bytes: Int, seconds: Double) {
            self.bytes = bytes
            self.seconds = seconds
        }
    }

    public init(method: String = "GET", url: String, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil, timeout: Double? = nil,
                allowFile: Bool = false, followRedirects: Bool = true, peek: BodyPeek? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.allowFile = allowFile
        self.followRedirects = followRedirects
        self.peek = peek
    }

    public static func == (a: HTTPRequest, b: HTTPRequest) -> Bool {
        a.method == b.method && a.url == b.url && a.body == b.body && a.headers.map { "\($0.name):\($0.value)" } == b.headers.map { "\($0.name):\($0.value)" }
    }
}

/// A complete response: status, headers of the final response (after redirects), decoded body.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// The URL that finally answered (after redirects).
    public var url: String

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = [], url: String) {
        self.status = status
        self.headers = headers
        self.body = body
        self.url = url
    }

    /// First header with this name, case-insensitive.
    public func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first(where: { $0.name.lowercased() == lower })?.value
    }
}

/// Sends one attempt of a request. Implementations: `CurlTransport` (the network),
/// `ReplayTransport` (recordings), `RecordingTransport` (saves what another transport does).
/// Contract: never retries, never throws anything but `HTTPError`; a non-2xx status is a
/// response, not an error.
public protocol HTTPTransport: Sendable {
    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse
}
