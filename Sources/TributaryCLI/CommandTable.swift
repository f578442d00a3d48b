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
        /// Present or not, with a value only in the `--flag=VALUE` form
        /// (`--respect-schedule`, `--respect-schedule=5m`): the flag alone reads as "".
        case optionalValue(placeholder: String)
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

    /// True when the flag is followed by its value (`--config FILE`, `--config=FILE`).
    var takesValue: Bool {
        switch kind {
        case .toggle, .optionalValue: return false
        case .value, .list, .choice: return true
        }
    }

    /// `FILE`, `NAMES`, `text|json`; nil for a toggle.
    var placeholder: String? {
        switch kind {
        case .toggle: return nil
        case .value(let p), .list(let p), .optionalValue(let p): return p
        case .choice(let words): return words.joined(separator: "|")
        }
    }

    /// What follows the flag's name where it is shown: ` FILE`, `[=PERIOD]`, or nothing.
    var valueSuffix: String {
        if case .optionalValue(let p) = kind { return "[=\(p)]" }
        return placeholder.map { " " + $0 } ?? ""
    }

    /// `-c, --config FILE`
    var shownWithValue: String {
        (short.map { $0 + ", " } ?? "") + long + valueSuffix
    }

    /// `[-c FILE]` in a synopsis.
    var synopsis: String { "[" + (short ?? long) + valueSuffix + "]" }
}

/// Every flag of every command.
enum Flags {
    static let config = Flag("--config", short: "-c", .value(placeholder: "FILE"), "config file, or a folder of *.json files read in name order (default ./tributary.json, then $XDG_CONFIG_HOME/tributary/config.json)")
    static let only = Flag("--only", .list(placeholder: "NAMES"), "run only these sources (comma-separated, or repeat the option)")
    static let jsonl = Flag("--jsonl", "ignore the configured sinks; write the items to stdout as JSON Lines")
    static let all = Flag("--all", "emit every item fetched, not only the new ones")
    static let dryRun = Flag("--dry-run", "fetch and print the items that would be emitted as JSON Lines; write nothing: no sink, no state, no file")
    static let noState = Flag("--no-state", "use no state file (nothing read or written): every item is new, so every fetched item goes to the sinks again on each run (a jsonl file gains duplicate lines); --dry-run is the look that writes nothing")
    static let state = Flag("--state", .value(placeholder: "FILE"), "state file (default: state.path, else $XDG_STATE_HOME/tributary/state.sqlite)")
    static let worker = Flag("--worker", .value(placeholder: "NAME"), "this process's name in a shared (PostgreSQL) state's leases (default <hostname>:<pid>)")
    static let record = Flag("--record", .value(placeholder: "DIR"), "also save every HTTP exchange under DIR (secrets redacted)")
    static let replay = Flag("--replay", .value(placeholder: "DIR"), "answer every request from recordings in DIR; no network at all")
    static let respectSchedule = Flag("--respect-schedule", .optionalValue(placeholder: "PERIOD"), "run only the sources that are due (interval, backoff after failures), so a timer or cron entry runs each source on its own interval; PERIOD is how often the timer calls (default 5m, the shipped timer's): a source due within half of it runs now rather than a whole period late")
    static let quiet = Flag("--quiet", short: "-q", "log warnings and errors only: no summary on stderr (--log-level warn)")
    static let verbose = Flag("--verbose", short: "-v", "also log each HTTP request (method, URL, status, bytes, time, page), the webhook sink's too, and each source as it finishes (--log-level debug)")
    static let logFormat = Flag("--log-format", .choice(LogFormat.allCases.map(\.rawValue)), "logs on stderr as text lines (local time) or one JSON object per line (UTC); the summary too")
    static let logLevel = Flag("--log-level", .choice(LogLevel.allCases.map(\.rawValue)), "the least severe records logged (default info); overrides --quiet and --verbose")
    static let metricsFile = Flag("--metrics-file", .value(placeholder: "FILE"), "after the run (each batch under watch), write Prometheus metrics to FILE, atomically (default metrics.file)")
    static let json = Flag("--json", "one JSON object per source (JSON Lines) instead of the table")
    static let db = Flag("--db", .value(placeholder: "PATH"), "the sqlite sink's database file to search (default: the path of the config's only sqlite sink)")
    static let limit = Flag("--limit", .value(placeholder: "N"), "print at most N items, the newest (default \(SearchCommand.defaultLimit))")
    static let jsonItems = Flag("--json", "print the items as JSON Lines (Docs/contract.md#items) instead of text lines")
    static let help = Flag("--help", short: "-h", "show this command's help")
    static let man = Flag("--man", "print the manual page (roff, tributary(1)) instead")
    static let names = Flag("--names", "print the source names of the config (-c) instead, one per line, for shell completion: nothing (exit 2) when it cannot be read")
    static let force = Flag("--force", "overwrite FILE when it exists")
}

