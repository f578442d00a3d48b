/// The item ids already delivered in this run, kept as 128-bit keyed hashes instead of the
/// strings: a run of 100,000 items needs about 2 MiB instead of a heap string per id, and
/// inserting hashes a 16-byte value, not a string. Two different ids share a hash with
/// probability about n² / 2^129 (10^-29 for a million ids): never in practice.
struct IDSet {
    private var hashes = Set<UInt128>()
    // Two independent SipHash seeds per process (Hasher is randomly seeded per process).
    private static let salt1: UInt64 = 0x9E37_79B9_7F4A_7C15
    private static let salt2: UInt64 = 0xC2B2_AE3D_27D4_EB4F

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
    mutating func insert(_ id: String) -> Bool { hashes.insert(Self.key(id)).inserted }

    /// Whether `id` is in the set; changes nothing.
    func contains(_ id: String) -> Bool { hashes.contains(Self.key(id)) }

    mutating func removeAll() { hashes.removeAll(keepingCapacity: true) }
    var count: Int { hashes.count }
}
