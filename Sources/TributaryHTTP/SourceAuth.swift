import TributaryBase
import FoundationEssentials

/// A source's `auth` as its `HTTPClient` applies it: the credentials, and the hosts that may
/// receive them.
///
/// Contract: the `Authorization` header is added to a request only when its host (host and
/// port, `URLEncoding.hostKey`) is one of `hosts`, and only when the request has no
/// `Authorization` header of its own. `hosts` are the hosts of the URLs the source's config
/// names (its `url`, `urls`, `base_url`, ... and their defaults, a json source's
/// `pagination.trusted_hosts`): a next page, an article page a processor fetches or any
/// other URL a server named on another host gets no credential. A redirect is libcurl's:
/// libcurl 7.88 does not send a custom `Authorization` header to another host, port or scheme
/// than the request's (CURLOPT_UNRESTRICTED_AUTH is off), so the header set on the first
/// request does not follow a redirect elsewhere either.
public struct SourceAuth: Sendable {
    public var auth: HTTPAuth
    /// The host keys that receive the credential; nil: every request (tests, tools).
    public var hosts: Set<String>?

    public init(auth: HTTPAuth, hosts: Set<String>?) {
        self.auth = auth
        self.hosts = hosts
    }

    /// Whether a request to `url` gets the credential.
    public func applies(to url: String) -> Bool {
        guard let hosts else { return true }
        return hosts.contains(URLEncoding.hostKey(url))
    }

    /// The header value for the next request, and the OAuth2 access token in it (nil for
    /// bearer and basic), which a 401 invalidates.
    public struct Credential: Sendable {
        public var header: String
        public var accessToken: String?
    }

    /// The credential: the configured token or user and password, or an OAuth2 token from
    /// `client.tokens` (fetched with `client`'s transport, timeout and retries when the cache
    /// has none that is fresh).
    public func credential(client: HTTPClient) async throws(HTTPError) -> Credential {
        switch auth {
        case .bearer(let token):
            return Credential(header: "Bearer " + token, accessToken: nil)
        case .basic(let username, let password):
            return Credential(header: "Basic " + HTTPAuth.basicCredential(username: username, password: password), accessToken: nil)
        case .oauth2(let c):
            let token = try await client.tokens.token(for: c) { await Self.fetchToken(c, using: client) }
            return Credential(header: token.authorization, accessToken: token.accessToken)
        }
    }

    /// One token request (`OAuth2ClientCredentials.tokenRequest`) with `client`'s transport,
    /// timeout and retries, without its credential or request ledger. A failure names the
    /// token URL (redacted) and says what went wrong and what was expected.
    static func fetchToken(_ c: OAuth2ClientCredentials, using client: HTTPClient) async -> Result<OAuth2Token, HTTPError> {
        var plain = client
        plain.auth = nil
        plain.ledger = nil
        let request = c.tokenRequest()
        func failed(_ kind: HTTPError.Kind, _ why: String) -> Result<OAuth2Token, HTTPError> {
            .failure(HTTPError(kind: kind, method: request.method, url: c.tokenURL, message: "OAuth2 token request failed: " + why))
        }
        let status: Int
        let body: [UInt8]
        do throws(HTTPError) {
            let response = try await plain.fetch(request)
            (status, body) = (response.status, response.body)
        } catch {
            guard error.kind == .status, let s = error.status else { return failed(error.kind, error.message) }
            (status, body) = (s, error.body)
        }
        switch OAuth2TokenResponse.parse(status: status, body: body, now: OAuth2Token.now()) {
        case .success(let token): return .success(token)
        case .failure(let e): return failed(.other, e.message)
        }
    }
}
