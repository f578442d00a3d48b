/// The one owner of the state: every call to the backend runs on its thread (`SerialThread`),
/// one at a time, so no SQLite or libpq call ever blocks the cooperative pool, and a batch's
/// transaction is never interleaved with anything else. The engine reads and records through
/// it outside batches (source records, quotas, leases, retention, the metrics' totals); the
/// `Delivery` runs each batch's transaction on its thread (`run`). Without state every call
/// answers as if everything were new and nothing held.
///
/// Threading rule (why `@unchecked Sendable` is sound): `state` is used only by jobs on
/// `thread`; `run` hops there.
public final class StateGateway: @unchecked Sendable {
    let thread = SerialThread(name: "tributary-deliv")
    public let state: (any StateBackend)?
    /// This process's name in leases (`--worker`, default `<hostname>:<pid>`).
    public let worker: String
    /// How long a lease lasts unless renewed (`state.lease`).
    public let leaseDuration: Double
    /// Validators read ahead for sources about to run (`prefetchValidators`), each taken by its
    /// source's `validators(scope:)`. Touched only on `thread`.
    private var prefetched: [String: [String: HTTPValidators]] = [:]

    public init(state: (any StateBackend)?, worker: String = Leases.defaultWorker, lease: Double = Leases.defaultDuration) {
        self.state = state
        self.worker = worker
        self.leaseDuration = lease
    }

    deinit { thread.stop() }

    /// Closes the state and ends its thread; call once, after the sinks are closed.
    public func shutdown() async {
        await thread.run { self.state?.close() }
        thread.stop()
    }

    /// The validators state has for a source's requests: those read ahead for it, once, or
    /// else read now.
    func validators(scope: String) async throws(StateError) -> [String: HTTPValidators] {
        guard state != nil else { return [:] }
        return try await thread.run { () throws(StateError) in
            if let ahead = self.prefetched.removeValue(forKey: scope) { return ahead }
            return try self.state!.validators(scope: scope)
        }
    }

    /// Reads the validators of sources about to run in one read (`StateBackend.validators(scopes:)`),
    /// for their `validators(scope:)` to take: on a shared state, one round trip instead of one
    /// per source. Nothing else writes a source's validators while this worker holds its lease,
    /// so what is read ahead stays true until the source runs. A failed read is left to each
    /// source's own.
    public func prefetchValidators(_ scopes: [String]) async {
        guard let state, state.readsCostRoundTrips, !scopes.isEmpty else { return }
        await thread.run { self.prefetchNow(scopes) }
    }

    private func prefetchNow(_ scopes: [String]) {
        guard let state, state.readsCostRoundTrips, !scopes.isEmpty else { return }
        do throws(StateError) { prefetched.merge(try state.validators(scopes: scopes)) { $1 } } catch {
            // Nothing read ahead for them: each reads its own (never an older read's).
            for scope in scopes { prefetched[scope] = nil }
        }
    }

    /// Values processors keep under `namespace` (`StateBackend.values`); none without state.
    public func values(namespace: String, keys: [String]) async throws(StateError) -> [String: [UInt8]] {
        guard state != nil, !keys.isEmpty else { return [:] }
        return try await thread.run { () throws(StateError) in try self.state!.values(namespace: namespace, keys: keys) }
    }

    /// Sets values under `namespace` in a transaction of their own (what a processor keeps as it
    /// goes: a cache, never part of a batch's at-least-once record).
    public func putValues(namespace: String, _ values: [(key: String, value: [UInt8])], now: Double) async throws(StateError) {
        guard state != nil, !values.isEmpty else { return }
        try await thread.run { () throws(StateError) in
            let tx = try self.state!.begin()
            do throws(StateError) {
                try tx.putValues(namespace: namespace, values, now: now)
                try tx.commit()
            } catch {
                tx.rollback()
                throw error
            }
        }
    }

    /// The body stored with a validator, to answer a 304.
    public func cachedBody(_ key: String) async throws(StateError) -> [UInt8]? {
        guard state != nil else { return nil }
        return try await thread.run { () throws(StateError) in try self.state!.cachedBody(key) }
    }

    /// What state knows of these sources; nil for every source when there is no state.
    public func sourceStates(_ names: [String]) async throws(StateError) -> [String: SourceState] {
        guard state != nil else { return [:] }
        return try await thread.run { () throws(StateError) in try self.state!.sourceStates(names) }
    }

