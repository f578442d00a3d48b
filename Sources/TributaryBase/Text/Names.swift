/// Names and short hashes that plugins share: item kinds and data field names, source names,
/// ids made from text.
public enum Names {
    /// `[a-z][a-z0-9_]*`: item kinds and `data` field names.
    public static func isSnakeCase(_ s: String) -> Bool {
        guard let f = s.unicodeScalars.first, ("a"..."z").contains(f) else { return false }
        return s.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
    }

    /// 64-bit FNV-1a of the UTF-8 bytes, in hex (16 digits when `padded`).
    public static func fnv1a(_ s: String, padded: Bool = false) -> String {
        var h: UInt64 = 0xcbf29ce484222325
        for b in s.utf8 {
            h ^= UInt64(b)
            h = h &* 0x100000001b3
        }
        let hex = String(h, radix: 16)
        return padded ? String(repeating: "0", count: 16 - hex.count) + hex : hex
    }

    /// The stable native id of an item known only by its text (a title): never changes between
    /// versions, as ids in state depend on it.
    public static func textHash(_ s: String) -> String { fnv1a(s) }
}
