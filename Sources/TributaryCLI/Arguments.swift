import TributaryCore

/// Flag values by long name; `given[name]` is nil for a flag not given.
struct GivenFlags: Sendable {
    private var pairs: [(name: String, values: [String])] = []

    subscript(_ name: String) -> [String]? {
        for p in pairs where p.name == name { return p.values }
        return nil
    }

    /// Adds values to `name`'s (the flag counts as given even when `values` is empty).
    mutating func append(_ name: String, _ values: [String]) {
        if let i = pairs.firstIndex(where: { $0.name == name }) { pairs[i].values += values } else { pairs.append((name, values)) }
    }
}

/// The parsed command line, read through the flag declarations (`args[Flags.jsonl]`,
/// `args.value(Flags.config)`). Parsing follows `Commands`: `--key value` and `--key=value`,
/// short flags, `--` ends options; anything a command does not declare is a usage error (exit 2).
struct Arguments: Sendable {
    enum Action: Sendable {
        case command(Command)
        case version
    }

    let action: Action
    /// `--help` or `-h` after the command.
    private(set) var help = false
    private(set) var positional: [String] = []
    /// The values of each flag given, by its long name (unique in the table), in the order
    /// first given. A list of a few pairs, not a dictionary: a dictionary's storage type is
    /// built by the runtime (and `Hashable` looked up) on first use, at every start.
    private var given = GivenFlags()

    struct UsageError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    private init(_ action: Action) { self.action = action }

    /// The command (nil for `--version`).
    var command: Command? {
        if case .command(let c) = action { return c }
        return nil
    }

    func `is`(_ name: CommandName) -> Bool { command?.name == name }

    /// True when the flag was given.
    subscript(_ flag: Flag) -> Bool { given[declared(flag).long] != nil }

    /// True when the flag was given; false also when the command has no such flag (for code
    /// that several commands share, such as `run` and `test`).
    func given(ifDeclared flag: Flag) -> Bool {
        (command?.flags.contains(flag) ?? false) && given[flag.long] != nil
    }

    /// The value of a flag that takes one (the last one given), or nil.
    func value(_ flag: Flag) -> String? { given[declared(flag).long]?.last }

    /// The value of a flag, or nil also when the command has no such flag (shared code).
    func value(ifDeclared flag: Flag) -> String? {
        (command?.flags.contains(flag) ?? false) ? given[flag.long]?.last : nil
    }

    /// Every value of a list flag, comma-separated parts split, in order.
    func values(_ flag: Flag) -> [String] { given[declared(flag).long] ?? [] }

    /// Reading a flag the command does not declare is a bug the tests catch.
    private func declared(_ flag: Flag) -> Flag {
        assert(command?.flags.contains(flag) ?? false, "flag \(flag.long) read but not declared by \(command?.name.rawValue ?? "--version")")
        return flag
    }

    static func parse(_ argv: [String]) throws(UsageError) -> Arguments {
        // No command is a usage error, not help and exit 0: a wrapper or unit file that lost the
        // arguments (`ExecStart=... watch`) must not pass for a success.
        guard let first = argv.first else { throw UsageError(message: "no command given; see `tributary --help`") }
        if first == "--help" || first == "-h" { return Arguments(.command(Commands.help)) }
        if first == "--version" || first == "-V" { return Arguments(.version) }
        guard let command = Commands.named(first) else {
            var msg = "unknown command \"\(first)\""
            if let s = Suggest.closest(to: first, in: Commands.all.map(\.name.rawValue) + ["--help", "--version"]) { msg += " (did you mean \"\(s)\"?)" }
            throw UsageError(message: msg + "; see `tributary --help`")
        }
        var a = Arguments(.command(command))
        let rest = Array(argv.dropFirst())
        var i = 0
        var optionsDone = false
        while i < rest.count {
            let arg = rest[i]
            i += 1
            if optionsDone || !arg.hasPrefix("-") || arg == "-" {
                a.positional.append(arg)
                continue
            }
            if arg == "--" { optionsDone = true; continue }
            if arg == Flags.help.long || arg == Flags.help.short { a.help = true; continue }
            var name = arg
            var inline: String? = nil
            if arg.hasPrefix("--"), let eq = arg.firstIndex(of: "=") {
                name = String(arg[..<eq])
                inline = String(arg[arg.index(after: eq)...])
            }
            guard let flag = command.flags.first(where: { $0.long == name || $0.short == name }) else {
                var msg = "unknown option \(name) for `tributary \(command.name.rawValue)`"
                if let s = Suggest.closest(to: name, in: command.flags.map(\.long)) { msg += " (did you mean \(s)?)" }
                throw UsageError(message: msg + "; see `tributary help \(command.name.rawValue)`")
            }
            if case .optionalValue(let p) = flag.kind {
                if inline?.isEmpty == true { throw UsageError(message: "option \(name)= needs a value (\(p))") }
                a.given.append(flag.long, [inline ?? ""])
                continue
            }
            guard flag.takesValue else {
                if inline != nil { throw UsageError(message: "option \(name) takes no value") }
                a.given.append(flag.long, [""])
                continue
            }
            let value: String
            if let inline { value = inline } else {
                guard i < rest.count else { throw UsageError(message: "option \(name) needs a value (\(flag.placeholder ?? "a value"))") }
                value = rest[i]
                i += 1
            }
            if value.isEmpty { throw UsageError(message: "option \(name) needs a non-empty value") }
            switch flag.kind {
            case .list: a.given.append(flag.long, value.split(separator: ",").map(String.init).filter { !$0.isEmpty })
            case .choice(let words):
                guard words.contains(value) else {
                    throw UsageError(message: "option \(flag.long) takes \(words.map { "\"\($0)\"" }.joined(separator: " or ")), found \"\(value)\"")
                }
                a.given.append(flag.long, [value])
            case .value, .toggle, .optionalValue: a.given.append(flag.long, [value])
            }
        }
        for (x, y) in command.exclusive where a.given[x.long] != nil && a.given[y.long] != nil {
            throw UsageError(message: "\(x.long) and \(y.long) cannot be used together")
        }
        if a.help { return a }
        let name = command.name.rawValue
        switch command.positional {
        case .none:
            if let extra = a.positional.first { throw UsageError(message: "unexpected argument \"\(extra)\" for `tributary \(name)`") }
        case .one(let p, let what):
            if a.positional.count != 1 { throw UsageError(message: "`tributary \(name)` needs exactly one \(what) \(p)") }
        case .optional(let p):
            if a.positional.count > 1 { throw UsageError(message: "`tributary \(name)` takes at most one \(p)") }
        case .choice(let words):
            guard a.positional.count == 1, words.contains(a.positional[0]) else {
                throw UsageError(message: "`tributary \(name)` needs one of: \(words.joined(separator: ", "))")
            }
        case .choiceThen(let words, let p):
            guard let first = a.positional.first, words.contains(first) else {
                throw UsageError(message: "`tributary \(name)` needs one of: \(words.joined(separator: ", ")), then \(p)")
            }
            if a.positional.count != 2 { throw UsageError(message: "`tributary \(name) \(first)` needs exactly one \(p)") }
        }
        return a
    }
}
