import TributaryCore

/// A sink that keeps what it receives, for engine tests; can be told to fail.
public final class InMemorySink: Sink, Sendable {
    private let state = Locked<(items: [Item], batches: Int, closed: Bool)>(([], 0, false))
    private let failure: SinkError?

    public init(failWith failure: SinkError? = nil) { self.failure = failure }

    public func write(_ items: [Item]) throws(SinkError) {
        if let failure { throw failure }
        state.withLock { $0.items += items; $0.batches += 1 }
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
