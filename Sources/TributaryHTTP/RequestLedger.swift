import TributaryBase
import TributaryJSON
import TributaryOptions

/// One source's HTTP bookkeeping for one run: requests made (for quotas), which answers were
/// 304 Not Modified, the validators state had for its requests (loaded once, before the source
/// starts, so no request waits on the database), and the validators of fresh responses, handed
/// to the delivery with the next batch so they are committed with the items they produced.
public final class RequestLedger: Sendable {
    /// Whose responses these are (the source name): sources asking the same URL with different
    /// credentials (a header, a masked key) never share a stored response.
    public let scope: String
    private let known: [String: HTTPValidators]
    private let cache: (any HTTPCache)?
    private let warn: @Sendable (String) -> Void
    /// False without state (`--no-state`): fresh responses' validators and bodies would be
    /// stored nowhere, so they are not kept either.
    private let keepsValidators: Bool
    private let state = Locked<(requests: Int, notModified: Int, fresh: Int, pending: [(key: String, response: CachedResponse)])>((0, 0, 0, []))
    /// Answers by status (`"200"`, `"error"`) not yet handed to the delivery.
    private let statuses = Locked<[String: Int]>([:])
    /// True for a source with `interval: "auto"`: the servers' hints are collected.
    public let collectsHints: Bool
    /// The largest hint of the run so far (`IntervalHint`).
    private let hint = Locked<IntervalHint?>(nil)

    /// `known`: the validators state has for this scope; `cache`: reads the body stored with one
    /// (on a 304); `warn`: told when that body cannot be read (the request is then sent again
    /// without validators).
    public init(scope: String, known: [String: HTTPValidators] = [:], cache: (any HTTPCache)? = nil,
                warn: @escaping @Sendable (String) -> Void = { _ in }, keepsValidators: Bool = true, collectsHints: Bool = false) {
        self.scope = scope
        self.collectsHints = collectsHints
        self.keepsValidators = keepsValidators
        self.known = known
        self.cache = cache
        self.warn = warn
    }

    /// The key a response is stored under: the scope, the method and the redacted URL.
    public func key(method: String, url: String) -> String { scope + " " + Recording.key(method: method, url: url) }

    /// Attempts sent to the network (retries included).
    public var requests: Int { state.withLock { $0.requests } }
    /// True when every answered request was 304 Not Modified.
    public var allNotModified: Bool { state.withLock { $0.notModified > 0 && $0.fresh == 0 } }

    /// The validators of fresh responses not yet handed over; empties the list.
    public func takePending() -> [(key: String, response: CachedResponse)] {
        state.withLock { s in
            let p = s.pending
            s.pending.removeAll()
            return p
        }
    }

    /// The answers by status since the last call (`StateCounter.Name.httpRequests`); empties the count.
    public func takeStatuses() -> [String: Int] {
        statuses.withLock { s in
            let taken = s
            s.removeAll()
            return taken
        }
    }

    /// Keeps `h` when it is larger than the run's hint so far (with `collectsHints`).
    public func noteHint(_ h: IntervalHint?) {
        guard collectsHints, let h else { return }
        hint.withLock { $0 = IntervalHint.larger($0, h) }
    }

    /// The largest hint of the run (headers of its responses, and what its source read in the
    /// documents: an RSS `<ttl>`).
    public var largestHint: IntervalHint? { hint.withLock { $0 } }

    /// Counts one answer: its status, or `"error"` for a transfer that got none.
    func countStatus(_ status: Int?) {
        let label = status.map { String($0) } ?? "error"
        statuses.withLock { $0[label, default: 0] += 1 }
    }

    /// True when state had validators for this scope: only then is a request's key worth making.
    var hasValidators: Bool { !known.isEmpty }
    func validators(_ key: String) -> HTTPValidators? { known[key] }
    /// The body stored for a 304, or nil (with a warning) when state cannot give it.
    func storedBody(_ key: String) async -> [UInt8]? {
        do throws(HTTPCacheError) {
            if let b = try await cache?.storedBody(key) { return b }
            warn("state has validators but no stored response for \(key.dropFirst(scope.count + 1)); fetching it again without them")
        } catch {
            warn("state: cannot read the stored response for \(key.dropFirst(scope.count + 1)) (\(error.message)); fetching it again without validators")
        }
        return nil
    }
    func countRequest() { state.withLock { $0.requests += 1 } }
    func countNotModified() { state.withLock { $0.notModified += 1 } }

    /// Counts a fresh answer to `method url`; keeps its validators (under the request's key,
    /// built only here) when it has any.
    func recordFresh(method: String, url: String, response: HTTPResponse) {
        guard keepsValidators else { state.withLock { $0.fresh += 1 }; return }
        let etag = response.header("ETag")
        let lastModified = response.header("Last-Modified")
        let key = etag != nil || lastModified != nil ? self.key(method: method, url: url) : ""
        state.withLock { s in
            s.fresh += 1
            if etag != nil || lastModified != nil {
                s.pending.append((key, CachedResponse(etag: etag, lastModified: lastModified, body: response.body)))
            }
        }
    }
}
