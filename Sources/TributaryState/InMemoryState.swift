import TributaryBase
#if canImport(Glibc)
import Glibc
#endif

/// The state kept in memory, for as long as the process lives: what the engine's policies are
/// tested against in process (first_run, emit_updates, dedupe, at-least-once, leases), as
/// swift-nio's `EmbeddedEventLoop` stands in for sockets. It keeps the contract of
/// `StateBackend` as the shared PostgreSQL state does: several engines (workers) may share one,
/// each source is leased to one worker at a time, and an id claimed by an open transaction
/// reads as known to every other transaction (where PostgreSQL would make the other wait for
/// the first to end). It can be told to fail, to test what the engine does when a state breaks.
///
/// Threading rule (why `@unchecked Sendable` is sound): every call, as for any backend, comes
/// from the engine's delivery thread; the storage is behind a lock all the same, so a test may
/// read it from its own thread.
public final class InMemoryState: StateBackend, @unchecked Sendable {
    /// Everything the state holds, readable by tests (`snapshot`).
    public struct Storage: Sendable {
        public var emitted: [String: (source: String, firstSeen: Double, lastSeen: Double, hash: String)] = [:]
        public var validators: [String: (response: CachedResponse, updated: Double)] = [:]
        public var windows: [String: [WindowItem]] = [:]
        public var sources: [String: SourceState] = [:]
        /// When each source was last seen in the config (retention of its record).
        public var inConfig: [String: Double] = [:]
        public var quotas: [String: (windowStart: Double, requests: Int)] = [:]
        public var counters: [StateCounter.Name: [String: Int]] = [:]
        /// New items per source and UTC day (`NewPerDay`).
        public var days: [String: [Int: Int]] = [:]
        /// Which worker holds each source, until when.
        public var leases: [String: (worker: String, until: Double)] = [:]
        /// Transactions committed so far.
        public var commits = 0
        /// Ids claimed by transactions not yet ended, with their source and hash.
        var pending: [String: (source: String, hash: String)] = [:]
        /// Values processors keep, by namespace and key, with when they were set.
        public var values: [String: [String: (value: [UInt8], updated: Double)]] = [:]
        /// Values claimed by transactions not yet ended (`namespace` + NUL + key), with the
        /// transaction holding each.
        var heldValues: [String: ObjectIdentifier] = [:]
    }

    /// A failure a test arranges: the next `begin` (or the next commit) throws it.
    public enum Fault: Sendable {
        case begin(StateError)
        case commit(StateError)
    }

    private let storage = Locked(Storage())
    private let faults = Locked<[Fault]>([])
    public let location: String

    public init(location: String = "memory") {
        self.location = location
    }

    /// What the state holds now (committed transactions only).
    public var snapshot: Storage { storage.withLock { $0 } }

    /// Makes a later call fail once (in the order given).
    public func inject(_ fault: Fault) { faults.withLock { $0.append(fault) } }

    private func takeFault(_ match: (Fault) -> StateError?) -> StateError? {
        faults.withLock { list in
            guard let i = list.firstIndex(where: { match($0) != nil }) else { return nil }
            return match(list.remove(at: i))
        }
    }

    public func begin() throws(StateError) -> any StateTransaction {
        if let e = takeFault({ if case .begin(let e) = $0 { return e } else { return nil } }) { throw e }
        return InMemoryTransaction(state: self)
    }

    func commit(_ changes: [(inout Storage) -> Void]) throws(StateError) {
        if let e = takeFault({ if case .commit(let e) = $0 { return e } else { return nil } }) { throw e }
        storage.withLock { s in
            for apply in changes { apply(&s) }
            s.commits += 1
        }
    }

    func read<T>(_ body: (Storage) -> T) -> T { storage.withLock { body($0) } }
    func update<T>(_ body: (inout Storage) -> T) -> T { storage.withLock { body(&$0) } }

    /// The clock leases run on (seconds); a test may set its own.
    public var clock: @Sendable () -> Double = { Timestamp.now().seconds }

    public func sourceStates(_ names: [String]) throws(StateError) -> [String: SourceState] {
        read { s in
            var out: [String: SourceState] = [:]
            for n in names { if let st = s.sources[n] { out[n] = st } }
            return out
        }
    }

