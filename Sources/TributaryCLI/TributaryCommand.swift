import CBuildInfo
import Dispatch
import TributaryCore
import TributaryPlugins
#if canImport(Glibc)
import Glibc
#endif

/// The `tributary` program: parses arguments, loads the config, runs the engine, prints the
/// summary and returns the exit code. Everything below it is a library and never prints.
public enum TributaryCommand {
    static let err = FDOutput.standardError
    static let out = FDOutput.standardOutput

    /// What is left of a command line once `start` has done the synchronous part.
    public enum Start: Sendable {
        /// The command is done (or failed): exit with this code.
        case finished(Int32)
        /// `run`, `watch` or `test`: the engine needs tasks.
        case needsTasks(Job)
    }

    /// A `run`, `watch` or `test` with its config loaded and signal handling installed.
    public struct Job: Sendable {
        let runner: Runner
        let watch: Bool

        public func run() async -> Int32 {
            if watch { return await Watcher(runner: runner).run() }
            return await runner.run()
        }
    }

    /// Runs the command line and returns the exit code.
    public static func main(_ argv: [String]) async -> Int32 {
        switch start(argv) {
        case .finished(let code): return code
        case .needsTasks(let job): return await job.run()
        }
    }

    /// Everything before the engine, on the calling thread and without tasks: the arguments,
    /// `--version`, `help`, `sources`, `check`, and the config of `run`/`watch`/`test`. So the
    /// commands that never fetch do not start the concurrency runtime's threads or dispatch's
    /// signal sources (`bench/run.sh startup` measures them).
    ///
    /// Signals: SIGINT and SIGTERM are ignored from the start. `run`, `watch` and `test` then
    /// install the SignalWatcher before their config is read, so a signal during their start-up
    /// is still seen; the other commands leave them ignored, as they were when every command
    /// installed the watcher and none of them had a handler.
    public static func start(_ argv: [String]) -> Start {
        signal(SIGPIPE, SIG_IGN)
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let args: Arguments
        do { args = try Arguments.parse(argv) } catch {
            err.log("tributary: \(error)\n")
            return .finished(2)
        }
        if args.help, let c = args.command {
            out.log(Help.command(c) + "\n")
            return .finished(0)
        }
        let fetches = args.is(.run) || args.is(.watch) || args.is(.test)
        // This binary starts no process but exec programs: their orphans are ours to reap.
        if fetches { ExecSource.claimAllChildren() }
        let signals = fetches ? SignalWatcher() : nil
        var job: Job?
        let code = dispatch(args, signals: signals, job: &job)
        if let job { return .needsTasks(job) }
        return .finished(code)
    }

    /// Runs a command that needs no tasks and returns its exit code, or sets `job` to what is
    /// left of `run`, `watch` or `test`.
    static func dispatch(_ args: Arguments, signals: SignalWatcher?, job: inout Job?) -> Int32 {
        guard let command = args.command else {
            out.log("""
                tributary \(Tributary.version) (commit \(String(cString: tributary_build_commit())))
                libcurl \(CurlTransport.curlVersion)
                SQLite \(SQLiteState.sqliteVersion)

                """)
            return 0
        }
        switch command.name {
        case .help:
            if args[Flags.man] {
                out.log(ManPage.render())
            } else if let c = args.positional.first {
                guard let named = Commands.named(c) else {
                    err.log("tributary: no help for unknown command \"\(c)\"; commands: \(Commands.all.map(\.name.rawValue).joined(separator: ", "))\n")
                    return 2
                }
                out.log(Help.command(named) + "\n")
            } else {
                out.log(Help.main + "\n")
            }
            return 0
        case .sources:
            out.log(Catalog.render(BuiltinRegistry.standard))
            return 0
        case .completion:
            guard let shell = args.positional.first.flatMap(Completion.Shell.init(rawValue:)) else { return 2 }
            out.log(Completion.script(shell))
            return 0
        case .run, .watch, .check, .test:
            break
        }
        guard let config = loadConfig(args) else { return 2 }
        if command.name == .check {
            if let problem = FileDescriptorLimit.ensure(transfers: config.http.concurrency) {
                err.log("\(config.file): \(problem)\n")
                return 2
            }
            let enabled = config.sources.filter(\.settings.enabled).count
            err.log("\(config.file): ok: \(config.sources.count) source\(config.sources.count == 1 ? "" : "s") (\(enabled) enabled), \(config.sinks.count) sink\(config.sinks.count == 1 ? "" : "s")\n")
            return 0
        }
        let runner = Runner(args: args, config: config, signals: signals ?? SignalWatcher())
        job = Job(runner: runner, watch: command.name == .watch)
        return 0
    }

    static func loadConfig(_ args: Arguments) -> Config? {
        var path = args.value(Flags.config)
        if path == nil {
            let candidates = ConfigLoader.searchPaths()
            path = candidates.first { access($0, F_OK) == 0 }
            if path == nil {
                err.log("tributary: no config file given and none found; looked in: \(candidates.joined(separator: ", ")) (use -c FILE)\n")
                return nil
            }
        }
        do {
            return try ConfigLoader.load(path: path!, registry: BuiltinRegistry.standard)
        } catch {
            let n = error.messages.count
            err.log(error.messages.joined(separator: "\n") + "\n")
            if n > 1 { err.log("tributary: \(n) config errors; nothing was fetched\n") }
            return nil
        }
    }
}
