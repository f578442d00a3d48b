#if canImport(Glibc)
import Glibc
#endif

/// The common source option `auth`: credentials for the source's HTTP
/// requests, in one of three forms, checked when the config is loaded and handed to the
/// source's `HTTPClient` as a `SourceAuth` (Docs/configuration.md, "auth").
///
/// `token`, `password` and `client_secret` are secrets (`Option.secret`): registered with
/// `Secrets` when the config is read, so nothing shows them.
public enum AuthOptions {
    public enum Form: String, CaseIterable, Sendable {
        case bearer, basic
        case oauth2ClientCredentials = "oauth2_client_credentials"

        /// The keys of the form besides `type`, required ones first.
        var required: [String] {
            switch self {
            case .bearer: return ["token"]
            case .basic: return ["username", "password"]
            case .oauth2ClientCredentials: return ["token_url", "client_id", "client_secret"]
            }
        }

        var optional: [String] { self == .oauth2ClientCredentials ? ["scope"] : [] }
    }

    static let type = Option.choice("type", Form.self, "bearer, basic or oauth2_client_credentials").required
    static let token = Option.secret("token", "bearer: the token, sent as \"Authorization: Bearer <token>\" (a secret)")
    static let username = Option.string("username", "basic: the user name")
    static let password = Option.secret("password", "basic: the password (a secret)")
    static let tokenURL = Option.httpURL("token_url", "oauth2_client_credentials: the token endpoint")
    static let clientID = Option.string("client_id", "oauth2_client_credentials: the client id")
    static let clientSecret = Option.secret("client_secret", "oauth2_client_credentials: the client secret (a secret)")
    static let scope = Option.string("scope", "oauth2_client_credentials: the scope asked for (space-separated), if any")

    public static let auth = Option.object("auth", [type, token, username, password, tokenURL, clientID, clientSecret, scope],
                                           "credentials for the source's HTTP requests, sent only to the hosts of its configured URLs: {\"type\": \"bearer\", \"token\"}, {\"type\": \"basic\", \"username\", \"password\"} or {\"type\": \"oauth2_client_credentials\", \"token_url\", \"client_id\", \"client_secret\", \"scope\"} (Docs/configuration.md#auth)")

    /// The source's `auth`, or nil without one (or with an error, reported to `reader`):
    /// each form takes its own keys and no other's. `specs` are the source type's options,
    /// whose URLs (`SourceAuthHosts`) are the hosts that receive the credential.
    static func read(_ reader: OptionReader, specs: [OptionSpec]) -> SourceAuth? {
        guard let r = reader[auth] else { return nil }
        guard let form = r.object["type"]?.stringValue.flatMap(Form.init(rawValue:)) else { return nil }  // reported by the choice
        let own = Set(form.required + form.optional + ["type"])
        var ok = true
        for key in r.object.entries.map(\.key) where !own.contains(key) && r.specs.contains(where: { $0.name == key }) {
            r.error(key, "not a key of the \(form.rawValue) form (it takes \((form.required + form.optional).map { "\"\($0)\"" }.joined(separator: ", ")))")
            ok = false
        }
        for key in form.required where r.object[key] == nil {
            r.error(nil, "missing required key \"\(key)\" (the \(form.rawValue) form takes \(form.required.map { "\"\($0)\"" }.joined(separator: ", ")))")
            ok = false
        }
        if let headers = reader.object["headers"]?.objectValue, headers.entries.contains(where: { $0.key.lowercased() == "authorization" }) {
            reader.error("auth", "the source's \"headers\" set Authorization too: give the credential in one of them")
            ok = false
        }
        guard ok else { return nil }
        let value: HTTPAuth
        switch form {
        case .bearer:
            guard let t = r[token] else { return nil }
            value = .bearer(token: t)
        case .basic:
            guard let u = r[username], let p = r[password] else { return nil }
            value = .basic(username: u, password: p)
        case .oauth2ClientCredentials:
            guard let url = r[tokenURL], let id = r[clientID], let secret = r[clientSecret] else { return nil }
            let s = r[scope].flatMap { $0.trimmingBlanks.isEmpty ? nil : $0 }
            value = .oauth2(OAuth2ClientCredentials(tokenURL: url, clientID: id, clientSecret: secret, scope: s))
        }
        return SourceAuth(auth: value.registeringSecrets(), hosts: SourceAuthHosts.of(reader.object, specs: specs))
    }
}
