import Dispatch
import TributaryCore
import TributaryPlugins
#if canImport(Glibc)
import Glibc
#endif

/// `run` and `test`: builds the transport and sinks, runs the engine under signal handling,
/// prints progress and the summary on stderr, and maps the outcome to an exit code.
struct Runner {
    let args: Arguments
    let config: Config
    let signals: SignalWatcher
    let err = FDOutput.standardError

    /// Seconds in-flight transfers get to finish after SIGINT/SIGTERM before they are cancelled.
    static let gracePeriod = 5.0

    /// The sources this command runs: `test NAME`, `--only`, or every enabled one.
    func selectSources() -> [ConfiguredSource]? {
        if args.is(.test) {
            let name = args.positional[0]
            guard let s = config.sources.first(where: { $0.settings.name == name }) else {
                usageUnknown([name])
                return nil
            }
            return [s]
        }
        if !args.values(Flags.only).isEmpty {
            let unknown = args.values(Flags.only).filter { n in !config.sources.contains { $0.settings.name == n } }
            if !unknown.isEmpty { usageUnknown(unknown); return nil }
            return config.sources.filter { args.values(Flags.only).contains($0.settings.name) }
        }
        return config.sources.filter(\.settings.enabled)
    }

    /// The network (curl, optionally recording) or the recordings (replay).
    func makeTransport() -> (any HTTPTransport, CurlTransport?)? {
        if let problem = FileDescriptorLimit.ensure(transfers: config.http.concurrency) {
            err.log("tributary: \(problem)\n")
            return nil
        }
        do {
            // An explicit --record means the network, even when the config replays.
            if let dir = args.value(Flags.replay) ?? (args.value(ifDeclared: Flags.record) == nil ? config.replayDirectory : nil) {
                return (try ReplayTransport(directory: dir), nil)
            }
            let c = CurlTransport(settings: config.http)
            return (try args.value(ifDeclared: Flags.record).map { try RecordingTransport(inner: c, directory: $0) } ?? c, c)
        } catch {
            err.log("tributary: \(error)\n")
            return nil
        }
    }

    /// The state, unless `--no-state` or `test`; pruned of what retention says to forget.
    func openState() -> (ok: Bool, store: SQLiteState?) {
        if args.is(.test) || args.given(ifDeclared: Flags.noState) { return (true, nil) }
        let path = args.value(Flags.state) ?? config.statePath ?? SQLiteState.defaultPath()
        if dryRun {
            do throws(StateError) { return (true, try SQLiteState.readOnly(path: path)) } catch {
                err.log("tributary: \(error)\n")
                return (false, nil)
            }
        }
        do {
            let signals = self.signals
            let store = try SQLiteState(path: path, lockTimeout: config.lockTimeout, stopRequested: { signals.received != nil })
            let now = Timestamp.now().seconds
            try store.touchConfigured(config.sources.map(\.settings.name), now: now)
            try store.prune(retention: config.retention, now: now)
            return (true, store)
        } catch {
            err.log("tributary: \(error.message)\n")
            return (false, nil)
        }
    }

    /// `run --dry-run`: state read only, items to stdout, nothing written.
    var dryRun: Bool { args.given(ifDeclared: Flags.dryRun) }

    func run() async -> Int32 {
        let isTest = args.is(.test)
        let toStdout = isTest || dryRun || args.given(ifDeclared: Flags.jsonl)
        guard let selected = selectSources() else { return 2 }
        let opened = openState()
        guard opened.ok else { return notStarted() }
        guard let (transport, curl) = makeTransport() else { return 2 }
        let sinks: [any Sink] = toStdout ? [JSONLSink(path: "-")] : config.sinks.map(\.sink)
        let progress = ProgressLine(enabled: !args.given(ifDeclared: Flags.quiet) && !isTest && err.isTerminal, output: err)
        let stopping = StopFlag()
        let sinkFilters = toStdout ? [] : config.sinks.map(\.filter)
        let delivery = Delivery(sinks: sinks, sinkFilters: sinkFilters, state: opened.store, options: Delivery.Options(emitAll: args.given(ifDeclared: Flags.all), lines: BuiltinRegistry.standard.itemLines))
        let engine = Engine(sources: selected, delivery: delivery, transport: transport,
                            options: Engine.Options(respectSchedule: args.given(ifDeclared: Flags.respectSchedule), concurrency: config.http.concurrency, grace: Runner.gracePeriod),
                            stopping: stopping)
        let observer = Self.observer(progress: progress, verbose: args.given(ifDeclared: Flags.verbose))
        let task = Task { await engine.run(observer: observer) }
        let start = DispatchTime.now().uptimeNanoseconds
        let signalCount = SignalCounter()
        signals.onSignal { sig in
            if signalCount.increment() > 1 {
                task.cancel()  // a second signal: stop now, without the grace period
                return
            }
            curl?.refuseNewRequests()
            progress.log("tributary: \(Self.name(sig)) received: finishing transfers in flight (up to \(Int(Runner.gracePeriod)) s), then stopping\n")
            stopping.set()  // the engine's shutdown policy: no new source, cancel after the grace period
        }
        let report = await task.value
        await delivery.shutdown()
        curl?.shutdown()
        progress.clear()
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        if !args.given(ifDeclared: Flags.quiet) && !isTest {
            err.log(Summary.render(report, elapsed: elapsed, dryRun: dryRun))
        } else if isTest, let r = report.sources.first, case .failed(let reason) = r.status {
            err.log("\(r.name): failed: \(reason)\n")
        }
        if let e = report.sinkError { err.log("tributary: sink failed: \(e.message)\n") }
        if let sig = signals.received { return sig == SIGINT ? 130 : 143 }
        return report.exitCode
    }

