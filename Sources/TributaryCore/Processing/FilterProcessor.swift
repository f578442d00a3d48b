/// The `filter` of a source (its own, else `defaults.filter`) as the first processor of its
/// processing stage, and the `filter` processor type of a `process` list: the items that pass
/// go on, the others are counted as `filtered` and never recorded, so a looser rule lets them
/// through on a later run (Docs/configuration.md#filters).
public struct FilterProcessor: Processor {
    public let filter: ItemFilter

    public init(_ filter: ItemFilter) { self.filter = filter }

    public func start(_ context: ProcessorContext) async -> any ProcessorRun { Run(filter: filter, context: context) }

    struct Run: ProcessorRun {
        let filter: ItemFilter
        let context: ProcessorContext

        func process(_ items: [Item]) async -> [Item] {
            let now = Timestamp.now().seconds
            var out: [Item] = []
            out.reserveCapacity(items.count)
            for item in items {
                if filter.passes(item, now: now) { out.append(item) } else { context.filtered(item) }
            }
            return out
        }
    }

    /// The registry's `filter` type: the rules of `filter` as a step of a `process` list.
    public static let descriptor = ProcessorDescriptor(type: "filter", summary: "keeps the items that pass include and exclude rules and max_age (the same rules as a source's `filter`)",
                                                       options: FilterOptions.all) { reader in
        FilterOptions.rules(reader).map(FilterProcessor.init)
    }
}