/// The commands, as the dispatcher switches over them.
enum CommandName: String, CaseIterable, Sendable {
    case run, watch, status, search, check, sources, test, `import`, export, completion, help
    case initConfig = "init"
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
        /// One of some words, then exactly one argument (`import opml FILE`).
        case choiceThen([String], String)
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
    var synopsis: String { synopsisUnits.joined(separator: " ") }

    /// The synopsis in the pieces a line may break between: `tributary run`, then each
    /// argument and each flag with its value.
    var synopsisUnits: [String] {
        var parts = ["tributary " + name.rawValue]
        switch positional {
        case .none: break
        case .one(let p, _): parts.append(p)
        case .optional(let p): parts.append("[" + p + "]")
        case .choice(let words): parts.append(words.joined(separator: "|"))
        case .choiceThen(let words, let p): parts += [words.joined(separator: "|"), p]
        }
        // A flag that excludes the next one (`--record DIR | --replay DIR`) shares its brackets.
        var i = 0
        while i < flags.count {
            let f = flags[i]
            if i + 1 < flags.count, exclusive.contains(where: { ($0.0 == f && $0.1 == flags[i + 1]) || ($0.1 == f && $0.0 == flags[i + 1]) }) {
                parts.append(String(f.synopsis.dropLast()) + " | " + String(flags[i + 1].synopsis.dropFirst()))
                i += 2
            } else {
                parts.append(f.synopsis)
                i += 1
            }
        }
        return parts
    }
}

/// The table.
enum Commands {
    static let run = Command(
        .run,
        flags: [Flags.config, Flags.only, Flags.dryRun, Flags.jsonl, Flags.all, Flags.noState, Flags.state, Flags.record, Flags.replay, Flags.respectSchedule, Flags.quiet, Flags.verbose,
                Flags.logFormat, Flags.logLevel, Flags.metricsFile, Flags.worker],
        exclusive: [(Flags.record, Flags.replay), (Flags.noState, Flags.state), (Flags.dryRun, Flags.record), (Flags.dryRun, Flags.metricsFile)],
        summary: "fetch every enabled source once and deliver the new items to the sinks",
        details: """
        Fetch every enabled source concurrently and deliver the items never emitted before (by any \
        source) to every configured sink; they are recorded in the state file only once every sink \
        has written them. Items go to stdout only; logs, progress and the summary go to stderr. \
        With a PostgreSQL state (state.url) a source another worker holds is skipped \
        (`skipped: leased by <worker>`). \
        With --dry-run, state is only read (to decide what is new) and the items that would be \
        emitted go to stdout as JSON Lines: no sink is opened and no file is created or changed.
        """)

    static let watch = Command(
        .watch,
        flags: [Flags.config, Flags.only, Flags.state, Flags.replay, Flags.quiet, Flags.verbose, Flags.logFormat, Flags.logLevel, Flags.metricsFile, Flags.worker],
        summary: "keep running: each source on its own interval, with backoff while it fails",
        details: """
        Keep running: each source runs on its own `interval` (default defaults.interval, 15m) with \
        jitter, never two runs of one source at once. A failing source backs off (interval x \
        2^failures, at most 24 h) and keeps being tried; a warning is logged when it starts failing \
        and when it recovers. Sinks are written after each run. SIGINT/SIGTERM: no new runs, the \
        ones in flight get 10 s, state is committed, exit 130/143. A sink that fails is tried again \
        after 1 s, 2 s, 4 s ... 30 s for as long as it fails (its batches are not recorded and come \
        again); watch keeps running. Several watch processes may \
        share one PostgreSQL state (state.url): each due source is leased to one of them at a time. \
        With `metrics.listen` in the config, Prometheus metrics are served at GET /metrics, `ok` at GET /healthz, and a status page at GET / with its records at GET /status.json.
        """)

