import TributaryCore

extension FilterProcessor {
    /// The registry's `filter` type: the rules of a source's `filter` as a step of a `process`
    /// list (the engine makes a source's own `filter` its first processor).
    public static let descriptor = ProcessorDescriptor(type: "filter", summary: "keeps the items that pass include and exclude rules and max_age (the same rules as a source's `filter`)",
                                                       options: FilterOptions.all) { reader in
        FilterOptions.rules(reader).map(FilterProcessor.init)
    }
}
