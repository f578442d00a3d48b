import TributaryBase

/// A position in a parsed document that can say its full key path, so every typed accessor can
/// say exactly where a value was wrong. Lenient conversions are opt-in at the call site.
///
/// A node is either on a `JSONDocument`'s tape (the document and an entry index: strings are
/// decoded when read) or on a `JSONValue` tree (configs, recordings). The path is never built
/// while reading: a tape node finds it from the tape when asked (`path`, or an error being
/// thrown); what the tape cannot say (a base path, the steps asked for past the last value
/// found, a tree node's value and steps) is in a `JSONNodeContext`, which a tape node at the
/// document's root path with everything found (almost every node a reader makes) does not have.
/// Such a node is a reference and two words: copying it is one retain.
public struct JSONNode: Sendable {
    /// Tape nodes: the document. nil for tree nodes.
    let document: JSONDocument?
    /// Tape nodes: the value's tape index when `found`, else the last value found on the way.
    let index: Int
    /// Whether a value is here.
    let found: Bool
    let context: JSONNodeContext?

    init(_ document: JSONDocument?, _ index: Int, found: Bool, _ context: JSONNodeContext?) {
        self.document = document
        self.index = index
        self.found = found
        self.context = context
    }

    /// A node on a value tree; `path` is where `root` sits (for error messages).
    public init(_ root: JSONValue, path: KeyPath = .root) {
        self.init(nil, 0, found: true, .head(base: path, tree: root))
    }

    /// The root of a parsed document; `path` is where the document sits (for error messages).
    public init(_ document: JSONDocument, path: KeyPath = .root) {
        self.init(document, 0, found: true, path.components.isEmpty ? nil : .head(base: path, tree: nil))
    }

    /// The node `step` leads to from here: on a tape, nothing (the step is remembered for the
    /// path); on a tree, `tree`.
    private func following(_ step: JSONNodeContext.Step, tree: JSONValue?) -> JSONNode {
        JSONNode(document, index, found: tree != nil, JSONNodeContext(parent: context, step: step, base: .root, tree: tree))
    }

    // MARK: Navigation

    public subscript(_ sub: KeyPath) -> JSONNode {
        if sub.components.isEmpty { return self }
        if let doc = document {
            guard found else { return following(.path(sub, from: 0), tree: nil) }
            let (reached, matched) = doc.walk(sub.components, from: 0, at: index)
            if matched == sub.components.count { return JSONNode(doc, reached, found: true, context) }
            return JSONNode(doc, reached, found: false, JSONNodeContext(parent: context, step: .path(sub, from: matched), base: .root, tree: nil))
        }
        return following(.path(sub, from: 0), tree: found ? context?.tree?[path: sub] : nil)
    }

    public subscript(key key: String) -> JSONNode {
        if let doc = document {
            if found, let m = doc.member(key, in: index) { return JSONNode(doc, m, found: true, context) }
            return following(.key(key), tree: nil)
        }
        guard found, case .object(let o)? = context?.tree else { return following(.key(key), tree: nil) }
        return following(.key(key), tree: o[key])
    }

    public subscript(index n: Int) -> JSONNode {
        if let doc = document {
            if found, let e = doc.element(n, in: index) { return JSONNode(doc, e, found: true, context) }
            return following(.index(n), tree: nil)
        }
        guard found, case .array(let a)? = context?.tree, n >= 0, n < a.count else { return following(.index(n), tree: nil) }
        return following(.index(n), tree: a[n])
    }

    /// The full key path of this node, built now (nodes do not carry it): the base, then on a
    /// tape the path down to the last value found, then the steps asked for past it.
    public var path: KeyPath {
        let base = context?.headBase ?? .root
        let steps = context?.hasSteps ?? false
        if let doc = document {
            if index == 0 && !steps { return base }
            var comps = base.components
            doc.appendPath(to: index, into: &comps)
            context?.appendSteps(to: &comps)
            return KeyPath(components: comps)
        }
        if !steps { return base }
        var comps = base.components
        context?.appendSteps(to: &comps)
        return KeyPath(components: comps)
    }

    // MARK: What is here

    /// The JSON type here, or nil when the path does not exist in the document.
    public var kind: JSONKind? {
        guard found else { return nil }
        if let doc = document { return doc.kind(at: index) }
        return context?.tree?.kind
    }

    /// The JSON type name here ("string", ...), or nil when absent.
    public var typeName: String? { kind?.typeName }

    /// The value here, or nil when the path does not exist in the document. On a tape this
    /// builds the subtree; `kind` and the typed accessors do not.
    public var value: JSONValue? {
        guard found else { return nil }
        if let doc = document { return doc.value(at: index) }
        return context?.tree
    }

    /// True when the path is absent or holds `null`.
    public var isMissing: Bool {
        let k = kind
        return k == nil || k == .null
    }

    func wrong(_ expected: String) -> JSONAccessError {
        JSONAccessError(path: path, expected: expected, found: typeName)
    }

    // MARK: Scalars, for the accessors (each only called where `kind` says it applies)

    func stringValue() -> String {
        if let doc = document { return doc.string(at: index) }
        guard case .string(let s)? = context?.tree else { preconditionFailure("not a string") }
        return s
    }

    func numberText() -> String {
        if let doc = document { return doc.literalText(at: index) }
        guard case .number(let n)? = context?.tree else { preconditionFailure("not a number") }
        return n.text
    }

    func numberDouble() -> Double {
        if let doc = document { return doc.double(at: index) }
        guard case .number(let n)? = context?.tree else { preconditionFailure("not a number") }
        return n.double
    }

    func numberInt64() -> Int64? {
        if let doc = document { return doc.int64(at: index) }
        guard case .number(let n)? = context?.tree else { preconditionFailure("not a number") }
        return n.int64
    }

    func numberIs(_ text: StaticString) -> Bool {
        if let doc = document { return doc.literal(at: index, is: text) }
        guard case .number(let n)? = context?.tree else { return false }
        return n.text == text.description
    }

    func boolValue() -> Bool {
        if let doc = document { return doc.entry(index).kind == JSONTapeEntry.true }
        guard case .bool(let b)? = context?.tree else { preconditionFailure("not a bool") }
        return b
    }
}
