import TributaryCore

/// The help texts (stdout, exit 0).
enum Help {
    static let main = """
    tributary \(Tributary.version): fetch many sources concurrently, turn them into unified items, hand them to sinks.

    Usage:
      tributary run    [-c FILE] [--only NAME[,NAME...]] [--jsonl] [--all] [--no-state] [--state FILE]
                       [--record DIR | --replay DIR] [--respect-schedule] [--quiet] [--verbose]
      tributary watch  [-c FILE] [--only NAME[,NAME...]] [--state FILE] [--replay DIR] [--quiet]
      tributary check  [-c FILE]
      tributary sources
      tributary test NAME [-c FILE] [--replay DIR | --record DIR]
      tributary help [COMMAND]
      tributary --version

    Commands:
      run      fetch every enabled source once and deliver the new items to the sinks
      watch    keep running: each source on its own interval, with backoff while it fails
      check    validate the config file and exit (nothing is fetched)
      sources  list every built-in source and sink type with its options
      test     run one source once and print its items as JSON Lines (sinks untouched)
      help     show help for a command

    Without -c, the config is ./tributary.json, then $XDG_CONFIG_HOME/tributary/config.json.
    Exit codes: 0 ok, 1 a source failed, 2 usage or config error, 3 a sink failed,
    130/143 interrupted by SIGINT/SIGTERM.
    """

    static let commands: [String: String] = [
        "run": """
        tributary run [-c FILE] [--only NAME[,NAME...]] [--jsonl] [--all] [--no-state] [--state FILE]
                      [--record DIR | --replay DIR] [--respect-schedule] [--quiet] [--verbose]

        Fetch every enabled source concurrently and deliver the items never emitted before (by any
        source) to every configured sink; they are recorded in the state file only once every sink
        has written them.
          -c, --config FILE  config file (default ./tributary.json, then ~/.config/tributary/config.json)
          --only NAMES       run only these sources (comma-separated, or repeat the option)
          --jsonl            ignore the configured sinks; write the items to stdout as JSON Lines
          --all              emit every item fetched, not only the new ones
          --no-state         use no state file (nothing read or written; every item is new)
          --state FILE       state file (default: state.path, else $XDG_STATE_HOME/tributary/state.sqlite,
                             else ~/.local/state/tributary/state.sqlite)
          --respect-schedule run only the sources that are due (interval, backoff after failures):
                             lets a cron entry every minute run each source on its own interval
          --record DIR       also save every HTTP exchange under DIR (secrets redacted)
          --replay DIR       answer every request from recordings in DIR; no network at all
          -q, --quiet        no summary on stderr
          -v, --verbose      also log each source as it finishes
        Items go to stdout only; logs, progress and the summary go to stderr.
        """,
        "watch": """
        tributary watch [-c FILE] [--only NAME[,NAME...]] [--state FILE] [--replay DIR] [--quiet]

        Keep running: each source runs on its own `interval` (default defaults.interval, 15m) with
        jitter, never two runs of one source at once. A failing source backs off (interval x
        2^failures, at most 24 h) and keeps being tried; a warning is logged when it starts failing
        and when it recovers. Sinks are written after each run. SIGINT/SIGTERM: no new runs, the
        ones in flight get 10 s, state is committed, exit 130/143.
        """,
        "check": """
        tributary check [-c FILE]

        Load and validate the config: strict JSON, known keys only, types, required options,
        environment variables. Every error is listed with the file and key path; exit 2 on any.
        Nothing is fetched.
        """,
        "sources": """
        tributary sources

        List every built-in source type and sink type with its options and defaults.
        """,
        "test": """
        tributary test NAME [-c FILE] [--replay DIR | --record DIR]

        Run the source NAME once (even if disabled) and print its items as JSON Lines on stdout.
        No sink is written and no state is changed. Exit 1 if the source fails.
        """,
        "help": """
        tributary help [COMMAND]

        Show the general help, or one command's.
        """,
    ]
}
