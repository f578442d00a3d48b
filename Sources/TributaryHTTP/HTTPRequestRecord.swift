import TributaryBase

/// One attempt of a request as it ended, for `--verbose`'s line per request
/// (`HTTPClient.requestLog`): what was asked (the URL with its secrets redacted), what came
/// back, how many bytes, how long it took, and which page of the source it was.
public struct HTTPRequestRecord: Sendable {
    public var method: String
    /// The URL with secrets redacted (`Redactor.redactURL`, then the registered secrets).
    public var url: String
    /// The status; nil when the transfer got no answer (`error` says why).
    public var status: Int?
    /// Why the transfer got no answer (`timeout: ...`), redacted.
    public var error: String?
    /// The body's bytes: the answer's, or for a 304 answered from the state the stored body's.
    public var bytes: Int
    public var seconds: Double
    /// The page of a paginated source (1, 2, ...), nil for one that does not page.
    public var page: Int?
    /// 1 for the first attempt, 2 for the first retry, ...
    public var attempt: Int
    /// A 304 Not Modified answered with the body the state keeps for the URL (a cache hit).
    public var notModified: Bool

    public init(method: String, url: String, status: Int?, error: String? = nil, bytes: Int, seconds: Double, page: Int? = nil, attempt: Int = 1, notModified: Bool = false) {
        self.method = method
        self.url = Secrets.scrub(Redactor.redactURL(url))
        self.status = status
        self.error = error.map(Redactor.redactText)
        self.bytes = bytes
        self.seconds = seconds
        self.page = page
        self.attempt = attempt
        self.notModified = notModified
    }

    /// `GET https://example.org/api?page=2&key=*** 200 5120 bytes 0.041 s page 2`; a 304 from
    /// the state: `... 304 not modified (cached body) 5120 bytes ...`; no answer:
    /// `... error (timeout: ...) 0 bytes 20.001 s`; a retry ends with `attempt 2`.
    public var message: String {
        var s = method + " " + url + " "
        if let status {
            s += String(status) + (notModified ? " not modified (cached body)" : "")
        } else {
            s += "error (" + (error ?? "no answer") + ")"
        }
        s += " \(bytes) bytes " + Self.seconds(seconds) + " s"
        if let page { s += " page \(page)" }
        if attempt > 1 { s += " attempt \(attempt)" }
        return s
    }

    /// Seconds with millisecond precision: `0.041`.
    static func seconds(_ s: Double) -> String {
        let ms = Int((max(0, s) * 1000).rounded())
        let frac = String(ms % 1000)
        return "\(ms / 1000)." + String(repeating: "0", count: 3 - frac.count) + frac
    }
}
