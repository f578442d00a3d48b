import Dispatch
import TributaryCore
#if canImport(Glibc)
import Glibc
#endif

/// Turns SIGINT/SIGTERM into a callback instead of death. Installed first thing in main, so a
/// signal that arrives during start-up is not lost.
/// Threading rule: `sources` is written once in init and only kept alive afterwards.
final class SignalWatcher: @unchecked Sendable {
    private let sources: [any DispatchSourceSignal]
    private let state = Locked<(received: Int32?, handler: (@Sendable (Int32) -> Void)?)>((nil, nil))

    init() {
        var list: [any DispatchSourceSignal] = []
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let src = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            list.append(src)
        }
        self.sources = list
        for (i, sig) in [SIGINT, SIGTERM].enumerated() {
            sources[i].setEventHandler { [self] in
                let handler = self.state.withLock { s -> (@Sendable (Int32) -> Void)? in
                    if s.received == nil { s.received = sig }
                    return s.handler
                }
                handler?(sig)
            }
            sources[i].resume()
        }
    }

    /// The first signal received, if any.
    var received: Int32? { state.withLock { $0.received } }

    /// Calls `handler` on every signal from now on (and at once if one already came).
    func onSignal(_ handler: @escaping @Sendable (Int32) -> Void) {
        let already = state.withLock { s -> Int32? in
            s.handler = handler
            return s.received
        }
        if let already { handler(already) }
    }
}
