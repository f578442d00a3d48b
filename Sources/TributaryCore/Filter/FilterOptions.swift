/// The `filter` option of sources, sinks and `defaults` (Docs/configuration.md#filters), and how
/// it becomes an `ItemFilter`. Every rule that cannot work is a config error with its key path:
/// an unknown field, no test or two, a pattern that does not compile, `min`/`max` on a field
/// that holds no number.
public enum FilterOptions {
    public enum Rule {
        public static let field = Option.string("field", "what the rule tests: \(FilterRule.Field.names.joined(with: ", ")) (tags: any tag)").required
            .checked { name in
                guard FilterRule.Field(name) == nil else { return nil }
                let hint = Suggest.closest(to: name, in: FilterRule.Field.names).map { " (did you mean \"\($0)\"?)" } ?? ""
                return "expected one of \(FilterRule.Field.names.joined(with: ", ")), found \"\(name)\"\(hint)"
            }
        public static let regex = Option<RegexPattern>(
            spec: OptionSpec("regex", .string, "a PCRE2 regular expression, matched anywhere in the text; (?i) for case-insensitive", rule: { v, _ in
                guard let s = v.stringValue else { return nil }
                if case .failure(let e) = RegexPattern.compile(s) { return e.message }
                return nil
            }),
            read: { v, _ in v.stringValue.flatMap { try? RegexPattern.compile($0).get() } },
            show: { $0.source },
            placeholder: { fatalError("a regex is never required") })
        public static let contains = Option.string("contains", "a substring, compared case-insensitively")
        public static let equals = Option.string("equals", "the whole text, exactly")
        public static let min = Option.number("min", "the smallest number that passes (a data field holding a number)")
        public static let max = Option.number("max", "the largest number that passes (a data field holding a number)")
        public static let all: [any OptionDeclaration] = [field, regex, contains, equals, min, max]
    }

    public static let include = Option.objectList("include", Rule.all, "an item passes when it matches at least one of these (or there are none)")
    public static let exclude = Option.objectList("exclude", Rule.all, "an item matching any of these does not pass")
    public static let maxAge = Option.duration("max_age", atLeast: 1, "items published longer ago than this do not pass (an item without a date passes)")
    public static let all: [any OptionDeclaration] = [include, exclude, maxAge]

    /// The declaration of `filter` itself, for sources, sinks and `defaults`.
    public static let filter = Option.object("filter", all, "which items pass: include and exclude rules, max_age (Docs/configuration.md#filters)")

    /// The filter of an object that declares `filter`; nil when it has none. Rules that cannot
    /// work are reported on `reader`.
    public static func read(_ reader: OptionReader) -> ItemFilter? {
        reader[filter].flatMap(rules)
    }

    /// The filter an object of `include`, `exclude` and `max_age` declares (a `filter` value, or
    /// a `filter` processor of a `process` list).
    public static func rules(_ f: OptionReader) -> ItemFilter? {
        let include = (f[Self.include] ?? []).compactMap(rule)
        let exclude = (f[Self.exclude] ?? []).compactMap(rule)
        return ItemFilter(include: include, exclude: exclude, maxAge: f[maxAge])
    }

    static func rule(_ r: OptionReader) -> FilterRule? {
        guard let field = FilterRule.Field(r[Rule.field]) else { return nil }  // reported by the check
        var tests: [FilterRule.Test] = []
        if let p = r[Rule.regex] { tests.append(.regex(p)) }
        if let s = r[Rule.contains] { tests.append(.contains(s)) }
        if let s = r[Rule.equals] { tests.append(.equals(s)) }
        let lo = r[Rule.min], hi = r[Rule.max]
        if lo != nil || hi != nil {
            tests.append(.range(min: lo, max: hi))
            guard case .data = field else {
                r.error(lo != nil ? Rule.min : Rule.max, "applies to data.<name> fields that hold numbers, not to \"\(r[Rule.field])\"")
                return nil
            }
            if let lo, let hi, lo > hi { r.error(Rule.min, "is larger than max (\(lo) > \(hi)): nothing would pass") }
        }
        let given = [Rule.regex.spec.name, Rule.contains.spec.name, Rule.equals.spec.name].filter { r.object[$0] != nil }
        guard tests.count == 1 else {
            if tests.isEmpty && given.isEmpty {
                r.error(nil, "needs one test: \"regex\", \"contains\", \"equals\", or \"min\"/\"max\"")
            } else if tests.count > 1 {
                r.error(nil, "has more than one test (\((given + (lo != nil || hi != nil ? ["min/max"] : [])).joined(separator: ", "))): give one rule per test")
            }
            return nil
        }
        // `defaults.filter.include[0]`, not `(top level).defaults...`: the path a reader looks for.
        let path = r.context.hasPrefix("(top level).") ? String(r.context.dropFirst("(top level).".count)) : r.context
        return FilterRule(field: field, test: tests[0], path: path, file: r.diagnostics.file)
    }
}
