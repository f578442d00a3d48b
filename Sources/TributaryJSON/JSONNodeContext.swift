import TributaryBase

/// What a node carries beyond a tape position, when it needs to: one link of a chain that spells
/// its path. The head of a chain holds a base path (and, for a tree, the root value); each link
/// below it one step asked for, from the link above, and for a tree the value that step reached.
/// A tape node at the document's root path with everything found has no context at all; a
/// lookup that finds nothing on a tape, and every step on a tree, adds one link, never an array.
final class JSONNodeContext: Sendable {
    enum Step: Sendable {
        case key(String)
        case index(Int)
        /// The components of a key path from `from` on.
        case path(KeyPath, from: Int)

        func append(to out: inout [KeyPath.Component]) {
            switch self {
            case .key(let k): out.append(.key(k))
            case .index(let n): out.append(.index(n))
            case .path(let p, let from): out.append(contentsOf: p.components[from...])
            }
        }
    }

    /// The link above; nil at the head (or below a tape root that has no context).
    package let parent: JSONNodeContext?
    /// The step from `parent` to here; nil at the head.
    let step: Step?
    /// The head's base path (.root for the other links).
    let base: KeyPath
    /// Tree nodes: the value here (nil when the step found nothing).
    let tree: JSONValue?

    init(parent: JSONNodeContext?, step: Step?, base: KeyPath, tree: JSONValue?) {
        self.parent = parent
        self.step = step
        self.base = base
        self.tree = tree
    }

    static func head(base: KeyPath, tree: JSONValue?) -> JSONNodeContext {
        JSONNodeContext(parent: nil, step: nil, base: base, tree: tree)
    }

    /// The base path at the head of the chain.
    var headBase: KeyPath {
        var c = self
        while c.step != nil {
            guard let p = c.parent else { return .root }
            c = p
        }
        return c.base
    }

    /// Whether any step lies between this link and the head.
    var hasSteps: Bool { step != nil }

    /// Appends the steps from the head down to this link, in order.
    func appendSteps(to out: inout [KeyPath.Component]) {
        var chain: [Step] = []
        var c: JSONNodeContext? = self
        while let link = c, let s = link.step {
            chain.append(s)
            c = link.parent
        }
        for s in chain.reversed() { s.append(to: &out) }
    }
}
