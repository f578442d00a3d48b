import FoundationEssentials
import Glibc
import Dispatch

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
        return n == "authorization" || n == "proxy-authorization" || n == "cookie" || n == "x-api-key" || n.containsBytes("token") || n.containsBytes("secret")
    }

    /// `https://h/p?q=a&key=XYZ` -> `https://h/p?q=a&key=***`; also hides `user:pass@`. The URL
    /// is cut among Unicode scalars (`URLParts`).
    public static func redactURL(_ url: String) -> String {
        let parts = URLParts(url)
        let shownHead = parts.userInfo.map { $0.scheme + "***@" + $0.rest } ?? String(parts.head)
        guard let query = parts.query else { return shownHead + parts.fragment }
        let pairs = query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let eq = pair.firstIndex(of: "=") else { return String(pair) }
            let name = String(pair[..<eq])
            let decoded = name.percentDecoded ?? name
            return isSecretParameter(decoded) ? name + "=***" : String(pair)
        }
        return shownHead + "?" + pairs.joined(separator: "&") + parts.fragment
    }

    /// `url` without its credentials, for lists written out for other programs (`export opml`),
    /// where a `***` would be no better than the secret: the user and password (`user:pass@`)
    /// and every query parameter with a secret name (`token=`, `api_key=`, ...) are left out,
    /// and `removed` says what was, without the values.
    public static func withoutCredentials(_ url: String) -> (url: String, removed: [String]) {
        let parts = URLParts(url)
        var removed: [String] = []
        var shownHead = String(parts.head)
        if let userInfo = parts.userInfo {
            shownHead = userInfo.scheme + userInfo.rest
            removed.append(userInfo.info.contains(":") ? "the user and password in the URL" : "the user in the URL")
        }
        guard let query = parts.query else { return (shownHead + parts.fragment, removed) }
        var kept: [String] = []
        for pair in query.split(separator: "&", omittingEmptySubsequences: false) {
            let name = String(pair[..<(pair.firstIndex(of: "=") ?? pair.endIndex)])
            if isSecretParameter(name.percentDecoded ?? name) {
                removed.append("the query parameter \"\(name)\"")
            } else {
                kept.append(String(pair))
            }
        }
        return (shownHead + (kept.isEmpty ? "" : "?" + kept.joined(separator: "&")) + parts.fragment, removed)
    }

    /// A URL cut where `redactURL` and `withoutCredentials` cut it. Delimiters are found among
    /// Unicode scalars, not Characters: `=`, `&`, `?` or `@` followed by a combining mark is
    /// one Character, and would otherwise hide the delimiter (and let the secret after it
    /// through).
    struct URLParts {
        /// Up to the query: scheme, user info, host, path.
        var head: Substring.UnicodeScalarView
        /// After the `?`, if there is one (up to the fragment).
        var query: Substring.UnicodeScalarView?
        /// From the `#`, or empty.
        var fragment = ""
        /// When the authority has user info (`user:pass@host`): the scheme with its `://`, the
        /// user info, and what follows the `@` up to the query.
        var userInfo: (scheme: String, info: Substring.UnicodeScalarView, rest: String)?

        init(_ url: String) {
            var s = Substring(url).unicodeScalars
            if let hash = s.firstIndex(of: "#") {
                fragment = String(s[hash...])
                s = s[..<hash]
            }
            head = s
            if let q = s.firstIndex(of: "?") {
                head = s[..<q]
                query = s[s.index(after: q)...]
            }
            if let scheme = Self.schemeSeparator(in: head) {
                let rest = head[scheme.upperBound...]
                let hostEnd = rest.firstIndex(of: "/") ?? rest.endIndex
                if let at = rest[..<hostEnd].lastIndex(of: "@") {
                    userInfo = (String(head[..<scheme.upperBound]), rest[..<at], String(rest[rest.index(after: at)...]))
                }
            }
        }

        /// The first `://` in `s`: what `firstRange(of:)` finds, without its generic search
        /// (which was 2% of `watch`'s CPU: every request's URL is redacted for its state key).
        static func schemeSeparator(in s: Substring.UnicodeScalarView) -> Range<Substring.UnicodeScalarView.Index>? {
            var from = s.startIndex
            while let colon = s[from...].firstIndex(of: ":") {
                let first = s.index(after: colon)
                guard first < s.endIndex, s[first] == "/" else { from = first; continue }
                let second = s.index(after: first)
                guard second < s.endIndex, s[second] == "/" else { from = first; continue }
                return colon..<s.index(after: second)
            }
            return nil
        }
    }

    /// Makes free text (an error message, a server's error body, a program's stderr line, a
    /// header value) safe to show or keep: registered secret values (`Secrets`) become `***`
    /// wherever they appear; so do the values of secret-named parameters (`token=...`,
    /// `"api_key": "..."`), `Bearer`/`Basic` credentials, and secrets inside every URL.
    public static func redactText(_ text: String) -> String {
        let t = Secrets.scrub(text)
        let mayAssign = mayHoldAssignment(t)
        // Delimiters are looked for among Unicode scalars: a combining mark after `://` or a
        // quote would hide it from a Character search and let the secret after it through.
        guard t.unicodeScalars.firstRange(of: "://".unicodeScalars) != nil else { return mayAssign ? redactAssignments(t) : t }
        // URLs go through redactURL; the text between them through the assignment patterns.
        var out = ""
        var prose = String.UnicodeScalarView()
        var word = String.UnicodeScalarView()
        func flush() {
            guard word.firstRange(of: "://".unicodeScalars) != nil else { prose += word; word = String.UnicodeScalarView(); return }
            var tail = String.UnicodeScalarView()
            while let last = word.last, ":,;.)".unicodeScalars.contains(last) { tail.insert(last, at: tail.startIndex); word.removeLast() }
            let p = String(prose)
            out += (mayAssign ? redactAssignments(p) : p) + redactURL(String(word))
            prose = tail
            word = String.UnicodeScalarView()
        }
        for u in t.unicodeScalars {
            if u == " " || u == "\n" || u == "'" || u == "\"" || u == "<" || u == ">" {
                flush()
                prose.append(u)
            } else {
                word.append(u)
            }
        }
        flush()
        let p = String(prose)
        return out + (mayAssign ? redactAssignments(p) : p)
    }

    /// True when `text` holds a byte that can introduce a secret value (`=`, `"`) or a
    /// `bearer `/`basic ` scheme word, in any case: a byte search, so no combining mark hides it.
    static func mayHoldAssignment(_ text: String) -> Bool {
        var previous: [UInt8] = []
        for c in text.utf8 {
            if c == 0x3D || c == 0x22 { return true }
            if c == 0x20 {
                if previous.elementsEqual("bearer".utf8) || previous.suffix(5).elementsEqual("basic".utf8) { return true }
                previous.removeAll(keepingCapacity: true)
            } else if previous.count < 6 {
                previous.append(c | 0x20)
            } else {
                previous.append(c | 0x20)
                previous.removeFirst()
            }
        }
        return false
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
