import FoundationEssentials
import Glibc
import Dispatch

/// The secret values this process was given (API keys, app secrets, tokens in headers), so that
/// every text it prints or keeps can be scrubbed of them by value, wherever they appear: in an
/// error body that echoes the key, in a URL path, in a recorded header, in a program's stderr.
///
/// The registry is process-wide on purpose: secrets are facts about the whole run, and the
/// texts to scrub come from everywhere (errors, logs, state rows, recordings). It is filled
/// while the config is loaded, before anything is fetched, and only grows.
public enum Secrets {
    /// Shorter values are not registered: scrubbing "abc" would mangle ordinary text, and a
    /// secret that short protects nothing.
    public static let minimumLength = 4

    private static let registry = Locked<[String]>([])

    /// Registers a secret value, and the forms it takes in a URL (percent-encoded).
    public static func register(_ value: String) {
        let trimmed = value.trimmingSpaces
        guard trimmed.utf8.count >= minimumLength else { return }
        let forms = Set([trimmed, URLEncoding.encode(trimmed)])
        registry.withLock { list in
            for f in forms where !list.contains(f) { list.append(f) }
            // Longest first, so a secret that contains another is masked whole.
            list.sort { $0.utf8.count > $1.utf8.count }
        }
    }

    /// Registers a URL that is a secret as a whole (a webhook URL whose path is its token:
    /// Slack's `/services/T../B../<token>`, Discord's `/api/webhooks/<id>/<token>`): the URL,
    /// and what follows its host (path and query) on its own, since a receiver's error body or
    /// a log line may echo the path without the host. A URL with nothing after its host but `/`
    /// holds no secret there and is not registered (its user info is another matter: callers
    /// register a password themselves), so the host alone is never scrubbed.
    public static func registerURL(_ url: String) {
        let trimmed = url.trimmingSpaces
        guard let scheme = trimmed.firstRange(of: "://") else { return register(trimmed) }
        let rest = trimmed[scheme.upperBound...]
        guard let pathStart = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) else { return }
        let tail = rest[pathStart...].prefix { $0 != "#" }
        guard tail != "/" else { return }
        register(trimmed)
        register(String(tail))
    }

    /// Registers the values of the pairs whose names carry credentials: secret headers
    /// (`Authorization`, `X-Api-Key`, ...), secret query parameters (`key`, `token`, ...) and
    /// environment variables (`*_KEY`, `*_TOKEN`, `*PASSWORD*`, `*SECRET*`). A value with a
    /// scheme (`Bearer <token>`) registers its credential part too.
    public static func registerCredentials(_ pairs: [(String, String)]) {
        for (name, value) in pairs where isCredentialName(name) {
            register(value)
            if let space = value.firstIndex(of: " ") { register(String(value[value.index(after: space)...])) }
        }
    }

    static func isCredentialName(_ name: String) -> Bool {
        let upper = name.uppercased()
        return Redactor.isSecretHeader(name) || Redactor.isSecretParameter(name)
            || upper.hasSuffix("_KEY") || upper.hasSuffix("_TOKEN") || upper.containsBytes("PASSWORD") || upper.containsBytes("SECRET")
    }

    /// `text` with every registered secret replaced by `***`.
    public static func scrub(_ text: String) -> String {
        let list = registry.withLock { $0 }
        guard !list.isEmpty else { return text }
        var out = text
        for secret in list where out.contains(secret) {
            out = out.replacing(secret, with: "***")
        }
        return out
    }

    /// Scrubs bytes (a recorded body) when they are UTF-8 text holding a secret.
    public static func scrub(_ bytes: [UInt8]) -> [UInt8] {
        guard registry.withLock({ !$0.isEmpty }), let text = String(validating: bytes, as: UTF8.self) else { return bytes }
        let scrubbed = scrub(text)
        return scrubbed == text ? bytes : Array(scrubbed.utf8)
    }

    /// For tests: forgets every registered secret.
    public static func removeAll() { registry.withLock { $0.removeAll() } }
}
