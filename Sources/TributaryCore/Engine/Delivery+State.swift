/// What the engine and the CLI read from the state outside a batch, on the delivery thread.
extension Delivery {
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

    /// The cumulative counters of these sources and of the sinks, for the metrics (`Metrics`);
    /// nil without state.
    public func metrics(sources: [(name: String, type: String)]) async throws(StateError) -> Metrics? {
        guard state != nil else { return nil }
        return try await thread.run { () throws(StateError) -> Metrics in
            let states = try self.state!.sourceStates(sources.map(\.name))
            let counters = try self.state!.counters()
            return Metrics(sources: sources, states: states, counters: counters, sinks: self.sinkNamesInOrder)
        }
    }
}

extension Delivery {
    /// Fresh responses as the state stores them.
    static func stored(_ responses: [(key: String, response: CachedResponse)]) -> [(key: String, response: StoredResponse)] {
        responses.map { ($0.key, StoredResponse(etag: $0.response.etag, lastModified: $0.response.lastModified, body: $0.response.body)) }
    }
}

/// The HTTP client's store of earlier responses: the state's, read on the delivery's thread.
struct StateHTTPCache: HTTPCache {
    let delivery: Delivery

    func storedBody(_ key: String) async throws(HTTPCacheError) -> [UInt8]? {
        do throws(StateError) { return try await delivery.cachedBody(key) } catch { throw HTTPCacheError(error.message) }
    }
}
