/// A one-way "stop was requested" flag shared between the signal handler and the engine, which
/// tasks can also wait for.
public final class StopFlag: Sendable {
    private struct State {
        var isSet = false
        // A list, not a dictionary: there are one or two waiters, and a dictionary of
        // continuations was generic metadata built at every start (1% of `check`).
        var waiters: [(id: Int, continuation: CheckedContinuation<Void, Never>)] = []
        var nextID = 0
    }
    private let state = Locked(State())
    public init() {}

    public var isSet: Bool { state.withLock { $0.isSet } }

    public func set() {
        let waiting = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.isSet = true
            let w = s.waiters.map { $0.continuation }
            s.waiters.removeAll()
            return w
        }
        for c in waiting { c.resume() }
    }

    /// Returns once the flag is set, or when the waiting task is cancelled.
    public func wait() async {
        let id = state.withLock { s -> Int in
            s.nextID += 1
            return s.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { s -> Bool in
                    if s.isSet || Task.isCancelled { return true }
                    s.waiters.append((id, c))
                    return false
                }
                if resumeNow { c.resume() }
            }
        } onCancel: {
            let c = state.withLock { s -> CheckedContinuation<Void, Never>? in
                guard let i = s.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return s.waiters.remove(at: i).continuation
            }
            c?.resume()
        }
    }
}
