import TributaryPluginKit
import TributaryCore

/// Query parameters the `json` source sets on a URL it builds (a page number, an offset, a
/// cursor, the incremental cursor).
enum QueryParameters {
    /// `url` with `name` set to `value`: every `name=...` already in its query is removed and
    /// `name=<value>` (encoded) appended, so a parameter is never sent twice.
    static func setting(_ url: String, _ name: String, _ value: String) -> String {
        URLEncoding.appendQuery(removing(url, name), [(name, value)])
    }

    /// Whether the query of `url` has a parameter called `name` (compared encoded).
    static func has(_ url: String, _ name: String) -> Bool {
        let (_, query, _) = split(url)
        guard let query else { return false }
        let wanted = URLEncoding.encode(name)
        return query.split(separator: "&", omittingEmptySubsequences: true).contains { key(of: $0) == wanted || key(of: $0) == name }
    }

    /// `url` without its `name=...` parameters (the fragment kept).
    static func removing(_ url: String, _ name: String) -> String {
        let (head, query, fragment) = split(url)
        guard let query else { return url }
        let wanted = URLEncoding.encode(name)
        let kept = query.split(separator: "&", omittingEmptySubsequences: true).filter { key(of: $0) != wanted && key(of: $0) != name }
        return head + (kept.isEmpty ? "" : "?" + kept.joined(separator: "&")) + (fragment.map { "#" + $0 } ?? "")
    }

    private static func key(of pair: Substring) -> Substring {
        pair.firstIndex(of: "=").map { pair[..<$0] } ?? pair
    }

    /// The URL before `?`, its query (nil: none) and its fragment (nil: none).
    private static func split(_ url: String) -> (String, String?, String?) {
        var rest = Substring(url)
        var fragment: String? = nil
        if let h = rest.firstIndex(of: "#") {
            fragment = String(rest[rest.index(after: h)...])
            rest = rest[..<h]
        }
        guard let q = rest.firstIndex(of: "?") else { return (String(rest), nil, fragment) }
        return (String(rest[..<q]), String(rest[rest.index(after: q)...]), fragment)
    }
}
