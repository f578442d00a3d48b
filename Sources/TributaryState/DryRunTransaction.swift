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
}

/// A batch of a dry run (`run --dry-run`): `claim` answers as the real transaction would, from
/// the state file read as it is plus what earlier batches of the run claimed; everything that
/// would be written stays in the overlay or is dropped. The database is only read.
final class DryRunTransaction: StateTransaction {
    private let db: Database
    private let overlay: DryRunOverlay
    private var claims: [String: KnownID] = [:]
    /// The file keys `emitted` on `id_hash` (schema 3 and later), not on the id.
    private let keyedByHash: Bool

    init(db: Database, overlay: DryRunOverlay, keyedByHash: Bool) {
        self.db = db
        self.overlay = overlay
        self.keyedByHash = keyedByHash
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

    func commit() throws(StateError) {
        overlay.claimed.merge(claims) { _, new in new }
        claims.removeAll()
    }

    func rollback() { claims.removeAll() }
}
