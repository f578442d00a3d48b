import TributaryBase
import FoundationEssentials
import Dispatch

/// An access token from an OAuth2 token endpoint, and until when it is used.
public struct OAuth2Token: Sendable, Equatable {
    public var accessToken: String
    /// The scheme of the `Authorization` header: always `Bearer` (RFC 6750), whatever case
    /// the server wrote `token_type` in.
    public var scheme: String
    /// `expires_in` as the server sent it, seconds; nil when it sent none.
    public var expiresIn: Double?
    /// Monotonic time (`OAuth2Token.now()`) from which the token is no longer used and a new
    /// one is fetched: `expires_in` after it was received, less a margin of 10% of
    /// `expires_in` (at most 30 s) for the clocks and the request in flight. Nil: the server
    /// gave no `expires_in`, and the token is used until a request is answered 401.
    public var refreshAt: Double?

    public init(accessToken: String, scheme: String = "Bearer", expiresIn: Double? = nil, receivedAt: Double) {
        self.accessToken = accessToken
        self.scheme = scheme
        self.expiresIn = expiresIn
        self.refreshAt = expiresIn.map { receivedAt + $0 - Self.margin(expiresIn: $0) }
    }

    /// The seconds before `expires_in` ends at which the token is renewed.
    public static func margin(expiresIn: Double) -> Double { min(30, max(0, expiresIn) * 0.1) }

    /// The `Authorization` header value.
    public var authorization: String { scheme + " " + accessToken }

    /// Whether the token is still to be used at monotonic time `now`.
    public func isFresh(at now: Double) -> Bool { refreshAt.map { now < $0 } ?? true }

    /// Monotonic seconds (uptime): what `refreshAt` is measured in; a change of the wall clock
    /// does not expire tokens.
    public static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
}
