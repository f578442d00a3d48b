import Dispatch
import Foundation
import TributaryCore
import TributaryPlugins
#if canImport(Glibc)
import Glibc
#endif

/// `tributary watch`: the engine's `Scheduler` under signal handling, with timestamped log
/// lines on stderr. SIGINT/SIGTERM: no new runs, the ones in flight get 10 s (the engine's
/// shutdown policy), the sinks are closed, exit 130/143.
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
        let stopping = StopFlag()
        let delivery = Delivery(sinks: runner.config.sinks.map(\.sink), sinkFilters: runner.config.sinks.map(\.filter), state: state, options: Delivery.Options(dedupeAcrossSources: false, stopOnFailure: stopping, lines: BuiltinRegistry.standard.itemLines))
        let out = err
        do throws(SinkError) { try await delivery.open(warn: { out.log(Self.stamp() + " warning: sink: \($0)\n") }) } catch {
            err.log("tributary: sink failed: \(error.message)\n")
            return 3
        }
        let quiet = args[Flags.quiet]
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
            out.log(Self.stamp() + " watching \(selected.count) source\(selected.count == 1 ? "" : "s") (state: \(state.location)); SIGINT or SIGTERM stops\n")
        }
        let engine = Engine(sources: selected, delivery: delivery, transport: transport,
                            options: Engine.Options(concurrency: runner.config.http.concurrency, grace: Self.gracePeriod), stopping: stopping)
        runner.signals.onSignal { sig in
            if !stopping.isSet && !quiet {
                out.log(Self.stamp() + " \(Runner.name(sig)) received: no new runs; finishing the ones in flight (up to \(Int(Self.gracePeriod)) s)\n")
            }
            curl?.refuseNewRequests()
            stopping.set()
        }
        // A failing sink sets `stopping` too (Delivery.Options.stopOnFailure): nothing more could
        // be delivered.
        await Scheduler(engine: engine, retention: runner.config.retention).run(observer: observer)
        curl?.shutdown()
        var sinkFailure = await delivery.sinkFailure
        if let e = await delivery.close() { sinkFailure = sinkFailure ?? e }
        await delivery.shutdown()
        if let e = sinkFailure {
            err.log("tributary: sink failed: \(e.message)\n")
        }
        if let sig = runner.signals.received {
            if !quiet { out.log(Self.stamp() + " stopped by \(Runner.name(sig))\n") }
            return sig == SIGINT ? 130 : 143
        }
        return sinkFailure == nil ? 0 : 3
    }

    static func stamp() -> String {
        var t = time_t(Timestamp.now().seconds)
        var tmv = tm()
        localtime_r(&t, &tmv)
        func p(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(p(tmv.tm_hour)):\(p(tmv.tm_min)):\(p(tmv.tm_sec))"
    }
}
