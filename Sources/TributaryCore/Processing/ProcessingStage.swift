/// One source run's processors, started in order, that every batch the source emits goes
/// through before it is delivered (`Processor`).
struct ProcessingStage: Sendable {
    let runs: [any ProcessorRun]
    let context: ProcessorContext

    static func start(_ processors: [any Processor], context: ProcessorContext) async -> ProcessingStage {
        var runs: [any ProcessorRun] = []
        runs.reserveCapacity(processors.count)
        for p in processors { runs.append(await p.start(context)) }
        return ProcessingStage(runs: runs, context: context)
    }

    /// The batch through every processor, in order.
    func process(_ items: [Item]) async -> [Item] {
        var batch = items
        for run in runs where !batch.isEmpty { batch = checked(await run.process(batch)) }
        return batch
    }

    /// The items that keep the rules every state backend and sink relies on (an id of at most
    /// `Item.maxIDBytes`); each other one is handed to `skip` with the reason.
    static func admitted(_ items: [Item], skip: (Item, String) -> Void) -> [Item] {
        guard items.contains(where: { $0.idLengthProblem != nil }) else { return items }
        return items.filter { item in
            guard let problem = item.idLengthProblem else { return true }
            skip(item, problem)
            return false
        }
    }

    func finish() async {
        for run in runs { await run.finish() }
    }

    /// What a processor gave, with the items that break the item rules skipped (and said so).
    private func checked(_ items: [Item]) -> [Item] {
        guard items.contains(where: { $0.id.isEmpty || $0.title.isEmpty }) else { return items }
        var out: [Item] = []
        out.reserveCapacity(items.count)
        for item in items {
            if item.id.isEmpty {
                context.skip(item, reason: "a processor gave an item without an id (title \"\(item.title.prefix(80))\")")
            } else if item.title.isEmpty {
                context.skip(item, reason: "a processor gave an item with an empty title")
            } else {
                out.append(item)
            }
        }
        return out
    }
}
