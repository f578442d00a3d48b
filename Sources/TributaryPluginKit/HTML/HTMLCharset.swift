/// Which character encoding a web page's bytes are in, decided before libxml2 reads them, in
/// the order browsers use (WHATWG "determining the character encoding"): a byte-order mark,
/// the HTTP `Content-Type` charset, a `<meta charset>` or `<meta http-equiv="Content-Type">` in
/// the first 1,024 bytes, then detection: valid UTF-8 is UTF-8, bytes that read as Shift_JIS or
/// EUC-JP double-byte text are those, anything else is windows-1252 (what pages that declare
/// nothing are written in, in practice).
///
/// Labels are mapped as browsers map them: `iso-8859-1`, `latin1` and `us-ascii` are
/// windows-1252 (the bytes 0x80-0x9F are its quotes and dashes, never C1 controls), `sjis`,
/// `x-sjis`, `ms932` and `windows-31j` are Shift_JIS (libxml2's name for it).
public enum HTMLCharset {
    /// Where the encoding came from (logged by `tributary test`).
    public enum Origin: String, Sendable {
        case byteOrderMark = "byte order mark", header = "HTTP header", meta = "meta tag", detected = "detected"
    }

    /// The encoding's name as libxml2 (iconv/ICU) takes it, and where it came from.
    public static func decide(_ body: ArraySlice<UInt8>, contentType: String?) -> (name: String, origin: Origin) {
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { return ("UTF-8", .byteOrderMark) }
        if body.starts(with: [0xFF, 0xFE]) { return ("UTF-16LE", .byteOrderMark) }
        if body.starts(with: [0xFE, 0xFF]) { return ("UTF-16BE", .byteOrderMark) }
        if let ct = contentType, let label = parameter("charset", in: Array(ct.utf8)), let name = normalized(label) {
            return (name, .header)
        }
        if let label = metaCharset(body.prefix(1024)), let name = normalized(label) {
            // A page served as bytes but declaring UTF-16 in its meta is ASCII-compatible: UTF-8.
            return (name.hasPrefix("UTF-16") ? "UTF-8" : name, .meta)
        }
        return (detect(body), .detected)
    }

    /// A label as browsers read it, mapped to libxml2's name; nil when unknown (then the next
    /// clue decides).
    public static func normalized(_ label: String) -> String? {
        let l = label.trimmingWhitespaceAndNewlines.lowercased()
        switch l {
        case "utf-8", "utf8", "unicode-1-1-utf-8": return "UTF-8"
        case "iso-8859-1", "iso8859-1", "latin1", "l1", "us-ascii", "ascii", "windows-1252", "cp1252", "x-cp1252", "iso_8859-1", "cp819", "ibm819":
            return "windows-1252"
        case "shift_jis", "shift-jis", "sjis", "x-sjis", "ms932", "ms_kanji", "windows-31j", "csshiftjis": return "SHIFT_JIS"
        case "euc-jp", "x-euc-jp", "eucjp": return "EUC-JP"
        case "iso-2022-jp": return "ISO-2022-JP"
        case "gbk", "gb2312", "x-gbk", "gb18030", "cp936": return "GB18030"
        case "big5", "big5-hkscs", "x-x-big5": return "BIG5"
        case "euc-kr", "ks_c_5601-1987", "windows-949", "cp949": return "CP949"
        case "koi8-r", "koi8-u", "windows-1250", "windows-1251", "windows-1253", "windows-1254", "windows-1255", "windows-1256", "windows-1257", "windows-1258",
             "iso-8859-2", "iso-8859-3", "iso-8859-4", "iso-8859-5", "iso-8859-6", "iso-8859-7", "iso-8859-8", "iso-8859-9", "iso-8859-10",
             "iso-8859-13", "iso-8859-14", "iso-8859-15", "iso-8859-16", "utf-16le", "utf-16be", "utf-16":
            return l.uppercased()
        default: return nil
        }
    }

    /// Valid UTF-8 (or plain ASCII) is UTF-8; text whose high bytes pair up as Shift_JIS or
    /// EUC-JP characters (and not as anything else) is that; the rest is windows-1252.
    static func detect(_ body: ArraySlice<UInt8>) -> String {
        let sample = body.prefix(64 * 1024)
        if isUTF8(sample) { return "UTF-8" }
        let sjis = pairScore(sample, lead: { ($0 >= 0x81 && $0 <= 0x9F) || ($0 >= 0xE0 && $0 <= 0xFC) }, trail: { $0 >= 0x40 && $0 <= 0xFC && $0 != 0x7F }, single: { $0 >= 0xA1 && $0 <= 0xDF })
        let euc = pairScore(sample, lead: { $0 >= 0xA1 && $0 <= 0xFE }, trail: { $0 >= 0xA1 && $0 <= 0xFE }, single: { _ in false })
        // Japanese text is mostly double-byte characters; Western text in windows-1252 has
        // isolated high bytes between ASCII letters, which pair up far less often.
        if euc.pairs >= 8 && euc.bad == 0 && euc.pairs >= sjis.pairs { return "EUC-JP" }
        if sjis.pairs >= 8 && sjis.bad * 20 <= sjis.pairs { return "SHIFT_JIS" }
        return "windows-1252"
    }