    public func newPerDay(_ names: [String], since day: Int) throws(StateError) -> [String: [Int: Int]] {
        read { s in
            var out: [String: [Int: Int]] = [:]
            for n in names { if let d = s.days[n]?.filter({ $0.key >= day }), !d.isEmpty { out[n] = d } }
            return out
        }
    }

    public func validators(scope: String) throws(StateError) -> [String: HTTPValidators] {
        read { s in
            var out: [String: HTTPValidators] = [:]
            for (key, v) in s.validators where key.hasPrefix(scope + " ") {
                out[key] = v.response.validators
            }
            return out
        }
    }

    public func cachedBody(_ key: String) throws(StateError) -> [UInt8]? { read { $0.validators[key]?.response.body } }

    public func values(namespace: String, keys: [String]) throws(StateError) -> [String: [UInt8]] {
        read { s in
            var out: [String: [UInt8]] = [:]
            for k in keys { if let v = s.values[namespace]?[k] { out[k] = v.value } }
            return out
        }
    }

    public func window(sink: String) throws(StateError) -> [[UInt8]] {
        read { s in (s.windows[sink] ?? []).sorted { $0.sortTime > $1.sortTime }.map(\.line) }
    }

    public func quotaUsed(source: String, per: Double, now: Double) throws(StateError) -> (used: Int, resets: Double) {
        read { s in
            guard let q = s.quotas[source], now < q.windowStart + per else { return (0, now + per) }
            return (q.requests, q.windowStart + per)
        }
    }

    public func counters() throws(StateError) -> [StateCounter] {
        read { s in
            var out: [StateCounter] = []
            for name in StateCounter.Name.allCases {
                for (label, value) in (s.counters[name] ?? [:]).sorted(by: { $0.key < $1.key }) { out.append(StateCounter(name, label, value)) }
            }
            return out.sorted { ($0.name.rawValue, $0.label) < ($1.name.rawValue, $1.label) }
        }
    }

    public func touchConfigured(_ names: [String], now: Double) throws(StateError) {
        storage.withLock { s in for n in names where s.sources[n] != nil { s.inConfig[n] = now } }
    }

    @discardableResult
    public func prune(retention: Double, now: Double) throws(StateError) -> Int {
        let cutoff = now - retention
        return storage.withLock { s in
            var removed = 0
            for (id, e) in s.emitted where e.lastSeen < cutoff { s.emitted[id] = nil; removed += 1 }
            for (key, v) in s.validators where v.updated < cutoff { s.validators[key] = nil; removed += 1 }
            for (name, seen) in s.inConfig where seen < cutoff {
                s.sources[name] = nil
                s.inConfig[name] = nil
                removed += 1
            }
            for (name, q) in s.quotas where s.sources[name] == nil && q.windowStart < cutoff { s.quotas[name] = nil; removed += 1 }
            for (ns, byKey) in s.values {
                for (k, v) in byKey where v.updated < cutoff { s.values[ns]?[k] = nil; removed += 1 }
            }
            let oldest = NewPerDay.day(now) - NewPerDay.keptDays
            for (name, byDay) in s.days {
                for d in byDay.keys where d < oldest { s.days[name]?[d] = nil; removed += 1 }
            }
            return removed
        }
    }

    public func close() {}

    // MARK: leases: one worker at a time per source, as the shared state

    public func claimDue(_ candidates: [SourceKey], worker: String, lease: Double, limit: Int, now: Double) throws(StateError) -> DueClaim {
        let clock = self.clock()
        return update { s in
            var due: [(name: String, state: SourceState)] = []
            var later: [(name: String, at: Double)] = []
            for c in candidates {
                let state = s.sources[c.name] ?? SourceState(type: c.type)
                let heldUntil = s.leases[c.name].flatMap { $0.until >= clock && $0.worker != worker ? $0.until : nil }
                if let next = state.nextDue, next > now {
                    later.append((c.name, max(next, heldUntil ?? 0)))
                } else if let heldUntil {
                    later.append((c.name, heldUntil))
                } else {
                    due.append((c.name, state))
                }
            }
            due.sort { ($0.state.nextDue ?? -Double.infinity) < ($1.state.nextDue ?? -Double.infinity) }
            let claimed = Array(due.prefix(max(0, limit)))
            for c in claimed { s.leases[c.name] = (worker, clock + lease) }
            return DueClaim(claimed: claimed, nextCheck: later.map(\.at).min(), later: later)
        }
    }

