/// Takes the content of `<script>` and `<style>` elements out of a page's bytes before the
/// article extractor's parse: on real pages they are often most of the bytes (80% of the
/// article corpus), libxml2 reads them a character at a time, and nothing of them is ever
/// part of an article. Each element keeps its tags and a single space for its content, so the
/// tree has the same shape. Comments are copied as they are (a `<script>` inside one starts
/// nothing). Only for encodings where `<` is always the one byte 0x3C, never part of a longer
/// character: UTF-8, windows-1252 and the other single-byte ones, Shift_JIS, EUC-JP, GB18030,
/// Big5 (not UTF-16).
#if canImport(Glibc)
import Glibc
#endif

enum HTMLRawText {
    static func strip(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBufferPointer { strip($0) } ?? bytes
    }

    /// nil when there is nothing to take out.
    private static func strip(_ b: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard let base = b.baseAddress else { return nil }
        var out: [UInt8] = []
        var i = 0
        let n = b.count
        var copiedTo = 0
        @inline(__always) func lower(_ c: UInt8) -> UInt8 { c >= 0x41 && c <= 0x5A ? c | 0x20 : c }
        func matches(_ at: Int, _ word: StaticString) -> Bool {
            let len = word.utf8CodeUnitCount
            guard at + len <= n else { return false }
            return word.withUTF8Buffer { w in
                for k in 0..<len where lower(b[at + k]) != w[k] { return false }
                return true
            }
        }
        /// The `>` ending the tag that starts at `at`, past quoted attribute values.
        func tagEnd(_ at: Int) -> Int? {
            var k = at + 1
            var quote: UInt8 = 0
            while k < n {
                let c = b[k]
                if quote != 0 {
                    if c == quote { quote = 0 }
                } else if c == 0x22 || c == 0x27 {
                    // A quote opens a value only after `=` (an attribute), not in a bare name.
                    var p = k - 1
                    while p > at && (b[p] == 0x20 || b[p] == 0x09 || b[p] == 0x0A || b[p] == 0x0D) { p -= 1 }
                    if b[p] == 0x3D { quote = c }
                } else if c == 0x3E {
                    return k
                }
                k += 1
            }
            return nil
        }
        func isEnd(_ at: Int) -> Bool { at >= n || b[at] == 0x3E || b[at] == 0x2F || b[at] == 0x20 || b[at] == 0x09 || b[at] == 0x0A || b[at] == 0x0D || b[at] == 0x0C }
        /// The next `<` at or after `from` (memchr).
        func nextLT(_ from: Int) -> Int? {
            guard from < n, let p = memchr(base + from, 0x3C, n - from) else { return nil }
            return base.distance(to: p.assumingMemoryBound(to: UInt8.self))
        }
        while i < n {
            guard let lt = nextLT(i) else { break }
            i = lt
            if matches(i, "<!--") {
                // A comment: to its end, as it is.
                var j = i + 4
                while j + 2 < n && !(b[j] == 0x2D && b[j + 1] == 0x2D && b[j + 2] == 0x3E) { j += 1 }
                i = min(n, j + 3)
                continue
            }
            let name: StaticString
            if matches(i, "<script") && isEnd(i + 7) {
                name = "</script"
            } else if matches(i, "<style") && isEnd(i + 6) {
                name = "</style"
            } else {
                // Another start tag: past its attributes (a `<script>` in a value starts nothing).
                if i + 1 < n, (b[i + 1] | 0x20) >= 0x61 && (b[i + 1] | 0x20) <= 0x7A, let end = tagEnd(i) { i = end + 1 } else { i += 1 }
                continue
            }
            guard let gt = tagEnd(i) else { break }
            let contentStart = gt + 1
            if gt > i && b[gt - 1] == 0x2F { i = contentStart; continue }  // <script ... />: HTML ignores the slash, but nothing to take then
            var j = contentStart
            var close = n
            while j < n {
                guard let next = nextLT(j) else { break }
                if matches(next, name) && isEnd(next + name.utf8CodeUnitCount) { close = next; break }
                j = next + 1
            }
            if close > contentStart + 1 {
                out.reserveCapacity(n / 2)
                out += b[copiedTo..<contentStart]
                out.append(0x20)
                copiedTo = close
            }
            i = close
        }
        if copiedTo == 0 { return nil }
        out += b[copiedTo...]
        return out
    }

    /// Whether `strip` keeps the page's characters intact in this encoding.
    static func applies(to charset: String) -> Bool { !charset.hasPrefix("UTF-16") && charset != "ISO-2022-JP" }
}
