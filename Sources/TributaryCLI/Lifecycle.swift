import Dispatch
import TributaryCore
import TributaryPlugins
#if canImport(Glibc)
import Glibc
#endif

/// The one lifecycle of `run`, `test` and `watch`. `Runner` composes what the command uses (its
/// sources, the state `StateChoice` decides, the transport, the sinks and the delivery); this
/// starts it, stops it, and ends it:
///
/// - SIGINT or SIGTERM (the first): the transport refuses new requests, no source starts, the
///   ones in flight get `grace` seconds, then they are cancelled (the engine's `StopFlag`); a
///   second signal cancels at once. The sinks are closed, the state shut, exit 130/143.
/// - `run` and `test` fetch every selected source once (`Engine.run`) and print the summary;
///   `watch` runs them on their intervals (`Scheduler`) until stopped, serves the metrics with
///   `metrics.listen`, and logs each source's run.
struct Lifecycle {
    /// How long sources in flight may go on after a stop is asked for, in every command.
    static let grace = 5.0

    let runner: Runner
    let watch: Bool

    /// How often the shipped systemd timer (`tributary.timer`) calls `run --respect-schedule`:
    /// the period `--respect-schedule` assumes without `=PERIOD`.
    static let timerPeriod = 300.0

    /// The due tolerance of `run --respect-schedule[=PERIOD]`: half the caller's period (the
    /// shipped timer's without a value), so a source that falls due just after a call runs at
    /// that call rather than a whole period late. 0 without the flag; nil (after saying why) for
    /// a PERIOD that is not a duration.
    static func dueTolerance(_ value: String?, log: Log) -> Double? {
        guard let value else { return 0 }
        if value.isEmpty { return timerPeriod / 2 }
        guard let period = Durations.parse(value), period > 0 else {
            log.error("--respect-schedule=\(value): expected how often the timer or cron entry calls, a duration such as 5m, 1m or 300")
            return nil
        }
        return period / 2
    }

    func run() async -> Int32 {
        let log = runner.log, config = runner.config
        guard let dueWithin = Self.dueTolerance(runner.args.value(ifDeclared: Flags.respectSchedule), log: log) else { return 2 }
        guard let selected = runner.selectSources(), runner.preflight(selected) else { return 2 }
        if watch && selected.isEmpty {
            log.error("watch: no enabled source to run")
            return 2
        }
        let state: (any StateBackend)?
        do throws(StateError) { state = try runner.openState() } catch {
            log.error(error.message)
            return runner.notStarted()
        }
        guard let (transport, curl) = runner.makeTransport() else { return 2 }
        var server: MetricsServer?
        if watch, let address = config.metricsListen {
            // Its connections leave the descriptors the transfers and the rest need.
            let reserved = config.http.concurrency + FileDescriptorLimit.reserve
            do throws(MetricsServerError) { server = try MetricsServer(host: address.host, port: address.port, reserved: reserved) } catch {
                log.error(error.message)
                return 2
            }
        }
        defer { server?.stop() }
        let stopping = StopFlag()
        // --verbose (--log-level debug): a line per HTTP request, the sinks' too (the webhook's).
        var sinkRequests: (@Sendable (String, HTTPRequestRecord) -> Void)? = nil
        if log.enabled(.debug) {
            sinkRequests = { @Sendable sink, r in log.debug("sink \(sink): " + r.message, fields: Log.fields(r) + [("sink", .string(sink))]) }
        }
        let delivery = runner.makeDelivery(state: state, stopping: stopping, watch: watch, requestLog: sinkRequests)
        var options = Engine.Options(respectSchedule: runner.args.given(ifDeclared: Flags.respectSchedule), dueWithin: dueWithin,
                                     concurrency: config.http.concurrency, grace: Self.grace, explain: runner.args.is(.test))
        if log.enabled(.debug) { options.requestLog = { source, r in log.debug(r.message, source: source, fields: Log.fields(r)) } }
        let engine = Engine(sources: selected, delivery: delivery, transport: transport, options: options, stopping: stopping)
        let start = DispatchTime.now().uptimeNanoseconds
        let code: Int32
        if watch {
            code = await watchSources(engine, delivery: delivery, server: server, curl: curl, selected: selected)
        } else {
            code = await runOnce(engine, delivery: delivery, curl: curl, start: start)
        }
        curl?.shutdown()
        if let sig = runner.signals.received {
            if watch { log.info("stopped by \(Runner.name(sig))") }
            return sig == SIGINT ? 130 : 143
        }
        return code
    }

