/// The tape while it is being built: a growable buffer of entries that `JSONDocument` takes
/// over (and frees) once the parse succeeded; on failure the parser frees it.
struct JSONTapeBuffer {
    private(set) var base: UnsafeMutablePointer<JSONTapeEntry>
    private(set) var count = 0
    private(set) var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 8)
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
        let newCapacity = capacity * 2
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
