/// What of a source's batch is new, as rules without state of their own: `max_items`, and from
/// what the state knew of each id, `emit_updates`, `first_run` and `--all`. The `Delivery`
/// applies them to each batch; the engine's tests check them directly.
struct BatchPolicy: Sendable {
    /// Emit everything fetched (`--all`), not only what the state has not seen.
    let emitAll: Bool

    /// The part of `batch` within `maxItems` when `passed` items of the run already counted
    /// against it, and whether that reaches it; nil when none is left.
    static func capped(_ batch: [Item], maxItems: Int?, passed: Int) -> (items: [Item], reachedCap: Bool)? {
        guard let cap = maxItems else { return (batch, false) }
        let room = cap - passed
        if room <= 0 { return nil }
        return batch.count >= room ? (Array(batch.prefix(room)), true) : (batch, false)
    }

    /// What to emit of a batch whose ids were claimed: ids new to the state; a known one only
    /// under `emit_updates`, when the same source sent it and its content changed (with
    /// `data.updated = true`); everything with `--all`. On the source's first run, `first_run`
    /// keeps all, none, or the newest N of them.
    func toEmit(_ batch: [Item], hashes: [String], known: [KnownID?], settings: SourceSettings, firstRun: Bool) -> [Item] {
        var out: [Item] = []
        if emitAll || !known.contains(where: { $0 != nil }) {
            // Every item is new (most batches): the batch as it is, not a copy item by item.
            out = batch
        } else {
            out.reserveCapacity(batch.count)
            for i in batch.indices {
                guard let old = known[i] else { out.append(batch[i]); continue }
                // An update is a change seen by the source that emitted the item: another
                // source's view of the same id (a feed vs a search) is not an update.
                if settings.emitUpdates && old.source == settings.name && old.hash != hashes[i] {
                    var updated = batch[i]
                    updated.data["updated"] = .bool(true)
                    out.append(updated)
                }
            }
        }
        guard firstRun && !emitAll else { return out }
        switch settings.firstRun {
        case .all: return out
        case .none: return []
        case .newest(let n): return Self.newest(out, n)
        }
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
}
