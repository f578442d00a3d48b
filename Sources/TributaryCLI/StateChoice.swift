import TributaryCore

/// Which state a command uses, decided in one place from the arguments and the config:
/// `--state FILE` wins, then `state.url` (PostgreSQL), then `state.path`, then the default file;
/// `test` and `--no-state` use none; `--dry-run` and `status` read a file without writing it.
enum StateChoice {
    case none
    case file(path: String, origin: String)
    case shared(SharedStateSettings)

    static func decide(_ args: Arguments, _ config: Config) -> StateChoice {
        if args.is(.test) || args.given(ifDeclared: Flags.noState) { return .none }
        if let flag = args.value(ifDeclared: Flags.state) { return .file(path: flag, origin: "tributary: --state \(flag)") }
        if let shared = config.sharedState { return .shared(shared) }
        if let path = config.statePath, let origin = config.stateOrigin { return .file(path: path, origin: origin) }
        let path = SQLiteState.defaultPath()
        return .file(path: path, origin: "tributary: the default state file \(path) (set state.path, or use --state FILE)")
    }

    /// The file a command would write, for its preflight (nil: no file).
    var fileToWrite: StateFileChoice? {
        if case .file(let path, let origin) = self { return StateFileChoice(path: path, origin: origin) }
        return nil
    }

    /// Opens the state for `run` and `watch`: locked (a file) or reachable (PostgreSQL), the
    /// configured sources marked present, retention applied. A state that cannot be opened,
    /// locked or reached is exit 2, before anything is fetched.
    func openForWriting(_ config: Config, stopRequested: @escaping @Sendable () -> Bool) throws(StateError) -> (any StateBackend)? {
        let store: any StateBackend
        switch self {
        case .none: return nil
        case .shared(let shared): store = try PostgresState(url: shared.url, schema: shared.schema)
        case .file(let path, _): store = try SQLiteState(path: path, lockTimeout: config.lockTimeout, stopRequested: stopRequested)
        }
        let now = Timestamp.now().seconds
        try store.touchConfigured(config.sources.map(\.settings.name), now: now)
        try store.prune(retention: config.retention, now: now)
        return store
    }

    /// Opens the state to read only (`run --dry-run`): a file, without a lock and without
    /// writing; a PostgreSQL state cannot be opened so yet.
    func openForDryRun() throws(StateError) -> (any StateBackend)? {
        switch self {
        case .none: return nil
        case .shared:
            throw StateError("--dry-run reads a state file only; a PostgreSQL state (state.url) cannot be opened read-only yet: add --state FILE or --no-state")
        case .file(let path, _): return try SQLiteState.readOnly(path: path)
        }
    }

    /// Where `status` reads.
    var statusLocation: StatusCommand.Location? {
        switch self {
        case .none: return nil
        case .shared(let shared): return .postgres(shared)
        case .file(let path, _): return .file(path)
        }
    }
}
