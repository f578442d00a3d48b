import TributaryPluginKit
import FoundationEssentials
import Glibc
import Dispatch
import TributaryCore

/// The `channels` source: a TV / IPTV channel list as `channel` items (Docs/sources/channels.md).
/// Three formats, named by `format` or told apart by their content: the `{"channel":[...]}`
/// list of the original TV app, iptv-org `channels.json` (joined with `streams.json` when
/// `streams_url` is set) and M3U / M3U8 playlists.
public struct ChannelsSource: FeedSource {
    public static let descriptor = SourceDescriptor(type: "channels", summary: "TV / IPTV channel lists: the {\"channel\":[...]} list, iptv-org channels.json (+ streams.json), M3U playlists", options: options) { settings, reader in
        ChannelsSource(settings: settings, reader: reader)
    }

    static let url = Option.url("url", "the channel list (the whole URL; http, https, or file: for a local file)").required
    static let format = Option.choice("format", FormatChoice.self, "list: {\"channel\":[...]}; iptv-org: channels.json; m3u: #EXTM3U playlist; auto: told apart by the content").defaulted(.auto)
    static let streamsURL = Option.url("streams_url", "iptv-org streams.json, joined to the channels by channel id (iptv-org format only)")
    static let skipLocked = Option.bool("skip_locked", "drop channels with \"isLocked\": true (list format only)").defaulted(false)
    static let countries = Option.stringList("countries", "keep only channels of these countries (ISO 3166-1 alpha-2 codes, any case); channels of unknown country are dropped")
    static let categories = Option.stringList("categories", "keep only channels in at least one of these categories (any case; list format: tag1/tag2 with or without the #; m3u: group-title)")
    static let sort = Option.choice("sort", Sort.self, "priority: highest first (list format); name: by title; source: document order").documented(default: "priority for the list format, else source")
    public static let options: [any OptionDeclaration] = [url, format, streamsURL, skipLocked, countries, categories, sort]

    enum FormatChoice: String, CaseIterable, Sendable {
        case auto, list
        case iptvOrg = "iptv-org"
        case m3u
    }

    enum Format: String {
        case list
        case iptvOrg = "iptv-org"
        case m3u
    }

    enum Sort: String, CaseIterable, Sendable { case source, priority, name }

    let url: String
    /// nil: detect from the content.
    let format: Format?
    let streamsURL: String?
    let skipLocked: Bool
    /// Upper-case codes; nil keeps every country.
    let countries: Set<String>?
    /// `categoryKey`s; nil keeps every category.
    let categories: Set<String>?
    /// nil: the format's default.
    let sort: Sort?

    init(settings: SourceSettings, reader: OptionReader) {
        url = reader[Self.url]
        format = Format(rawValue: reader[Self.format].rawValue)
        streamsURL = reader[Self.streamsURL]
        skipLocked = reader[Self.skipLocked]
        sort = reader[Self.sort]
        if let format, format != .iptvOrg, streamsURL != nil {
            reader.error(Self.streamsURL, "applies to format \"iptv-org\" only, and format is \"\(format.rawValue)\"")
        }
        if let format, format != .list {
            if skipLocked { reader.error(Self.skipLocked, "applies to format \"list\" only (only it has isLocked), and format is \"\(format.rawValue)\"") }
            if sort == .priority { reader.error(Self.sort, "\"priority\" needs format \"list\" (only it has priority), and format is \"\(format.rawValue)\"") }
        }
        if let list = reader[Self.countries] {
            if list.isEmpty { reader.error(Self.countries, "an empty list keeps nothing; leave it out to keep every country") }
            for (i, code) in list.enumerated() where !(code.count == 2 && code.allSatisfy { $0.isASCII && $0.isLetter }) {
                reader.error("countries[\(i)]", "expected a two-letter ISO 3166-1 code such as \"RU\", found \"\(code)\"")
            }
            countries = Set(list.map { $0.uppercased() })
        } else {
            countries = nil
        }
        if let list = reader[Self.categories] {
            if list.isEmpty { reader.error(Self.categories, "an empty list keeps nothing; leave it out to keep every category") }
            for (i, name) in list.enumerated() where Self.categoryKey(name).isEmpty {
                reader.error("categories[\(i)]", "expected a category name, found \"\(name)\"")
            }
            categories = Set(list.map(Self.categoryKey))
        } else {
            categories = nil
        }
    }

