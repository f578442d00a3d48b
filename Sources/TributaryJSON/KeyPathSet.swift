import TributaryBase

/// Several key paths read from many records of the same shape (a `json` source's `fields`),
/// found in one pass over each object on the way instead of one walk per path: the paths share
/// their prefixes (`snippet.title`, `snippet.description`, ...), so `snippet` is looked up once,
/// and the keys of each object are compared as bytes, without building a String or copying a
/// key path component. What a path finds is exactly what `node[path]` finds (the last of
/// duplicate keys; escaped and non-ASCII keys by String equality, as `JSONDocument.member`
/// matches them): KeyPathSetTests compares the two. A path with an index (`a[0].b`) or the
/// empty path is answered by `node[path]`.
public struct KeyPathSet: Sendable {
    /// One key of the trie: its bytes in `keyBytes`, its children in `childList`. No
    /// references, so the lookup loop copies nothing that needs a retain.
    struct Node: Sendable {
        var start: Int
        var count: Int
        var isASCII: Bool
        var childStart: Int = 0
        var childCount: Int = 0
    }

    /// The trie, its key bytes and its buckets, laid out once (`Tables`): a record's search
    /// reads them through pointers, without borrowing eight arrays first (seven nested
    /// `withUnsafeBufferPointer` closures cost about 720 instructions a record).
    private let tables: Tables
    private let rootCount: Int
    /// For each path given: its trie node, or -1 for a path the set does not take.
    private let ends: [Int]
    private var nodes: UnsafeBufferPointer<Node> { tables.nodes }
    public let paths: [KeyPath]

    /// The set of `paths`, shared by every caller that asks for the same paths: a config of
    /// 10,000 sources with the same `fields` keeps one trie, not 10,000 (each about 0.6 KiB).
    public static func shared(_ paths: [KeyPath]) -> KeyPathSet {
        // The set made last first: the sources of a large config mostly repeat one `fields`,
        // and comparing with it is cheaper than hashing every path's keys (the paths come
        // from `KeyPath(parsing:)`'s cache, so their components compare by identity).
        if let known = made.withLock({ $0.last?.paths == paths ? $0.last : $0.byPaths[paths] }) { return known }
        let set = KeyPathSet(paths)
        made.withLock { cache in
            if cache.byPaths.count < madeLimit { cache.byPaths[paths] = set }
            cache.last = set
        }
        return set
    }

    private struct Made {
        var byPaths: [[KeyPath]: KeyPathSet] = [:]
        var last: KeyPathSet? = nil
    }
    private static let made = Locked(Made())
    private static let madeLimit = 1024

