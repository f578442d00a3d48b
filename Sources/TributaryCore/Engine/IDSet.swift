/// The item ids already delivered in this run, kept as 128-bit keyed hashes instead of the
/// strings: inserting hashes a 16-byte value, not a string, and a run of 100,000 items needs
/// 2 MiB. Two different ids share a hash with probability about n² / 2^129 (10^-29 for a
/// million ids): never in practice.
///
/// The hashes are kept in an open-addressing table of their own rather than a `Set<UInt128>`:
/// a key is already uniformly random, so its low bits are its slot (a `Set` hashes every key
/// again with SipHash), and the table fills to 7/8 before it doubles (a `Set` doubles at 3/4):
/// 18-37 bytes an id instead of 21-43, and the doubling, when the old and the new table are
/// both held, comes later. Linear probing; 0 marks an empty slot, so the key 0 is kept apart.
struct IDSet {
    private var slots: [UInt128] = []
    private var hasZero = false
    private(set) var count = 0

    // Two independent SipHash seeds per process (Hasher is randomly seeded per process).
    private static let salt1: UInt64 = 0x9E37_79B9_7F4A_7C15
    private static let salt2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    /// The table's first size, in slots (a power of two).
    static let initialSlots = 64

    static func key(_ id: String) -> UInt128 {
        var a = Hasher()
        a.combine(salt1)
        a.combine(id)
        var b = Hasher()
        b.combine(salt2)
        b.combine(id)
        let hi = UInt64(bitPattern: Int64(a.finalize())), lo = UInt64(bitPattern: Int64(b.finalize()))
        return UInt128(hi) << 64 | UInt128(lo)
    }

    /// True when `id` was not in the set (and is now).
    mutating func insert(_ id: String) -> Bool { insert(key: Self.key(id)) }

    /// Whether `id` is in the set; changes nothing.
    func contains(_ id: String) -> Bool { contains(key: Self.key(id)) }

    mutating func removeAll() {
        if count > 0 { slots.withUnsafeMutableBufferPointer { $0.update(repeating: 0) } }
        hasZero = false
        count = 0
    }

    /// The table's size in slots (0 before the first insert): what the set holds in memory is
    /// 16 bytes a slot.
    var capacity: Int { slots.count }

    mutating func insert(key: UInt128) -> Bool {
        if key == 0 {
            if hasZero { return false }
            hasZero = true
            count += 1
            return true
        }
        // Room for one more within 7/8 of the slots (the zero key takes none, counted anyway).
        if (count + 1) * 8 > slots.count * 7 { grow() }
        let inserted = slots.withUnsafeMutableBufferPointer { s in
            let mask = s.count - 1
            var i = Int(truncatingIfNeeded: key) & mask
            while true {
                let here = s[i]
                if here == 0 {
                    s[i] = key
                    return true
                }
                if here == key { return false }
                i = (i + 1) & mask
            }
        }
        if inserted { count += 1 }
        return inserted
    }

    func contains(key: UInt128) -> Bool {
        if key == 0 { return hasZero }
        guard !slots.isEmpty else { return false }
        return slots.withUnsafeBufferPointer { s in
            let mask = s.count - 1
            var i = Int(truncatingIfNeeded: key) & mask
            while true {
                let here = s[i]
                if here == key { return true }
                if here == 0 { return false }
                i = (i + 1) & mask
            }
        }
    }

    /// Doubles the table (or makes the first) and puts every key back.
    private mutating func grow() {
        let old = slots
        var bigger = [UInt128](repeating: 0, count: max(Self.initialSlots, old.count * 2))
        bigger.withUnsafeMutableBufferPointer { s in
            let mask = s.count - 1
            for key in old where key != 0 {
                var i = Int(truncatingIfNeeded: key) & mask
                while s[i] != 0 { i = (i + 1) & mask }
                s[i] = key
            }
        }
        slots = bigger
    }
}
