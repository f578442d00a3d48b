import TributaryCore

/// An item object a processor got back from a program (a jq program's output, an exec
/// processor's answer), read against the item rules (Docs/contract.md#items), for the
/// processors that hand items to code outside Tributary and take back what it made.
///
/// - `id` and `title` are required: non-empty strings, the id `<family>:<native id>`.
/// - `source`, `type`, `kind` and `fetched` are kept from the input item when the object does
///   not have them; the other fields come from the object only (dropping one drops it).
/// - Each field has its contract type: strings (`summary`, `content`, `content_html`, `author`,
///   ...); `url` and `image` absolute http(s) URLs;
///   `published` and `fetched` RFC 3339 times; `tags` a list of strings; `geo` `{"lat", "lon"}`
///   in range; `data` an object with snake_case names. An optional field that is `null` is
///   absent (as the item lines write it). Any other key is refused: own fields go in `data`.
///
/// An object that breaks a rule is refused with a message naming the field, what was expected
/// and what was found: `url: expected an absolute http(s) URL, found "/watch?v=1"`.
public enum ItemObject {
    /// The fields an item object may have, in the contract's order.
    public static let fields = ["id", "source", "type", "kind", "title", "summary", "content", "content_html", "url", "image", "author", "published", "fetched", "tags", "geo", "data"]

    /// Reads one compact JSON text (a program's output).
    public static func read(json: [UInt8], input: Item) throws(ItemObjectError) -> Item {
        let value: JSONValue
        do { value = try JSONParser.parse(json) } catch { throw ItemObjectError("not JSON: \(error)") }
        return try read(value, input: input)
    }

    /// Reads one parsed value, which must be an object.
    /// `times`: the input's `published` and `fetched` as `value(of:)` wrote them; an object
    /// that kept them is not parsed again.
    public static func read(_ value: JSONValue, input: Item, times: InputTimes? = nil) throws(ItemObjectError) -> Item {
        guard case .object(let object) = value else {
            throw ItemObjectError("expected an item object, found \(describe(value))")
        }
        var item = Item(id: "", source: input.source, type: input.type, kind: input.kind, title: "", fetched: input.fetched)
        var sawID = false, sawTitle = false
        for (key, v) in object.entries {
            // A duplicate key: the last one wins, as JSONObject's lookups do.
            switch key {
            case "id":
                guard case .string(let s) = v else { throw wrong(key, "a string", v) }
                guard hasFamily(s) else {
                    throw ItemObjectError("id: expected <family>:<native id> (the family [a-z0-9][a-z0-9._-]*, then \":\" and at least one character), found \(shown(s))")
                }
                item.id = s
                sawID = true
            case "title":
                guard case .string(let s) = v else { throw wrong(key, "a non-empty string", v) }
                guard !s.isEmpty else { throw ItemObjectError("title: expected a non-empty string, found \"\"") }
                item.title = s
                sawTitle = true
            // The input's own source, type and kind (what a program keeps) need no check.
            case "source":
                guard case .string(let s) = v, s == input.source || ConfigLoader.isValidName(s) else { throw wrong(key, "a source name ([a-z0-9][a-z0-9._-]*)", v) }
                item.source = s
            case "type":
                guard case .string(let s) = v, !s.isEmpty else { throw wrong(key, "a non-empty string", v) }
                item.type = s
            case "kind":
                guard case .string(let s) = v, s == input.kind || Names.isSnakeCase(s) else { throw wrong(key, "a kind ([a-z][a-z0-9_]*)", v) }
                item.kind = s
            case "summary":
                item.summary = try optionalString(key, v)
            case "content":
                item.content = try optionalString(key, v)
            case "content_html":
                item.contentHTML = try optionalString(key, v)
            case "author":
                item.author = try optionalString(key, v)
            case "url":
                item.url = try optionalURL(key, v)
            case "image":
                item.image = try optionalURL(key, v)
            case "published":
                if let times, case .string(let s) = v, s == times.published { item.published = input.published; continue }
                item.published = try optionalTime(key, v)
            case "fetched":
                if let times, case .string(let s) = v, s == times.fetched { item.fetched = input.fetched; continue }
                guard let t = try optionalTime(key, v) else { continue }
                item.fetched = t
            case "tags":
                switch v {
                case .null: item.tags = []
                case .array(let a):
                    var tags: [String] = []
                    tags.reserveCapacity(a.count)
                    for (i, t) in a.enumerated() {
                        guard case .string(let s) = t else { throw wrong("tags[\(i)]", "a string", t) }
                        tags.append(s)
                    }
                    item.tags = tags
                default: throw wrong(key, "a list of strings", v)
                }
            case "geo":
                if case .null = v { item.geo = nil; continue }
                guard case .object(let g) = v, let lat = g["lat"]?.numberValue?.double, let lon = g["lon"]?.numberValue?.double,
                      g.entries.allSatisfy({ $0.key == "lat" || $0.key == "lon" }) else {
                    throw wrong(key, "an object {\"lat\": number, \"lon\": number}", v)
                }
                let geo = Geo(lat: lat, lon: lon)
                guard geo.isValid else { throw ItemObjectError("geo: expected lat in [-90, 90] and lon in [-180, 180], found \(lat), \(lon)") }
                item.geo = geo
            case "data":
                switch v {
                case .null: item.data = JSONObject()
                case .object(let d):
                    if let bad = d.entries.first(where: { !Names.isSnakeCase($0.key) }) {
                        throw ItemObjectError("data.\(bad.key): data field names must be snake_case ([a-z][a-z0-9_]*)")
                    }
                    item.data = d
                default: throw wrong(key, "an object", v)
                }
            default:
                throw ItemObjectError("\(shown(key)) is not an item field (the fields: \(fields.joined(separator: ", ")); put others under data)")
            }
        }
        guard sawID else { throw ItemObjectError("id: missing (an item needs an id and a title)") }
        guard sawTitle else { throw ItemObjectError("title: missing (an item needs an id and a title)") }
        return item
    }

