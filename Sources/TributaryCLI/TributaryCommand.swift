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

    /// Installs signal handling first, then runs the command line. Returns the exit code.
    public static func main(_ argv: [String]) async -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        ExecSource.claimAllChildren()  // this binary starts no process but exec programs
        let signals = SignalWatcher()
        let code = await dispatch(argv, signals: signals)
        return code
    }

    static func dispatch(_ argv: [String], signals: SignalWatcher) async -> Int32 {
        let args: Arguments
        do { args = try Arguments.parse(argv) } catch {
            err.log("tributary: \(error)\n")
            return 2
        }
        if args.help {
            out.log((Help.commands[args.command] ?? Help.main) + "\n")
            return 0
        }
        switch args.command {
        case "version":
            out.log("""
                tributary \(Tributary.version) (commit \(String(cString: tributary_build_commit())))
                libcurl \(CurlTransport.curlVersion)
                SQLite \(SQLiteState.sqliteVersion)

                """)
            return 0
        case "help":
            if let c = args.positional.first {
                guard let text = Help.commands[c] else {
                    err.log("tributary: no help for unknown command \"\(c)\"; commands: \(Arguments.commands.joined(separator: ", "))\n")
                    return 2
                }
                out.log(text + "\n")
            } else {
                out.log(Help.main + "\n")
            }
            return 0
        case "sources":
            out.log(Catalog.render(BuiltinRegistry.standard))
            return 0
        default:
            break
        }
        guard let config = loadConfig(args) else { return 2 }
        if args.command == "check" {
            if let problem = FileDescriptorLimit.ensure(transfers: config.http.concurrency) {
                err.log("\(config.file): \(problem)\n")
                return 2
            }
            let enabled = config.sources.filter(\.settings.enabled).count
            err.log("\(config.file): ok: \(config.sources.count) source\(config.sources.count == 1 ? "" : "s") (\(enabled) enabled), \(config.sinks.count) sink\(config.sinks.count == 1 ? "" : "s")\n")
            return 0
        }
        let runner = Runner(args: args, config: config, signals: signals)
        if args.command == "watch" { return await Watcher(runner: runner).run() }
        return await runner.run()
    }

    static func loadConfig(_ args: Arguments) -> Config? {
        var path = args.config
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
