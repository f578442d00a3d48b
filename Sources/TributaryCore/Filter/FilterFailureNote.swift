/// How a filter rule that could not test an item is said and counted, wherever the filter
/// stands: counted every time (`filter_errors`, by the rule's key path), warned about once per
/// rule per source run (the caller keeps which rules it warned about).
public enum FilterFailureNote {
    /// The warning for the first failure of a rule in a run. `sink`: the sink whose filter it
    /// is (nil: the source's, or a `filter` processor's).
    public static func warning(_ e: FilterRuleError, item: Item, sink: String?) -> String {
        var rule = e.rule.file.isEmpty ? e.rule.path : "\(e.rule.file): \(e.rule.path)"
        if case .regex(let p) = e.rule.test, let r = p as? RegexPattern { rule += " (regex \"\(r.source)\")" }
        let outcome: String
        switch (sink, e.excludes) {
        case (let sink?, _): outcome = "sink \(sink) does not receive the item"
        case (nil, true): outcome = "the item is excluded"
        case (nil, false): outcome = "the item is not included (and not recorded as emitted, so a fixed rule lets it through later)"
        }
        return "filter rule \(rule) failed on item \"\(item.id)\": \(e.message); \(outcome); "
            + "further failures of this rule in this run are only counted (tributary_filter_errors_total)"
    }
}