    static func name(_ sig: Int32) -> String { sig == SIGINT ? "SIGINT" : "SIGTERM" }

    /// The exit code when the run could not start: 130/143 when a signal stopped it (waiting for
    /// the state lock), else 2.
    func notStarted() -> Int32 {
        guard let sig = signals.received else { return 2 }
        return sig == SIGINT ? 130 : 143
    }

    static func observer(progress: ProgressLine, verbose: Bool) -> @Sendable (EngineEvent) -> Void {
        { event in
            switch event {
            case .started(let total): progress.update(done: 0, total: total, items: 0, failures: 0)
            case .finished(let r, let done, let total, let items, let failures):
                if verbose { progress.log("\(r.name): \(Summary.status(r)), \(r.fetched) items\n") }
                progress.update(done: done, total: total, items: items, failures: failures)
            case .warning(let source, let message):
                progress.log("warning: \(source): \(message)\n")
            case .log(let source, let message):
                progress.log("\(source): \(message)\n")
            }
        }
    }

    func usageUnknown(_ names: [String]) {
        let known = config.sources.map(\.settings.name)
        for n in names {
            var msg = "tributary: no source named \"\(n)\" in \(config.file)"
            if let s = Suggest.closest(to: n, in: known) { msg += " (did you mean \"\(s)\"?)" }
            err.log(msg + "; sources: \(known.joined(separator: ", "))\n")
        }
    }
}

/// Counts signals received during a run.
final class SignalCounter: Sendable {
    private let n = Locked(0)
    func increment() -> Int { n.withLock { $0 += 1; return $0 } }
}

/// The one-line live progress display on a terminal's stderr.
final class ProgressLine: Sendable {
    let enabled: Bool
    let output: FDOutput
    private let state = Locked<(shown: Bool, last: String)>((false, ""))
    private let start = DispatchTime.now().uptimeNanoseconds

    init(enabled: Bool, output: FDOutput) {
        self.enabled = enabled
        self.output = output
    }

    func update(done: Int, total: Int, items: Int, failures: Int) {
        guard enabled else { return }
        let secs = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let line = "[\(done)/\(total) sources] \(items) items, \(failures) failed, \(Summary.seconds(secs))"
        state.withLock { s in
            s.shown = true
            s.last = line
            output.log("\r\u{1B}[K" + line)
        }
    }

    /// Prints a log line above the progress line.
    func log(_ text: String) {
        state.withLock { s in
            if enabled && s.shown { output.log("\r\u{1B}[K" + text + s.last) } else { output.log(text) }
        }
    }

    func clear() {
        state.withLock { s in
            if enabled && s.shown { output.log("\r\u{1B}[K") }
            s.shown = false
        }
    }
}

/// The end-of-run summary on stderr: one line per source, then a total.
enum Summary {
    static func status(_ r: SourceReport) -> String {
        switch r.status {
        case .ok: return "ok"
        case .notModified: return "not modified"
        case .failed(let reason): return "failed: \(reason)"
        case .skipped(let reason): return "skipped: \(reason)"
        case .stopped(let reason): return "stopped: \(reason)"
        }
    }

    static func seconds(_ s: Double) -> String {
        let ms = Int((s * 1000).rounded())
        return "\(ms / 1000).\(String(repeating: "0", count: 2 - min(2, String(ms % 1000 / 10).count)))\(ms % 1000 / 10)s"
    }

    static func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }

    /// One source's summary line (also what `watch` logs after each run).
    static func line(_ r: SourceReport, nameWidth: Int = 0, typeWidth: Int = 0) -> String {
        pad(r.name, nameWidth) + "  " + pad(r.type, typeWidth) + "  " + status(r) + "  \(r.fetched) fetched  \(r.new) new" + (r.filtered > 0 ? "  \(r.filtered) filtered" : "") + "  \(seconds(r.seconds))\n"
    }

    /// `dryRun`: the total says so (`dry run: nothing written`).
    static func render(_ report: RunReport, elapsed: Double, dryRun: Bool = false) -> String {
        let nameW = max(4, report.sources.map(\.name.count).max() ?? 0)
        let typeW = max(4, report.sources.map(\.type.count).max() ?? 0)
        var s = ""
        for r in report.sources { s += line(r, nameWidth: nameW, typeWidth: typeW) }
        let failed = report.sources.filter(\.isFailure).count
        let fetched = report.sources.reduce(0) { $0 + $1.fetched }
        let filtered = report.sources.reduce(0) { $0 + $1.filtered }
        s += "total: \(report.sources.count) source\(report.sources.count == 1 ? "" : "s"), \(failed) failed, \(fetched) fetched, \(report.delivered) new"
            + (filtered > 0 ? ", \(filtered) filtered" : "") + ", \(seconds(elapsed))"
            + (dryRun ? " (dry run: nothing written)" : "") + "\n"
        return s
    }
}
