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
        /// The command is done (or failed): exit with this code. `kept`: what the command
        /// leaves for the exit to free (`check`'s config: freeing 10,000 sources one by one was
        /// 7% of it); the program holds it while it exits, a caller of `main` frees it.
        case finished(Int32, kept: Config? = nil)
        /// `run`, `watch` or `test`: the engine needs tasks.
        case needsTasks(Job)
    }

    /// A `run`, `watch` or `test` with its config loaded and signal handling installed.
    public struct Job: Sendable {
        let runner: Runner
        let watch: Bool

        public func run() async -> Int32 { await Lifecycle(runner: runner, watch: watch).run() }
    }

    /// The arguments after the program's name, as the C runtime handed them over (argc and
    /// argv, saved by a constructor in CBuildInfo), not `CommandLine.arguments`: the Swift
    /// runtime finds those by walking back from `environ`, and finds none once a preloaded
    /// library (libfaketime) has moved the environment, so `watch` under such a wrapper read
    /// as a bare `tributary`. `CommandLine.arguments` only if no constructor ran.
    public static func processArguments() -> [String] {
        let argc = Int(tributary_argc())
        guard argc >= 0, let argv = tributary_argv() else { return Array(CommandLine.arguments.dropFirst()) }
        return (0..<argc).dropFirst().map { argv[$0].map { String(cString: $0) } ?? "" }
    }

    /// Runs the command line and returns the exit code.
    public static func main(_ argv: [String]) async -> Int32 {
        switch start(argv) {
        case .finished(let code, _): return code
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
            if argv.isEmpty { err.log(Help.main + "\n\n") }
            err.log("tributary: \(error)\n")
            return .finished(2)
        }
        if args.help, let c = args.command {
            out.log(Help.command(c) + "\n")
            return .finished(0)
        }
        let fetches = args.is(.run) || args.is(.watch) || args.is(.test)
        // This binary starts no process but exec programs: their orphans are ours to reap.
        if fetches { for prepare in BuiltinRegistry.standard.preparations { prepare() } }
        let signals = fetches ? SignalWatcher() : nil
        var job: Job?
        var kept: Config?
        let code = dispatch(args, signals: signals, job: &job, kept: &kept)
        if let job { return .needsTasks(job) }
        return .finished(code, kept: kept)
    }

    /// Runs a command that needs no tasks and returns its exit code, or sets `job` to what is
    /// left of `run`, `watch` or `test`.
    static func dispatch(_ args: Arguments, signals: SignalWatcher?, job: inout Job?, kept: inout Config?) -> Int32 {
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
            if args[Flags.names] { return sourceNames(args) }
            out.log(Catalog.render(BuiltinRegistry.standard))
            return 0
        case .initConfig:
            return StarterConfig.write(to: args.positional.first, force: args[Flags.force], out: out, err: err)
        case .completion:
            guard let shell = args.positional.first.flatMap(Completion.Shell.init(rawValue:)) else { return 2 }
            out.log(Completion.script(shell))
            return 0
        case .import:
            guard let format = BuiltinRegistry.standard.format(args.positional[0]) else { return 2 }
            switch format.importList(args.positional[1]) {
            case .failure(let e):
                err.log(e.messages.map { "tributary: \($0)\n" }.joined())
                return 2
            case .success(let outcome):
                for w in outcome.warnings { err.log(w + "\n") }
                do { try out.write(outcome.document) } catch { return 1 }
                return 0
            }
        case .search:
            // --db needs no config; without it, the config's only sqlite sink.
            let path: String
            if let db = args.value(Flags.db) {
                path = db
            } else {
                guard let config = loadConfig(args), let found = SearchCommand.database(config, err: err) else { return 2 }
                path = found
            }
            return SearchCommand.run(query: args.positional[0], path: path, limit: args.value(Flags.limit), json: args[Flags.jsonItems],
                                     lines: BuiltinRegistry.standard.itemLines, out: out, err: err)
        case .run, .watch, .check, .test, .status, .export:
            break
        }
        guard let config = loadConfig(args) else { return 2 }
        if command.name == .status {
            // The state `run` would open (`StateChoice`).
            guard let location = StateChoice.decide(args, config).statusLocation else { return 2 }
            return StatusCommand.run(config: config, location: location, json: args[Flags.json], out: out, err: err)
        }
        if command.name == .check {
            kept = config
            return check(config, args)
        }
        if command.name == .export, let format = BuiltinRegistry.standard.format(args.positional[0]) {
            let outcome = format.exportList(config)
            for w in outcome.warnings { err.log(w + "\n") }
            do { try out.write(outcome.document) } catch { return 1 }
            return 0
        }
        let runner = Runner(args: args, config: config, signals: signals ?? SignalWatcher())
        job = Job(runner: runner, watch: command.name == .watch)
        return 0
    }

    /// `check`: the config loaded, then what the machine would stop a run on: the open-file
    /// limit, the enabled sources' programs, the state folder and the sinks' folders.
    static func check(_ config: Config, _ args: Arguments) -> Int32 {
        if let problem = FileDescriptorLimit.ensure(transfers: config.http.concurrency) {
            err.log("\(config.file): \(problem)\n")
            return 2
        }
        let enabled = config.sources.filter(\.settings.enabled)
        for note in config.sources.flatMap(\.unresolved) {
            err.log("warning: \(note); not an error while the source is disabled\n")
        }
        let problems = config.preflight(sources: enabled, sinks: config.sinks, state: StateChoice.decide(args, config).fileToWrite)
        if !problems.isEmpty {
            err.log(problems.joined(separator: "\n") + "\n")
            err.log("tributary: \(problems.count) problem\(problems.count == 1 ? "" : "s") a run would stop on; nothing was fetched\n")
            return 2
        }
        func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
        let files = config.files.count > 1 || config.files.first != config.file ? count(config.files.count, "file") + ", " : ""
        err.log("\(config.file): ok: \(files)\(count(config.sources.count, "source")) (\(enabled.count) enabled), \(count(config.sinks.count, "sink"))\n")
        return 0
    }

    /// `sources --names`: the config's source names, one per line, for the completion scripts.
    /// Quiet: a config that is missing or has errors prints nothing (exit 2). No source is
    /// selected, so an unset `${VAR}` in one is no error here.
    static func sourceNames(_ args: Arguments) -> Int32 {
        guard let path = args.value(Flags.config) ?? ConfigLoader.searchPaths().first(where: { access($0, F_OK) == 0 }),
              let config = try? ConfigLoader.load(path: path, registry: BuiltinRegistry.standard, selection: .named([])) else { return 2 }
        out.log(config.sources.map { $0.settings.name + "\n" }.joined())
        return 0
    }

    /// Which sources the command runs, so that only their unset variables are errors.
    static func selection(_ args: Arguments) -> SourceSelection {
        if args.is(.test) { return .named(args.positional) }
        if args.is(.run) || args.is(.watch), !args.values(Flags.only).isEmpty { return .named(args.values(Flags.only)) }
        return .enabled
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
            var config = try ConfigLoader.load(path: path!, registry: BuiltinRegistry.standard, selection: selection(args))
            // Each source's config object as written is for `export opml` (and its `tags` for the
            // status page's filter, `StatusRecord.tags`) only: a run that kept it kept the whole
            // parsed config (7 MB of 10,000 sources' objects) to its end. `watch` keeps the tags.
            if args.is(.run) || args.is(.watch) || args.is(.test) {
                let keepTags = args.is(.watch)
                for i in config.sources.indices {
                    let tags = keepTags ? config.sources[i].written?["tags"] : nil
                    // A copy: the tree's own would keep its pages (see `ConfigLoader.assemble`).
                    config.sources[i].written = tags.map { JSONObject([("tags", $0.detached())]) }
                }
            }
            // What loading freed (the file's bytes, its tape and JSON tree) sits in the main
            // thread's malloc arena, which the run's threads, allocating from arenas of their
            // own, do not reuse: a large config's load and its run added up in peak RSS. Given
            // back to the kernel before the run starts (Docs/PERFORMANCE.md, "Many sources").
            if args.is(.run) || args.is(.watch) || args.is(.test) { FreedMemory.giveBack() }
            return config
        } catch {
            let n = error.messages.count
            err.log(error.messages.joined(separator: "\n") + "\n")
            if n > 1 { err.log("tributary: \(n) config errors; nothing was fetched\n") }
            return nil
        }
    }
}
