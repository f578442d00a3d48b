/// The `filter` of a source, a sink or `defaults`: which items pass. An item passes when it
/// matches at least one `include` rule (or there are none) and no `exclude` rule, and, with
/// `maxAge`, its `published` time is no older than that (an item without `published` passes).
public struct ItemFilter: Sendable {
    public var include: [FilterRule]
    public var exclude: [FilterRule]
    /// Seconds; nil: no age limit.
    public var maxAge: Double?

    public init(include: [FilterRule] = [], exclude: [FilterRule] = [], maxAge: Double? = nil) {
        self.include = include
        self.exclude = exclude
        self.maxAge = maxAge
    }

    public var isEmpty: Bool { include.isEmpty && exclude.isEmpty && maxAge == nil }

    public func passes(_ item: Item, now: Double) -> Bool {
        if let maxAge, let published = item.published, published.seconds < now - maxAge { return false }
        if !include.isEmpty && !include.contains(where: { $0.matches(item) }) { return false }
        return !exclude.contains { $0.matches(item) }
    }
}

/// One rule: a field of the item and one test on it.
public struct FilterRule: Sendable {
    /// The item fields a rule can test.
    public enum Field: Sendable, Equatable {
        case id, kind, title, summary, url, author, source
        /// Any of the item's tags.
        case tags
        /// A key of `data`; an array there matches when any element does.
        case data(String)

        /// The names written in configs: `title`, `tags`, `data.temperature`...
        public static let names = ["id", "kind", "title", "summary", "url", "author", "tags", "source", "data.<name>"]

        public init?(_ name: String) {
            switch name {
            case "id": self = .id
            case "kind": self = .kind
            case "title": self = .title
            case "summary": self = .summary
            case "url": self = .url
            case "author": self = .author
            case "tags": self = .tags
            case "source": self = .source
            default:
                guard name.hasPrefix("data."), name.count > 5 else { return nil }
                self = .data(String(name.dropFirst(5)))
            }
        }
    }

    public enum Test: Sendable {
        case regex(any TextPattern)
        /// Case-insensitive substring; the needle is stored lower-cased.
        case contains(String)
        case equals(String)
        /// Inclusive bounds on a number (a `data` field holding a number).
        case range(min: Double?, max: Double?)
    }

    public let field: Field
    public let test: Test

    public init(field: Field, test: Test) {
        self.field = field
        if case .contains(let needle) = test { self.test = .contains(needle.lowercased()) } else { self.test = test }
    }

    public func matches(_ item: Item) -> Bool {
        switch field {
        case .id: return matches(text: item.id)
        case .kind: return matches(text: item.kind)
        case .title: return matches(text: item.title)
        case .source: return matches(text: item.source)
        case .summary: return item.summary.map(matches(text:)) ?? false
        case .url: return item.url.map(matches(text:)) ?? false
        case .author: return item.author.map(matches(text:)) ?? false
        case .tags: return item.tags.contains(where: matches(text:))
        case .data(let key): return item.data[key].map(matches(value:)) ?? false
        }
    }

    func matches(text: String) -> Bool {
        switch test {
        case .regex(let pattern): return pattern.matches(text)
        case .contains(let needle): return text.lowercased().contains(needle)
        case .equals(let expected): return text == expected
        case .range: return false  // a text field holds no number
        }
    }

    /// A `data` value: strings as text, numbers by value for `min`/`max` and as written for
    /// the text tests, bools as `true`/`false`, arrays when any element matches.
    func matches(value: JSONValue) -> Bool {
        switch value {
        case .string(let s): return matches(text: s)
        case .number(let n):
            if case .range(let lo, let hi) = test {
                let d = n.double
                guard d.isFinite else { return false }
                return (lo.map { d >= $0 } ?? true) && (hi.map { d <= $0 } ?? true)
            }
            return matches(text: n.text)
        case .bool(let b):
            if case .range = test { return false }
            return matches(text: b ? "true" : "false")
        case .array(let elements): return elements.contains(where: matches(value:))
        case .null, .object: return false
        }
    }
}

/// A compiled regular expression a rule tests text with (PCRE2 in the product).
public protocol TextPattern: Sendable {
    /// True when the pattern matches anywhere in `text`.
    func matches(_ text: String) -> Bool
}
