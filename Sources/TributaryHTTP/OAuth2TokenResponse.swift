import TributaryBase
import TributaryJSON
import FoundationEssentials

/// Reads a token endpoint's answer (RFC 6749 sections 5.1 and 5.2): a 2xx JSON object with
/// `access_token`, `token_type` and `expires_in` is a token; anything else is a message that
/// says what came and what was expected, with the server's `error` and `error_description`
/// when it sent them. Secrets never reach a message: the access token is registered with
/// `Secrets` as soon as it is read.
public enum OAuth2TokenResponse {
    /// What was expected, for every message.
    static let expected = "expected a JSON object with \"access_token\", \"token_type\": \"Bearer\" and \"expires_in\" (RFC 6749 section 5.1)"

    /// The token in a response of `status` with `body`, received at monotonic time `now`, or
    /// why there is none.
    public static func parse(status: Int, body: [UInt8], now: Double) -> Result<OAuth2Token, OAuth2TokenError> {
        registerSecrets(body)
        let doc: JSONValue? = try? JSONParser.parse(body)
        let object: JSONNode? = doc.flatMap { $0.objectValue != nil ? JSONNode($0) : nil }
        let oauthError = object.flatMap(serverError)
        guard (200..<300).contains(status) else {
            return .failure(OAuth2TokenError("the token endpoint answered HTTP \(status)\(oauthError.map { ": " + $0 } ?? "") (\(expected))"))
        }
        guard let object else {
            return .failure(OAuth2TokenError("the token endpoint answered HTTP \(status) with a body that is not a JSON object (\(expected))"))
        }
        guard let token = try? object["access_token"].optionalString(), !token.trimmingBlanks.isEmpty else {
            let why = oauthError.map { ": " + $0 } ?? ""
            return .failure(OAuth2TokenError("the token endpoint's answer has no \"access_token\"\(why) (\(expected))"))
        }
        var scheme = "Bearer"
        if let type = try? object["token_type"].optionalString(), !type.isEmpty {
            guard type.lowercased() == "bearer" else {
                return .failure(OAuth2TokenError("the token endpoint issued a token of type \"\(type)\"; only Bearer tokens (RFC 6750) are supported"))
            }
            scheme = "Bearer"
        }
        var expiresIn: Double? = nil
        if let e = try? object["expires_in"].optionalDouble(allowString: true) {
            guard e >= 0, e.isFinite else {
                return .failure(OAuth2TokenError("the token endpoint's \"expires_in\" is \(e) (\(expected), expires_in a number of seconds >= 0)"))
            }
            expiresIn = e
        }
        return .success(OAuth2Token(accessToken: token.trimmingBlanks, scheme: scheme, expiresIn: expiresIn, receivedAt: now))
    }

    /// `invalid_client: Client authentication failed` from an RFC 6749 section 5.2 error body.
    static func serverError(_ object: JSONNode) -> String? {
        guard let code = try? object["error"].optionalString(), !code.isEmpty else { return nil }
        let text = (try? object["error_description"].optionalString()).flatMap { $0 }
        return code + (text.map { $0.isEmpty ? "" : ": " + $0 } ?? "")
    }

    /// Registers the tokens in a token response (`access_token`, `refresh_token`, `id_token`)
    /// with `Secrets`, before anything shows or keeps the response (`RecordingTransport` calls
    /// it for a request marked `carriesCredentials`).
    public static func registerSecrets(_ body: [UInt8]) {
        guard let doc: JSONValue = try? JSONParser.parse(body), doc.objectValue != nil else { return }
        let node = JSONNode(doc)
        for key in ["access_token", "refresh_token", "id_token"] {
            if let value = try? node[key: key].optionalString() { Secrets.register(value) }
        }
    }
}
