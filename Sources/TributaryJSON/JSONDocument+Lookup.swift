import TributaryBase

extension JSONDocument {
    /// The index just past entry `i` and its descendants: its next sibling.
    @inline(__always)
    func end(of i: Int) -> Int { Int(entry(i).end) }

    /// The value of the last member named `key` in the object at `i`, or nil (also when `i` is
    /// not an object). Keys are walked from the last one backwards (their back links), so the
    /// first match is the last duplicate. They match as `JSONObject`'s do, by String equality:
    /// on their bytes (decoded only when escaped), and where those differ and either side is not
    /// plain ASCII, as Strings (canonical equivalence: "é" precomposed or not).
    func member(_ key: String, in i: Int) -> Int? {
        let object = entry(i)
        guard object.kind == JSONTapeEntry.object, object.length > 0 else { return nil }
        return key.withUTF8Bytes { member(key, utf8: $0, in: i, object) }
    }

    private func member(_ key: String, utf8 k: UnsafeBufferPointer<UInt8>, in i: Int, _ object: JSONTapeEntry) -> Int? {
        let n = k.count
        let keyIsASCII = Self.isASCII(k)
        return withBytes { base in
            // Invariant: an object's `offset` is its last key, each key's `end` the key before
            // it, and the first key's `end` the object itself (JSONTapeEntry).
            var j = Int(object.offset)
            while j != i {
                let e = entry(j)
                if e.flags == 0 {
                    // An ASCII key without escapes: its bytes are its value.
                    if Int(e.length) == n && (n == 0 || Self.equalBytes(base + Int(e.offset), k.baseAddress!, n)) { return j + 1 }
                    if !keyIsASCII && string(at: j) == key { return j + 1 }
                } else if string(at: j, equals: k, in: base) || string(at: j) == key {
                    return j + 1
                }
                j = Int(e.end)
            }
            return nil
        }
    }

    /// Whether every byte is below 0x80: keys are short, so a few (overlapping) word loads.
    /// Invariant: every load reads inside k (offsets 0 and n - 8 with n >= 8, 0 and n - 4 with
    /// n >= 4).
    @inline(__always)
    static func isASCII(_ k: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = k.count
        guard n > 0, let p = k.baseAddress.map(UnsafeRawPointer.init) else { return true }
        if n >= 8 {
            var bits: UInt64 = p.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
            var i = 0
            while i + 8 <= n {
                bits |= p.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                i += 8
            }
            return bits & 0x8080_8080_8080_8080 == 0
        }
        if n >= 4 {
            let bits = p.loadUnaligned(as: UInt32.self) | p.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)
            return bits & 0x8080_8080 == 0
        }
        var bits: UInt8 = 0
        for i in 0..<n { bits |= k[i] }
        return bits < 0x80
    }

    /// Element `n` of the array at `i`, or nil (also when `i` is not an array).
    func element(_ n: Int, in i: Int) -> Int? {
        let array = entry(i)
        guard array.kind == JSONTapeEntry.array, n >= 0, n < Int(array.length) else { return nil }
        var j = i + 1
        for _ in 0..<n { j = Int(entry(j).end) }
        return j
    }

    /// Follows `components[from...]` from entry `i`: the last entry reached and the number of
    /// components matched (all of them when the path exists).
    func walk(_ components: [KeyPath.Component], from start: Int, at i: Int) -> (index: Int, matched: Int) {
        var cur = i
        var k = start
        while k < components.count {
            let next: Int?
            switch components[k] {
            case .key(let key): next = member(key, in: cur)
            case .index(let n): next = element(n, in: cur)
            }
            guard let next else { return (cur, k) }
            cur = next
            k += 1
        }
        return (cur, k)
    }

    /// Appends the key path from the root to entry `target` (a value, not a key): at each
    /// container on the way, the key or index of the child whose subtree holds `target`. Only
    /// error messages and `JSONNode.path` need it, so nodes never store their paths.
    func appendPath(to target: Int, into out: inout [KeyPath.Component]) {
        var cur = 0
        while cur != target {
            let e = entry(cur)
            // Invariant: cur < target < e.end, so a child's subtree holds target.
            assert(e.isContainer && target < Int(e.end))
            var j = cur + 1
            if e.kind == JSONTapeEntry.array {
                var n = 0
                while Int(entry(j).end) <= target {
                    j = Int(entry(j).end)
                    n += 1
                }
                out.append(.index(n))
                cur = j
            } else {
                while Int(entry(j + 1).end) <= target { j = Int(entry(j + 1).end) }
                out.append(.key(string(at: j)))
                cur = j + 1
            }
        }
    }
}
