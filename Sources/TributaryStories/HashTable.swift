// A fixed open-addressing table keyed by an already well-mixed 64-bit hash (stableHash): the
// word lists of TitleAnalyzer and URLCanonicalizer, looked up once or twice per word without
// building a String or running SipHash. Built once into memory that is never freed (the tables
// are static), so copying one costs no reference counting.

struct HashTable<Value: Sendable>: @unchecked Sendable {
    private let keys: UnsafeMutablePointer<UInt64>
    private let values: UnsafeMutablePointer<Value>
    private let mask: Int

    init(_ pairs: [(UInt64, Value)], filler: Value) {
        var capacity = 16
        while capacity < pairs.count * 4 { capacity <<= 1 }
        keys = .allocate(capacity: capacity)
        keys.initialize(repeating: 0, count: capacity)
        values = .allocate(capacity: capacity)
        values.initialize(repeating: filler, count: capacity)
        mask = capacity - 1
        for (k0, v) in pairs {
            let k = k0 == 0 ? 1 : k0
            var i = Int(truncatingIfNeeded: k) & mask
            while keys[i] != 0, keys[i] != k { i = (i + 1) & mask }
            keys[i] = k
            values[i] = v
        }
    }

    @inline(__always) func get(_ k0: UInt64) -> Value? {
        let k = k0 == 0 ? 1 : k0
        var i = Int(truncatingIfNeeded: k) & mask
        while true {
            let x = keys[i]
            if x == k { return values[i] }
            if x == 0 { return nil }
            i = (i + 1) & mask
        }
    }

    @inline(__always) func contains(_ k0: UInt64) -> Bool {
        let k = k0 == 0 ? 1 : k0
        var i = Int(truncatingIfNeeded: k) & mask
        while true {
            let x = keys[i]
            if x == k { return true }
            if x == 0 { return false }
            i = (i + 1) & mask
        }
    }
}
