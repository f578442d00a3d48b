import TributaryBase
import FoundationEssentials

/// A source's credentials for its HTTP requests (the common source option `auth`), sent as the
/// `Authorization` header by the source's `HTTPClient` (`SourceAuth` says to which hosts).
///
/// Every secret part is registered with `Secrets` when the value is made (the token, the
/// password and the `Basic` credential built from it, the client secret), so no message, log
/// line, state row, recording or status shows it.
public enum HTTPAuth: Sendable, Equatable {
    /// `Authorization: Bearer <token>`.
    case bearer(token: String)
    /// `Authorization: Basic base64(<username>:<password>)` (RFC 7617, UTF-8).
    case basic(username: String, password: String)
    /// A token from an OAuth2 token endpoint (RFC 6749 section 4.4), cached by
    /// `OAuth2TokenCache` and sent as `Authorization: <token_type> <access_token>`.
    case oauth2(OAuth2ClientCredentials)

    /// Registers the secrets of this value (see the type's contract) and returns it.
    public func registeringSecrets() -> HTTPAuth {
        switch self {
        case .bearer(let token):
            Secrets.register(token)
        case .basic(let username, let password):
            Secrets.register(password)
            Secrets.register(Self.basicCredential(username: username, password: password))
        case .oauth2(let c):
            Secrets.register(c.clientSecret)
            Secrets.register(c.basicCredential)
        }
        return self
    }

    /// `base64(<username>:<password>)`, the credential of the `Basic` scheme (RFC 7617).
    public static func basicCredential(username: String, password: String) -> String {
        Data((username + ":" + password).utf8).base64EncodedString()
    }

    /// The name of the form, as written in the config (`bearer`, `basic`, `oauth2_client_credentials`).
    public var typeName: String {
        switch self {
        case .bearer: return "bearer"
        case .basic: return "basic"
        case .oauth2: return "oauth2_client_credentials"
        }
    }
}
