import TributaryPluginKit
import TributaryCore

/// Recognises an HTML page where a feed was expected (a site's home page, a login or error
/// page) and finds the feeds it announces with `<link rel="alternate" type="application/rss+xml">`,
/// so the error can name the URL to use instead.
enum HTMLPage {
    /// `<!DOCTYPE html` or `<html` at the start (case-insensitive).
    static func looksLikeHTML(_ start: ArraySlice<UInt8>) -> Bool {
        let head = lowerASCII(start.prefix(20))
        return head.starts(with: Array("<!doctype html".utf8)) || head.starts(with: Array("<html".utf8))
    }

    /// `<html` somewhere in the first 2 KiB (after comments or a BOM-less preamble).
    static func mentionsHTML(_ body: [UInt8]) -> Bool {
        ByteSearch.contains(lowerASCII(body.prefix(2048))[...], Array("<html".utf8))
    }

    static let feedTypes: Set<String> = ["application/rss+xml", "application/atom+xml", "application/feed+json", "application/json", "application/rdf+xml"]

    /// Absolute URLs of the feeds the page's `<link rel="alternate">` tags announce, in order.
    static func feedLinks(_ body: [UInt8], base: String) -> [String] {
        let text = Array(body.prefix(256 * 1024))
        let lower = lowerASCII(text[...])
        let open = Array("<link".utf8)
        var out: [String] = []
        var i = 0
        while i + open.count < lower.count, out.count < 5 {
            guard lower[i] == open[0], Array(lower[i..<(i + open.count)]) == open else { i += 1; continue }
            let start = i + open.count
            var end = start
            while end < lower.count, lower[end] != UInt8(ascii: ">") { end += 1 }
            let attrs = attributes(text[start..<end])
            i = end
            let rel = Set((attrs["rel"] ?? "").lowercased().split(separator: " ").map(String.init))
            guard rel.contains("alternate"), let type = attrs["type"]?.lowercased(), feedTypes.contains(type), let href = attrs["href"],
                  let link = Links.absolute(HTMLText.decodeAttributeEntities(href), base: base) else { continue }
            if !out.contains(link) { out.append(link) }
        }
        return out
    }

    /// `name="value"`, `name='value'` and `name=value` pairs of one tag, names lower-cased.
    static func attributes(_ tag: ArraySlice<UInt8>) -> [String: String] {
        var result: [String: String] = [:]
        let b = Array(tag)
        var i = 0
        func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D || c == UInt8(ascii: "/") }
        while i < b.count {
            while i < b.count, isSpace(b[i]) { i += 1 }
            let nameStart = i
            while i < b.count, !isSpace(b[i]), b[i] != UInt8(ascii: "=") { i += 1 }
            let name = String(decoding: b[nameStart..<i], as: UTF8.self).lowercased()
            while i < b.count, b[i] == 0x20 { i += 1 }
            guard i < b.count, b[i] == UInt8(ascii: "=") else {
                if !name.isEmpty { result[name] = "" }
                continue
            }
            i += 1
            while i < b.count, b[i] == 0x20 { i += 1 }
            var value: ArraySlice<UInt8> = []
            if i < b.count, b[i] == UInt8(ascii: "\"") || b[i] == UInt8(ascii: "'") {
                let quote = b[i]
                let valueStart = i + 1
                i = valueStart
                while i < b.count, b[i] != quote { i += 1 }
                value = b[valueStart..<i]
                i += 1
            } else {
                let valueStart = i
                while i < b.count, !isSpace(b[i]) { i += 1 }
                value = b[valueStart..<i]
            }
            if !name.isEmpty, result[name] == nil { result[name] = String(decoding: value, as: UTF8.self) }
        }
        return result
    }

    static func lowerASCII(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }
    }
}
