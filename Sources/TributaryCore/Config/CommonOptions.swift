/// The options every source and sink accepts, and the top-level sections `defaults`, `http`
/// and `state`: one typed declaration each (see `Option`).
public enum CommonOptions {
    // MARK: every source

    public static let name = Option.string("name", "unique name, [a-z0-9][a-z0-9._-]*").required
    public static let sourceType = Option.string("type", "the source type (see `tributary sources`)").required
    public static let enabled = Option.bool("enabled", "false skips the source").defaulted(true)
    public static let interval = Option.duration("interval", atLeast: 1, "how often `watch` (and `run --respect-schedule`) runs it, at least 1s")
        .documented(default: "defaults.interval (15m)")
    public static let timeout = Option.duration("timeout", atLeast: 0.001, "total time for one HTTP attempt (more than 0)")
        .documented(default: "defaults.timeout (20s)")
    public static let retries = Option.integer("retries", 0...10, "retries on connection errors, timeouts, 429 and 5xx")
        .documented(default: "defaults.retries (2)")
    public static let maxItems = Option.integer("max_items", atLeast: 1, "keep at most this many items per run (first ones as the source returns them)")
    public static let firstRun = Option<FirstRun>(
        spec: OptionSpec("first_run", .enumOrInteger(["all", "none"], min: 1), "what the very first run emits: all, none (only remember what exists now), or the newest N"),
        read: { v, _ in
            switch v {
            case .string("all"): return .all
            case .string("none"): return FirstRun.none
            case .number(let n): return n.int64.map { .newest(Int($0)) }
            default: return nil
            }
        },
        show: { f in
            switch f {
            case .all: return "all"
            case .none: return "none"
            case .newest(let n): return "\(n)"
            }
        },
        placeholder: { .all }).defaulted(.all)
    public static let emitUpdates = Option.bool("emit_updates", "re-emit an item whose content changed under the same id, with data.updated = true").defaulted(false)
    public static let quota = Option.object("quota", [Quota.requests, Quota.per], "request budget: skip the source once `requests` were made in the current `per` window")

    public enum Quota {
        public static let requests = Option.integer("requests", atLeast: 1, "requests allowed per window").required
        public static let per = Option.duration("per", atLeast: 1, "window length, e.g. \"1d\"").required
    }

    public static let source: [any OptionDeclaration] = [name, sourceType, enabled, interval, timeout, retries, maxItems, firstRun, emitUpdates, quota, FilterOptions.filter]

    // MARK: every sink

    public static let sinkType = Option.string("type", "the sink type (see `tributary sources`)").required
    public static let sink: [any OptionDeclaration] = [sinkType, FilterOptions.filter]

    // MARK: top-level sections

    public enum Defaults {
        public static let interval = Option.duration("interval", atLeast: 1, "default interval of every source").defaulted(900)
        public static let timeout = Option.duration("timeout", atLeast: 0.001, "default timeout of every source").defaulted(20)
        public static let retries = Option.integer("retries", 0...10, "default retries of every source").defaulted(2)
        public static let jitter = Option.duration("jitter", "random spread added to each scheduled run").documented(default: "10% of the interval")
        public static let all: [any OptionDeclaration] = [interval, timeout, retries, jitter, FilterOptions.filter]
    }

    public enum HTTP {
        public static let concurrency = Option.integer("concurrency", 1...HTTPSettings.maxConcurrency, "transfers in flight at once, all hosts").defaulted(32)
        public static let perHost = Option.integer("per_host", 1...HTTPSettings.maxConcurrency, "transfers in flight at once per host (at most `concurrency`)").defaulted(6)
        public static let userAgent = Option.string("user_agent", "User-Agent header").defaulted("tributary/" + Tributary.version, shown: "tributary/<version>")
        public static let maxBody = Option.size("max_body", "largest response body accepted (after decompression)").defaulted(16 << 20)
        public static let replay = Option.path("replay", "answer every request from recordings in this folder (relative to the config file)")
        public static let all: [any OptionDeclaration] = [concurrency, perHost, userAgent, maxBody, replay]
    }

    public enum State {
        public static let path = Option.path("path", "state database (relative to the config file)").documented(default: "$XDG_STATE_HOME/tributary/state.sqlite")
        // Ids still in a feed refresh their last-seen time once a day; a shorter retention
        // would forget them and emit them again.
        public static let retention = Option.duration("retention", atLeast: 86400, "forget ids, validators and removed sources not seen for this long (at least 1d: ids still in a feed are refreshed daily)").defaulted(30 * 86400)
        public static let lockTimeout = Option.duration("lock_timeout", "how long a second run waits for the first to finish, then exits 2").defaulted(30)
        public static let all: [any OptionDeclaration] = [path, retention, lockTimeout]
    }
}
