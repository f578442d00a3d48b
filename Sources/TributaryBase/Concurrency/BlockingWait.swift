import Dispatch

/// Runs async work from a thread that may block, and waits for it there: how a sink's `write`,
/// synchronous on the delivery thread (Sink contract), uses the async HTTP client or a child
/// process.
///
/// Contract:
/// - Call it only from a dedicated thread (the delivery thread, a `SerialThread`), never from
///   the cooperative pool: the waiting thread would be one of the few the work itself needs.
/// - `body` runs in a new unstructured task on the cooperative pool. It must never wait for the
///   calling thread (the HTTP client waits for the curl thread, a child process for its own
///   thread; neither waits for the delivery thread), so the wait cannot deadlock.
/// - When `cancelWhen` is set (`SinkContext.interruption`: the run's grace period after
///   SIGINT/SIGTERM is over, or a second signal), the task is cancelled; `body` is expected to
///   end soon after (the HTTP client cancels its transfer or its wait before a retry, a child
///   process is killed with its tree), so a signal still ends the run.
///
/// The result crosses threads through a `Locked` box (a pthread mutex, which ThreadSanitizer
/// sees); the semaphore only says when to look.
public enum BlockingWait {
    public static func run<T: Sendable>(cancelWhen stop: StopFlag?, _ body: @escaping @Sendable () async -> T) -> T {
        let box = Locked<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        let task = Task {
            let value = await body()
            box.withLock { $0 = value }
            done.signal()
        }
        let watcher = stop.map { flag in
            Task {
                await flag.wait()
                if !Task.isCancelled { task.cancel() }
            }
        }
        done.wait()
        watcher?.cancel()
        return box.withLock { $0! }
    }

    /// `run` for work that throws: its value, or the error it threw (a `CancellationError` or
    /// the work's own kind of cancellation once `cancelWhen` is set).
    public static func result<T: Sendable, E: Error>(cancelWhen stop: StopFlag?, _ body: @escaping @Sendable () async throws(E) -> T) -> Result<T, E> {
        run(cancelWhen: stop) { () async -> Result<T, E> in
            do throws(E) {
                let value = try await body()
                return .success(value)
            } catch { return .failure(error) }
        }
    }
}
