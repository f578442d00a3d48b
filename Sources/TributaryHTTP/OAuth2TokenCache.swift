import TributaryBase
import FoundationEssentials

/// The OAuth2 access tokens of the process, one per token URL + client id + client secret +
/// scope, shared by every source that authenticates so.
///
/// Contract:
/// - A fresh token (see `OAuth2Token.refreshAt`) is reused; a missing or expired one is
///   fetched once, however many sources ask at the same moment (single flight: the callers
///   that arrive while a fetch is under way wait for that fetch and get its token or its error).
/// - A failed fetch is not cached: the next caller fetches again.
/// - `invalidate` after a 401 forgets that token only if it is still the cached one, so 50
///   sources answered 401 with the same old token cause one new fetch, not 50.
public final class OAuth2TokenCache: Sendable {
    /// The cache every source's `HTTPClient` uses.
    public static let shared = OAuth2TokenCache()

    private enum Entry {
        case ready(OAuth2Token)
        case pending(id: Int, Task<Result<OAuth2Token, HTTPError>, Never>)
    }

    private struct State {
        var entries: [OAuth2ClientCredentials: Entry] = [:]
        var nextID = 0
        /// Token requests made (for tests and `--verbose`).
        var fetches = 0
    }

    private let state = Locked(State())
    private let clock: @Sendable () -> Double

    /// `clock` stands in for `OAuth2Token.now` in tests.
    public init(clock: @escaping @Sendable () -> Double = OAuth2Token.now) {
        self.clock = clock
    }

    /// How many token fetches this cache started.
    public var fetchCount: Int { state.withLock { $0.fetches } }

    /// The token for `credentials`: the cached one while fresh, else the result of one
    /// `fetch` shared by every caller that asks meanwhile.
    public func token(for credentials: OAuth2ClientCredentials,
                      fetch: @escaping @Sendable () async -> Result<OAuth2Token, HTTPError>) async throws(HTTPError) -> OAuth2Token {
        let now = clock()
        enum Step { case cached(OAuth2Token), wait(Task<Result<OAuth2Token, HTTPError>, Never>, id: Int) }
        let step = state.withLock { s -> Step in
            switch s.entries[credentials] {
            case .ready(let t)? where t.isFresh(at: now):
                return .cached(t)
            case .pending(let id, let task)?:
                return .wait(task, id: id)
            default:
                s.nextID += 1
                s.fetches += 1
                let id = s.nextID
                let task = Task { await fetch() }
                s.entries[credentials] = .pending(id: id, task)
                return .wait(task, id: id)
            }
        }
        let running: Task<Result<OAuth2Token, HTTPError>, Never>
        let id: Int
        switch step {
        case .cached(let t): return t
        case .wait(let task, let taskID): (running, id) = (task, taskID)
        }
        let result = await running.value
        state.withLock { s in
            // The fetch's owner of the slot puts the outcome in (the first waiter to get here);
            // a failure leaves the slot empty so the next caller fetches again.
            if case .pending(let pid, _)? = s.entries[credentials], pid == id {
                switch result {
                case .success(let t): s.entries[credentials] = .ready(t)
                case .failure: s.entries[credentials] = nil
                }
            }
        }
        return try result.get()
    }

    /// Forgets `stale` (the access token a request was answered 401 with) if it is still the
    /// cached token for `credentials`; a newer one, or a fetch under way, is kept.
    public func invalidate(_ credentials: OAuth2ClientCredentials, stale: String) {
        state.withLock { s in
            if case .ready(let t)? = s.entries[credentials], t.accessToken == stale { s.entries[credentials] = nil }
        }
    }
}
