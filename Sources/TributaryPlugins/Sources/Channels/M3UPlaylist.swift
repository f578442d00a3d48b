import TributaryPluginKit
import FoundationEssentials
import Glibc
import Dispatch
import TributaryCore

/// An M3U / M3U8 channel playlist: `#EXTM3U`, then per channel an
/// `#EXTINF:-1 tvg-id=".." tvg-name=".." tvg-logo=".." group-title="..",Name` line, optional
/// `#EXTVLCOPT:http-referrer=..` / `http-user-agent=..` and `#EXTGRP:..` lines, and the stream
/// URL, which may carry Kodi-style headers after a `|` (`url|Referer=..&User-Agent=..`).
/// Parsing never stops at a bad line: malformed lines are collected as `problems` (with their
/// 1-based line numbers) and the entries around them are still read.
struct M3UPlaylist {
    struct Entry {
        /// Line of the `#EXTINF` (of the URL for an entry without one).
        var line: Int
        /// Attributes by lower-cased name; empty values are left out.
        var attributes: [String: String] = [:]
        var title = ""
        /// The stream URL without its `|` header suffix.
        var url = ""
        var referrer: String?
        var userAgent: String?
        /// `#EXTGRP:` group, used when there is no `group-title`.
        var group: String?
    }

    struct Problem: Equatable, CustomStringConvertible {
        let line: Int
        let message: String
        var description: String { "line \(line): \(message)" }
    }

    private(set) var entries: [Entry] = []
    private(set) var problems: [Problem] = []

