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
    private let gateway: StateGateway

    init(gateway: StateGateway) { self.gateway = gateway }

    var isNeeded: Bool { gateway.state != nil }

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
        let every = Leases.renewInterval(gateway.leaseDuration)
        let held = self.held
        while !Task.isCancelled {
            try? await Task.sleep(nanoseconds: UInt64(every * 1e9))
            if Task.isCancelled { return }
            let lost: [String: String]
            do throws(StateError) {
                lost = try await gateway.renewLeases { held.withLock { $0.names.sorted() } }
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
