import TributaryBase
import TributaryJSON
import TributaryOptions
import TributaryPostgres

/// What the batches of a dry run would have recorded: the ids they claimed (with the source and
/// hash a real run would have stored) and the sink windows, kept in memory for the rest of the
/// run and written nowhere.
///
/// Threading rule (why `@unchecked Sendable` is sound): used only by the transactions of a
/// read-only `SQLiteState`, which the engine calls from its delivery thread alone.
final class DryRunOverlay: @unchecked Sendable {
    var claimed: [String: KnownID] = [:]
    /// Values the run's batches set or claimed, by namespace and key.
    var values: [String: [String: [UInt8]]] = [:]
}

/// A batch of a dry run (`run --dry-run`): `claim` answers as the real transaction would, from
/// the state file read as it is plus what earlier batches of the run claimed; everything that
/// would be written stays in the overlay or is dropped. The database is only read.
final class DryRunTransaction: StateTransaction {
    private let db: Database
    private let overlay: DryRunOverlay
    private var claims: [String: KnownID] = [:]
    private var staged: [String: [String: [UInt8]]] = [:]
    /// The file keys `emitted` on `id_hash` (schema 3 and later), not on the id.
    private let keyedByHash: Bool
    /// The file has the processors' values (schema 4 and later).
    private let hasValues: Bool

    init(db: Database, overlay: DryRunOverlay, keyedByHash: Bool, hasValues: Bool = false) {
        self.db = db
        self.overlay = overlay
        self.keyedByHash = keyedByHash
        self.hasValues = hasValues
    }

    func claim(_ ids: [EmittedID], now: Double) throws(StateError) -> [KnownID?] {
        var known = try SQLiteTransaction.lookUp(ids, keys: keyedByHash ? ids.map { StateKeys.idHash($0.id) } : nil, in: db)
        for (i, e) in ids.enumerated() {
            if let earlier = claims[e.id] ?? overlay.claimed[e.id] { known[i] = earlier }
            // What the real upsert stores: the source that first emitted an id keeps it, and
            // its hash follows that source's latest version.
            let stored = known[i]
            if stored == nil || stored!.source == e.source { claims[e.id] = KnownID(source: e.source, hash: e.hash) }
        }
        return known
    }

    func storeValidators(_ validators: [(key: String, response: CachedResponse)], now: Double) throws(StateError) {}
    func replaceWindow(sink: String, items: [WindowItem]) throws(StateError) {}
    func recordRun(_ run: RunRecord) throws(StateError) {}
    func addSourceCounts(_ counts: SourceCounts) throws(StateError) {}
    func addCounters(_ deltas: [StateCounter]) throws(StateError) {}
    func setNextDue(source: String, type: String, due: Double, now: Double) throws(StateError) {}
    func releaseLease(source: String, worker: String) throws(StateError) {}

    func putValues(namespace: String, _ values: [(key: String, value: [UInt8])], now: Double) throws(StateError) {
        for (k, v) in values { staged[namespace, default: [:]][k] = v }
    }

    func claimValues(namespace: String, _ values: [(key: String, value: [UInt8])], now: Double) throws(StateError) -> [[UInt8]?] {
        let onFile = keyedByHash && hasValues ? try SQLiteTransaction.values(namespace: namespace, keys: values.map(\.key), in: db) : [:]
        return values.map { k, v in
            if let known = staged[namespace]?[k] ?? overlay.values[namespace]?[k] ?? onFile[k] { return known }
            staged[namespace, default: [:]][k] = v
            return nil
        }
    }

    func values(namespace: String, keys: [String]) throws(StateError) -> [String: [UInt8]] {
        let onFile = keyedByHash && hasValues ? try SQLiteTransaction.values(namespace: namespace, keys: keys, in: db) : [:]
        var out: [String: [UInt8]] = [:]
        for k in keys { if let v = staged[namespace]?[k] ?? overlay.values[namespace]?[k] ?? onFile[k] { out[k] = v } }
        return out
    }

    func commit() throws(StateError) {
        overlay.claimed.merge(claims) { _, new in new }
        for (ns, values) in staged { overlay.values[ns, default: [:]].merge(values) { _, new in new } }
        claims.removeAll()
        staged.removeAll()
    }

    func rollback() {
        claims.removeAll()
        staged.removeAll()
    }
}
