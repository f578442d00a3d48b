/// The `filter` of a source (its own, else `defaults.filter`) as the first processor of its
/// processing stage, and the `filter` processor type of a `process` list: the items that pass
/// go on, the others are counted as `filtered` and never recorded, so a looser rule lets them
/// through on a later run (Docs/configuration.md#filters).
public struct FilterProcessor: Processor {
    public let filter: ItemFilter

    public init(_ filter: ItemFilter) { self.filter = filter }

    public func start(_ context: ProcessorContext) async -> any ProcessorRun { Run(filter: filter, context: context) }

    /// A rule that cannot test an item (a regex past PCRE2's match limit) fails safe: an include
    /// does not include, an exclude excludes. Each failure is counted (`filter_errors`), and
    /// said once per rule per run.
    final class Run: ProcessorRun, Sendable {
        let filter: ItemFilter
        let context: ProcessorContext
        private let warned = Locked(Set<String>())

        init(filter: ItemFilter, context: ProcessorContext) {
            self.filter = filter
            self.context = context
        }

        func process(_ items: [Item]) async -> [Item] {
            let now = Timestamp.now().seconds
            var out: [Item] = []
            out.reserveCapacity(items.count)
            for item in items {
                let passes = filter.passes(item, now: now) { e in
                    context.tally.addCounter(.filterErrors, e.rule.path)
                    if warned.withLock({ $0.insert(e.rule.path).inserted }) { context.warn(FilterFailureNote.warning(e, item: item, sink: nil)) }
                }
                if passes { out.append(item) } else { context.filtered(item) }
            }
            return out
        }
    }
}
