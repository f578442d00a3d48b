/// Percent-encoding (RFC 3986) in the standard library alone: what Foundation's
/// `addingPercentEncoding(withAllowedCharacters:)` and `removingPercentEncoding` did, with the
/// same results, without linking Foundation proper (NSString, CoreFoundation and ICU), whose
/// relocations every start paid for (Docs/PERFORMANCE.md, "Start-up"). TextTests compares both
/// with Foundation's.
extension StringProtocol {
    /// Every UTF-8 byte for which `keep` is false written as `%XX` (upper-case hex). `keep` must
    /// only accept ASCII bytes, so a multi-byte character is always encoded whole.
    public func percentEncoded(keeping keep: (UInt8) -> Bool) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count)
        for b in utf8 {
            if b < 0x80 && keep(b) {
                out.append(b)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(b >> 4)])
                out.append(hex[Int(b & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Each `%XX` replaced by its byte; nil, as Foundation's `removingPercentEncoding`, when a
    /// `%` is not followed by two hex digits or the bytes are not UTF-8.
    public var percentDecoded: String? {
        guard utf8.contains(UInt8(ascii: "%")) else { return String(self) }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count)
        var it = utf8.makeIterator()
        while let b = it.next() {
            guard b == UInt8(ascii: "%") else { out.append(b); continue }
            guard let h = it.next().flatMap(Self.hexValue), let l = it.next().flatMap(Self.hexValue) else { return nil }
            out.append(h << 4 | l)
        }
        return String(validating: out, as: UTF8.self)
    }

    private static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: return b - 0x30
        case 0x41...0x46: return b - 0x41 + 10
        case 0x61...0x66: return b - 0x61 + 10
        default: return nil
        }
    }
}