    /// True when the bytes, after an optional UTF-8 BOM and whitespace, start with `#EXTM3U`.
    static func looksLikePlaylist(_ bytes: [UInt8]) -> Bool {
        var i = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 }
        return bytes[i...].starts(with: Array("#EXTM3U".utf8))
    }

    /// Reads UTF-8 bytes (invalid sequences become U+FFFD), an optional BOM first. It works on
    /// bytes because every delimiter is ASCII and 10,000-entry playlists are common.
    init(parsing bytes: [UInt8]) {
        var pending: Entry?
        // A malformed #EXTINF also discards the URL that follows it, so that URL does not turn
        // into a nameless channel of its own.
        var skipNextURL = false
        var referrer: String?
        var userAgent: String?
        var extGroup: String?
        var start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        var number = 0
        while start <= bytes.count {
            // A line ends at LF, CR LF or a lone CR.
            var end = start
            while end < bytes.count, bytes[end] != 0x0A, bytes[end] != 0x0D { end += 1 }
            number += 1
            let raw = bytes[start..<end]
            if end < bytes.count, bytes[end] == 0x0D, end + 1 < bytes.count, bytes[end + 1] == 0x0A { end += 1 }
            start = end + 1
            guard let first = raw.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }) else { continue }
            let last = raw.lastIndex(where: { $0 != 0x20 && $0 != 0x09 }) ?? first
            let lineBytes = raw[first...last]
            if lineBytes.first == UInt8(ascii: "#") {
                if Self.hasPrefix(lineBytes, "#EXTINF:") {
                    if let p = pending {
                        problems.append(Problem(line: p.line, message: "#EXTINF has no stream URL before the next #EXTINF (line \(number))"))
                    }
                    pending = nil
                    switch Self.parseInfo(lineBytes.dropFirst("#EXTINF:".utf8.count)) {
                    case .success(let (attributes, title)):
                        pending = Entry(line: number, attributes: attributes, title: title)
                        skipNextURL = false
                    case .failure(let problem):
                        problems.append(Problem(line: number, message: problem.message))
                        skipNextURL = true
                    }
                } else if Self.hasPrefix(lineBytes, "#EXTVLCOPT:") {
                    let option = String(decoding: lineBytes.dropFirst("#EXTVLCOPT:".utf8.count), as: UTF8.self)
                    guard let eq = option.firstIndex(of: "=") else { continue }
                    let value = option[option.index(after: eq)...].trimmed
                    switch option[..<eq].trimmed.lowercased() {
                    case "http-referrer", "http-referer": referrer = value.isEmpty ? nil : value
                    case "http-user-agent": userAgent = value.isEmpty ? nil : value
                    default: break
                    }
                } else if Self.hasPrefix(lineBytes, "#EXTGRP:") {
                    let g = String(decoding: lineBytes.dropFirst("#EXTGRP:".utf8.count), as: UTF8.self).trimmed
                    extGroup = g.isEmpty ? nil : g
                }
                // Any other `#` line (#EXTM3U, #KODIPROP, comments) carries nothing we use.
                continue
            }
            defer {
                pending = nil
                referrer = nil
                userAgent = nil
                extGroup = nil
            }
            if skipNextURL {
                skipNextURL = false
                continue
            }
            var entry = pending ?? Entry(line: number)
            let (url, headers) = Self.splitHeaders(String(decoding: lineBytes, as: UTF8.self))
            entry.url = url
            entry.referrer = headers.referrer ?? referrer ?? entry.attributes["http-referrer"] ?? entry.attributes["referrer"]
            entry.userAgent = headers.userAgent ?? userAgent ?? entry.attributes["http-user-agent"] ?? entry.attributes["user-agent"]
            entry.group = extGroup
            entries.append(entry)
        }
        if let p = pending {
            problems.append(Problem(line: p.line, message: "#EXTINF has no stream URL (the playlist ends)"))
        }
    }

    struct InfoError: Error {
        let message: String
    }

    /// Parses what follows `#EXTINF:`: a duration, `name="value"` (or unquoted `name=value`)
    /// attributes, then the channel name after the first comma outside quotes.
    static func parseInfo(_ bytes: ArraySlice<UInt8>) -> Result<([String: String], String), InfoError> {
        let space = { (b: UInt8) in b == 0x20 || b == 0x09 }
        let comma = UInt8(ascii: ","), equals = UInt8(ascii: "="), quote = UInt8(ascii: "\"")
        func text(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self).trimmed }
        var i = bytes.startIndex
        while i < bytes.endIndex, !space(bytes[i]), bytes[i] != comma { i += 1 }
        let duration = text(bytes.startIndex..<i)
        guard Double(duration) != nil else {
            return .failure(InfoError(message: "#EXTINF duration \"\(duration)\" is not a number"))
        }
        var attributes: [String: String] = [:]
        while true {
            while i < bytes.endIndex, space(bytes[i]) { i += 1 }
            guard i < bytes.endIndex else { return .failure(InfoError(message: "#EXTINF has no comma before the channel name")) }
            if bytes[i] == comma { break }
            let keyStart = i
            while i < bytes.endIndex, !space(bytes[i]), bytes[i] != equals, bytes[i] != comma { i += 1 }
            let key = text(keyStart..<i).lowercased()
            guard i < bytes.endIndex, bytes[i] == equals else { continue }  // a bare word: nothing to keep
            i += 1
            let value: String
            if i < bytes.endIndex, bytes[i] == quote {
                i += 1
                let valueStart = i
                while i < bytes.endIndex, bytes[i] != quote { i += 1 }
                guard i < bytes.endIndex else { return .failure(InfoError(message: "#EXTINF attribute \(key) has an unterminated quote")) }
                value = text(valueStart..<i)
                i += 1
            } else {
                let valueStart = i
                while i < bytes.endIndex, !space(bytes[i]), bytes[i] != comma { i += 1 }
                value = text(valueStart..<i)
            }
            if !value.isEmpty, attributes[key] == nil { attributes[key] = value }
        }
        return .success((attributes, text((i + 1)..<bytes.endIndex)))
    }

    /// An ASCII prefix, compared case-insensitively (`#extinf:` is seen in the wild).
    static func hasPrefix(_ bytes: ArraySlice<UInt8>, _ prefix: StaticString) -> Bool {
        guard bytes.count >= prefix.utf8CodeUnitCount else { return false }
        let p = UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
        return zip(bytes, p).allSatisfy { a, b in a == b || (b >= 0x41 && b <= 0x5A && a == b + 0x20) }
    }

    /// Splits `url|Referer=..&User-Agent=..` (Kodi's header suffix; values may be
    /// percent-encoded) into the bare URL and the headers a player must send.
    static func splitHeaders(_ line: String) -> (url: String, headers: (referrer: String?, userAgent: String?)) {
        guard let bar = line.firstIndex(of: "|") else { return (line, (nil, nil)) }
        let url = line[..<bar].trimmed
        var referrer: String?
        var userAgent: String?
        for pair in line[line.index(after: bar)...].split(separator: "&") {
            guard let eq = pair.firstIndex(of: "=") else { continue }
            let raw = String(pair[pair.index(after: eq)...]).trimmed
            let value = raw.percentDecoded ?? raw
            guard !value.isEmpty else { continue }
            switch pair[..<eq].trimmed.lowercased() {
            case "referer", "referrer": referrer = value
            case "user-agent": userAgent = value
            default: break
            }
        }
        return (url, (referrer, userAgent))
    }

    /// The entries as channels. `base` (the playlist's URL) resolves relative stream and logo
    /// URLs. Countries come from `tvg-country`, else from an iptv-org style `tvg-id`
    /// (`Name.cc` or `Name.cc@Feed`).
    func channels(base: String) -> [Channel] {
        entries.map { e in
            let tvgID = e.attributes["tvg-id"]
            let url = Links.resolve(e.url, against: base)
            // Without a name the title falls back to tvg-name, then to the tvg-id (the id), then
            // to the stream URL, which says more than a digest.
            let name = e.title.isEmpty ? e.attributes["tvg-name"] ?? (tvgID == nil ? url : "") : e.title
            var c = Channel(id: tvgID ?? Self.digestID(url), name: name)
            c.addStream(ChannelStream(url: url, referrer: e.referrer, userAgent: e.userAgent))
            c.logo = e.attributes["tvg-logo"].map { Links.resolve($0, against: base) }
            c.group = e.attributes["group-title"] ?? e.group
            c.categories = (c.group ?? "").split(separator: ";").map { $0.trimmed }.filter { !$0.isEmpty }
            c.tags = c.categories
            if let list = e.attributes["tvg-country"] {
                c.countries = list.split(whereSeparator: { $0 == ";" || $0 == "," }).map { $0.trimmed.uppercased() }.filter { !$0.isEmpty }
            } else if let tvgID, let cc = Self.countryOfIPTVOrgID(tvgID) {
                c.countries = [cc]
            }
            if let list = e.attributes["tvg-language"] {
                c.languages = list.split(whereSeparator: { $0 == ";" || $0 == "," }).map { $0.trimmed }.filter { !$0.isEmpty }
            }
            return c
        }
    }

    /// `m3u-` and the first 16 hex digits of the SHA-1 of the stream URL: stable while the URL is.
    static func digestID(_ url: String) -> String {
        "m3u-" + String(Digest.hex(Digest.sha1(Array(url.utf8))).prefix(16))
    }

    /// `BBCNews.uk@HD` -> `UK`: iptv-org ids end in a dot and a two-letter country code.
    static func countryOfIPTVOrgID(_ id: String) -> String? {
        let channel = id.split(separator: "@", maxSplits: 1).first ?? ""
        guard let dot = channel.lastIndex(of: "."), dot != channel.startIndex else { return nil }
        let code = channel[channel.index(after: dot)...]
        guard code.count == 2, code.allSatisfy({ $0.isASCII && $0.isLetter }) else { return nil }
        return code.uppercased()
    }
}