    public init(_ paths: [KeyPath]) {
        self.paths = paths
        var nodes: [Node] = []
        var keys: [String] = []
        var keyBytes: [UInt8] = []
        // The children of every node, each node's contiguous; the roots first.
        var childList: [Int] = []
        var ends: [Int] = []
        // Each level's keys by a hash of a key's length and its first and last bytes, so that a
        // key of a record is compared with the few keys of its bucket, not with every key still
        // unfound (a record's keys times the set's, most of them skipped by length only): level 0
        // is the roots, level n + 1 node n's children. A level's buckets are `bucketStart[t] ..<
        // bucketStart[t + 1]` in `bucketNodes` for t in `table[level] + hash & mask[level]`; a level
        // with a non-ASCII key has no table (-1): its keys may equal a record's as Strings only.
        var table: [Int] = []
        var mask: [Int] = []
        var bucketStart: [Int] = []
        var bucketNodes: [Int] = []
        // Build a trie with children as lists, then lay the lists out contiguously.
        var children: [[Int]] = [[]]   // [0]: the roots; node n's children at [n + 1]
        for p in paths {
            var ks: [String] = []
            for c in p.components {
                if case .key(let k) = c { ks.append(k) } else { ks = []; break }
            }
            guard !ks.isEmpty, ks.count == p.components.count else {
                ends.append(-1)
                continue
            }
            var parent = -1
            for k in ks {
                if let found = children[parent + 1].first(where: { keys[$0] == k }) {
                    parent = found
                    continue
                }
                let n = nodes.count
                let bytes = Array(k.utf8)
                nodes.append(Node(start: keyBytes.count, count: bytes.count, isASCII: bytes.allSatisfy { $0 < 0x80 }))
                keys.append(k)
                keyBytes += bytes
                children.append([])
                children[parent + 1].append(n)
                parent = n
            }
            ends.append(parent)
        }
        rootCount = children[0].count
        childList = children[0]
        for n in nodes.indices {
            nodes[n].childStart = childList.count
            nodes[n].childCount = children[n + 1].count
            childList += children[n + 1]
        }
        for level in children {
            guard !level.isEmpty, level.allSatisfy({ nodes[$0].isASCII }) else {
                table.append(-1)
                mask.append(0)
                continue
            }
            var size = 4
            while size < level.count * 2 { size *= 2 }
            var buckets = [[Int]](repeating: [], count: size)
            for n in level {
                let bytes = keyBytes[nodes[n].start..<(nodes[n].start + nodes[n].count)]
                buckets[Self.hash(bytes.count, bytes.first ?? 0, bytes.last ?? 0) & (size - 1)].append(n)
            }
            table.append(bucketStart.count)
            mask.append(size - 1)
            for b in buckets {
                bucketStart.append(bucketNodes.count)
                bucketNodes += b
            }
            bucketStart.append(bucketNodes.count)
        }
        self.ends = ends
        self.tables = Tables(nodes: nodes, keys: keys, keyBytes: keyBytes, childList: childList, table: table, mask: mask,
                             bucketStart: bucketStart, bucketNodes: bucketNodes)
    }

    /// A key's bucket before the mask: its length, first and last bytes (0 and 0 when empty).
    @inline(__always)
    private static func hash(_ count: Int, _ first: UInt8, _ last: UInt8) -> Int {
        count &+ Int(first) &* 7 &+ Int(last) &* 31
    }

    /// The node of each path in `record`, in the order the paths were given: what
    /// `record[path]` gives for each.
    public func lookup(in record: JSONNode) -> [JSONNode] {
        let found = find(in: record)
        return paths.indices.map { found[$0] }
    }

    /// What `lookup` finds, kept as tape indices: a node is made only for the paths read
    /// (`found[i]`), each a retain of the document, where `lookup`'s array of nodes held one
    /// for every path of every record. The indices of the first `inlinePaths` paths are held in
    /// the value itself: a `json` source's record no longer allocates an array for them.
    public struct Found: Sendable {
        let record: JSONNode
        /// `record`'s document, unretained: `record` keeps it alive.
        let document: Unmanaged<JSONDocument>?
        /// How many paths have an index here; 0 when every path walks.
        let count: Int
        /// Per path: the tape index of its node, or `KeyPathSet.walks` where the node is the
        /// usual walk's (absent, or a path the set does not take); the paths past
        /// `inlinePaths` in `overflow`.
        let inline: InlineArray<16, UInt32>
        let overflow: [UInt32]
        let paths: [KeyPath]

        @inline(__always) func index(_ i: Int) -> Int? {
            guard i < count else { return nil }
            let k = i < KeyPathSet.inlinePaths ? inline[i] : overflow[i - KeyPathSet.inlinePaths]
            return k == KeyPathSet.walks ? nil : Int(k)
        }

        /// The node of the `i`th path: what `record[paths[i]]` gives.
        public subscript(i: Int) -> JSONNode {
            if let k = index(i) { return JSONNode(record.document, k, found: true, record.context) }
            return record[paths[i]]
        }

        /// The `i`th path's string when its node is a string on the tape (what
        /// `found[i].stringValue()` gives, without making the node), else nil: absent, not a
        /// string, or not found by the set.
        public func string(_ i: Int) -> String? {
            guard let k = index(i) else { return nil }
            // The document read without a reference of its own: `record` holds one for as long
            // as this value lives (a retain and a release a field were 1% of a decode).
            return document?._withUnsafeGuaranteedRef { doc in doc.entry(k).kind == JSONTapeEntry.string ? doc.string(at: k) : nil }
        }

