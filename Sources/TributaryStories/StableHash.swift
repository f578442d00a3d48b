// A 64-bit hash whose value is part of the state: story ids, index keys and token hashes are
// stored (SQLite, PostgreSQL) and compared between processes and versions, so this function is
// fixed. Changing it changes every story id: never do that without a state migration.
//
// Bytes are read 8 at a time, little-endian whatever the machine, each word folded in with a
// 64x64->128-bit multiply (high ^ low), the tail packed into one word, and murmur3's fmix64 at
// the end. Not a cryptographic hash: nobody gains anything by colliding two story ids on purpose
// that they could not have by copying a title.

@usableFromInline let hashK0: UInt64 = 0xA076_1D64_78BD_642F
@usableFromInline let hashK1: UInt64 = 0xE703_7ED1_A0B4_28DB
@usableFromInline let hashK2: UInt64 = 0x8EBC_6AF0_9C88_C6E3

@inlinable @inline(__always)
func fold(_ a: UInt64, _ b: UInt64) -> UInt64 {
    let p = a.multipliedFullWidth(by: b)
    return p.high ^ p.low
}

/// murmur3's 64-bit finalizer: every input bit reaches every output bit.
@inlinable @inline(__always)
public func fmix64(_ x: UInt64) -> UInt64 {
    var k = x
    k ^= k >> 33
    k = k &* 0xFF51_AFD7_ED55_8CCD
    k ^= k >> 33
    k = k &* 0xC4CE_B9FE_1A85_EC53
    k ^= k >> 33
    return k
}

/// The stable 64-bit hash of `bytes`, with a `seed` that separates kinds of input (a URL, an
/// item id, a token).
@inlinable
public func stableHash(_ bytes: UnsafeRawBufferPointer, seed: UInt64 = 0) -> UInt64 {
    let n = bytes.count
    var h = seed ^ hashK0 ^ (UInt64(truncatingIfNeeded: n) &* hashK1)
    var i = 0
    while i + 8 <= n {
        let w = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self))
        h = fold(h ^ w, hashK1) &+ hashK2
        i += 8
    }
    if i < n {
        var w: UInt64 = 0
        var shift: UInt64 = 0
        while i < n {
            w |= UInt64(bytes[i]) << shift
            shift += 8
            i += 1
        }
        h = fold(h ^ w ^ hashK2, hashK1)
    }
    return fmix64(h)
}

@inlinable
public func stableHash(_ bytes: [UInt8], seed: UInt64 = 0) -> UInt64 {
    bytes.withUnsafeBytes { stableHash($0, seed: seed) }
}

@inlinable
public func stableHash(_ string: String, seed: UInt64 = 0) -> UInt64 {
    var s = string
    return s.withUTF8 { stableHash(UnsafeRawBufferPointer($0), seed: seed) }
}

/// Seeds that keep the kinds of hashed input apart (a URL never hashes like an item id).
public enum HashSeed {
    public static let url: UInt64 = 0x7572_6C00_0000_0001        // "url"
    public static let itemID: UInt64 = 0x6964_0000_0000_0002     // "id"
    public static let token: UInt64 = 0x746F_6B00_0000_0003      // "tok"
    public static let host: UInt64 = 0x686F_7374_0000_0004       // "host"
    public static let tag: UInt64 = 0x7461_6700_0000_0005        // "tag"
    public static let key: UInt64 = 0x6B65_7900_0000_0006        // "key"
}
