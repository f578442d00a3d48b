import TributaryPluginKit
import TributaryCore

/// Query parameters the `json` source sets on a URL it builds (a page number, an offset, a
/// cursor, the incremental cursor).
enum QueryParameters {
    /// `url` with `name` set to `value` (encoded): the first `name=...` in its query is replaced
    /// where it stands and any further ones removed, or, without one, `name=<value>` is
    /// appended; a parameter is never sent twice, and the others keep their order.
    static func setting(_ url: String, _ name: String, _ value: String) -> String {
        let (head, query, fragment) = split(url)
        guard let query, has(url, name) else { return URLEncoding.appendQuery(url, [(name, value)]) }
        let wanted = URLEncoding.encode(name)
        var replaced = false
        var pairs: [String] = []
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            guard key(of: pair) == wanted || key(of: pair) == name else {
                pairs.append(String(pair))
                continue
            }
            if !replaced { pairs.append(URLEncoding.query([(name, value)])) }
            replaced = true
        }
        return head + "?" + pairs.joined(separator: "&") + (fragment.map { "#" + $0 } ?? "")
    }

    /// Whether the query of `url` has a parameter called `name` (compared encoded).
    static func has(_ url: String, _ name: String) -> Bool {
        let (_, query, _) = split(url)
        guard let query else { return false }
        let wanted = URLEncoding.encode(name)
        return query.split(separator: "&", omittingEmptySubsequences: true).contains { key(of: $0) == wanted || key(of: $0) == name }
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
