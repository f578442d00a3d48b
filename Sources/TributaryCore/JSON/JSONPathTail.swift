/// The part of a node's key path that is not in the document: what was asked for past the last
/// value found (tape nodes), or everything asked for since the base path (tree nodes). Up to two
/// steps are kept inline, so following a path copies references, never appends to an array;
/// a third step (only after a missing step, or three levels below a tree element) spells the
/// components out.
enum JSONPathTail: Sendable {
    /// One step: a key, an index, or the components of a key path from `from` on.
    enum Step: Sendable {
        case key(String)
        case index(Int)
        case path(KeyPath, from: Int)

        func append(to out: inout [KeyPath.Component]) {
            switch self {
            case .key(let k): out.append(.key(k))
            case .index(let n): out.append(.index(n))
            case .path(let p, let from): out.append(contentsOf: p.components[from...])
            }
        }
    }

    case none
    case one(Step)
    case two(Step, Step)
    case many([KeyPath.Component])

    var isEmpty: Bool { if case .none = self { return true }; return false }

    func appending(_ step: Step) -> JSONPathTail {
        switch self {
        case .none: return .one(step)
        case .one(let a): return .two(a, step)
        case .two, .many:
            var comps: [KeyPath.Component] = []
            append(to: &comps)
            step.append(to: &comps)
            return .many(comps)
        }
    }

    func append(to out: inout [KeyPath.Component]) {
        switch self {
        case .none: break
        case .one(let a): a.append(to: &out)
        case .two(let a, let b): a.append(to: &out); b.append(to: &out)
        case .many(let c): out.append(contentsOf: c)
        }
    }
}
