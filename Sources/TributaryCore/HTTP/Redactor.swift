import Foundation

/// Removes secrets from anything that may be shown or stored: values of secret-looking query
/// parameters become `***`, and Authorization-like headers are dropped.
public enum Redactor {
    /// Query parameter names (case-insensitive) whose values are secrets.
    public static let secretParameters: Set<String> = [
        "key", "apikey", "api_key", "appkey", "app_key", "appid", "app_id", "sign", "signature", "sig",
        "token", "access_token", "auth", "secret", "app_secret", "client_secret", "password", "passwd", "pwd",
    ]

    public static func isSecretParameter(_ name: String) -> Bool {
        secretParameters.contains(name.lowercased())
    }

    public static func isSecretHeader(_ name: String) -> Bool {
        let n = name.lowercased()
        return n == "authorization" || n == "proxy-authorization" || n == "cookie" || n == "x-api-key" || n.contains("token") || n.contains("secret")
    }

    /// `https://h/p?q=a&key=XYZ` -> `https://h/p?q=a&key=***`; also hides `user:pass@`.
    /// Delimiters are found among Unicode scalars, not Characters: `=`, `&`, `?` or `@` followed
    /// by a combining mark is one Character, and would otherwise hide the delimiter (and let
    /// the secret after it through).
    public static func redactURL(_ url: String) -> String {
        var s = Substring(url).unicodeScalars
        var fragment = ""
        if let hash = s.firstIndex(of: "#") {
            fragment = String(s[hash...])
            s = s[..<hash]
        }
        var head = s
        var query: Substring.UnicodeScalarView? = nil
        if let q = s.firstIndex(of: "?") {
            head = s[..<q]
            query = s[s.index(after: q)...]
        }
        var shownHead = String(head)
        if let scheme = head.firstRange(of: "://".unicodeScalars) {
            let rest = head[scheme.upperBound...]
            let hostEnd = rest.firstIndex(of: "/") ?? rest.endIndex
            if let at = rest[..<hostEnd].lastIndex(of: "@") {
                shownHead = String(head[..<scheme.upperBound]) + "***@" + String(rest[rest.index(after: at)...])
            }
        }
        guard let query else { return shownHead + fragment }
        let pairs = query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let eq = pair.firstIndex(of: "=") else { return String(pair) }
            let name = String(pair[..<eq])
            let decoded = name.removingPercentEncoding ?? name
            return isSecretParameter(decoded) ? name + "=***" : String(pair)
        }
        return shownHead + "?" + pairs.joined(separator: "&") + fragment
    }

    /// Redacts every URL found inside free text (error messages from libcurl or servers).
    public static func redactText(_ text: String) -> String {
        guard text.unicodeScalars.firstRange(of: "://".unicodeScalars) != nil else { return text }
        var out = String.UnicodeScalarView()
        var word = String.UnicodeScalarView()
        func flush() {
            guard word.firstRange(of: "://".unicodeScalars) != nil else { out += word; word = String.UnicodeScalarView(); return }
            var tail = String.UnicodeScalarView()
            while let last = word.last, ":,;.)".unicodeScalars.contains(last) { tail.insert(last, at: tail.startIndex); word.removeLast() }
            out += redactURL(String(word)).unicodeScalars
            out += tail
            word = String.UnicodeScalarView()
        }
        for u in text.unicodeScalars {
            if u == " " || u == "\n" || u == "'" || u == "\"" || u == "<" || u == ">" {
                flush()
                out.append(u)
            } else {
                word.append(u)
            }
        }
        flush()
        return String(out)
    }
}
