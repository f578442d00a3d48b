import TributaryPluginKit
import TributaryCore

/// `"pagination": {"type": "auto"}` in a response body: the first string under a key that names
/// a next page, searched breadth-first at most 3 levels deep (objects only, never inside
/// arrays: a page's records are not searched), each object's keys in document order.
///
/// A key names a next page's URL when, lowercased without `_`, `-` and a leading `@odata.`, it
/// is `next`, `nexturl`, `nextpageurl`, `nextpage`, `nextlink` or `nextpagelink` (`next`,
/// `next_url`, `nextUrl`, `next_page_url`, `@odata.nextLink`, `links.next`); an object there
/// with a string `href` gives its `href` (`links.next.href`, HAL's `_links.next.href`). A key
/// names a page token when it starts with `next` and ends with `token` or `cursor`
/// (`nextPageToken`, `next_page_token`, `nextToken`, `next_cursor`): the token is sent as the
/// parameter named like the key without `next` and its separator, first letter lowercased
/// (`pageToken`, `page_token`, `token`, `cursor`), unless `token_param` names another.
enum NextPageFinder {
    enum Found: Equatable {
        case url(String)
        case token(String, param: String)
    }

    static let depth = 3
    static let urlKeys: Set<String> = ["next", "nexturl", "nextpageurl", "nextpage", "nextlink", "nextpagelink"]

    static func find(_ root: JSONNode) -> Found? {
        var level = [root]
        for _ in 1...depth {
            var next: [JSONNode] = []
            for node in level where node.kind == .object {
                for key in node.memberKeys {
                    let child = node[key: key]
                    let n = normalized(key)
                    if urlKeys.contains(n) {
                        if let s = text(child) { return .url(s) }
                        if child.kind == .object, let s = text(child[key: "href"]) { return .url(s) }
                    } else if n.hasPrefix("next") && (n.hasSuffix("token") || n.hasSuffix("cursor")), let s = text(child) {
                        return .token(s, param: tokenParam(for: key))
                    }
                    if child.kind == .object { next.append(child) }
                }
            }
            if next.isEmpty { break }
            level = next
        }
        return nil
    }

    /// `nextPageToken` -> `pageToken`, `next_page_token` -> `page_token`, `next_cursor` -> `cursor`.
    static func tokenParam(for key: String) -> String {
        var rest = Substring(key)
        if rest.lowercased().hasPrefix("next") { rest = rest.dropFirst(4) }
        while let c = rest.first, c == "_" || c == "-" { rest = rest.dropFirst() }
        guard let first = rest.first else { return key }
        return first.lowercased() + rest.dropFirst()
    }

    private static func normalized(_ key: String) -> String {
        var k = key.lowercased()
        if k.hasPrefix("@odata.") { k.removeFirst(7) }
        return k.filter { $0 != "_" && $0 != "-" }
    }

    private static func text(_ node: JSONNode) -> String? {
        guard node.kind == .string, let s = try? node.string() else { return nil }
        let t = s.trimmingWhitespaceAndNewlines
        return t.isEmpty ? nil : t
    }
}
