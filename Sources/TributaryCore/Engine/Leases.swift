#if canImport(Glibc)
import Glibc
#endif

extension Delivery {
    /// This process's name in leases.
    public var worker: String { options.worker }
    /// How long a lease lasts unless renewed.
    public var leaseDuration: Double { options.lease }

    /// Leases the due sources among `candidates` to this worker (`StateBackend.claimDue`).
    /// Without state every candidate is due.
    public func claimDue(_ candidates: [SourceKey], limit: Int, now: Double) async throws(StateError) -> DueClaim {
        guard state != nil else { return DueClaim(claimed: candidates.prefix(max(0, limit)).map { ($0.name, SourceState()) }, nextCheck: nil) }
        return try await thread.run { () throws(StateError) in
            try self.state!.claimDue(candidates, worker: self.options.worker, lease: self.options.lease, limit: limit, now: now)
        }
    }

    /// Leases these sources to this worker, due or not; returns those another worker holds,
    /// with its name (`StateBackend.lease`).
    public func lease(_ sources: [SourceKey]) async throws(StateError) -> [String: String] {
        guard state != nil else { return [:] }
        return try await thread.run { () throws(StateError) in
            try self.state!.lease(sources, worker: self.options.worker, lease: self.options.lease)
        }
    }

    /// Renews this worker's leases on the sources `held()` names, read on the delivery thread
    /// (so a source dropped before its `finish` is never renewed after it); returns those lost,
    /// with who holds them now (`StateBackend.renewLeases`).
    func renewLeases(_ held: @escaping @Sendable () -> [String]) async throws(StateError) -> [String: String] {
        guard state != nil else { return [:] }
        return try await thread.run { () throws(StateError) in
            try self.state!.renewLeases(held(), worker: self.options.worker, lease: self.options.lease)
        }
    }

    /// Ends this worker's lease on `source` without recording a run (a source skipped for its quota).
    public func releaseLease(source: String) async throws(StateError) {
        guard state != nil else { return }
        try await thread.run { () throws(StateError) in
            let tx = try self.state!.begin()
            do throws(StateError) {
                try tx.releaseLease(source: source, worker: self.options.worker)
                try tx.commit()
            } catch {
                tx.rollback()
                throw error
            }
        }
    }
}

/// Keeps this worker's leases while a `run` or `watch` goes on: one task renews, about every
/// third of `state.lease`, the leases of every source held (leased and not finished: running,
/// or waiting for a slot in a `run`), in one statement, and says once per source when one was
/// lost. Without state there is nothing to keep and nothing is held.
final class LeaseKeeper: Sendable {
    private struct Held {
        var names = Set<String>()
        var warned = Set<String>()
    }
    private let held = Locked(Held())
    private let delivery: Delivery

    init(delivery: Delivery) { self.delivery = delivery }

    var isNeeded: Bool { delivery.state != nil }

    /// Sources leased to this worker from now on, until `drop`.
    func hold(_ names: some Sequence<String>) {
        guard isNeeded else { return }
        held.withLock { $0.names.formUnion(names) }
    }

    /// A source whose lease ends now (before its run's record releases it).
    func drop(_ name: String) {
        guard isNeeded else { return }
        held.withLock { h in
            h.names.remove(name)
            h.warned.remove(name)  // a later run (`watch`) is warned again
        }
    }

    /// Renews the held leases until cancelled.
    func keep(observer: @escaping @Sendable (EngineEvent) -> Void) async {
        guard isNeeded else { return }
        let every = Leases.renewInterval(delivery.leaseDuration)
        let held = self.held
        while !Task.isCancelled {
            try? await Task.sleep(nanoseconds: UInt64(every * 1e9))
            if Task.isCancelled { return }
            let lost: [String: String]
            do throws(StateError) {
                lost = try await delivery.renewLeases { held.withLock { $0.names.sorted() } }
            } catch {
                let names = held.withLock { h in
                    let n = h.names.subtracting(h.warned).sorted()
                    h.warned.formUnion(n)
                    return n
                }
                for name in names { observer(.warning(source: name, message: "state: cannot renew the lease: \(error.message)")) }
                continue
            }
            let news = held.withLock { h in
                let n = lost.filter { !h.warned.contains($0.key) && h.names.contains($0.key) }.sorted { $0.key < $1.key }
                h.warned.formUnion(n.map(\.key))
                return n
            }
            for (name, holder) in news {
                observer(.warning(source: name, message: "lease lost to \(holder.isEmpty ? "nobody" : holder) (it ran out before it was renewed): another worker may run this source too"))
            }
        }
    }
}