        /// `string(i)`, and whether it starts and ends with a byte that is printable ASCII as
        /// written (nothing to trim at either end; false for an escaped string, whose last byte
        /// may stand for white space), from one read of the node's entry.
        public func stringWithPlainEnds(_ i: Int) -> (text: String, plainEnds: Bool)? {
            guard let k = index(i) else { return nil }
            return document?._withUnsafeGuaranteedRef { $0.stringWithPlainEnds(at: k) }
        }
    }

    /// Paths whose indices `Found` holds in itself.
    static let inlinePaths = 16
    /// `Found`'s mark of a path the usual walk answers.
    static let walks = UInt32.max

    /// The nodes of the paths in `record`, found in one pass (`Found`).
    public func find(in record: JSONNode) -> Found {
        let none = InlineArray<16, UInt32>(repeating: Self.walks)
        guard let doc = record.document, record.found, !nodes.isEmpty else {
            return Found(record: record, document: nil, count: 0, inline: none, overflow: [], paths: paths)
        }
        // The trie's slots live on the stack; a record allocates nothing up to 16 paths.
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: nodes.count) { s in
            s.initialize(repeating: -1)
            tables.search(doc, rootCount: rootCount, record: record.index, slots: s)
            // Absent (or not taken): the usual walk, whose node knows the path asked for.
            var inline = none
            var overflow: [UInt32] = []
            for (i, end) in ends.enumerated() {
                // A tape index is below the document's byte count, at most UInt32.max - 1
                // (`JSONTapeEntry.maxDocumentBytes`): never the mark.
                assert(end < 0 || s[end] < Int(Self.walks))
                let k = end >= 0 && s[end] >= 0 ? UInt32(truncatingIfNeeded: s[end]) : Self.walks
                if i < Self.inlinePaths { inline[i] = k } else { overflow.append(k) }
            }
            return Found(record: record, document: Unmanaged.passUnretained(doc), count: ends.count, inline: inline, overflow: overflow, paths: paths)
        }
    }

    /// The set's arrays, copied once into memory of their own that lives as long as the set
    /// (shared by every copy of it, and by every source with the same `fields`). Read only.
    final class Tables: @unchecked Sendable {
        /// The memory, as a record's search reads it (a copy of these pointers, held in the
        /// search itself: read through the class at each key, they cost 0.6% of a decode).
        struct Arrays {
            let nodes: UnsafeBufferPointer<Node>
            let keys: UnsafeBufferPointer<String>
            let keyBytes: UnsafeBufferPointer<UInt8>
            let childList: UnsafeBufferPointer<Int>
            let table: UnsafeBufferPointer<Int>
            let mask: UnsafeBufferPointer<Int>
            let bucketStart: UnsafeBufferPointer<Int>
            let bucketNodes: UnsafeBufferPointer<Int>
        }
        let arrays: Arrays
        var nodes: UnsafeBufferPointer<Node> { arrays.nodes }

        init(nodes: [Node], keys: [String], keyBytes: [UInt8], childList: [Int], table: [Int], mask: [Int], bucketStart: [Int], bucketNodes: [Int]) {
            func copy<T>(_ a: [T]) -> UnsafeBufferPointer<T> {
                let p = UnsafeMutableBufferPointer<T>.allocate(capacity: a.count)
                _ = p.initialize(from: a)
                return UnsafeBufferPointer(p)
            }
            arrays = Arrays(nodes: copy(nodes), keys: copy(keys), keyBytes: copy(keyBytes), childList: copy(childList), table: copy(table),
                            mask: copy(mask), bucketStart: copy(bucketStart), bucketNodes: copy(bucketNodes))
        }

        deinit {
            func free<T>(_ p: UnsafeBufferPointer<T>) {
                let m = UnsafeMutableBufferPointer(mutating: p)
                m.deinitialize()
                m.deallocate()
            }
            free(arrays.nodes)
            free(arrays.keys)
            free(arrays.keyBytes)
            free(arrays.childList)
            free(arrays.table)
            free(arrays.mask)
            free(arrays.bucketStart)
            free(arrays.bucketNodes)
        }

        /// Fills `slots` (one per trie node, -1 when unfound) for the record at tape index
        /// `record` of `doc`.
        func search(_ doc: JSONDocument, rootCount: Int, record: Int, slots: UnsafeMutableBufferPointer<Int>) {
            doc.withBytes { base in
                let lookup = Lookup(doc: doc, base: base, tables: arrays, slots: slots)
                lookup.find(0, rootCount, level: 0, in: record)
            }
        }
    }

    /// One record's search: the set's tables and the document's bytes, borrowed for it.
    private struct Lookup {
        let doc: JSONDocument
        let base: UnsafePointer<UInt8>
        let tables: Tables.Arrays
        let slots: UnsafeMutableBufferPointer<Int>

        /// Fills the slots of the keys `childList[from..<from + count]` (level `level`) in the
        /// object at `i` (none when it is not an object), then their children's. Keys are
        /// walked from the last one backwards, as `member` walks them, and the first match of
        /// each is kept: the last duplicate.
        func find(_ from: Int, _ count: Int, level: Int, in i: Int) {
            let (nodes, childList, keyBytes, bucketStart, bucketNodes) = (tables.nodes, tables.childList, tables.keyBytes, tables.bucketStart, tables.bucketNodes)
            let (t, m) = (tables.table[level], tables.mask[level])
            let object = doc.entry(i)
            guard object.kind == JSONTapeEntry.object, object.length > 0 else { return }
            var left = count
            var j = Int(object.offset)
            while j != i && left > 0 {
                let e = doc.entry(j)
                if t >= 0 && e.flags == 0 {
                    // A plain key: only its bucket's keys can equal it.
                    let n = Int(e.length)
                    let p = base + Int(e.offset)
                    let h = n == 0 ? KeyPathSet.hash(0, 0, 0) : KeyPathSet.hash(n, p[0], p[n - 1])
                    let b = t + (h & m)
                    for k in bucketStart[b]..<bucketStart[b + 1] {
                        let c = bucketNodes[k]
                        let node = nodes[c]
                        if slots[c] < 0 && node.count == n && (n == 0 || JSONDocument.equalBytes(p, keyBytes.baseAddress! + node.start, n)) {
                            slots[c] = j + 1
                            left -= 1
                        }
                    }
                } else {
                    for c in from..<(from + count) where slots[childList[c]] < 0 && matches(childList[c], j, e) {
                        slots[childList[c]] = j + 1
                        left -= 1
                    }
                }
                j = Int(e.end)
            }
            for c in from..<(from + count) {
                let n = childList[c]
                let node = nodes[n]
                if slots[n] >= 0 && node.childCount > 0 {
                    find(node.childStart, node.childCount, level: n + 1, in: slots[n])
                }
            }
        }

        /// Whether the key at `j` (entry `e`) is node `n`'s key: by bytes, and by String
        /// equality where either may be written otherwise (escaped, or not ASCII).
        private func matches(_ n: Int, _ j: Int, _ e: JSONTapeEntry) -> Bool {
            let node = tables.nodes[n]
            let keys = tables.keys
            // The keys' bytes by address (empty when every key is empty).
            let keyStart = tables.keyBytes.baseAddress.map { $0 + node.start }
            if e.flags == 0 {
                return (Int(e.length) == node.count && (node.count == 0 || JSONDocument.equalBytes(base + Int(e.offset), keyStart!, node.count)))
                    || (!node.isASCII && doc.string(at: j) == keys[n])
            }
            let key = UnsafeBufferPointer(start: keyStart, count: node.count)
            return doc.string(at: j, equals: key, in: base) || doc.string(at: j) == keys[n]
        }
    }
}
