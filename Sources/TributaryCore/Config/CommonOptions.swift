/// The options every source and sink accepts, and the top-level sections `defaults`, `http`,
/// `state` and `metrics`: one typed declaration each (see `Option`).
public enum CommonOptions {
    // MARK: every source

    public static let name = Option.string("name", "unique name, [a-z0-9][a-z0-9._-]*").required
    public static let sourceType = Option.string("type", "the source type (see `tributary sources`)").required
    public static let enabled = Option.bool("enabled", "false skips the source").defaulted(true)
    public static let interval = Option.interval("interval", atLeast: 1, "how often `watch` (and `run --respect-schedule`) runs it, at least 1s; \"auto\": as often as it publishes and its server allows, between `interval_min` and `interval_max` (Docs/scheduling.md)")
        .documented(default: "defaults.interval (15m)")
    public static let intervalMin = Option.duration("interval_min", atLeast: 1, "with `interval: \"auto\"`: never run it more often than this")
        .documented(default: "defaults.interval_min (5m)")
    public static let intervalMax = Option.duration("interval_max", atLeast: 1, "with `interval: \"auto\"`: never wait longer than this between runs")
        .documented(default: "defaults.interval_max (1d)")
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
    public static let proxy = Option.string("proxy", "send this source's requests through this proxy: an http://, https://, socks5:// or socks5h:// URL (a user and password in it are secrets)")
        .checked { ProxyURL.problem($0) }
    public static let expectNewWithin = Option.duration("expect_new_within", atLeast: 1, "`tributary status` calls the source stale (and exits 1) when it has delivered nothing new for longer than this")

    public enum Quota {
        public static let requests = Option.integer("requests", atLeast: 1, "requests allowed per window").required
        public static let per = Option.duration("per", atLeast: 1, "window length, e.g. \"1d\"").required
    }

    /// The processors a source's items go through after its `filter`, in order (Docs/processors.md).
    public static let process = Option<[JSONValue]>(
        spec: OptionSpec("process", .pluginList, "processors the items go through after the filter, in order: objects with a `type` (see `tributary sources`) and its options"),
        read: { v, _ in v.arrayValue }, show: { _ in "[...]" }, placeholder: { [] })

    public static let source: [any OptionDeclaration] = [name, sourceType, enabled, interval, intervalMin, intervalMax, timeout, retries, maxItems, firstRun, emitUpdates, quota, expectNewWithin, FilterOptions.filter, process, AuthOptions.auth, proxy]

    // MARK: every sink

    public static let sinkType = Option.string("type", "the sink type (see `tributary sources`)").required
    public static let sinkName = Option.string("name", "the sink's name in the metrics (`sink` label), [a-z0-9][a-z0-9._-]*, unique; default its type, then <type>-2, <type>-3 for more of one type")
        .checked { ConfigLoader.isValidName($0) ? nil : "expected [a-z0-9][a-z0-9._-]*, found \"\($0)\"" }
    public static let sink: [any OptionDeclaration] = [sinkType, sinkName, FilterOptions.filter]
    /// A sink's `template`, for the sink types that take one (`SinkDescriptor.takesTemplate`);
    /// compiled by the registry's template language when the config is loaded.
    public static let template = Option.string("template", "a jq program run on each item just before the sink: its outputs are what the sink writes instead of the item (Docs/templates.md)")
        .checked { $0.isEmpty ? "expected a program, found an empty string" : nil }

    // MARK: every processor

    public static let processorType = Option.string("type", "the processor type (see `tributary sources`)").required

    // MARK: top-level sections

    public enum Defaults {
        public static let interval = Option.interval("interval", atLeast: 1, "default interval of every source (a duration, or \"auto\")").defaulted(.fixed(900))
        public static let intervalMin = Option.duration("interval_min", atLeast: 1, "default `interval_min` (the shortest automatic interval)").defaulted(300)
        public static let intervalMax = Option.duration("interval_max", atLeast: 1, "default `interval_max` (the longest automatic interval)").defaulted(86400)
        public static let timeout = Option.duration("timeout", atLeast: 0.001, "default timeout of every source").defaulted(20)
        public static let retries = Option.integer("retries", 0...10, "default retries of every source").defaulted(2)
        public static let jitter = Option.duration("jitter", "random spread added to each scheduled run").documented(default: "10% of the interval")
        public static let all: [any OptionDeclaration] = [interval, intervalMin, intervalMax, timeout, retries, jitter, FilterOptions.filter, CommonOptions.process]
    }

    public typealias HTTP = HTTPSettings.Options
    public typealias State = StateSettings.Options

    public enum Metrics {
        public static let file = Option.path("file", "after each run (each batch under `watch`), write the metrics here in the Prometheus text format, atomically (relative to the config file); `--metrics-file` takes precedence")
        public static let listen = Option.string("listen", "`watch` serves GET /metrics, GET /healthz, its status page (GET /) and GET /status.json on this address: \"127.0.0.1:9464\", \"[::1]:9464\", or a port alone for 127.0.0.1")
            .checked { ListenAddress(parsing: $0) == nil ? "expected an IP address and port such as \"127.0.0.1:9464\" (or a port alone, for 127.0.0.1), found \"\($0)\"" : nil }
        public static let all: [any OptionDeclaration] = [file, listen]
        /// Sink types people write for what this section does.
        public static let sinkTypeHints = ["prometheus": "Prometheus metrics are the top-level \"metrics\" section (metrics.file, metrics.listen), not a sink",
                                           "metrics": "metrics are the top-level \"metrics\" section (metrics.file, metrics.listen), not a sink"]
    }
}
