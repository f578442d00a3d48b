import Dispatch
import FoundationEssentials
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
        let log = runner.log
        guard let selected = runner.selectSources(), runner.preflight(selected) else { return 2 }
        if selected.isEmpty {
            log.error("watch: no enabled source to run")
            return 2
        }
        let opened = runner.openState()
        guard opened.ok, let state = opened.store else { return runner.notStarted() }
        guard let (transport, curl) = runner.makeTransport() else { return 2 }
        var server: MetricsServer?
        if let address = runner.config.metricsListen {
            // Its connections leave the descriptors the transfers and the rest need.
            let reserved = runner.config.http.concurrency + FileDescriptorLimit.reserve
            do throws(MetricsServerError) { server = try MetricsServer(host: address.host, port: address.port, reserved: reserved) } catch {
                log.error(error.message)
                return 2
            }
        }
        defer { server?.stop() }
        let stopping = StopFlag()
        let options = Delivery.Options(dedupeAcrossSources: false, stopOnFailure: stopping, lines: BuiltinRegistry.standard.itemLines, sinkNames: runner.config.sinks.map(\.name),
                                       worker: runner.worker, lease: runner.config.lease, waitsOutStateOutages: true,
                                       waitsOutSinkOutages: true)
        let delivery = Delivery(sinks: runner.config.sinks.map(\.sink), sinkFilters: runner.config.sinks.map(\.filter), state: state, options: options)
        do throws(SinkError) { try await delivery.open(warn: { log.warn($0, source: "sink") }) } catch {
            log.error("sink failed: \(error.message)")
            return 3
        }
        let publisher = MetricsPublisher(delivery: delivery, sources: runner.config.sources, file: runner.metricsFile, server: server, log: log)
        let publishing = publisher.file != nil || server != nil
        let updates = MetricsPublisher.Updates()
        let observer: @Sendable (EngineEvent) -> Void = { event in
            switch event {
            case .finished(let r, _, _, _, _):
                log.sourceFinished(r, level: .info)
                if publishing { updates.request() }
            case .delivered(let source):
                log.debug("batch delivered", source: source)
                if publishing { updates.request() }
            case .warning(let source, let message): log.warn(message, source: source)
            case .log(let source, let message): log.info(message, source: source)
            case .started: break
            }
        }
        log.info("watching \(selected.count) source\(selected.count == 1 ? "" : "s") (state: \(state.location), worker \(runner.worker)); SIGINT or SIGTERM stops",
                 fields: [("sources", .number(JSONNumber(selected.count))), ("state", .string(state.location)), ("worker", .string(runner.worker))])
        var publishTask: Task<Void, Never>?
        if publishing {
            // The state's metrics from the start, before any source has run.
            await publisher.publish()
            publishTask = Task { await updates.run(publisher) }
        }
        if let server {
            server.start()
            log.info("serving metrics at \(server.url)/metrics and \(server.url)/healthz", fields: [("url", .string(server.url))])
        }
        let engine = Engine(sources: selected, delivery: delivery, transport: transport,
                            options: Engine.Options(concurrency: runner.config.http.concurrency, grace: Self.gracePeriod), stopping: stopping)
        runner.signals.onSignal { sig in
            if !stopping.isSet {
                log.info("\(Runner.name(sig)) received: no new runs; finishing the ones in flight (up to \(Int(Self.gracePeriod)) s)")
            }
            curl?.refuseNewRequests()
            stopping.set()
        }
        // A sink failure is waited out (Delivery.Options.waitsOutSinkOutages); what sets
        // `stopping` besides a signal is a state error that is not an outage, or stdout's reader
        // leaving (Delivery.Options.stopOnFailure): nothing more could be delivered.
        await Scheduler(engine: engine, retention: runner.config.retention).run(observer: observer)
        curl?.shutdown()
        var sinkFailure = await delivery.sinkFailure
        if let e = await delivery.close() { sinkFailure = sinkFailure ?? e }
        updates.finish()
        await publishTask?.value
        await delivery.shutdown()
        if let e = sinkFailure {
            log.error("sink failed: \(e.message)")
        }
        if let sig = runner.signals.received {
            log.info("stopped by \(Runner.name(sig))")
            return sig == SIGINT ? 130 : 143
        }
        return sinkFailure == nil ? 0 : 3
    }
}