    /// Requests of `source` in its current quota window.
    public func quotaUsed(source: String, per: Double, now: Double) async throws(StateError) -> (used: Int, resets: Double) {
        guard state != nil else { return (0, now + per) }
        return try await thread.run { () throws(StateError) in try self.state!.quotaUsed(source: source, per: per, now: now) }
    }

    /// Sets when a skipped source is next due (a quota skip), without recording a run.
    public func setNextDue(source: String, type: String, due: Double, now: Double) async throws(StateError) {
        guard state != nil else { return }
        try await thread.run { () throws(StateError) in
            let tx = try self.state!.begin()
            do throws(StateError) {
                try tx.setNextDue(source: source, type: type, due: due, now: now)
                try tx.commit()
            } catch {
                tx.rollback()
                throw error
            }
        }
    }

    /// Applies retention; returns rows removed.
    public func prune(retention: Double, now: Double) async throws(StateError) -> Int {
        guard state != nil else { return 0 }
        return try await thread.run { () throws(StateError) in try self.state!.prune(retention: retention, now: now) }
    }

    /// The cumulative counters of these sources and of these sinks, for the metrics (`Metrics`);
    /// nil without state.
    public func metrics(sources: [(name: String, type: String)], sinks: [String]) async throws(StateError) -> Metrics? {
        guard state != nil else { return nil }
        return try await thread.run { () throws(StateError) -> Metrics in
            let states = try self.state!.sourceStates(sources.map(\.name))
            let counters = try self.state!.counters()
            return Metrics(sources: sources, states: states, counters: counters, sinks: sinks)
        }
    }

    /// What the status records of `sources` are built from (`StatusInputs.read`); empty
    /// without state (no source has run).
    public func statusInputs(sources: [ConfiguredSource], now: Double) async throws(StateError) -> StatusInputs {
        guard state != nil else { return StatusInputs() }
        return try await thread.run { () throws(StateError) -> StatusInputs in
            try StatusInputs.read(from: self.state!, sources: sources, now: now)
        }
    }

    /// Leases the due sources among `candidates` to this worker (`StateBackend.claimDue`).
    /// Without state every candidate is due.
    public func claimDue(_ candidates: [SourceKey], limit: Int, now: Double) async throws(StateError) -> DueClaim {
        guard state != nil else { return DueClaim(claimed: candidates.prefix(max(0, limit)).map { ($0.name, SourceState()) }, nextCheck: nil) }
        return try await thread.run { () throws(StateError) in
            let claim = try self.state!.claimDue(candidates, worker: self.worker, lease: self.leaseDuration, limit: limit, now: now)
            // The claimed sources start now: their validators in the same job.
            self.prefetchNow(claim.claimed.map(\.name))
            return claim
        }
    }

    /// Leases these sources to this worker, due or not; returns those another worker holds,
    /// with its name (`StateBackend.lease`).
    public func lease(_ sources: [SourceKey]) async throws(StateError) -> [String: String] {
        guard state != nil else { return [:] }
        return try await thread.run { () throws(StateError) in
            try self.state!.lease(sources, worker: self.worker, lease: self.leaseDuration)
        }
    }

    /// Renews this worker's leases on the sources `held()` names, read on the state's thread
    /// (so a source dropped before its `finish` is never renewed after it); returns those lost,
    /// with who holds them now (`StateBackend.renewLeases`).
    func renewLeases(_ held: @escaping @Sendable () -> [String]) async throws(StateError) -> [String: String] {
        guard state != nil else { return [:] }
        return try await thread.run { () throws(StateError) in
            try self.state!.renewLeases(held(), worker: self.worker, lease: self.leaseDuration)
        }
    }

    /// Ends this worker's lease on `source` without recording a run (a source skipped for its quota).
    public func releaseLease(source: String) async throws(StateError) {
        guard state != nil else { return }
        try await thread.run { () throws(StateError) in
            let tx = try self.state!.begin()
            do throws(StateError) {
                try tx.releaseLease(source: source, worker: self.worker)
                try tx.commit()
            } catch {
                tx.rollback()
                throw error
            }
        }
    }
}

extension StateGateway: HTTPCache {
    /// The HTTP client's store of earlier responses: the state's.
    public func storedBody(_ key: String) async throws(HTTPCacheError) -> [UInt8]? {
        do throws(StateError) { return try await cachedBody(key) } catch { throw HTTPCacheError(error.message) }
    }
}
