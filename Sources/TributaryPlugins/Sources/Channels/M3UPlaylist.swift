import Foundation
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

    init(parsing text: String) {
        var pending: Entry?
        // A malformed #EXTINF also discards the URL that follows it, so that URL does not turn
        // into a nameless channel of its own.
        var skipNextURL = false
        var referrer: String?
        var userAgent: String?
        var extGroup: String?
        let body = text.hasPrefix("\u{FEFF}") ? Substring(text.dropFirst()) : Substring(text)
        // Split on Characters: "\r\n" is one Character, so a CRLF counts as one line break.
        for (offset, raw) in body.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let number = offset + 1
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty { continue }
            if line.hasPrefix("#") {
                let upper = line.uppercased()
                if upper.hasPrefix("#EXTINF:") {
                    if let p = pending {
                        problems.append(Problem(line: p.line, message: "#EXTINF has no stream URL before the next #EXTINF (line \(number))"))
                    }
                    pending = nil
                    switch Self.parseInfo(line.dropFirst("#EXTINF:".count)) {
                    case .success(let (attributes, title)):
                        pending = Entry(line: number, attributes: attributes, title: title)
                        skipNextURL = false
                    case .failure(let problem):
                        problems.append(Problem(line: number, message: problem.message))
                        skipNextURL = true
                    }
                } else if upper.hasPrefix("#EXTVLCOPT:") {
                    let option = line.dropFirst("#EXTVLCOPT:".count)
                    guard let eq = option.firstIndex(of: "=") else { continue }
                    let value = option[option.index(after: eq)...].trimmingCharacters(in: .whitespaces)
                    switch option[..<eq].trimmingCharacters(in: .whitespaces).lowercased() {
                    case "http-referrer", "http-referer": referrer = value.isEmpty ? nil : value
                    case "http-user-agent": userAgent = value.isEmpty ? nil : value
                    default: break
                    }
                } else if upper.hasPrefix("#EXTGRP:") {
                    let g = line.dropFirst("#EXTGRP:".count).trimmingCharacters(in: .whitespaces)
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
            let (url, headers) = Self.splitHeaders(line)
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
    static func parseInfo(_ text: Substring) -> Result<([String: String], String), InfoError> {
        let chars = Array(text)
        var i = 0
        while i < chars.count, !chars[i].isWhitespace, chars[i] != "," { i += 1 }
        let duration = String(chars[0..<i])
        guard Double(duration) != nil else {
            return .failure(InfoError(message: "#EXTINF duration \"\(duration)\" is not a number"))
        }
        var attributes: [String: String] = [:]
        while true {
            while i < chars.count, chars[i].isWhitespace { i += 1 }
            guard i < chars.count else { return .failure(InfoError(message: "#EXTINF has no comma before the channel name")) }
            if chars[i] == "," { break }
            let keyStart = i
            while i < chars.count, !chars[i].isWhitespace, chars[i] != "=", chars[i] != "," { i += 1 }
            let key = String(chars[keyStart..<i]).lowercased()
            guard i < chars.count, chars[i] == "=" else { continue }  // a bare word: nothing to keep
            i += 1
            let value: String
            if i < chars.count, chars[i] == "\"" {
                i += 1
                let valueStart = i
                while i < chars.count, chars[i] != "\"" { i += 1 }
                guard i < chars.count else { return .failure(InfoError(message: "#EXTINF attribute \(key) has an unterminated quote")) }
                value = String(chars[valueStart..<i])
                i += 1
            } else {
                let valueStart = i
                while i < chars.count, !chars[i].isWhitespace, chars[i] != "," { i += 1 }
                value = String(chars[valueStart..<i])
            }
            let trimmed = value.trimmingCharacters(in: .whitespaces)
            if !trimmed.isEmpty, attributes[key] == nil { attributes[key] = trimmed }
        }
        let title = String(chars[(i + 1)...]).trimmingCharacters(in: .whitespaces)
        return .success((attributes, title))
    }

    /// Splits `url|Referer=..&User-Agent=..` (Kodi's header suffix; values may be
    /// percent-encoded) into the bare URL and the headers a player must send.
    static func splitHeaders(_ line: String) -> (url: String, headers: (referrer: String?, userAgent: String?)) {
        guard let bar = line.firstIndex(of: "|") else { return (line, (nil, nil)) }
        let url = line[..<bar].trimmingCharacters(in: .whitespaces)
        var referrer: String?
        var userAgent: String?
        for pair in line[line.index(after: bar)...].split(separator: "&") {
            guard let eq = pair.firstIndex(of: "=") else { continue }
            let raw = String(pair[pair.index(after: eq)...]).trimmingCharacters(in: .whitespaces)
            let value = raw.removingPercentEncoding ?? raw
            guard !value.isEmpty else { continue }
            switch pair[..<eq].trimmingCharacters(in: .whitespaces).lowercased() {
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
            let url = JSONSource.resolve(e.url, against: base)
            // Without a name the title falls back to tvg-name, then to the tvg-id (the id), then
            // to the stream URL, which says more than a digest.
            let name = e.title.isEmpty ? e.attributes["tvg-name"] ?? (tvgID == nil ? url : "") : e.title
            var c = Channel(id: tvgID ?? Self.digestID(url), name: name)
            c.addStream(ChannelStream(url: url, referrer: e.referrer, userAgent: e.userAgent))
            c.logo = e.attributes["tvg-logo"].map { JSONSource.resolve($0, against: base) }
            c.group = e.attributes["group-title"] ?? e.group
            c.categories = (c.group ?? "").split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            c.tags = c.categories
            if let list = e.attributes["tvg-country"] {
                c.countries = list.split(whereSeparator: { $0 == ";" || $0 == "," }).map { $0.trimmingCharacters(in: .whitespaces).uppercased() }.filter { !$0.isEmpty }
            } else if let tvgID, let cc = Self.countryOfIPTVOrgID(tvgID) {
                c.countries = [cc]
            }
            if let list = e.attributes["tvg-language"] {
                c.languages = list.split(whereSeparator: { $0 == ";" || $0 == "," }).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
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
