import TributaryCore

/// Runs one step per input (a URL, a place) for sources that read several things in one run:
/// `run` at most `stepsPerTransfer` x `limit` at once, `runOrdered` at most `limit`. Each step
/// emits its own items; one failing step fails only itself: the failures come back, in input
/// order, for the source to report together. When a step is told to stop (delivery stopped,
/// `max_items` reached, interrupted), the other steps are cancelled and that error is thrown.
public enum FanOut {
    /// How many of `run`'s steps may be in progress per transfer slot (`limit`, the source's
    /// `http.concurrency`): a step holds its slot from its request until its page is delivered,
    /// so with one step per slot the next request waits for the last page's mapping and
    /// delivery. With two, a slot's next request goes out while the last page is delivered;
    /// the transfers themselves are still capped at `http.concurrency` by the HTTP client.
    public static let stepsPerTransfer = 2

    public static func run<Input: Sendable>(
        _ inputs: [Input], limit: Int,
        _ step: @escaping @Sendable (Input) async throws(SourceError) -> Void
    ) async throws(SourceError) -> [(input: Input, error: SourceError)] {
        var failures: [(Int, SourceError)] = []
        var stop: SourceError? = nil
        await withTaskGroup(of: (Int, SourceError?).self) { group in
            var next = 0
            func add(_ i: Int) {
                let input = inputs[i]
                // Each step on a worker thread in turn (`WorkerThreads`): the source run's own
                // would take them all on one core.
                group.addTask(executorPreference: WorkerThreads.next()) {
                    // The step's outcome is bound before the tuple is built:
                    // Tests/CompilerBugs/tuple-await-dse.
                    var failure: SourceError? = nil
                    do throws(SourceError) { try await step(input) } catch { failure = error }
                    return (i, failure)
                }
            }
            while next < inputs.count && next < max(1, limit) * stepsPerTransfer {
                add(next)
                next += 1
            }
            while let (i, failure) = await group.next() {
                if let failure {
                    if failure.isDeliveryStop || failure.isEnough || failure.isInterruption {
                        if stop == nil { stop = failure }
                        group.cancelAll()
                    } else {
                        failures.append((i, failure))
                    }
                }
                if stop == nil && next < inputs.count {
                    add(next)
                    next += 1
                }
            }
        }
        if let stop { throw stop }
        return failures.sorted { $0.0 < $1.0 }.map { (inputs[$0.0], $0.1) }
    }

    /// Like `run`, for steps that each produce a small result (one item per place): results are
    /// emitted in input order, as soon as every earlier input is done, so output follows the
    /// config while the requests still run at once. At most `limit` results wait at a time.
    public static func runOrdered<Input: Sendable>(
        _ inputs: [Input], limit: Int, emit: @escaping @Sendable ([Item]) async throws(SourceError) -> Void,
        _ step: @escaping @Sendable (Input) async throws(SourceError) -> [Item]
    ) async throws(SourceError) -> [(input: Input, error: SourceError)] {
        // Results wait in `ready` until every earlier input is done. One task at a time is the
        // emitter (`emitting`): it drains the results that are next in line, in order; a task
        // that finds an emitter at work leaves its result for it.
        let queue = Locked<(ready: [Int: [Item]], next: Int, emitting: Bool)>(([:], 0, false))
        let indexed = Array(inputs.enumerated())
        return try await run(indexed, limit: limit) { pair throws(SourceError) in
            var mine: [Item] = []
            var failure: SourceError? = nil
            do throws(SourceError) { mine = try await step(pair.element) } catch { failure = error }
            if let failure, failure.isDeliveryStop || failure.isEnough || failure.isInterruption { throw failure }
            var emitter = queue.withLock { q -> Bool in
                q.ready[pair.offset] = mine  // a failed input counts as done, with no items
                if q.emitting { return false }
                q.emitting = true
                return true
            }
            while emitter {
                let due = queue.withLock { q -> [[Item]] in
                    var out: [[Item]] = []
                    while let r = q.ready.removeValue(forKey: q.next) {
                        out.append(r)
                        q.next += 1
                    }
                    if out.isEmpty { q.emitting = false }
                    return out
                }
                if due.isEmpty { emitter = false }
                for batch in due { try await emit(batch) }
            }
            if let failure { throw failure }
        }.map { (inputs[$0.input.offset], $0.error) }
    }

    /// `3 of 10 URLs failed: a; b; c; and 7 more` (at most three reasons shown).
    public static func summary(_ failures: [String], of total: Int, noun: String) -> String {
        let shown = failures.prefix(3).joined(separator: "; ") + (failures.count > 3 ? "; and \(failures.count - 3) more" : "")
        return "\(failures.count) of \(total) \(noun) failed: " + shown
    }
}
