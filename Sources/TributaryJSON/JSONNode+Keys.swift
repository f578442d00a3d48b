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
