/// A growable byte buffer written through a raw pointer, reused from one output to the next:
/// appending a byte is a compare and a store, without an array's uniqueness checks and generic
/// paths, which cost the writer more than the escaping itself.
struct JQBytes: ~Copyable {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int = 1024) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    var bytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

    mutating func removeAll() { count = 0 }

    @inline(__always)
    mutating func append(_ b: UInt8) {
        if count == capacity { grow(count + 1) }
        base[count] = b
        count += 1
    }

    @inline(__always)
    mutating func append(_ p: UnsafeBufferPointer<UInt8>) {
        guard let src = p.baseAddress, p.count > 0 else { return }
        if count + p.count > capacity { grow(count + p.count) }
        (base + count).update(from: src, count: p.count)
        count += p.count
    }

    mutating func append(_ a: [UInt8]) {
        a.withUnsafeBufferPointer { append($0) }
    }

    mutating func append<S: Collection>(contentsOf s: S) where S.Element == UInt8 {
        for b in s { append(b) }
    }

    private mutating func grow(_ needed: Int) {
        var c = capacity * 2
        while c < needed { c *= 2 }
        let p = UnsafeMutablePointer<UInt8>.allocate(capacity: c)
        p.update(from: base, count: count)
        base.deallocate()
        base = p
        capacity = c
    }
}
