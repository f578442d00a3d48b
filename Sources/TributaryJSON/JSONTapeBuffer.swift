import TributaryBase

/// The tape while it is being built: a growable buffer of entries that `JSONDocument` takes
/// over (and frees) once the parse succeeded; on failure the parser frees it.
struct JSONTapeBuffer {
    private(set) var base: UnsafeMutablePointer<JSONTapeEntry>
    private(set) var count = 0
    private(set) var capacity: Int
    /// The most entries the document can need: every value takes at least one input byte, so
    /// a document of n bytes has at most n entries. Growth stops there (16 bytes per input byte).
    private let limit: Int

    init(capacity: Int, limit: Int) {
        self.limit = max(limit, 1)
        self.capacity = min(max(capacity, 8), self.limit)
        self.base = .allocate(capacity: self.capacity)
    }

    @inline(__always)
    mutating func append(_ entry: JSONTapeEntry) {
        if count == capacity { grow() }
        // Invariant: count < capacity here, so base + count is allocated and not yet initialized.
        (base + count).initialize(to: entry)
        count += 1
    }

    @inline(never)
    private mutating func grow() {
        precondition(capacity < limit, "more tape entries than input bytes")
        let newCapacity = min(capacity * 2, limit)
        let newBase = UnsafeMutablePointer<JSONTapeEntry>.allocate(capacity: newCapacity)
        // Invariant: the first `count` entries of `base` are initialized and newCapacity > count.
        newBase.moveInitialize(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    /// An entry already appended. Invariant: 0 <= i < count (checked in debug builds).
    @inline(__always)
    subscript(i: Int) -> JSONTapeEntry {
        get {
            assert(i >= 0 && i < count)
            return base[i]
        }
        nonmutating _modify {
            assert(i >= 0 && i < count)
            yield &base[i]
        }
    }

    func deallocate() { base.deallocate() }
}
