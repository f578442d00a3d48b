import TributaryCore

/// The command line, declared once: every command with its flags, positional argument and
/// help. Parsing (`Arguments`), `--help` and `help COMMAND` (`Help`), the completion scripts
/// (`Completion`) and the man page (`ManPage`) are all generated from this table, so a flag
/// cannot be parsed without being documented, or documented without being parsed.

/// One flag: its long name, an optional short one, what it takes, and a line of help.
struct Flag: Hashable, Sendable {
    enum Kind: Hashable, Sendable {
        /// Present or not.
        case toggle
        /// One value (`--config FILE`); given twice, the last one counts.
        case value(placeholder: String)
        /// A comma-separated list, and the flag may be repeated (`--only a,b --only c`).
        case list(placeholder: String)
        /// One of some words (`--log-format text|json`).
        case choice([String])
    }

    let long: String
    let short: String?
    let kind: Kind
    let help: String

    init(_ long: String, short: String? = nil, _ kind: Kind, _ help: String) {
        self.long = long
        self.short = short
        self.kind = kind
        self.help = help
    }

    /// A toggle.
    init(_ long: String, short: String? = nil, _ help: String) {
        self.init(long, short: short, .toggle, help)
    }

    var takesValue: Bool { kind != .toggle }

    /// `FILE`, `NAMES`, `text|json`; nil for a toggle.
    var placeholder: String? {
        switch kind {
        case .toggle: return nil
        case .value(let p), .list(let p): return p
        case .choice(let words): return words.joined(separator: "|")
        }
    }

    /// `-c, --config FILE`
    var shownWithValue: String {
        (short.map { $0 + ", " } ?? "") + long + (placeholder.map { " " + $0 } ?? "")
    }

    /// `[-c FILE]` in a synopsis.
    var synopsis: String { "[" + (short ?? long) + (placeholder.map { " " + $0 } ?? "") + "]" }
}

/// Every flag of every command.
enum Flags {
    static let config = Flag("--config", short: "-c", .value(placeholder: "FILE"), "config file (default ./tributary.json, then $XDG_CONFIG_HOME/tributary/config.json)")
    static let only = Flag("--only", .list(placeholder: "NAMES"), "run only these sources (comma-separated, or repeat the option)")
    static let jsonl = Flag("--jsonl", "ignore the configured sinks; write the items to stdout as JSON Lines")
    static let all = Flag("--all", "emit every item fetched, not only the new ones")
    static let dryRun = Flag("--dry-run", "fetch and print the items that would be emitted as JSON Lines; write nothing: no sink, no state, no file")
    static let noState = Flag("--no-state", "use no state file (nothing read or written; every item is new)")
    static let state = Flag("--state", .value(placeholder: "FILE"), "state file (default: state.path, else $XDG_STATE_HOME/tributary/state.sqlite)")
    static let record = Flag("--record", .value(placeholder: "DIR"), "also save every HTTP exchange under DIR (secrets redacted)")
    static let replay = Flag("--replay", .value(placeholder: "DIR"), "answer every request from recordings in DIR; no network at all")
    static let respectSchedule = Flag("--respect-schedule", "run only the sources that are due (interval, backoff after failures), so a cron entry every minute runs each source on its own interval")
    static let quiet = Flag("--quiet", short: "-q", "no summary on stderr")
    static let verbose = Flag("--verbose", short: "-v", "also log each source as it finishes")
    static let help = Flag("--help", short: "-h", "show this command's help")
    static let man = Flag("--man", "print the manual page (roff, tributary(1)) instead")
}

/// The commands, as the dispatcher switches over them.
enum CommandName: String, CaseIterable, Sendable {
    case run, watch, check, sources, test, completion, help
}

/// One command: its flags, what positional argument it takes, and its help.
struct Command: Sendable {
    enum Positional: Sendable {
        case none
        /// Exactly one (`test NAME`), and what it names (`source`).
        case one(String, what: String)
        /// At most one (`help [COMMAND]`).
        case optional(String)
        /// Exactly one of some words (`completion bash|zsh|fish`).
        case choice([String])
    }

