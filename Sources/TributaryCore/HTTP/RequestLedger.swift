
/// Where conditional-GET validators come from (the state store).
public protocol ValidatorLookup: Sendable {
    func cachedResponse(_ key: String) -> CachedResponse?
}

extension StateStore: ValidatorLookup {}

/// One source's HTTP bookkeeping for one run: requests made (for quotas), which answers were
/// 304 Not Modified, and the validators of fresh responses, held back until the source's items
/// are delivered so a failed run never hides content behind a 304 next time.
public final class RequestLedger: Sendable {
    public let lookup: (any ValidatorLookup)?
    /// Whose responses these are (the source name): sources asking the same URL with different
    /// credentials (a header, a masked key) never share a stored response.
    public let scope: String
    private let state = Locked<(requests: Int, notModified: Int, fresh: Int, pending: [(key: String, response: CachedResponse)])>((0, 0, 0, []))

    public init(lookup: (any ValidatorLookup)?, scope: String = "") {
        self.lookup = lookup
        self.scope = scope
    }

    /// Attempts sent to the network (retries included).
    public var requests: Int { state.withLock { $0.requests } }
    /// True when every answered request was 304 Not Modified.
    public var allNotModified: Bool { state.withLock { $0.notModified > 0 && $0.fresh == 0 } }
    public var pendingValidators: [(key: String, response: CachedResponse)] { state.withLock { $0.pending } }

    func countRequest() { state.withLock { $0.requests += 1 } }
    func countNotModified() { state.withLock { $0.notModified += 1 } }

    func recordFresh(key: String, response: HTTPResponse) {
        let etag = response.header("ETag")
        let lastModified = response.header("Last-Modified")
        state.withLock { s in
            s.fresh += 1
            if etag != nil || lastModified != nil {
                s.pending.append((key, CachedResponse(etag: etag, lastModified: lastModified, body: response.body)))
            }
        }
    }
}
