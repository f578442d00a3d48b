import TributaryPluginKit
import TributaryCore

/// One TV / IPTV channel as read from any of the `channels` formats, before it becomes an item.
/// The format readers fill what their format knows; `ChannelsSource` filters, sorts and maps.
struct Channel {
    /// The native id: the list's `key`, the iptv-org `id`, the M3U `tvg-id`, or a digest of the
    /// stream URL for an M3U entry without one.
    var id: String
    /// The name as written (may be empty; `title` falls back to the id).
    var name: String
    var streams: [ChannelStream] = []
    var logo: String?
    var tags: [String] = []
    var locked: Bool?
    var priority: Int64?
    /// ISO 3166-1 alpha-2 codes, upper-case, the main one first.
    var countries: [String] = []
    var categories: [String] = []
    var languages: [String] = []
    /// The M3U `group-title` (or `#EXTGRP`), as written.
    var group: String?
    /// Further format-specific `data` fields (snake_case), in output order.
    var extra: [(String, JSONValue)] = []

    init(id: String, name: String) {
        self.id = id
        self.name = name
    }

    /// The name on one line with runs of whitespace (newlines included) collapsed; the id when
    /// the name is empty, so a title is never empty.
    var title: String {
        let collapsed = name.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return collapsed.isEmpty ? id : collapsed
    }

    /// Adds a stream unless its URL is empty or already there (the first one keeps its headers).
    mutating func addStream(_ stream: ChannelStream) {
        guard !stream.url.isEmpty, !streams.contains(where: { $0.url == stream.url }) else { return }
        streams.append(stream)
    }

    /// One channel per id, in first-seen order: a later entry with the same id (an M3U listing
    /// the same tvg-id twice, a list repeating a key) only adds its streams.
    static func mergingDuplicates(_ channels: [Channel]) -> [Channel] {
        var index: [String: Int] = [:]
        var out: [Channel] = []
        out.reserveCapacity(channels.count)
        for channel in channels {
            if let i = index[channel.id] {
                for s in channel.streams { out[i].addStream(s) }
            } else {
                index[channel.id] = out.count
                out.append(channel)
            }
        }
        return out
    }
}

/// One stream of a channel with the request headers a player needs for it.
struct ChannelStream: Equatable {
    var url: String
    var referrer: String?
    var userAgent: String?
    /// iptv-org `quality`, e.g. `720p`.
    var quality: String?

    init(url: String, referrer: String? = nil, userAgent: String? = nil, quality: String? = nil) {
        self.url = url
        self.referrer = referrer
        self.userAgent = userAgent
        self.quality = quality
    }
}

extension JSONNode {
    /// A non-empty identifier written as a string or a number (`"key": 77777`), trimmed.
    func identifier() throws(JSONAccessError) -> String {
        let text: String
        switch value {
        case .string(let s)?: text = s.trimmed
        case .number(let n)?: text = n.text
        default: throw JSONAccessError(path: path, expected: "string or number", found: value?.typeName)
        }
        guard !text.isEmpty else { throw JSONAccessError(path: path, expected: "a non-empty identifier", found: "empty string") }
        return text
    }

    /// A string with surrounding whitespace removed; nil when absent, null or blank.
    func trimmedString() throws(JSONAccessError) -> String? {
        guard let s = try optionalString()?.trimmed, !s.isEmpty else { return nil }
        return s
    }

    /// The non-blank strings of an optional array of strings, trimmed.
    func trimmedStrings() throws(JSONAccessError) -> [String] {
        try stringArray().map { $0.trimmed }.filter { !$0.isEmpty }
    }
}

extension StringProtocol {
    /// Without leading and trailing whitespace (newlines included). Most values have none, and
    /// then no new string is built: this runs for every field of every channel.
    var trimmed: String {
        guard let first = first, let last = last else { return "" }
        if !first.isWhitespace && !last.isWhitespace { return String(self) }
        guard let start = firstIndex(where: { !$0.isWhitespace }), let end = lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return String(self[start...end])
    }
}
