import Foundation

/// The one place where items become output: drops ids already delivered this run, asks state
/// which are new (or changed, for `emit_updates`), applies `first_run`, writes every sink, and
/// only then records the ids in state. Serialised by a lock, so concurrent batches (`watch`)
/// never interleave writes or emit an id twice.
public final class Delivery: @unchecked Sendable {
    // Threading rule: everything below is touched only inside `lock`.
    private let lock = NSLock()
    public let sinks: [any Sink]
    public let state: StateStore?
    /// `--all`: emit everything fetched, not only what was never emitted.
    public let emitAll: Bool
    /// Drop an id already delivered by an earlier batch of this Delivery (`run`); `watch`
    /// relies on state instead, so `emit_updates` can re-emit across batches.
    public let dedupeAcrossBatches: Bool
    private var seen = Set<String>()
    private(set) var sinkError: SinkError?
    private(set) var outputClosed = false

    public init(sinks: [any Sink], state: StateStore?, emitAll: Bool, dedupeAcrossBatches: Bool = true) {
        self.sinks = sinks
        self.state = state
        self.emitAll = emitAll
        self.dedupeAcrossBatches = dedupeAcrossBatches
    }

    public struct Outcome: Sendable {
        public var new: Int
        public var failure: SinkError?
    }

    /// Opens every sink (loading windows from state); `warn` carries what sinks have to say.
    public func open(warn: @escaping @Sendable (String) -> Void = { _ in }) throws(SinkError) {
        let context = SinkContext(window: state.map { SinkWindow(store: $0) }, warn: warn)
        for sink in sinks { try sink.open(context) }
    }

    /// Delivers one source's items. `validators` are committed with the ids when the source
    /// succeeded; nothing is recorded if a sink failed.
    public func deliver(_ items: [Item], settings: SourceSettings, firstRun: Bool, validators: [(key: String, response: CachedResponse)], now: Double) -> Outcome {
        lock.lock()
        defer { lock.unlock() }
        if sinkError != nil || outputClosed { return Outcome(new: 0, failure: sinkError) }
        var batch: [Item] = []
        batch.reserveCapacity(items.count)
        if !dedupeAcrossBatches { seen.removeAll(keepingCapacity: true) }
        for item in items where seen.insert(item.id).inserted { batch.append(item) }
        var toEmit = batch
        var hashes: [String] = []
        if let state {
            hashes = batch.map(\.contentHash)
            if !emitAll {
                let known: [String: (source: String, hash: String)]
                do { known = try state.known(batch.map(\.id)) } catch {
                    let e = SinkError("state: \(error.message)")
                    sinkError = e
                    return Outcome(new: 0, failure: e)
                }
                toEmit = []
                for (i, item) in batch.enumerated() {
                    guard let old = known[item.id] else { toEmit.append(item); continue }
                    // An update is a change seen by the source that emitted the item: another
                    // source's view of the same id (a feed vs a search) is not an update.
                    if settings.emitUpdates && old.source == settings.name && old.hash != hashes[i] {
                        var updated = item
                        updated.data["updated"] = .bool(true)
                        toEmit.append(updated)
                    }
                }
                if firstRun {
                    switch settings.firstRun {
                    case .all: break
                    case .none: toEmit = []
                    case .newest(let n): toEmit = Self.newest(toEmit, n)
                    }
                }
            }
        }
        if !toEmit.isEmpty {
            do throws(SinkError) {
                for sink in sinks { try sink.write(toEmit) }
            } catch {
                if error.isOutputClosed { outputClosed = true } else { sinkError = error }
                return Outcome(new: 0, failure: error)
            }
        }
        if let state, !batch.isEmpty || !validators.isEmpty {
            let remember = zip(batch, hashes).map { EmittedID(id: $0.id, source: settings.name, hash: $1) }
            do {
                try state.commit(source: settings.name, type: settings.type, remember: remember, validators: validators, now: now)
            } catch {
                let e = SinkError("state: items were written but could not be recorded (they will be emitted again): \(error.message)")
                sinkError = e
                return Outcome(new: toEmit.count, failure: e)
            }
        }
        return Outcome(new: toEmit.count, failure: nil)
    }

    /// The `n` newest by published time (undated last), kept in their original order.
    static func newest(_ items: [Item], _ n: Int) -> [Item] {
        guard items.count > n else { return items }
        let keep = Set(items.indices.sorted { a, b in
            let ta = items[a].published?.seconds ?? -Double.infinity, tb = items[b].published?.seconds ?? -Double.infinity
            return ta != tb ? ta > tb : a < b
        }.prefix(n))
        return items.indices.filter { keep.contains($0) }.map { items[$0] }
    }

    /// Closes every sink; the first failure is kept.
    public func close() -> SinkError? {
        lock.lock()
        defer { lock.unlock() }
        for sink in sinks {
            do throws(SinkError) { try sink.close() } catch {
                if error.isOutputClosed { outputClosed = true } else if sinkError == nil { sinkError = error }
            }
        }
        return sinkError
    }

    public var isOutputClosed: Bool { lock.lock(); defer { lock.unlock() }; return outputClosed }
    public var failure: SinkError? { lock.lock(); defer { lock.unlock() }; return sinkError }
}
