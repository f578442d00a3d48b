import Dispatch
import Synchronization
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

    func run() async -> Int32 {
        let isTest = args.command == "test"
        var selected = config.sources
        if isTest {
            let name = args.positional[0]
            guard let s = config.sources.first(where: { $0.settings.name == name }) else {
                usageUnknown([name])
                return 2
            }
            selected = [s]
        } else if !args.only.isEmpty {
            let unknown = args.only.filter { n in !config.sources.contains { $0.settings.name == n } }
            if !unknown.isEmpty { usageUnknown(unknown); return 2 }
            selected = config.sources.filter { args.only.contains($0.settings.name) }
        } else {
            selected = config.sources.filter(\.settings.enabled)
        }

        let transport: any HTTPTransport
        var curl: CurlTransport? = nil
        do {
            if let dir = args.replay ?? config.replayDirectory {
                transport = try ReplayTransport(directory: dir)
            } else {
                let c = CurlTransport(settings: config.http)
                curl = c
                transport = try args.record.map { try RecordingTransport(inner: c, directory: $0) } ?? c
            }
        } catch {
            err.log("tributary: \(error)\n")
            return 2
        }

        let sinks: [any Sink]
        if isTest || args.jsonl {
            sinks = [JSONLSink(path: "-")]
        } else {
            sinks = config.sinks.map(\.sink)
        }
        let showProgress = !args.quiet && !isTest && err.isTerminal
        let progress = ProgressLine(enabled: showProgress, output: err)
        let verbose = args.verbose
        let engine = Engine(sources: selected, sinks: sinks, transport: transport)
        let task = Task {
            await engine.run { event in
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
        let start = DispatchTime.now().uptimeNanoseconds
        let curlForSignals = curl
        let signalCount = SignalCounter()
        signals.onSignal { sig in
            if signalCount.increment() > 1 {
                task.cancel()  // a second signal: stop now, without the grace period
                return
            }
            curlForSignals?.refuseNewRequests()
            progress.log("tributary: \(sig == SIGINT ? "SIGINT" : "SIGTERM") received: finishing transfers in flight (up to \(Int(Runner.gracePeriod)) s), then stopping\n")
            DispatchQueue.global().asyncAfter(deadline: .now() + Runner.gracePeriod) { task.cancel() }
        }
        let report = await task.value
        curl?.shutdown()
        progress.clear()
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        if !args.quiet && !isTest {
            err.log(Summary.render(report, elapsed: elapsed))
        } else if isTest, let r = report.sources.first, case .failed(let reason) = r.status {
            err.log("\(r.name): failed: \(reason)\n")
        }
        if let e = report.sinkError { err.log("tributary: sink failed: \(e.message)\n") }
        if let sig = signals.received { return sig == SIGINT ? 130 : 143 }
        return report.exitCode
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
    private let n = Mutex(0)
    func increment() -> Int { n.withLock { $0 += 1; return $0 } }
}

/// The one-line live progress display on a terminal's stderr.
final class ProgressLine: Sendable {
    let enabled: Bool
    let output: FDOutput
    private let state = Mutex<(shown: Bool, last: String)>((false, ""))
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
        case .failed(let reason): return "failed: \(reason)"
        case .stopped(let reason): return "stopped: \(reason)"
        }
    }

    static func seconds(_ s: Double) -> String {
        let ms = Int((s * 1000).rounded())
        return "\(ms / 1000).\(String(repeating: "0", count: 2 - min(2, String(ms % 1000 / 10).count)))\(ms % 1000 / 10)s"
    }

    static func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }

    static func render(_ report: RunReport, elapsed: Double) -> String {
        let nameW = max(4, report.sources.map(\.name.count).max() ?? 0)
        let typeW = max(4, report.sources.map(\.type.count).max() ?? 0)
        var s = ""
        for r in report.sources {
            s += pad(r.name, nameW) + "  " + pad(r.type, typeW) + "  " + status(r)
            s += "  \(r.fetched) fetched  \(r.new) new  \(seconds(r.seconds))\n"
        }
        let failed = report.sources.filter { if case .failed = $0.status { return true } else { return false } }.count
        let fetched = report.sources.reduce(0) { $0 + $1.fetched }
        s += "total: \(report.sources.count) source\(report.sources.count == 1 ? "" : "s"), \(failed) failed, \(fetched) fetched, \(report.delivered) new, \(seconds(elapsed))\n"
        return s
    }
}
