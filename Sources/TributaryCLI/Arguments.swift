/// The parsed command line. Hand-written parsing: `--key value` and `--key=value`, `-c FILE`,
/// `--` ends options; anything unknown is a usage error (exit 2).
struct Arguments {
    var command = ""
    var config: String?
    var only: [String] = []
    var jsonl = false
    var all = false
    var noState = false
    var statePath: String?
    var worker: String?
    var record: String?
    var replay: String?
    var respectSchedule = false
    var quiet = false
    var verbose = false
    var help = false
    var positional: [String] = []

    struct UsageError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    static let commands = ["run", "watch", "check", "sources", "test", "help"]

    /// Flags each command takes (value-taking ones end in "=").
    static let flags: [String: [String]] = [
        "run": ["-c=", "--config=", "--only=", "--jsonl", "--all", "--no-state", "--state=", "--record=", "--replay=", "--quiet", "-q", "--verbose", "-v", "--respect-schedule", "--worker="],
        "watch": ["-c=", "--config=", "--only=", "--state=", "--replay=", "--quiet", "-q", "--worker="],
        "check": ["-c=", "--config="],
        "sources": [],
        "test": ["-c=", "--config=", "--replay=", "--record="],
        "help": [],
    ]

    static func parse(_ argv: [String]) throws(UsageError) -> Arguments {
        var a = Arguments()
        var i = 0
        var rest = argv
        if rest.first == "--help" || rest.first == "-h" { a.command = "help"; return a }
        if rest.first == "--version" || rest.first == "-V" { a.command = "version"; return a }
        guard let cmd = rest.first else { a.command = "help"; return a }
        guard commands.contains(cmd) else {
            var msg = "unknown command \"\(cmd)\""
            if let s = closest(cmd, commands + ["--help", "--version"]) { msg += " (did you mean \"\(s)\"?)" }
            throw UsageError(message: msg + "; see `tributary --help`")
        }
        a.command = cmd
        rest.removeFirst()
        let allowed = flags[cmd] ?? []
        var optionsDone = false
        while i < rest.count {
            let arg = rest[i]
            i += 1
            if optionsDone || !arg.hasPrefix("-") || arg == "-" {
                a.positional.append(arg)
                continue
            }
            if arg == "--" { optionsDone = true; continue }
            if arg == "--help" || arg == "-h" { a.help = true; continue }
            var name = arg
            var inline: String? = nil
            if arg.hasPrefix("--"), let eq = arg.firstIndex(of: "=") {
                name = String(arg[..<eq])
                inline = String(arg[arg.index(after: eq)...])
            }
            let takesValue = allowed.contains(name + "=")
            guard takesValue || allowed.contains(name) else {
                var msg = "unknown option \(name) for `tributary \(cmd)`"
                let names = allowed.map { $0.hasSuffix("=") ? String($0.dropLast()) : $0 }
                if let s = closest(name, names) { msg += " (did you mean \(s)?)" }
                throw UsageError(message: msg + "; see `tributary help \(cmd)`")
            }
            var value: String? = nil
            if takesValue {
                if let inline { value = inline } else {
                    guard i < rest.count else { throw UsageError(message: "option \(name) needs a value") }
                    value = rest[i]
                    i += 1
                }
                if value!.isEmpty { throw UsageError(message: "option \(name) needs a non-empty value") }
            } else if inline != nil {
                throw UsageError(message: "option \(name) takes no value")
            }
            switch name {
            case "-c", "--config": a.config = value
            case "--only": a.only += value!.split(separator: ",").map { String($0) }.filter { !$0.isEmpty }
            case "--jsonl": a.jsonl = true
            case "--all": a.all = true
            case "--no-state": a.noState = true
            case "--state": a.statePath = value
            case "--worker": a.worker = value
            case "--record": a.record = value
            case "--replay": a.replay = value
            case "--respect-schedule": a.respectSchedule = true
            case "--quiet", "-q": a.quiet = true
            case "--verbose", "-v": a.verbose = true
            default: break
            }
        }
        if a.record != nil && a.replay != nil { throw UsageError(message: "--record and --replay cannot be used together") }
        if a.noState && a.statePath != nil { throw UsageError(message: "--no-state and --state cannot be used together") }
        switch cmd {
        case "test":
            if a.positional.count != 1 && !a.help { throw UsageError(message: "`tributary test` needs exactly one source NAME") }
        case "help":
            if a.positional.count > 1 { throw UsageError(message: "`tributary help` takes at most one COMMAND") }
        default:
            if let extra = a.positional.first { throw UsageError(message: "unexpected argument \"\(extra)\" for `tributary \(cmd)`") }
        }
        return a
    }

    static func closest(_ word: String, _ candidates: [String]) -> String? {
        var best: (String, Int)? = nil
        for c in candidates {
            let d = editDistance(word, c)
            if d <= 2, best == nil || d < best!.1 { best = (c, d) }
        }
        return best?.0
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var prev = Array(0...b.count)
        for i in 1...max(1, a.count) where !a.isEmpty {
            var cur = [i] + [Int](repeating: 0, count: b.count)
            for j in stride(from: 1, through: b.count, by: 1) {
                cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            prev = cur
        }
        return a.isEmpty ? b.count : prev[b.count]
    }
}
