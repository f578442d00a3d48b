import TributaryPluginKit
import TributaryCore

/// The iptv-org API (https://github.com/iptv-org/api): `channels.json`, an array of channel
/// objects, and `streams.json`, an array of streams that name their channel by id. Both the
/// current shape and the older one (channels with `logo` / `languages` / `subdivision` / `city`,
/// streams with `http_referrer`) are read.
enum IPTVOrgFormat {
    static func channels(in document: JSONValue) throws(JSONAccessError) -> [Channel] {
        var out: [Channel] = []
        for el in try JSONNode(document).array() {
            _ = try el.object()
            var c = Channel(id: try el[key: "id"].identifier(), name: try el[key: "name"].string())
            c.logo = try el[key: "logo"].trimmedString()
            if let country = try el[key: "country"].trimmedString() { c.countries = [country.uppercased()] }
            c.categories = try el[key: "categories"].trimmedStrings()
            c.tags = c.categories
            c.languages = try el[key: "languages"].trimmedStrings()
            var extra: [(String, JSONValue)] = []
            let altNames = try el[key: "alt_names"].trimmedStrings()
            if !altNames.isEmpty { extra.append(("alt_names", .array(altNames.map(JSONValue.string)))) }
            if let v = try el[key: "network"].trimmedString() { extra.append(("network", .string(v))) }
            let owners = try el[key: "owners"].trimmedStrings()
            if !owners.isEmpty { extra.append(("owners", .array(owners.map(JSONValue.string)))) }
            for key in ["subdivision", "city"] {
                if let v = try el[key: key].trimmedString() { extra.append((key, .string(v))) }
            }
            if let nsfw = try el[key: "is_nsfw"].optionalBool() { extra.append(("is_nsfw", .bool(nsfw))) }
            for key in ["launched", "closed", "replaced_by", "website"] {
                if let v = try el[key: key].trimmedString() { extra.append((key, .string(v))) }
            }
            c.extra = extra
            out.append(c)
        }
        return out
    }

    /// Streams by channel id, each channel's in document order. Streams whose `channel` is null
    /// (not mapped to a channel yet) are skipped.
    static func streams(in document: JSONValue) throws(JSONAccessError) -> [String: [ChannelStream]] {
        var byChannel: [String: [ChannelStream]] = [:]
        for el in try JSONNode(document).array() {
            _ = try el.object()
            let url = try el[key: "url"].string()
            guard let channel = try el[key: "channel"].trimmedString() else { continue }
            var referrer = try el[key: "referrer"].trimmedString()
            if referrer == nil { referrer = try el[key: "http_referrer"].trimmedString() }
            let stream = ChannelStream(url: url.trimmed, referrer: referrer,
                                       userAgent: try el[key: "user_agent"].trimmedString(),
                                       quality: try el[key: "quality"].trimmedString())
            byChannel[channel, default: []].append(stream)
        }
        return byChannel
    }
}
