#if canImport(Glibc)
import Glibc
#endif

/// Who runs a source now, when several workers share one state (Docs/scale-out.md). The engine
/// leases a source before running it and renews the lease while it runs; the state decides who
/// gets it (`StateBackend.claimDue`, `lease`, `renewLease`).
public enum Leases {
    /// `state.lease` when the config does not set it.
    public static let defaultDuration = 120.0
    /// The shortest `state.lease` accepted.
    public static let minimumDuration = 1.0

    /// `<hostname>:<pid>`, this process's name in leases unless `--worker` gives one.
    public static var defaultWorker: String {
        var buf = [UInt8](repeating: 0, count: 256)
        let ok = buf.withUnsafeMutableBufferPointer { b in b.withMemoryRebound(to: CChar.self) { gethostname($0.baseAddress!, 255) } } == 0
        let host = ok ? String(decoding: buf.prefix { $0 != 0 }, as: UTF8.self) : "localhost"
        return "\(host):\(getpid())"
    }

    /// How often a running source's lease is renewed: about a third of its duration, so two
    /// renewals may fail (a slow batch on the delivery thread, a database blip) before it runs out.
    public static func renewInterval(_ lease: Double) -> Double { max(0.2, lease / 3) }
}

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

    /// Renews this worker's lease on `source`; nil while it is ours, else who holds it now.
    public func renewLease(source: String) async throws(StateError) -> String? {
        guard state != nil else { return nil }
        return try await thread.run { () throws(StateError) in
            try self.state!.renewLease(source: source, worker: self.options.worker, lease: self.options.lease)
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
