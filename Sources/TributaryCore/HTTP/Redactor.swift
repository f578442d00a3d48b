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

    /// Makes free text (an error message, a server's error body, a program's stderr line, a
    /// header value) safe to show or keep: registered secret values (`Secrets`) become `***`
    /// wherever they appear; so do the values of secret-named parameters (`token=...`,
    /// `"api_key": "..."`), `Bearer`/`Basic` credentials, and secrets inside every URL.
    public static func redactText(_ text: String) -> String {
        let t = Secrets.scrub(text)
        let mayAssign = t.contains("=") || t.contains("\"") || t.contains("earer ") || t.contains("asic ") || t.contains("EARER ") || t.contains("ASIC ")
        guard t.contains("://") else { return mayAssign ? redactAssignments(t) : t }
        // URLs go through redactURL; the text between them through the assignment patterns.
        var out = ""
        var prose = ""
        var word = ""
        func flush() {
            guard word.contains("://") else { prose += word; word = ""; return }
            var tail = ""
            while let last = word.last, ":,;.)".contains(last) { tail = String(last) + tail; word.removeLast() }
            out += (mayAssign ? redactAssignments(prose) : prose) + redactURL(word)
            prose = tail
            word = ""
        }
        for ch in t {
            if ch == " " || ch == "\n" || ch == "'" || ch == "\"" || ch == "<" || ch == ">" {
                flush()
                prose.append(ch)
            } else {
                word.append(ch)
            }
        }
        flush()
        return out + (mayAssign ? redactAssignments(prose) : prose)
    }

    /// `token=abc` -> `token=***`, `"api_key": "abc"` -> `"api_key": "***"`, `Bearer abc` ->
    /// `Bearer ***`, for the names in `secretParameters`. A bare `key:` in prose (`items[3].key:
    /// expected string`) is left alone: only `=` and a quoted JSON key introduce a value.
    static func redactAssignments(_ text: String) -> String {
        let b = Array(text.utf8)
        let n = b.count
        var out: [UInt8] = []
        out.reserveCapacity(n)
        func isIdent(_ c: UInt8) -> Bool { (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F || c == 0x2D }
        func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 }
        var i = 0
        while i < n {
            guard isIdent(b[i]), i == 0 || !isIdent(b[i - 1]) else {
                out.append(b[i])
                i += 1
                continue
            }
            var j = i
            while j < n && isIdent(b[j]) { j += 1 }
            let word = String(decoding: b[i..<j], as: UTF8.self).lowercased()
            var valueStart = -1
            var quoted = false
            if word == "bearer" || word == "basic", j < n, isSpace(b[j]) {
                var k = j
                while k < n && isSpace(b[k]) { k += 1 }
                if k < n, b[k] != 0x22 { valueStart = k }  // a credential follows the scheme
            } else if isSecretParameter(word) {
                var k = j
                let jsonKey = i > 0 && b[i - 1] == 0x22 && k < n && b[k] == 0x22
                if jsonKey { k += 1 }
                while k < n && isSpace(b[k]) { k += 1 }
                if k < n, b[k] == 0x3D || (jsonKey && b[k] == 0x3A) {
                    k += 1
                    while k < n && isSpace(b[k]) { k += 1 }
                    if k < n && b[k] == 0x22 { quoted = true; k += 1 }
                    valueStart = k
                }
            }
            guard valueStart >= 0 else {
                out.append(contentsOf: b[i..<j])
                i = j
                continue
            }
            var k = valueStart
            if quoted {
                while k < n && b[k] != 0x22 { k += b[k] == 0x5C && k + 1 < n ? 2 : 1 }
            } else {
                while k < n, !(isSpace(b[k]) || [0x26, 0x22, 0x27, 0x2C, 0x3B, 0x29, 0x3C, 0x3E, 0x0A, 0x0D].contains(b[k])) { k += 1 }
                // `token=abc: retrying` or `key=abc.`: the punctuation ends the sentence, not the value.
                while k > valueStart + 1, b[k - 1] == 0x3A || b[k - 1] == 0x2E { k -= 1 }
            }
            if k > valueStart && !(k - valueStart == 3 && b[valueStart..<k].elementsEqual([0x2A, 0x2A, 0x2A])) {
                out.append(contentsOf: b[i..<valueStart])
                out.append(contentsOf: [0x2A, 0x2A, 0x2A])
            } else {
                out.append(contentsOf: b[i..<k])
            }
            i = k
        }
        return String(decoding: out, as: UTF8.self)
    }
}