    /// How categories compare: trimmed, without a leading `#`, lower-cased.
    static func categoryKey(_ name: String) -> String {
        var s = Substring(name.trimmed)
        while s.first == "#" { s = s.dropFirst() }
        return s.lowercased()
    }

    /// One document (or playlist, with an optional streams.json), delivered as one batch; with
    /// malformed playlist lines the good channels are delivered and the source then fails.
    public func fetch(_ context: FetchContext) async throws(SourceError) {
        let place = "GET \(Redactor.redactURL(url))"
        let response = try await context.get(url, allowFile: url.hasPrefix("file:"))
        let body = Self.withoutBOM(response.body)
        var channels: [Channel]
        var problems: [M3UPlaylist.Problem] = []
        let read: Format
        if format == .m3u || (format == nil && M3UPlaylist.looksLikePlaylist(body)) {
            read = .m3u
            let playlist = M3UPlaylist(parsing: body)
            channels = playlist.channels(base: response.url)
            problems = playlist.problems
        } else {
            // Text that cannot start a JSON value (nor an HTML page, which parseJSON names) gets
            // a better message than a JSON syntax error at 1:1.
            if format == nil, let first = body.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }), !Array("{[\"-0123456789tfn<".utf8).contains(first) {
                throw SourceError("\(place): expected JSON or an #EXTM3U playlist, found text starting \"\(Self.snippet(body))\"")
            }
            let document = try Self.parseJSON(response, context)
            if let format { read = format } else { read = try Self.detect(document, place: place) }
            if read == .list {
                channels = try Self.mapped(place) { () throws(JSONAccessError) in try ChannelListFormat.channels(in: document) }
            } else {
                channels = try Self.mapped(place) { () throws(JSONAccessError) in try IPTVOrgFormat.channels(in: document) }
            }
        }
        if let streamsURL {
            if read == .iptvOrg {
                try await joinStreams(streamsURL, into: &channels, context)
            } else {
                context.warn("streams_url ignored: \(place) is a \(read.rawValue) document, not iptv-org channels.json")
            }
        }
        let items = select(Channel.mergingDuplicates(channels), format: read).map { item($0, context) }
        if !problems.isEmpty {
            let shown = problems.prefix(5).map(\.description).joined(separator: "; ")
            let more = problems.count > 5 ? "; and \(problems.count - 5) more" : ""
            let what = problems.count == 1 ? "malformed playlist line" : "\(problems.count) malformed playlist lines"
            try await context.emit(items)
            throw SourceError("\(place): \(what): \(shown)\(more)")
        }
        try await context.emit(items)
    }

    /// Adds each channel's streams from iptv-org `streams.json` (a second request).
    private func joinStreams(_ streamsURL: String, into channels: inout [Channel], _ context: FetchContext) async throws(SourceError) {
        let response = try await context.get(streamsURL, allowFile: streamsURL.hasPrefix("file:"))
        let document = try Self.parseJSON(response, context)
        let streams = try Self.mapped("GET \(Redactor.redactURL(streamsURL))") { () throws(JSONAccessError) in try IPTVOrgFormat.streams(in: document) }
        for i in channels.indices {
            for s in streams[channels[i].id] ?? [] { channels[i].addStream(s) }
        }
    }

    /// Tells the JSON formats apart: an object with a `channel` key is the list; an array of
    /// objects with `id` and `name` (or an empty array) is iptv-org.
    static func detect(_ document: JSONValue, place: String) throws(SourceError) -> Format {
        let found: String
        switch document {
        case .object(let o):
            if o["channel"] != nil { return .list }
            found = o.isEmpty ? "an empty object" : "an object with keys " + o.keys.prefix(6).map { "\"\($0)\"" }.joined(separator: ", ")
        case .array(let a):
            guard let first = a.first else { return .iptvOrg }
            if let o = first.objectValue, o["id"] != nil, o["name"] != nil { return .iptvOrg }
            found = "an array whose first element is " + (first.objectValue.map { "an object with keys " + $0.keys.prefix(6).map { "\"\($0)\"" }.joined(separator: ", ") } ?? "a \(first.typeName)")
        default:
            found = "a \(document.typeName)"
        }
        throw SourceError("\(place): cannot tell the channel list format: expected an object with a \"channel\" array, an iptv-org array of channels with \"id\" and \"name\", or an #EXTM3U playlist; found \(found) (set \"format\" to say which it is)")
    }

    static func mapped<T>(_ place: String, _ body: () throws(JSONAccessError) -> T) throws(SourceError) -> T {
        do { return try body() } catch { throw SourceError("\(place): \(error)") }
    }

    static func withoutBOM(_ body: [UInt8]) -> [UInt8] {
        body.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(body.dropFirst(3)) : body
    }

    /// `context.parseJSON` after dropping a leading UTF-8 BOM, which RFC 8259 lets a parser ignore.
    static func parseJSON(_ response: HTTPResponse, _ context: FetchContext) throws(SourceError) -> JSONValue {
        guard response.body.starts(with: [0xEF, 0xBB, 0xBF]) else { return try context.parseJSON(response) }
        var stripped = response
        stripped.body = withoutBOM(response.body)
        return try context.parseJSON(stripped)
    }

    static func snippet(_ body: [UInt8]) -> String {
        let text = String(decoding: body.prefix(80), as: UTF8.self)
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        let trimmed = line.trimmed
        return trimmed.count > 40 ? String(trimmed.prefix(40)) + "..." : trimmed
    }

    /// Applies `skip_locked`, `countries` and `categories`, then the sort (stable: ties keep
    /// document order).
    func select(_ channels: [Channel], format: Format) -> [Channel] {
        var list = channels
        if skipLocked { list.removeAll { $0.locked == true } }
        if let countries { list.removeAll { !$0.countries.contains(where: countries.contains) } }
        if let categories { list.removeAll { !$0.categories.contains { categories.contains(Self.categoryKey($0)) } } }
        switch sort ?? (format == .list ? .priority : .source) {
        case .source:
            return list
        case .priority:
            // Highest first, as the app listed them; channels without a priority go last.
            return Self.stableSorted(list) { ($0.priority ?? .min) > ($1.priority ?? .min) }
        case .name:
            return Self.stableSorted(list) { NameOrder.precedes($0.title, $1.title) }
        }
    }

    static func stableSorted(_ list: [Channel], by before: (Channel, Channel) -> Bool) -> [Channel] {
        list.enumerated().sorted { a, b in
            if before(a.element, b.element) { return true }
            if before(b.element, a.element) { return false }
            return a.offset < b.offset
        }.map(\.element)
    }

    func item(_ c: Channel, _ context: FetchContext) -> Item {
        var item = context.item(id: "channel:\(c.id)", kind: "channel", title: c.title)
        let playable = c.streams.first { Links.httpOnly($0.url) != nil }
        item.url = playable?.url
        item.image = c.logo.flatMap(Links.httpOnly)
        item.tags = c.tags
        var data = JSONObject()
        if !c.streams.isEmpty { data["stream_urls"] = .array(c.streams.map { .string($0.url) }) }
        // The headers of the stream in `url` (else of the first stream).
        let main = playable ?? c.streams.first
        if let v = main?.referrer { data["referrer"] = .string(v) }
        if let v = main?.userAgent { data["user_agent"] = .string(v) }
        if let v = main?.quality { data["quality"] = .string(v) }
        if let v = c.locked { data["locked"] = .bool(v) }
        if let v = c.priority { data["priority"] = .number(JSONNumber(v)) }
        if let v = c.countries.first { data["country"] = .string(v) }
        if !c.categories.isEmpty { data["categories"] = .array(c.categories.map(JSONValue.string)) }
        if !c.languages.isEmpty { data["languages"] = .array(c.languages.map(JSONValue.string)) }
        if let v = c.group { data["group"] = .string(v) }
        for (key, value) in c.extra { data[key] = value }
        item.data = data
        return item
    }
}
