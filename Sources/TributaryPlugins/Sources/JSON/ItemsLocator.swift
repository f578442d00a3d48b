import TributaryPluginKit
import TributaryCore

/// `"items": "auto"`: where a page's list of records is when the config does not say. A
/// document that is an array is the list itself. Otherwise the list is the first array of
/// objects (an empty array counts: an empty last page) under a key named in `names`, searched
/// breadth-first at most `depth` levels deep: at each level the objects of that level, in the
/// order they were reached, each asked for `names` in the order of the list; the next level is
/// the objects under those keys, then under the object's other keys in document order
/// (`feed.entry`, `hits.hits`, `data.children`, `response.docs`).
enum ItemsLocator {
    static let names = ["data", "items", "results", "entries", "entry", "records", "hits", "posts", "value", "statuses",
                        "articles", "stories", "docs", "documents", "children", "list", "rows", "objects", "elements", "features", "events"]
    static let depth = 3

    /// The list's node, or an error that says what was looked for.
    static func locate(_ root: JSONNode) -> Result<JSONNode, JSONAccessError> {
        if root.kind == .array { return .success(root) }
        var level = [root]
        for _ in 1...depth {
            var next: [JSONNode] = []
            for node in level {
                for name in names {
                    let child = node[key: name]
                    if child.kind == .array, isListOfObjects(child) { return .success(child) }
                }
            }
            for node in level {
                let named = names.map { node[key: $0] }.filter { $0.kind == .object }
                let others = node.memberKeys.filter { !names.contains($0) }.map { node[key: $0] }.filter { $0.kind == .object }
                next += named + others
            }
            if next.isEmpty { break }
            level = next
        }
        return .failure(JSONAccessError(path: root.path, expected: "an array of objects under a key named \(names.joined(separator: ", ")) (\"items\": \"auto\" looks \(depth) levels deep; set \"items\" to its key path)", found: root.typeName))
    }

    private static func isListOfObjects(_ node: JSONNode) -> Bool {
        guard let elements = try? node.elements() else { return false }
        return elements.allSatisfy { $0.kind == .object }
    }
}
