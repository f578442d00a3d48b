import TributaryBase
import FoundationEssentials

/// The settings of the OAuth2 client credentials grant (RFC 6749 section 4.4): where to ask
/// for a token, as which client, for which scope.
public struct OAuth2ClientCredentials: Sendable, Hashable {
    /// The token endpoint (http or https).
    public var tokenURL: String
    public var clientID: String
    public var clientSecret: String
    /// Space-separated scopes, sent as `scope` when given.
    public var scope: String?

    public init(tokenURL: String, clientID: String, clientSecret: String, scope: String? = nil) {
        self.tokenURL = tokenURL
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.scope = scope
    }

    /// The token request: `POST <token_url>` with the form body `grant_type=client_credentials`
    /// (and `scope`), the client authenticated with HTTP Basic as RFC 6749 section 2.3.1
    /// prefers (client id and secret form-encoded first, as it says). The request is marked
    /// `carriesCredentials`, so a recording of its response keeps no token.
    public func tokenRequest() -> HTTPRequest {
        var form = "grant_type=client_credentials"
        if let scope, !scope.isEmpty { form += "&scope=" + Self.formEncode(scope) }
        var request = HTTPRequest(method: "POST", url: tokenURL, headers: [
            ("Authorization", "Basic " + basicCredential),
            ("Content-Type", "application/x-www-form-urlencoded"),
            ("Accept", "application/json"),
        ], body: Array(form.utf8))
        request.carriesCredentials = true
        return request
    }

    /// The client's `Basic` credential: id and secret form-encoded, joined by `:`, base64.
    public var basicCredential: String {
        HTTPAuth.basicCredential(username: Self.formEncode(clientID), password: Self.formEncode(clientSecret))
    }

    /// `application/x-www-form-urlencoded` encoding of one value (RFC 6749 appendix B): the
    /// unreserved characters stay, a space is `+`, every other byte is `%XX`.
    static func formEncode(_ s: String) -> String {
        var out = ""
        for b in s.utf8 {
            switch b {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x2E, 0x5F, 0x7E: out.unicodeScalars.append(Unicode.Scalar(b))
            case 0x20: out += "+"
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                out.unicodeScalars.append("%")
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(b >> 4)]))
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(b & 15)]))
            }
        }
        return out
    }
}
