import TributaryCore

/// The help texts (stdout, exit 0).
enum Help {
    static let main = """
    tributary \(Tributary.version): fetch many sources concurrently, turn them into unified items, hand them to sinks.

    Usage:
      tributary run    [-c FILE] [--only NAME[,NAME...]] [--jsonl] [--all] [--no-state] [--state FILE]
                       [--record DIR | --replay DIR] [--quiet] [--verbose]
      tributary check  [-c FILE]
      tributary sources
      tributary test NAME [-c FILE] [--replay DIR | --record DIR]
      tributary help [COMMAND]
      tributary --version

    Commands:
      run      fetch every enabled source once and deliver the items to the sinks
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
                      [--record DIR | --replay DIR] [--quiet] [--verbose]

        Fetch every enabled source concurrently and deliver the items to every configured sink.
          -c, --config FILE  config file (default ./tributary.json, then ~/.config/tributary/config.json)
          --only NAMES       run only these sources (comma-separated, or repeat the option)
          --jsonl            ignore the configured sinks; write the items to stdout as JSON Lines
          --all              emit every item fetched (the default until state arrives)
          --no-state         use no state file (accepted; state arrives in a later release)
          --state FILE       state file to use (accepted; state arrives in a later release)
          --record DIR       also save every HTTP exchange under DIR (secrets redacted)
          --replay DIR       answer every request from recordings in DIR; no network at all
          -q, --quiet        no summary on stderr
          -v, --verbose      also log each source as it finishes
        Items go to stdout only; logs, progress and the summary go to stderr.
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
