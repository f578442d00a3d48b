import TributaryCore

/// What a sink that hands each batch to something outside (a program, a server) and waits for
/// it shares (the `exec` and `webhook` sinks): the `SinkContext` its `open` was given, kept for
/// its `write`s (warnings, rejections, the run's interruption), and the wait in `write`, on the
/// delivery thread, for async work that the run's interruption cancels (`BlockingWait`).
///
/// Only the delivery thread calls a sink (the `Sink` contract), so the lock is never contended;
/// it makes the sink `Sendable` without `@unchecked`.
public final class BatchHandOff: Sendable {
    private let opened = Locked(SinkContext(window: nil))

    public init() {}

    /// Keeps the sink's context (its `open`).
    public func open(_ context: SinkContext) {
        opened.withLock { $0 = context }
    }

    /// The context `open` kept; before `open`, one without state or interruption.
    public var context: SinkContext { opened.withLock { $0 } }

    /// Runs `body` and waits here for its value or its error; once the run is interrupted
    /// (`SinkContext.interruption`), `body` is cancelled and is expected to end soon.
    public func wait<T: Sendable, E: Error>(_ body: @escaping @Sendable () async throws(E) -> T) -> Result<T, E> {
        BlockingWait.result(cancelWhen: context.interruption, body)
    }
}