    /// An item's times as its JSON line writes them, taken from its value (`Item.jsonValue`), so
    /// that `read` need not parse again the ones a program kept.
    public struct InputTimes: Sendable {
        public let published: String?
        public let fetched: String?

        public init(_ value: JSONValue) {
            published = value.objectValue?["published"]?.stringValue
            fetched = value.objectValue?["fetched"]?.stringValue
        }
    }

    /// `youtube:video:x` has a family; `x`, `:x` or `x:` do not.
    static func hasFamily(_ id: String) -> Bool {
        guard let colon = id.firstIndex(of: ":"), colon != id.startIndex, id.index(after: colon) != id.endIndex else { return false }
        return ConfigLoader.isValidName(String(id[..<colon]))
    }

    private static func optionalString(_ key: String, _ v: JSONValue) throws(ItemObjectError) -> String? {
        switch v {
        case .null: return nil
        case .string(let s): return s
        default: throw wrong(key, "a string", v)
        }
    }

    private static func optionalURL(_ key: String, _ v: JSONValue) throws(ItemObjectError) -> String? {
        guard let s = try optionalString(key, v) else { return nil }
        let lower = s.prefix(8).lowercased()
        guard (lower.hasPrefix("http://") && s.utf8.count > 7) || (lower.hasPrefix("https://") && s.utf8.count > 8) else {
            throw ItemObjectError("\(key): expected an absolute http(s) URL, found \(shown(s))")
        }
        return s
    }

    private static func optionalTime(_ key: String, _ v: JSONValue) throws(ItemObjectError) -> Timestamp? {
        guard let s = try optionalString(key, v) else { return nil }
        guard let t = Timestamp.parseRFC3339(s) else { throw ItemObjectError("\(key): expected an RFC 3339 time (2026-11-29T10:00:00Z), found \(shown(s))") }
        return t
    }

    private static func wrong(_ key: String, _ expected: String, _ v: JSONValue) -> ItemObjectError {
        ItemObjectError("\(key): expected \(expected), found \(describe(v))")
    }

    /// A value for a message: its type, and a short form of a string, number or bool.
    static func describe(_ v: JSONValue) -> String {
        switch v {
        case .string(let s): return "the string \(shown(s))"
        case .number(let n): return "the number \(n.text)"
        case .bool(let b): return b ? "true" : "false"
        case .null: return "null"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// A string for a message: quoted, at most 80 characters.
    static func shown(_ s: String) -> String {
        let cut = s.count > 80 ? String(s.prefix(77)) + "..." : s
        return String(decoding: JSONWriter.serialize(.string(cut)), as: UTF8.self)
    }
}

/// Why a program's item object was refused.
public struct ItemObjectError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
