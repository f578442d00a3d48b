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
    public static func redactURL(_ url: String) -> String {
        var s = Substring(url)
        var fragment = ""
        if let hash = s.firstIndex(of: "#") {
            fragment = String(s[hash...])
            s = s[..<hash]
        }
        var head = String(s)
        var query: Substring? = nil
        if let q = s.firstIndex(of: "?") {
            head = String(s[..<q])
            query = s[s.index(after: q)...]
        }
        if let scheme = head.range(of: "://") {
            let rest = head[scheme.upperBound...]
            let hostEnd = rest.firstIndex(of: "/") ?? rest.endIndex
            if let at = rest[..<hostEnd].lastIndex(of: "@") {
                head = String(head[..<scheme.upperBound]) + "***@" + String(rest[rest.index(after: at)...])
            }
        }
        guard let query else { return head + fragment }
        let pairs = query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let eq = pair.firstIndex(of: "=") else { return String(pair) }
            let name = String(pair[..<eq])
            let decoded = name.removingPercentEncoding ?? name
            return isSecretParameter(decoded) ? name + "=***" : String(pair)
        }
        return head + "?" + pairs.joined(separator: "&") + fragment
    }

    /// Redacts every URL found inside free text (error messages from libcurl or servers).
    public static func redactText(_ text: String) -> String {
        guard text.contains("://") else { return text }
        var out = ""
        var word = ""
        func flush() {
            guard word.contains("://") else { out += word; word = ""; return }
            var tail = ""
            while let last = word.last, ":,;.)".contains(last) { tail = String(last) + tail; word.removeLast() }
            out += redactURL(word) + tail
            word = ""
        }
        for ch in text {
            if ch == " " || ch == "\n" || ch == "'" || ch == "\"" || ch == "<" || ch == ">" {
                flush()
                out.append(ch)
            } else {
                word.append(ch)
            }
        }
        flush()
        return out
    }
}
