import TributaryBase
import FoundationEssentials
import Glibc
import Dispatch

/// A PostgreSQL connection URL (`postgres://user:pass@host:port/db?param=value`, or
/// `postgresql://`), as libpq accepts it, with the form that may be shown: the password (in the
/// user part or a `password=` parameter) replaced by `***`. Parsing registers the password with
/// `Secrets`, so no message, log line or state row can carry it either.
public struct PostgresURL: Sendable, Equatable {
    /// The URL as configured (after `${VAR}` interpolation).
    public let raw: String
    /// The URL without its password: what errors and logs show.
    public let display: String

    /// Seconds libpq waits for a connection before giving up (its `connect_timeout`), unless the
    /// URL sets its own.
    public static let connectTimeout = 5

    /// nil when `text` is not a `postgres://` or `postgresql://` URL; the reason is `expectation`.
    public init?(_ text: String) {
        guard let schemeEnd = text.firstRange(of: "://"), ["postgres", "postgresql"].contains(String(text[..<schemeEnd.lowerBound])) else { return nil }
        raw = text
        var shown = text
        let rest = text[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") {
            let userinfo = authority[..<at]
            if let colon = userinfo.firstIndex(of: ":") {
                let password = String(userinfo[userinfo.index(after: colon)...])
                Self.registerSecret(password)
                shown = String(text[..<userinfo.index(after: colon)]) + "***" + String(text[at...])
            }
        }
        if let q = shown.firstIndex(of: "?") {
            let params = shown[shown.index(after: q)...].split(separator: "&", omittingEmptySubsequences: false).map { p -> String in
                guard let eq = p.firstIndex(of: "="), p[..<eq].lowercased() == "password" else { return String(p) }
                Self.registerSecret(String(p[p.index(after: eq)...]))
                return String(p[...eq]) + "***"
            }
            shown = String(shown[...q]) + params.joined(separator: "&")
        }
        display = shown
    }

    /// What a configured URL must look like, for config errors.
    public static let expectation = "a postgres:// or postgresql:// URL (postgres://user:password@host:port/database)"

    /// The connection string handed to libpq: the URL with `connect_timeout` (unless set) and
    /// `application_name=tributary` (unless set) added.
    var conninfo: String {
        let query = raw.firstIndex(of: "?").map { String(raw[raw.index(after: $0)...]) } ?? ""
        let names = Set(query.split(separator: "&").map { $0.split(separator: "=", maxSplits: 1).first.map { $0.lowercased() } ?? "" })
        var extra: [String] = []
        if !names.contains("connect_timeout") { extra.append("connect_timeout=\(Self.connectTimeout)") }
        if !names.contains("application_name") { extra.append("application_name=tributary") }
        guard !extra.isEmpty else { return raw }
        let joined = extra.joined(separator: "&")
        if raw.contains("?") { return raw.hasSuffix("?") || raw.hasSuffix("&") ? raw + joined : raw + "&" + joined }
        return raw + "?" + joined
    }

    private static func registerSecret(_ value: String) {
        guard !value.isEmpty else { return }
        Secrets.register(value)
        let decoded = value.percentDecoded ?? value
        if decoded != value { Secrets.register(decoded) }
    }
}
