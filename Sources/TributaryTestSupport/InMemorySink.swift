import TributaryCore

/// A sink that keeps what it receives, for engine tests; can be told to fail.
public final class InMemorySink: Sink, Sendable {
    private let state = Locked<(items: [Item], batches: Int, closed: Bool)>(([], 0, false))
    private let failure: SinkError?
    private let failsAfter: Int

    /// `failWith`: every write fails with it after the first `after` batches were written.
    public init(failWith failure: SinkError? = nil, after: Int = 0) {
        self.failure = failure
        self.failsAfter = after
    }

    public func write(_ items: [Item]) throws(SinkError) {
        let failing = state.withLock { s -> Bool in
            if failure != nil && s.batches >= failsAfter { return true }
            s.items += items
            s.batches += 1
            return false
        }
        if failing, let failure { throw failure }
    }

    public func close() throws(SinkError) { state.withLock { $0.closed = true } }

    public var items: [Item] { state.withLock { $0.items } }
    public var batches: Int { state.withLock { $0.batches } }
    public var closed: Bool { state.withLock { $0.closed } }
}

/// A sink that only counts, for benchmarks: what a run costs without a sink's own work.
public final class NullSink: Sink, Sendable {
    private let count = Locked(0)
    public init() {}
    public func write(_ items: [Item]) throws(SinkError) { count.withLock { $0 += items.count } }
    public var written: Int { count.withLock { $0 } }
}