    public func lease(_ sources: [SourceKey], worker: String, lease: Double) throws(StateError) -> [String: String] {
        let clock = self.clock()
        return update { s in
            var held: [String: String] = [:]
            for k in sources {
                if let l = s.leases[k.name], l.until >= clock, l.worker != worker {
                    held[k.name] = l.worker
                } else {
                    s.leases[k.name] = (worker, clock + lease)
                }
            }
            return held
        }
    }

    public func renewLeases(_ sources: [String], worker: String, lease: Double) throws(StateError) -> [String: String] {
        let clock = self.clock()
        return update { s in
            var lost: [String: String] = [:]
            for name in sources {
                if let l = s.leases[name], l.worker == worker {
                    s.leases[name] = (worker, clock + lease)
                } else {
                    lost[name] = s.leases[name]?.worker ?? ""
                }
            }
            return lost
        }
    }
}

/// One batch against an `InMemoryState`: its changes are kept aside and applied together on
/// `commit`, or dropped on `rollback`; `claim` sees the committed state and the batch's own
/// earlier claims, as a database transaction does.
final class InMemoryTransaction: StateTransaction {
    private let state: InMemoryState
    private var changes: [(inout InMemoryState.Storage) -> Void] = []
    /// Ids this transaction claimed, as they will be committed.
    private var claimed: [String: (source: String, hash: String)] = [:]
    private var open = true

    init(state: InMemoryState) { self.state = state }

    func claim(_ ids: [EmittedID], now: Double) throws(StateError) -> [KnownID?] {
        // Known: committed, or claimed by another transaction still open (reserved for it here).
        let claimedHere = claimed
        let committed = state.update { s in
            ids.map { e -> KnownID? in
                if let row = s.emitted[e.id] { return KnownID(source: row.source, hash: row.hash) }
                if claimedHere[e.id] == nil, let p = s.pending[e.id] { return KnownID(source: p.source, hash: p.hash) }
                s.pending[e.id] = (e.source, e.hash)
                return nil
            }
        }
        var known: [KnownID?] = []
        known.reserveCapacity(ids.count)
        for (e, before) in zip(ids, committed) {
            let old = claimed[e.id].map { KnownID(source: $0.source, hash: $0.hash) } ?? before
            known.append(old)
            let source = old?.source ?? e.source
            let hash = old == nil || old?.source == e.source ? e.hash : old!.hash
            claimed[e.id] = (source, hash)
        }
        changes.append { s in
            for e in ids {
                if var row = s.emitted[e.id] {
                    // As SQLiteState: last_seen refreshed at most daily, the hash by the same source only.
                    if row.source == e.source && row.hash != e.hash { row.hash = e.hash; row.lastSeen = now }
                    if row.lastSeen < now - 86400 { row.lastSeen = now }
                    s.emitted[e.id] = row
                } else {
                    s.emitted[e.id] = (e.source, now, now, e.hash)
                }
            }
        }
        return known
    }

    func storeValidators(_ validators: [(key: String, response: CachedResponse)], now: Double) throws(StateError) {
        guard !validators.isEmpty else { return }
        changes.append { s in for (key, r) in validators { s.validators[key] = (r, now) } }
    }

    func replaceWindow(sink: String, items: [WindowItem]) throws(StateError) {
        changes.append { s in s.windows[sink] = items }
    }

    func recordRun(_ run: RunRecord) throws(StateError) {
        changes.append { s in
            var st = s.sources[run.source] ?? SourceState()
            st.type = run.type
            st.lastRun = run.now
            if run.success {
                st.lastSuccess = run.now
                st.failures = 0
            } else {
                st.failures += 1
                st.failuresTotal += 1
            }
            st.nextDue = run.nextDue
            st.lastError = run.error
            st.firstRecorded = st.firstRecorded ?? run.now
            st.lastDuration = run.seconds
            s.sources[run.source] = st
            s.inConfig[run.source] = run.now
            if let per = run.quotaPer, run.requests > 0 {
                if let q = s.quotas[run.source], run.now < q.windowStart + per {
                    s.quotas[run.source] = (q.windowStart, q.requests + run.requests)
                } else {
                    s.quotas[run.source] = (run.now, run.requests)
                }
            }
        }
    }

