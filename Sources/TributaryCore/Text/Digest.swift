import CCrypto

/// Message digests from libcrypto (never hand-written), as upper- or lower-case hex.
public enum Digest {
    public static func sha1(_ bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 20)
        let ok = bytes.withUnsafeBufferPointer { b in out.withUnsafeMutableBufferPointer { o in tributary_sha1(b.baseAddress, b.count, o.baseAddress) } }
        precondition(ok == 1, "libcrypto SHA-1 failed")
        return out
    }

    public static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        let ok = bytes.withUnsafeBufferPointer { b in out.withUnsafeMutableBufferPointer { o in tributary_sha256(b.baseAddress, b.count, o.baseAddress) } }
        precondition(ok == 1, "libcrypto SHA-256 failed")
        return out
    }

    public static func hex(_ bytes: [UInt8], uppercase: Bool = false) -> String {
        let digits = Array((uppercase ? "0123456789ABCDEF" : "0123456789abcdef").utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