    let name: CommandName
    let positional: Positional
    let summary: String
    /// Paragraphs shown by `help COMMAND` and in the man page.
    let details: String
    let flags: [Flag]
    /// Flags that cannot be used together.
    let exclusive: [(Flag, Flag)]

    init(_ name: CommandName, _ positional: Positional = .none, flags: [Flag], exclusive: [(Flag, Flag)] = [], summary: String, details: String) {
        self.name = name
        self.positional = positional
        self.flags = flags
        self.exclusive = exclusive
        self.summary = summary
        self.details = details
    }

    /// `tributary run [-c FILE] [--only NAMES] ...`
    var synopsis: String {
        var parts = ["tributary", name.rawValue]
        switch positional {
        case .none: break
        case .one(let p, _): parts.append(p)
        case .optional(let p): parts.append("[" + p + "]")
        case .choice(let words): parts.append(words.joined(separator: "|"))
        }
        return (parts + flags.map(\.synopsis)).joined(separator: " ")
    }
}

/// The table.
enum Commands {
    static let run = Command(
        .run,
        flags: [Flags.config, Flags.only, Flags.dryRun, Flags.jsonl, Flags.all, Flags.noState, Flags.state, Flags.record, Flags.replay, Flags.respectSchedule, Flags.quiet, Flags.verbose],
        exclusive: [(Flags.record, Flags.replay), (Flags.noState, Flags.state), (Flags.dryRun, Flags.record)],
        summary: "fetch every enabled source once and deliver the new items to the sinks",
        details: """
        Fetch every enabled source concurrently and deliver the items never emitted before (by any \
        source) to every configured sink; they are recorded in the state file only once every sink \
        has written them. Items go to stdout only; logs, progress and the summary go to stderr. \
        With --dry-run, state is only read (to decide what is new) and the items that would be \
        emitted go to stdout as JSON Lines: no sink is opened and no file is created or changed.
        """)

    static let watch = Command(
        .watch,
        flags: [Flags.config, Flags.only, Flags.state, Flags.replay, Flags.quiet],
        summary: "keep running: each source on its own interval, with backoff while it fails",
        details: """
        Keep running: each source runs on its own `interval` (default defaults.interval, 15m) with \
        jitter, never two runs of one source at once. A failing source backs off (interval x \
        2^failures, at most 24 h) and keeps being tried; a warning is logged when it starts failing \
        and when it recovers. Sinks are written after each run. SIGINT/SIGTERM: no new runs, the \
        ones in flight get 10 s, state is committed, exit 130/143.
        """)

    static let check = Command(
        .check,
        flags: [Flags.config],
        summary: "validate the config file and exit (nothing is fetched)",
        details: """
        Load and validate the config: strict JSON, known keys only, types, required options, \
        environment variables. Every error is listed with the file and key path; exit 2 on any. \
        Nothing is fetched.
        """)

    static let sources = Command(
        .sources,
        flags: [],
        summary: "list every built-in source and sink type with its options",
        details: "List every built-in source type and sink type with its options and defaults.")

    static let test = Command(
        .test, .one("NAME", what: "source"),
        flags: [Flags.config, Flags.replay, Flags.record],
        exclusive: [(Flags.record, Flags.replay)],
        summary: "run one source once and print its items as JSON Lines (sinks untouched)",
        details: """
        Run the source NAME once (even if disabled) and print its items as JSON Lines on stdout. \
        No sink is written and no state is changed. Exit 1 if the source fails.
        """)

    static let completion = Command(
        .completion, .choice(Completion.Shell.allCases.map(\.rawValue)),
        flags: [],
        summary: "print a shell completion script",
        details: """
        Print a completion script for bash, zsh or fish on stdout: \
        `source <(tributary completion bash)`, `tributary completion zsh > ~/.zfunc/_tributary`, \
        `tributary completion fish > ~/.config/fish/completions/tributary.fish`.
        """)

    static let help = Command(
        .help, .optional("COMMAND"),
        flags: [Flags.man],
        summary: "show help for a command",
        details: "Show the general help, or one command's.")

    static let all: [Command] = [run, watch, check, sources, test, completion, help]

    static func named(_ name: String) -> Command? { all.first { $0.name.rawValue == name } }
}
