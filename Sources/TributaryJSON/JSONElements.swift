import TributaryBase

/// The elements of an array node, in order, each a node with its own path. Iterating builds no
/// array: on a tape each step is one entry read (the next sibling's index).
public struct JSONElements: Sequence, Sendable {
    enum Storage: Sendable {
        /// The first element's index, the count, and the array node's context (its base path).
        case tape(JSONDocument, first: Int, count: Int, JSONNodeContext?)
        /// The elements and the array node's context.
        case tree([JSONValue], JSONNodeContext?)
    }

    let storage: Storage

    init(_ storage: Storage) { self.storage = storage }

    public var count: Int {
        switch storage {
        case .tape(_, _, let count, _): return count
        case .tree(let a, _): return a.count
        }
    }

    public var isEmpty: Bool { count == 0 }
    public var underestimatedCount: Int { count }

    public func makeIterator() -> Iterator { Iterator(self) }

    public struct Iterator: IteratorProtocol, Sendable {
        private let elements: JSONElements
        private var next_: Int
        private var offset = 0

        init(_ elements: JSONElements) {
            self.elements = elements
            switch elements.storage {
            case .tape(_, let first, _, _): next_ = first
            case .tree: next_ = 0
            }
        }

        public mutating func next() -> JSONNode? {
            guard offset < elements.count else { return nil }
            defer { offset += 1 }
            switch elements.storage {
            case .tape(let doc, _, _, let context):
                let i = next_
                // Invariant: offset < count, so i is the offset-th element of the array.
                next_ = doc.end(of: i)
                return JSONNode(doc, i, found: true, context)
            case .tree(let a, let context):
                return JSONNode(nil, 0, found: true, JSONNodeContext(parent: context, step: .index(offset), base: .root, tree: a[offset]))
            }
        }
    }
}
