/// A source's incremental cursor for one run (the engine hook behind `FetchContext.cursor` and
/// `proposeCursor`): where the stored value is read from, and the value the source proposes
/// for the next run. The engine keeps the proposal only when the run succeeded, in the state
/// transaction that records the run (`Delivery.finish`), so it advances only after the sinks
/// wrote every batch, never on a failed or stopped run, never under `--dry-run` (whose state
/// writes nothing) and never without a state. Any source may use it; the `json` source's
/// `incremental` does.
///
/// Threading rule: the proposal is read and written only under its lock (`Locked`).
public final class CursorSlot: Sendable {
    /// The state's namespace of cursors (`StateBackend.values`), keyed by source name.
    public static let namespace = "cursor"

    private let load: @Sendable () async throws(SourceError) -> String?
    private let proposal = Locked<String?>(nil)

    /// `load` reads the stored value (nil: none); called only when a source asks.
    public init(load: @escaping @Sendable () async throws(SourceError) -> String?) {
        self.load = load
    }

    /// A slot with nothing stored that keeps nothing (no state: `--no-state`, tests).
    public static func empty() -> CursorSlot { CursorSlot(load: { () throws(SourceError) -> String? in nil }) }

    /// The value the last successful run kept, read now (an error names the state's problem).
    public func stored() async throws(SourceError) -> String? { try await load() }

    /// Replaces the proposal: the value to keep if this run succeeds.
    public func propose(_ value: String) { proposal.withLock { $0 = value } }

    /// The last value proposed in this run, if any.
    public var proposed: String? { proposal.withLock { $0 } }
}