    /// The one way a signal stops the command: the first asks the engine to stop (no new source,
    /// `grace` for the rest), a second cancels `task` at once.
    func stopOnSignals(_ stopping: StopFlag, curl: CurlTransport?, cancel: @escaping @Sendable () -> Void) {
        let log = runner.log
        let count = SignalCounter()
        runner.signals.onSignal { sig in
            if count.increment() > 1 {
                cancel()
                return
            }
            curl?.refuseNewRequests()
            log.warn("\(Runner.name(sig)) received: no new source starts; finishing the ones in flight (up to \(Int(Self.grace)) s), then stopping")
            stopping.set()
        }
    }

    /// `run` and `test`: every selected source once, then the summary.
    private func runOnce(_ engine: Engine, delivery: Delivery, curl: CurlTransport?, start: UInt64) async -> Int32 {
        let log = runner.log, args = runner.args
        let isTest = args.is(.test)
        let progress = log.progress
        // Items on the terminal the progress line is on: writes there go around it.
        if progress.enabled && FDOutput.standardOutput.isTerminal { FDOutput.standardOutput.setOverlay(progress) }
        let observer = Runner.observer(log: log)
        let task = Task { await engine.run(observer: observer) }
        stopOnSignals(engine.stopping, curl: curl, cancel: { task.cancel() })
        let report = await task.value
        // A dry run writes nothing, metrics included (--dry-run with --metrics-file is a usage error).
        if let file = runner.metricsFile, !isTest, !runner.dryRun {
            await MetricsPublisher(delivery: delivery, sources: runner.config.sources, file: file, server: nil, log: log).publish()
        }
        await delivery.shutdown()
        progress.clear()
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        if !isTest {
            log.summary(report, elapsed: elapsed, dryRun: runner.dryRun)
        } else if let r = report.sources.first, case .failed(let reason) = r.status {
            runner.err.log("\(r.name): failed: \(Log.escapeControls(reason))\n")
        }
        if let e = report.sinkError { log.error("sink failed: \(e.message)") }
        return report.exitCode
    }

    /// `watch`: the scheduler until stopped, with the metrics published as batches land.
    private func watchSources(_ engine: Engine, delivery: Delivery, server: MetricsServer?, curl: CurlTransport?, selected: [ConfiguredSource]) async -> Int32 {
        let log = runner.log, config = runner.config
        do throws(SinkError) { try await delivery.open(warn: { log.warn($0, source: "sink") }) } catch {
            log.error("sink failed: \(error.message)")
            await delivery.shutdown()
            return 3
        }
        let publisher = MetricsPublisher(delivery: delivery, sources: config.sources, file: runner.metricsFile, server: server, log: log)
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
        let location = delivery.state?.location ?? "none"
        log.info("watching \(selected.count) source\(selected.count == 1 ? "" : "s") (state: \(location), worker \(runner.worker)); SIGINT or SIGTERM stops",
                 fields: [("sources", .number(JSONNumber(selected.count))), ("state", .string(location)), ("worker", .string(runner.worker))])
        var publishTask: Task<Void, Never>?
        if publishing {
            // The state's metrics from the start, before any source has run.
            await publisher.publish()
            publishTask = Task { await updates.run(publisher) }
        }
        if let server {
            server.start()
            log.info("serving metrics at \(server.url)/metrics and \(server.url)/healthz, the status page at \(server.url)/", fields: [("url", .string(server.url))])
        }
        // A sink failure is waited out (Delivery.Options.waitsOutSinkOutages); what sets
        // `stopping` besides a signal is a state error that is not an outage, or stdout's reader
        // leaving (Delivery.Options.stopOnFailure): nothing more could be delivered.
        let task = Task { await Scheduler(engine: engine, retention: config.retention).run(observer: observer) }
        stopOnSignals(engine.stopping, curl: curl, cancel: { task.cancel() })
        await task.value
        curl?.shutdown()
        var sinkFailure = await delivery.sinkFailure
        if let e = await delivery.close() { sinkFailure = sinkFailure ?? e }
        updates.finish()
        await publishTask?.value
        await delivery.shutdown()
        if let e = sinkFailure { log.error("sink failed: \(e.message)") }
        return sinkFailure == nil ? 0 : 3
    }
}
