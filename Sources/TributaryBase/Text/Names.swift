/// Names and short hashes that plugins share: item kinds and data field names, source names,
/// ids made from text.
public enum Names {
    /// `[a-z][a-z0-9_]*`: item kinds and `data` field names.
    public static func isSnakeCase(_ s: String) -> Bool {
        // On the UTF-8 bytes: every allowed character is ASCII, and any byte of a non-ASCII
        // one is refused.
        var bytes = s.utf8.makeIterator()
        guard let f = bytes.next(), f >= UInt8(ascii: "a"), f <= UInt8(ascii: "z") else { return false }
        while let c = bytes.next() {
            guard (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || c == UInt8(ascii: "_") else { return false }
        }
        return true
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
