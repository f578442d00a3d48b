
/// RFC 3986 percent-encoding of query values in UTF-8: everything outside the unreserved set
/// (`A-Z a-z 0-9 - . _ ~`) is escaped, including `& = + ? / # %` and spaces.
public enum URLEncoding {
    public static func encode(_ s: String) -> String {
        var out = [UInt8]()
        out.reserveCapacity(s.utf8.count)
        let hex = Array("0123456789ABCDEF".utf8)
        for b in s.utf8 {
            switch b {
            case 0x41...0x5A, 0x61...0x7A, 0x30...0x39, 0x2D, 0x2E, 0x5F, 0x7E: out.append(b)
            default:
                out.append(0x25)
                out.append(hex[Int(b >> 4)])
                out.append(hex[Int(b & 0xF)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `a=1&b=x%20y` from ordered pairs.
    public static func query(_ pairs: [(String, String)]) -> String {
        // A loop rather than map + joined(separator:), whose generic first use (type metadata,
        // conformance lookups) was a visible part of `check` (config validation builds URLs).
        var out = ""
        for (i, pair) in pairs.enumerated() {
            if i > 0 { out += "&" }
            out += encode(pair.0)
            out += "="
            out += encode(pair.1)
        }
        return out
    }

    /// Appends encoded pairs to a URL that may already have a query.
    public static func appendQuery(_ url: String, _ pairs: [(String, String)]) -> String {
        guard !pairs.isEmpty else { return url }
        let q = query(pairs)
        if url.contains("?" as Character) { return url.hasSuffix("?") || url.hasSuffix("&") ? url + q : url + "&" + q }
        return url + "?" + q
    }

    /// The host (lowercased, with port) of an absolute URL, used for per-host limits.
    /// On the UTF-8 bytes: every request asks, and a generic substring search cost a run of
    /// 10,000 small sources 3% of its CPU.
    public static func hostKey(_ url: String) -> String {
        var url = url
        return url.withUTF8 { b -> String in
            let n = b.count
            var i = 0
            while i + 2 < n, !(b[i] == 0x3A && b[i + 1] == 0x2F && b[i + 2] == 0x2F) { i += 1 }
            guard i + 2 < n else { return "" }
            var start = i + 3
            var end = start
            while end < n, b[end] != 0x2F, b[end] != 0x3F, b[end] != 0x23 { end += 1 }
            var k = end
            while k > start { if b[k - 1] == 0x40 { start = k; break }; k -= 1 }
            let host = UnsafeBufferPointer(rebasing: b[start..<end])
            if host.allSatisfy({ $0 < 0x80 && !($0 >= 0x41 && $0 <= 0x5A) }) { return String(decoding: host, as: UTF8.self) }
            return String(decoding: host, as: UTF8.self).lowercased()
        }
    }
}