    func addSourceCounts(_ c: SourceCounts) throws(StateError) {
        changes.append { s in
            var st = s.sources[c.source] ?? SourceState(type: c.type)
            st.fetchedTotal += c.fetched
            st.emittedTotal += c.new
            if c.new > 0 {
                st.lastNew = c.now
                s.days[c.source, default: [:]][NewPerDay.day(c.now), default: 0] += c.new
            }
            st.firstRecorded = st.firstRecorded ?? c.now
            if s.sources[c.source] == nil { s.inConfig[c.source] = c.now }
            s.sources[c.source] = st
        }
    }

    func addCounters(_ deltas: [StateCounter]) throws(StateError) {
        changes.append { s in for d in deltas where d.value != 0 { s.counters[d.name, default: [:]][d.label, default: 0] += d.value } }
    }

    func setNextDue(source: String, type: String, due: Double, now: Double) throws(StateError) {
        changes.append { s in
            var st = s.sources[source] ?? SourceState(type: type)
            st.nextDue = due
            s.sources[source] = st
            s.inConfig[source] = now
        }
    }

    func releaseLease(source: String, worker: String) throws(StateError) {
        changes.append { s in if s.leases[source]?.worker == worker { s.leases[source] = nil } }
    }

    /// Values this transaction set or claimed, as they will be committed.
    private var stagedValues: [String: [String: [UInt8]]] = [:]

    func putValues(namespace: String, _ values: [(key: String, value: [UInt8])], now: Double) throws(StateError) {
        for (k, v) in values { stagedValues[namespace, default: [:]][k] = v }
        changes.append { s in for (k, v) in values { s.values[namespace, default: [:]][k] = (v, now) } }
    }

    /// Keys this transaction holds (`namespace` + NUL + key): another transaction claiming one
    /// waits until this one ends, as PostgreSQL makes it wait.
    private var held: [String] = []

    func claimValues(namespace: String, _ values: [(key: String, value: [UInt8])], now: Double) throws(StateError) -> [[UInt8]?] {
        let me = ObjectIdentifier(self)
        let names = values.map { namespace + "\u{0}" + $0.key }
        // Wait (polling: this backend is the engine's tests') while another open transaction
        // holds one of the keys; then hold them all and read what is committed.
        let deadline = Timestamp.now().seconds + 30
        var committed: [[UInt8]?]? = nil
        while true {
            committed = state.update { s -> [[UInt8]?]? in
                if names.contains(where: { s.heldValues[$0].map { $0 != me } ?? false }) { return nil }
                for n in names { s.heldValues[n] = me }
                return values.map { s.values[namespace]?[$0.key]?.value }
            }
            if committed != nil { break }
            if Timestamp.now().seconds > deadline { throw StateError("a value stayed claimed by another open transaction for 30 s", transient: true) }
            usleep(1000)
        }
        held += names
        let committedValues = committed!
        var out: [[UInt8]?] = []
        var inserted: [(String, [UInt8])] = []
        for ((k, v), old) in zip(values, committedValues) {
            if let known = stagedValues[namespace]?[k] ?? old { out.append(known); continue }
            stagedValues[namespace, default: [:]][k] = v
            inserted.append((k, v))
            out.append(nil)
        }
        if !inserted.isEmpty {
            changes.append { s in for (k, v) in inserted where s.values[namespace]?[k] == nil { s.values[namespace, default: [:]][k] = (v, now) } }
        }
        return out
    }

    func values(namespace: String, keys: [String]) throws(StateError) -> [String: [UInt8]] {
        let committed = state.read { s in keys.map { s.values[namespace]?[$0]?.value } }
        var out: [String: [UInt8]] = [:]
        for (k, old) in zip(keys, committed) { if let v = stagedValues[namespace]?[k] ?? old { out[k] = v } }
        return out
    }

    func commit() throws(StateError) {
        guard open else { return }
        open = false
        let ids = Array(claimed.keys)
        let names = held
        changes.append { s in
            for id in ids { s.pending[id] = nil }
            for n in names { s.heldValues[n] = nil }
        }
        do { try state.commit(changes) } catch {
            rollback()
            throw error
        }
        changes = []
        held = []
    }

    func rollback() {
        open = false
        changes = []
        let ids = Array(claimed.keys)
        claimed = [:]
        let names = held
        held = []
        state.update { s in
            for id in ids { s.pending[id] = nil }
            for n in names { s.heldValues[n] = nil }
        }
    }

    deinit { if open { rollback() } }
}
