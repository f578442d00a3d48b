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
    /// The log on stderr (`--log-format`, `--log-level`), drawn around the progress line.
    let log: Log

    init(args: Arguments, config: Config, signals: SignalWatcher) {
        self.args = args
        self.config = config
        self.signals = signals
        let level = Self.logLevel(args)
        let format = args.value(ifDeclared: Flags.logFormat).flatMap(LogFormat.init(rawValue:)) ?? .text
        // The progress line is for a person at a terminal: not with JSON logs, not under -q.
        let progress = ProgressLine(enabled: args.is(.run) && format == .text && level <= .info && FDOutput.standardError.isTerminal, output: FDOutput.standardError)
        log = Log(format: format, level: level, progress: progress)
    }

    /// `--log-level`, else `--quiet` (warn) or `--verbose` (debug), else info.
    static func logLevel(_ args: Arguments) -> LogLevel {
        guard args.is(.run) || args.is(.watch) else { return .info }
        if let l = args.value(ifDeclared: Flags.logLevel).flatMap(LogLevel.init(rawValue:)) { return l }
        if args.given(ifDeclared: Flags.quiet) { return .warn }
        if args.given(ifDeclared: Flags.verbose) { return .debug }
        return .info
    }

    /// `--metrics-file`, else `metrics.file`.
    var metricsFile: String? {
        guard args.is(.run) || args.is(.watch) else { return nil }
        return args.value(ifDeclared: Flags.metricsFile) ?? config.metricsFile
    }

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
        // The config's own list when every source is enabled: a copy of 10,000 sources is 4 MB.
        if config.sources.allSatisfy(\.settings.enabled) { return config.sources }
        return config.sources.filter(\.settings.enabled)
    }

    /// `check`'s machine checks for what this command will use, before anything is fetched:
    /// the programs of the sources it runs, the folders of the sinks it writes (none for `test`,
    /// `--jsonl` or `--dry-run`) and of the state file it writes (none for `test`, `--no-state`
    /// or `--dry-run`, which only reads it). False (after saying why) when any fails.
    func preflight(_ selected: [ConfiguredSource]) -> Bool {
        let isTest = args.is(.test)
        let writesSinks = !isTest && !dryRun && !args.given(ifDeclared: Flags.jsonl)
        let usesState = !isTest && !dryRun && !args.given(ifDeclared: Flags.noState)
        let state = usesState ? StateChoice.decide(args, config).fileToWrite : nil
        let problems = config.preflight(sources: selected, sinks: writesSinks ? config.sinks : [], state: state)
        guard !problems.isEmpty else { return true }
        err.log(problems.joined(separator: "\n") + "\n")
        err.log("tributary: \(problems.count) problem\(problems.count == 1 ? "" : "s") found before fetching; nothing was fetched\n")
        return false
    }

    /// The network (curl, optionally recording) or the recordings (replay).
    func makeTransport() -> (any HTTPTransport, CurlTransport?)? {
        if let problem = FileDescriptorLimit.ensure(transfers: config.http.concurrency) {
            log.error(problem)
            return nil
        }
        do {
            // An explicit --record means the network, even when the config replays.
            if let dir = args.value(Flags.replay) ?? (args.value(ifDeclared: Flags.record) == nil ? config.replayDirectory : nil) {
                return (try ReplayTransport(directory: dir), nil)
            }
            let c = CurlTransport(settings: config.http)
            let log = self.log
            c.notice = { log.debug($0) }
            return (try args.value(ifDeclared: Flags.record).map { try RecordingTransport(inner: c, directory: $0) } ?? c, c)
        } catch {
            log.error("\(error)")
            return nil
        }
    }

    /// The state this command uses (`StateChoice`: decided once): none for `test` and
    /// `--no-state`, read only for `--dry-run`, else locked or reached, marked and pruned. A
    /// state that cannot be opened fails here: exit 2, nothing fetched.
    func openState() throws(StateError) -> (any StateBackend)? {
        let choice = StateChoice.decide(args, config)
        if dryRun { return try choice.openForDryRun() }
        let signals = self.signals
        return try choice.openForWriting(config, stopRequested: { signals.received != nil })
    }

    /// `run --dry-run`: state read only, items to stdout, nothing written.
    var dryRun: Bool { args.given(ifDeclared: Flags.dryRun) }

    /// The delivery of this command: the configured sinks, or JSON Lines on stdout (`test`,
    /// `--jsonl`, `--dry-run`), over `state`, with `watch`'s policies when `watch` (ids kept apart
    /// per source run, sink and state outages waited out).
    /// `requestLog`: where the sinks' HTTP requests are logged (`--verbose`).
    func makeDelivery(state: (any StateBackend)?, stopping: StopFlag, watch: Bool,
                      requestLog: (@Sendable (_ sink: String, _ record: HTTPRequestRecord) -> Void)? = nil) -> Delivery {
        let toStdout = args.is(.test) || dryRun || args.given(ifDeclared: Flags.jsonl)
        let stdoutLines = ConfigLoader.sink([("type", .string("jsonl")), ("path", .string("-"))], registry: BuiltinRegistry.standard)
        let sinks: [any Sink] = toStdout ? stdoutLines.map { [$0.sink] } ?? [] : config.sinks.map(\.sink)
        var options = Delivery.Options(emitAll: args.given(ifDeclared: Flags.all), dedupeAcrossSources: !watch, stopOnFailure: watch ? stopping : nil,
                                       lines: BuiltinRegistry.standard.itemLines, sinkNames: toStdout ? ["stdout"] : config.sinks.map(\.name),
                                       worker: worker, lease: config.lease, waitsOutStateOutages: watch, waitsOutSinkOutages: watch,
                                       stories: testStories ?? config.stories, retention: config.retention)
        options.requestLog = requestLog
        return Delivery(sinks: sinks, sinkFilters: toStdout ? [] : config.sinks.map(\.filter), state: state, options: options)
    }

    /// `test NAME` shows every item the source gives with its story: `action: drop` keeps
    /// nothing back there.
    var testStories: StorySettings? {
        guard args.is(.test), var s = config.stories else { return nil }
        s.action = .tag
        return s
    }

    /// This process's name in leases: `--worker`, else `<hostname>:<pid>`.
    var worker: String { args.value(ifDeclared: Flags.worker) ?? Leases.defaultWorker }

    static func name(_ sig: Int32) -> String { sig == SIGINT ? "SIGINT" : "SIGTERM" }

    /// The exit code when the run could not start: 130/143 when a signal stopped it (waiting for
    /// the state lock), else 2.
    func notStarted() -> Int32 {
        guard let sig = signals.received else { return 2 }
        return sig == SIGINT ? 130 : 143
    }

    static func observer(log: Log) -> @Sendable (EngineEvent) -> Void {
        let progress = log.progress
        return { event in
            switch event {
            case .started(let total): progress.update(done: 0, total: total, items: 0, failures: 0)
            case .finished(let r, let done, let total, let items, let failures):
                if log.enabled(.debug) { log.debug("\(Summary.status(r)), \(r.fetched) items", source: r.name, fields: Log.fields(r)) }
                progress.update(done: done, total: total, items: items, failures: failures)
            case .warning(let source, let message):
                log.warn(message, source: source)
            case .log(let source, let message):
                log.info(message, source: source)
            case .delivered: break
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

    /// One source's summary line (also what `watch` logs after each run); the status's reason,
    /// which may quote a server or a program, with its control characters escaped.
    static func line(_ r: SourceReport, nameWidth: Int = 0, typeWidth: Int = 0) -> String {
        pad(r.name, nameWidth) + "  " + pad(r.type, typeWidth) + "  " + Log.escapeControls(status(r)) + "  \(r.fetched) fetched  \(r.new) new" + counts(r.processed, separator: "  ")
            + (r.rejected > 0 ? "  \(r.rejected) rejected" : "") + "  \(seconds(r.seconds))\n"
    }

    /// What the processing stage counted, `filtered` first, then `skipped`, then the others by
    /// name: `  2 filtered  1 skipped` (only the ones above 0).
    static func counts(_ processed: [ProcessingTally.Label: Int], separator: String) -> String {
        let first: [ProcessingTally.Label] = [.filtered, .skipped]
        let rest = processed.keys.filter { !first.contains($0) }.sorted()
        var s = ""
        for label in first + rest { if let n = processed[label], n > 0 { s += separator + "\(n) \(label.name)" } }
        return s
    }

    /// `dryRun`: the total says so (`dry run: nothing written`).
    static func render(_ report: RunReport, elapsed: Double, dryRun: Bool = false) -> String {
        let nameW = max(4, report.sources.map(\.name.count).max() ?? 0)
        let typeW = max(4, report.sources.map(\.type.count).max() ?? 0)
        var s = ""
        for r in report.sources { s += line(r, nameWidth: nameW, typeWidth: typeW) }
        let failed = report.sources.filter(\.isFailure).count
        let fetched = report.sources.reduce(0) { $0 + $1.fetched }
        var processed: [ProcessingTally.Label: Int] = [:]
        for r in report.sources { processed.merge(r.processed, uniquingKeysWith: +) }
        s += "total: \(report.sources.count) source\(report.sources.count == 1 ? "" : "s"), \(failed) failed, \(fetched) fetched, \(report.delivered) new"
            + counts(processed, separator: ", ") + (report.rejected > 0 ? ", \(report.rejected) rejected" : "") + ", \(seconds(elapsed))"
            + (dryRun ? " (dry run: nothing written)" : "") + "\n"
        return s
    }
}
