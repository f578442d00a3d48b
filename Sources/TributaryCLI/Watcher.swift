import Dispatch
import Foundation
import TributaryCore
import TributaryPlugins
#if canImport(Glibc)
import Glibc
#endif

/// `tributary watch`: runs each source on its own interval (with jitter, with exponential
/// backoff while it fails), never two runs of one source at once, delivering through one shared
/// `Delivery` so sinks and state see each batch as it completes. SIGINT/SIGTERM: stop
/// scheduling, give runs in flight 10 s, then cancel; close the sinks; exit 130/143.
struct Watcher {
    let runner: Runner
    static let gracePeriod = 10.0

    var err: FDOutput { runner.err }

    func run() async -> Int32 {
        let args = runner.args
        guard let selected = runner.selectSources() else { return 2 }
        if selected.isEmpty {
            err.log("tributary: watch: no enabled source to run\n")
            return 2
        }
        let opened = runner.openState()
        guard opened.ok, let state = opened.store else { return runner.notStarted() }
        guard let (transport, curl) = runner.makeTransport() else { return 2 }
        let delivery = Delivery(sinks: runner.config.sinks.map(\.sink), state: state, emitAll: false, dedupeAcrossBatches: false)
        let out = err
        do throws(SinkError) { try delivery.open(warn: { out.log(Self.stamp() + " warning: sink: \($0)\n") }) } catch {
            err.log("tributary: sink failed: \(error.message)\n")
            return 3
        }
        let quiet = args.quiet
        let observer: @Sendable (EngineEvent) -> Void = { event in
            switch event {
            case .finished(let r, _, _, _, _):
                if !quiet { out.log(Self.stamp() + " " + Summary.line(r)) }
            case .warning(let source, let message): out.log(Self.stamp() + " warning: \(source): \(message)\n")
            case .log(let source, let message): out.log(Self.stamp() + " \(source): \(message)\n")
            case .started: break
            }
        }
        if !quiet {
            out.log(Self.stamp() + " watching \(selected.count) source\(selected.count == 1 ? "" : "s") (state: \(state.path)); SIGINT or SIGTERM stops\n")
        }
        let control = WatchControl()
        let stopping = StopFlag()
        signals(control: control, curl: curl, stopping: stopping)
        var lastPrune = Timestamp.now().seconds

        var running: [String: Task<Void, Never>] = [:]
        var sinkFailure: SinkError? = nil
        while !control.stopping {
            let now = Timestamp.now().seconds
            for (name, task) in running where control.isDone(name) {
                _ = task
                running[name] = nil
            }
            if let f = delivery.failure { sinkFailure = f; break }
            var soonest = now + 60
            for configured in selected where running[configured.settings.name] == nil {
                let name = configured.settings.name
                let due = (try? state.sourceState(name))??.nextDue ?? now
                if due <= now {
                    control.start(name)
                    let engine = Engine(sources: [configured], delivery: delivery, transport: transport, stopping: stopping)
                    running[name] = Task {
                        _ = await engine.runBatch(observer: observer)
                        control.finish(name)
                    }
                } else {
                    soonest = min(soonest, due)
                }
            }
            if now - lastPrune > 3600 {  // a long-running watch applies retention hourly
                lastPrune = now
                do { try state.prune(retention: runner.config.retention, now: now) } catch {
                    out.log(Self.stamp() + " warning: state: \(error.message)\n")
                }
            }
            let wait = max(0.05, min(1.0, soonest - Timestamp.now().seconds))
            await control.sleep(seconds: wait)
        }
        // Shutdown: no new runs; let the ones in flight finish, cancel them after the grace period.
        let deadline = Date().addingTimeInterval(Self.gracePeriod)
        while running.keys.contains(where: { !control.isDone($0) }) && Date() < deadline {
            try? await Task.sleep(nanoseconds: 50_000_000)
        }
        for (name, task) in running where !control.isDone(name) { task.cancel() }
        for (_, task) in running { await task.value }
        curl?.shutdown()
        if let e = delivery.close() { sinkFailure = sinkFailure ?? e }
        if let e = sinkFailure {
            err.log("tributary: sink failed: \(e.message)\n")
        }
        if let sig = runner.signals.received {
            if !quiet { out.log(Self.stamp() + " stopped by \(Runner.name(sig))\n") }
            return sig == SIGINT ? 130 : 143
        }
        return sinkFailure == nil ? 0 : 3
    }

    func signals(control: WatchControl, curl: CurlTransport?, stopping: StopFlag) {
        let out = err
        let quiet = runner.args.quiet
        runner.signals.onSignal { sig in
            if !control.stopping && !quiet {
                out.log(Self.stamp() + " \(Runner.name(sig)) received: no new runs; finishing the ones in flight (up to \(Int(Self.gracePeriod)) s)\n")
            }
            stopping.set()
            control.stop()
            curl?.refuseNewRequests()
        }
    }

    static func stamp() -> String {
        var t = time_t(Timestamp.now().seconds)
        var tmv = tm()
        localtime_r(&t, &tmv)
        func p(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(p(tmv.tm_hour)):\(p(tmv.tm_min)):\(p(tmv.tm_sec))"
    }
}

/// The watch loop's shared flags: which sources are running, and whether to stop.
final class WatchControl: Sendable {
    private let state = Locked<(stopping: Bool, active: Set<String>)>((false, []))

    var stopping: Bool { state.withLock { $0.stopping } }
    func stop() { state.withLock { $0.stopping = true } }
    func start(_ name: String) { state.withLock { _ = $0.active.insert(name) } }
    func finish(_ name: String) { state.withLock { _ = $0.active.remove(name) } }
    func isDone(_ name: String) -> Bool { state.withLock { !$0.active.contains(name) } }

    /// Sleeps in short steps so a stop request is noticed within 50 ms.
    func sleep(seconds: Double) async {
        var left = seconds
        while left > 0 && !stopping {
            let step = min(left, 0.05)
            try? await Task.sleep(nanoseconds: UInt64(step * 1e9))
            left -= step
        }
    }
}
