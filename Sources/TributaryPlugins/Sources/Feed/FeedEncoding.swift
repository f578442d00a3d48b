import TributaryCore
import TributaryPluginKit

/// The one decision about encodings taken before libxml2 sees a document: a document that
/// declares no encoding, or UTF-8, and is not valid UTF-8 is windows-1252 in practice (a
/// hand-written or exported feed, like feedparser's and browsers' fallback), so it is read as
/// windows-1252 and the source says so in a warning. A declared other encoding (windows-1251,
/// ISO-8859-1, UTF-16 with its byte order mark, ...) is libxml2's to decode, as declared.
enum FeedEncoding {
    /// The encoding the XML declaration names, lower-cased; nil without a declaration or with
    /// no `encoding` in it. `body` starts at `<?xml` (after any byte-order mark and white space).
    static func declared(_ body: ArraySlice<UInt8>) -> String? {
        guard body.starts(with: Array("<?xml".utf8)) else { return nil }
        let head = Array(body.prefix(512))
        guard let end = indexOf(Array("?>".utf8), in: head), let key = indexOf(Array("encoding".utf8), in: Array(head[..<end])) else { return nil }
        var i = key + 8
        func skipSpaces() { while i < end, [0x20, 0x09, 0x0A, 0x0D].contains(head[i]) { i += 1 } }
        skipSpaces()
        guard i < end, head[i] == UInt8(ascii: "=") else { return nil }
        i += 1
        skipSpaces()
        guard i < end, head[i] == UInt8(ascii: "\"") || head[i] == UInt8(ascii: "'") else { return nil }
        let quote = head[i]
        let start = i + 1
        guard let close = head[start..<end].firstIndex(of: quote) else { return nil }
        return String(decoding: head[start..<close], as: UTF8.self).lowercased()
    }

    /// Whether the bytes could be UTF-16 or UTF-32 (a byte-order mark, or `<` next to a zero
    /// byte): then libxml2 detects the encoding itself and nothing here applies.
    static func isWide(_ body: ArraySlice<UInt8>) -> Bool {
        let b = Array(body.prefix(4))
        guard b.count >= 2 else { return false }
        if (b[0] == 0xFE && b[1] == 0xFF) || (b[0] == 0xFF && b[1] == 0xFE) { return true }
        return b[0] == 0 || b[1] == 0
    }

    /// The offset of the first byte that is not part of valid UTF-8, or nil when all are.
    static func firstInvalidUTF8(_ body: ArraySlice<UInt8>) -> Int? {
        body.withUnsafeBufferPointer { b -> Int? in
            var i = 0
            let n = b.count
            while i < n {
                let c = b[i]
                if c < 0x80 { i += 1; continue }
                let length: Int
                var low: UInt8 = 0x80, high: UInt8 = 0xBF
                switch c {
                case 0xC2...0xDF: length = 2
                case 0xE0: length = 3; low = 0xA0
                case 0xE1...0xEC, 0xEE, 0xEF: length = 3
                case 0xED: length = 3; high = 0x9F  // no surrogates
                case 0xF0: length = 4; low = 0x90
                case 0xF1...0xF3: length = 4
                case 0xF4: length = 4; high = 0x8F  // nothing past U+10FFFF
                default: return i
                }
                guard i + length <= n, b[i + 1] >= low, b[i + 1] <= high else { return i }
                var k = 2
                while k < length {
                    guard b[i + k] & 0xC0 == 0x80 else { return i }
                    k += 1
                }
                i += length
            }
            return nil
        }
    }

    /// windows-1252 to UTF-8. The five bytes the code page leaves unassigned (0x81, 0x8D, 0x8F,
    /// 0x90, 0x9D) become the C1 controls of the same number, as in WHATWG's windows-1252.
    static func windows1252ToUTF8(_ body: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(body.count + body.count / 8)
        for b in body {
            if b < 0x80 {
                out.append(b)
                continue
            }
            let scalar = b < 0xA0 ? Unicode.Scalar(c1[Int(b - 0x80)])! : Unicode.Scalar(b)
            out += Array(String(Character(scalar)).utf8)
        }
        return out
    }

    /// 0x80...0x9F in windows-1252.
    static let c1: [UInt32] = [
        0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F,
        0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
    ]

    /// 1-based line and byte column of `offset` in `body`.
    static func position(of offset: Int, in body: ArraySlice<UInt8>) -> (line: Int, column: Int) {
        var line = 1, lineStart = body.startIndex
        for i in body.startIndex..<(body.startIndex + offset) where body[i] == 0x0A {
            line += 1
            lineStart = i + 1
        }
        return (line, body.startIndex + offset - lineStart + 1)
    }

    private static func indexOf(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for i in 0...(haystack.count - needle.count) where haystack[i] == needle[0] && Array(haystack[i..<(i + needle.count)]) == needle {
            return i
        }
        return nil
    }
}
