import Glibc
import TributaryBase

extension JSONNode {
    /// The keys of the object here, in document order (a duplicate key as often as written);
    /// empty when this is not an object or is absent. On a tape no value is built: each key is
    /// one entry read and its string decoded.
    public var memberKeys: [String] {
        guard found else { return [] }
        if let doc = document {
            let object = doc.entry(index)
            guard object.kind == JSONTapeEntry.object, object.length > 0 else { return [] }
            // Invariant (JSONTapeEntry): an object's `offset` is its last key, each key's `end`
            // the key before it, and the first key's `end` the object itself.
            var keys: [String] = []
            var j = Int(object.offset)
            while j != index {
                keys.append(doc.string(at: j))
                j = Int(doc.entry(j).end)
            }
            return keys.reversed()
        }
        guard case .object(let o)? = context?.tree else { return [] }
        return o.keys
    }
}

extension JSONNode {
    /// The members of the object here, in document order (a duplicate key as often as
    /// written), each key with its value's node; empty when this is not an object or is absent.
    public var members: [(key: String, value: JSONNode)] {
        guard found else { return [] }
        if let doc = document {
            let object = doc.entry(index)
            guard object.kind == JSONTapeEntry.object, object.length > 0 else { return [] }
            // The keys from the last one back (`memberKeys`); a key's value is the entry after it.
            var members: [(key: String, value: JSONNode)] = []
            members.reserveCapacity(Int(object.length))
            var j = Int(object.offset)
            while j != index {
                members.append((doc.string(at: j), JSONNode(doc, j + 1, found: true, context)))
                j = Int(doc.entry(j).end)
            }
            members.reverse()
            return members
        }
        guard case .object(let o)? = context?.tree else { return [] }
        let here = path
        return o.entries.map { ($0.key, JSONNode($0.value, path: here.appending(key: $0.key))) }
    }

    /// Whether the document's bytes from this value's start to the next value's (its text,
    /// and what separates it from what follows) may hold `a` or `b`: a config skips the
    /// `${VAR}` and `$`-key pass over a source whose text has no `$` and no escape. True when
    /// this is not a value on a tape (absent, or a tree node), which has no text to look at.
    public func textMayHold(_ a: UInt8, _ b: UInt8) -> Bool {
        guard found, let doc = document else { return true }
        // An empty object has no byte of its own on the tape, and holds neither byte.
        guard let start = doc.textStart(index) else { return false }
        let e = doc.entry(index)
        var next = e.isContainer ? Int(e.end) : index + 1
        while next < doc.valueCount && doc.textStart(next) == nil { next += 1 }
        let end = next < doc.valueCount ? doc.textStart(next)! : doc.bytes.count
        guard end > start else { return false }
        return doc.bytes.withUnsafeBufferPointer { all in
            let p = UnsafeRawPointer(all.baseAddress! + start)
            return memchr(p, Int32(a), end - start) != nil || memchr(p, Int32(b), end - start) != nil
        }
    }
}

extension JSONDocument {
    /// Where the value at `i` starts in the bytes (a string's or key's opening quote, an
    /// object's first key's), or nil for an empty object: an object's entry holds its last
    /// key, not a byte offset (JSONTapeEntry).
    func textStart(_ i: Int) -> Int? {
        let e = entry(i)
        switch e.kind {
        case JSONTapeEntry.object: return e.length > 0 ? Int(entry(i + 1).offset) - 1 : nil
        case JSONTapeEntry.string: return Int(e.offset) - 1
        default: return Int(e.offset)
        }
    }
}