    static let status = Command(
        .status,
        flags: [Flags.config, Flags.state, Flags.json],
        summary: "show each source's health from the state: last run, failures, stale; exit 1 when one is failing or stale",
        details: """
        Read the state run would use (--state FILE, else the PostgreSQL state of state.url, else the \
        state file), without locking or changing it (works beside a running watch), and print one line per \
        configured source on stdout: last run, last success, consecutive failures, next due, items \
        emitted in total, the last error, and `stale` when it has emitted nothing new for longer than \
        its `expect_new_within`. --json prints one JSON object per source. Exit 0 when every enabled \
        source is healthy, 1 when one is failing or stale (a health check), 2 on a config error or a \
        state it cannot read or reach.
        """)

    static let search = Command(
        .search, .one("QUERY", what: "query"),
        flags: [Flags.config, Flags.db, Flags.limit, Flags.jsonItems],
        summary: "search the items a sqlite sink keeps (FTS5 query), newest first",
        details: """
        Search the title, summary and content of the items an `sqlite` sink keeps (--db PATH, else \
        the path of the config's only sqlite sink) with an FTS5 query: words (all must match), \
        "a phrase", OR, NOT, prefix*, title:word, NEAR(a b). The file is opened for reading only, \
        so search works beside a running watch. The newest matches (published, else fetched) come \
        first, at most --limit (default \(SearchCommand.defaultLimit)), one text line per item as the stdout sink \
        writes them, or with --json the items as JSON Lines. Exit 0 with matches, 1 without, 2 on a \
        query that is not valid, a file that cannot be read or a config error.
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
        flags: [Flags.names, Flags.config],
        summary: "list every built-in source and sink type with its options",
        details: """
        List every built-in source type and sink type with its options and defaults. With --names, \
        print the names of the config's sources instead, one per line (what the completion scripts \
        offer after `test` and `--only`); a config that is missing or has errors prints nothing, exit 2.
        """)

    static let test = Command(
        .test, .one("NAME", what: "source"),
        flags: [Flags.config, Flags.replay, Flags.record],
        exclusive: [(Flags.record, Flags.replay)],
        summary: "run one source once and print its items as JSON Lines (sinks untouched)",
        details: """
        Run the source NAME once (even if disabled) and print its items as JSON Lines on stdout. \
        No sink is written and no state is changed. Exit 1 if the source fails.
        """)

    static let importList = Command(
        .import, .choiceThen(["opml"], "FILE"),
        flags: [],
        summary: "print a config with one feed source per feed of an OPML file (to stdout)",
        details: """
        Read an OPML subscription list (newsboat's, Miniflux's, or any OPML 1.0/2.0 export; FILE \
        may be - for stdin) and print a config on stdout, strict JSON that `check` accepts: one \
        `feed` source per outline with an xmlUrl, named from its title (lower-case, [a-z0-9._-], \
        made unique with -2, -3, ...), with its title, htmlUrl as site_url, and the titles of the \
        folders it sits in (and its category attribute) as tags. Nothing is written but stdout: \
        `tributary import opml feeds.opml > tributary.json`. Outlines whose xmlUrl is not an \
        http(s) URL are skipped with a warning on stderr. Exit 2 if FILE cannot be read as OPML.
        """)

    static let exportList = Command(
        .export, .choice(["opml"]),
        flags: [Flags.config],
        summary: "print the config's feed sources as OPML 2.0 (to stdout)",
        details: """
        Print an OPML 2.0 subscription list of the config's `feed` sources on stdout, one outline \
        per URL (title: the source's title, else its name; htmlUrl: its site_url), inside folder \
        outlines named by its tags, in order, so `import opml` reads the same tags back. Other \
        source types are left out. Nothing is fetched.
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

    static let initConfig = Command(
        .initConfig, .optional("FILE"),
        flags: [Flags.force],
        summary: "write a commented starter config (to FILE, or stdout) that check accepts",
        details: """
        Write a starter config: one `feed` source, one `json` API source, a `jsonl` sink and a \
        state file, with `$comment` keys saying what each part does and what to change (keys that \
        begin with $ are comments). FILE - or no FILE writes it to stdout. An existing FILE is left \
        as it is (exit 2) unless --force. Then: `tributary check -c FILE`, \
        `tributary test NAME -c FILE`, `tributary run -c FILE`.
        """)

    static let help = Command(
        .help, .optional("COMMAND"),
        flags: [Flags.man],
        summary: "show help for a command",
        details: "Show the general help, or one command's.")

    static let all: [Command] = [run, watch, status, search, check, sources, test, importList, exportList, completion, initConfig, help]

    static func named(_ name: String) -> Command? { all.first { $0.name.rawValue == name } }
}
