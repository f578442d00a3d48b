/// The `filter` of a source, a sink or `defaults`: which items pass. An item passes when it
/// matches at least one `include` rule (or there are none) and no `exclude` rule, and, with
/// `maxAge`, its `published` time is no older than that (an item without `published` passes).
///
/// A rule that cannot tell (a `regex` that reaches PCRE2's match limit) fails safe, towards
/// passing less: an `include` rule that errors does not include, an `exclude` rule that errors
/// excludes. Each error is handed to the caller (`onError`), which warns and counts it.
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

    /// Whether `item` passes; `onError` hears of every rule that could not tell (the item then
    /// does not pass, unless another include rule matched).
    public func passes(_ item: Item, now: Double, onError: (FilterRuleError) -> Void = { _ in }) -> Bool {
        if let maxAge, let published = item.published, published.seconds < now - maxAge { return false }
        if !include.isEmpty {
            let included = include.contains { rule in
                switch rule.evaluate(item) {
                case .match: return true
                case .noMatch: return false
                case .error(let e):
                    onError(FilterRuleError(rule: rule, message: e, excludes: false))
                    return false  // does not include: a rule fixed later lets it through then
                }
            }
            if !included { return false }
        }
        return !exclude.contains { rule in
            switch rule.evaluate(item) {
            case .match: return true
            case .noMatch: return false
            case .error(let e):
                onError(FilterRuleError(rule: rule, message: e, excludes: true))
                return true  // excludes: what the rule was written to keep out never slips through
            }
        }
    }
}

/// A rule that could not tell whether an item matches, and what the filter made of it.
public struct FilterRuleError: Sendable {
    public let rule: FilterRule
    /// PCRE2's text: `match limit exceeded`.
    public let message: String
    /// True for an exclude rule (the item was excluded), false for an include rule (it was
    /// not included).
    public let excludes: Bool
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
    /// Where the rule is written, as config errors name it: `sources[0] ("news").filter.include[1]`
    /// (the `rule` label of `tributary_filter_errors_total`).
    public let path: String
    /// The config file it is written in, for warnings.
    public let file: String

    public init(field: Field, test: Test, path: String = "filter", file: String = "") {
        self.field = field
        if case .contains(let needle) = test { self.test = .contains(needle.lowercased()) } else { self.test = test }
        self.path = path
        self.file = file
    }

    /// Whether the rule matches `item`, or the error that kept it from telling.
    public func evaluate(_ item: Item) -> PatternMatch {
        switch field {
        case .id: return evaluate(text: item.id)
        case .kind: return evaluate(text: item.kind)
        case .title: return evaluate(text: item.title)
        case .source: return evaluate(text: item.source)
        case .summary: return item.summary.map(evaluate(text:)) ?? .noMatch
        case .url: return item.url.map(evaluate(text:)) ?? .noMatch
        case .author: return item.author.map(evaluate(text:)) ?? .noMatch
        case .tags: return Self.any(item.tags, evaluate(text:))
        case .data(let key): return item.data[key].map(evaluate(value:)) ?? .noMatch
        }
    }

    func evaluate(text: String) -> PatternMatch {
        switch test {
        case .regex(let pattern): return pattern.match(text)
        case .contains(let needle): return text.lowercased().contains(needle) ? .match : .noMatch
        case .equals(let expected): return text == expected ? .match : .noMatch
        case .range: return .noMatch  // a text field holds no number
        }
    }

    /// A `data` value: strings as text, numbers by value for `min`/`max` and as written for
    /// the text tests, bools as `true`/`false`, arrays when any element matches.
    func evaluate(value: JSONValue) -> PatternMatch {
        switch value {
        case .string(let s): return evaluate(text: s)
        case .number(let n):
            if case .range(let lo, let hi) = test {
                let d = n.double
                guard d.isFinite else { return .noMatch }
                return (lo.map { d >= $0 } ?? true) && (hi.map { d <= $0 } ?? true) ? .match : .noMatch
            }
            return evaluate(text: n.text)
        case .bool(let b):
            if case .range = test { return .noMatch }
            return evaluate(text: b ? "true" : "false")
        case .array(let elements): return Self.any(elements, evaluate(value:))
        case .null, .object: return .noMatch
        }
    }

    /// Several values (tags, an array): a match when any matches; else an error when one could
    /// not tell; else no match.
    static func any<C: Collection>(_ values: C, _ test: (C.Element) -> PatternMatch) -> PatternMatch {
        var error: PatternMatch? = nil
        for v in values {
            switch test(v) {
            case .match: return .match
            case .noMatch: break
            case .error(let e): error = error ?? .error(e)
            }
        }
        return error ?? .noMatch
    }
}

/// What testing a rule or a pattern against a text found.
public enum PatternMatch: Sendable, Equatable {
    case match
    case noMatch
    /// The test could not tell: PCRE2 gave up (`match limit exceeded`) or had no memory.
    case error(String)
}

/// A compiled regular expression a rule tests text with (PCRE2 in the product).
public protocol TextPattern: Sendable {
    /// Whether the pattern matches anywhere in `text`, or why that could not be told.
    func match(_ text: String) -> PatternMatch
}
