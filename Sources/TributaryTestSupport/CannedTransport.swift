import TributaryCore

/// A transport that answers every request from a closure (by URL), optionally after a delay,
/// and notes what was asked and how many requests were in flight at once. For in-process
/// tests that need no server at all; tests of the HTTP layer itself use `LoopbackServer`.
public final class CannedTransport: HTTPTransport, Sendable {
    private let state = Locked<(urls: [String], requests: [HTTPRequest], inFlight: Int, peak: Int)>(([], [], 0, 0))
    private let delay: Double
    private let answer: @Sendable (String) -> (status: Int, body: String)?

    /// `answer` nil means there is no answer: the request fails as `no recording for GET <url>`.
    public init(delay: Double = 0, _ answer: @escaping @Sendable (String) -> (status: Int, body: String)?) {
        self.delay = delay
        self.answer = answer
    }

    /// Every request gets the same answer.
    public convenience init(status: Int, body: String) {
        self.init { _ in (status, body) }
    }

    public var requested: [String] { state.withLock { $0.urls } }
    public var requests: [HTTPRequest] { state.withLock { $0.requests } }
    public var maxInFlight: Int { state.withLock { $0.peak } }

    public func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        state.withLock {
            $0.urls.append(request.url)
            $0.requests.append(request)
            $0.inFlight += 1
            $0.peak = max($0.peak, $0.inFlight)
        }
        defer { state.withLock { $0.inFlight -= 1 } }
        if delay > 0 { try? await Task.sleep(nanoseconds: UInt64(delay * 1e9)) }
        guard let (status, body) = answer(request.url) else {
            throw HTTPError(kind: .noRecording, method: request.method, url: request.url, message: "no recording")
        }
        return HTTPResponse(status: status, headers: [("Content-Type", "application/json; charset=utf-8")], body: Array(body.utf8), url: request.url)
    }
}