    private static func pairScore(_ b: ArraySlice<UInt8>, lead: (UInt8) -> Bool, trail: (UInt8) -> Bool, single: (UInt8) -> Bool) -> (pairs: Int, bad: Int) {
        var pairs = 0, bad = 0
        var i = b.startIndex
        while i < b.endIndex {
            let c = b[i]
            if c < 0x80 { i += 1; continue }
            if lead(c), i + 1 < b.endIndex, trail(b[i + 1]) { pairs += 1; i += 2; continue }
            if single(c) { i += 1; continue }
            bad += 1
            i += 1
        }
        return (pairs, bad)
    }

    /// Valid UTF-8 (the standard library's validation), a sequence cut by the end of the
    /// sample aside.
    static func isUTF8(_ b: ArraySlice<UInt8>) -> Bool {
        for cut in 0...min(3, b.count) where String(validating: b.dropLast(cut), as: UTF8.self) != nil { return true }
        return false
    }

    /// The charset a `<meta>` tag declares in `head`: `<meta charset="...">`, or
    /// `<meta http-equiv="Content-Type" content="text/html; charset=...">` (any attribute order,
    /// any case, quoted or not).
    static func metaCharset(_ head: ArraySlice<UInt8>) -> String? {
        let b = Array(head)
        let lower = b.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        var i = 0
        let meta = Array("<meta".utf8)
        while i + meta.count < lower.count {
            guard lower[i] == UInt8(ascii: "<"), Array(lower[i..<i + meta.count]) == meta else { i += 1; continue }
            var end = i + meta.count
            while end < lower.count && lower[end] != UInt8(ascii: ">") { end += 1 }
            let tag = Array(lower[i..<end])
            if let v = attribute("charset", in: tag) { return v }
            if let content = attribute("content", in: tag), let v = parameter("charset", in: Array(content.utf8)) { return v }
            i = end
        }
        return nil
    }

    /// `name=value` inside an already lower-cased tag (a real attribute: preceded by a space).
    private static func attribute(_ name: String, in tag: [UInt8]) -> String? {
        let key = Array(name.utf8)
        var i = 0
        while i + key.count < tag.count {
            defer { i += 1 }
            guard [0x20, 0x09, 0x0A, 0x0D, 0x2F].contains(tag[i]), Array(tag[i + 1..<i + 1 + key.count]) == key else { continue }
            var j = i + 1 + key.count
            while j < tag.count && tag[j] == 0x20 { j += 1 }
            guard j < tag.count, tag[j] == UInt8(ascii: "=") else { continue }
            j += 1
            while j < tag.count && tag[j] == 0x20 { j += 1 }
            return value(tag, from: j)
        }
        return nil
    }

    /// `charset=value` in a content type (`text/html; charset="utf-8"`).
    static func parameter(_ name: String, in s: [UInt8]) -> String? {
        let lower = s.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        let key = Array((name + "=").utf8)
        guard lower.count >= key.count else { return nil }
        for i in 0...(lower.count - key.count) where Array(lower[i..<i + key.count]) == key {
            if i > 0, ![0x20, 0x3B, 0x09].contains(lower[i - 1]) { continue }
            let v = value(lower, from: i + key.count)
            return v.isEmpty ? nil : v
        }
        return nil
    }

    private static func value(_ b: [UInt8], from start: Int) -> String {
        var j = start
        guard j < b.count else { return "" }
        if b[j] == UInt8(ascii: "\"") || b[j] == UInt8(ascii: "'") {
            let q = b[j]
            j += 1
            let s = j
            while j < b.count && b[j] != q { j += 1 }
            return String(decoding: b[s..<j], as: UTF8.self)
        }
        let s = j
        while j < b.count && ![0x20, 0x3B, 0x3E, 0x2F, 0x22, 0x27, 0x09, 0x0A, 0x0D].contains(b[j]) { j += 1 }
        return String(decoding: b[s..<j], as: UTF8.self)
    }
}
