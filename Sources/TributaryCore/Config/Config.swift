#if canImport(Glibc)
import Glibc
#endif

/// A loaded, validated configuration: global settings plus ready-to-run sources and sinks.
public struct Config: Sendable {
    /// The config file, or the folder given with `-c DIR`.
    public var file: String
    public var directory: String
    /// The files read: the one file, or a folder's `*.json` files in name order.
    public var files: [String]
    public var http: HTTPSettings
    /// `http.replay`, resolved against the config folder.
    public var replayDirectory: String?
    /// `state.path` resolved against the config folder (nil: the default location).
    public var statePath: String?
    /// Where `state.path` is written, for messages: `tributary.json: state.path`.
    public var stateOrigin: String?
    public var retention: Double
    public var lockTimeout: Double
    /// `metrics.file`, resolved against the config folder.
    public var metricsFile: String?
    /// `metrics.listen`: where `watch` serves its metrics (nil: nowhere).
    public var metricsListen: ListenAddress?
    /// `state.url`, `state.schema`, `state.lease`: a shared PostgreSQL state (Docs/scale-out.md).
    public var sharedState: SharedStateSettings?
    public var lease: Double
    /// The `stories` section (Docs/stories.md); nil when the config has none.
    public var stories: StorySettings?
    public var sources: [ConfiguredSource]
    public var sinks: [ConfiguredSink]
}

/// What a source's very first run emits.
public enum FirstRun: Sendable, Equatable {
    case all
    case none
    case newest(Int)
}

/// Settings every source has, whatever its type.
public struct SourceSettings: Sendable {
    public var name: String
    public var type: String
    public var enabled: Bool
    /// The interval (`interval: "auto"`: the one before anything is known, `adaptive.start`).
    public var interval: Double
    /// Set for `interval: "auto"`: the interval follows the source (`AdaptiveInterval`).
    public var adaptive: AdaptiveInterval?
    /// Random spread (seconds) of each scheduled run.
    public var jitter: Double
    public var timeout: Double
    public var retries: Int
    public var maxItems: Int?
    public var firstRun: FirstRun
    public var emitUpdates: Bool
    /// At most `requests` per `per` seconds.
    public var quota: (requests: Int, per: Double)?
    /// `status` calls the source stale after this long without a new item (nil: never).
    public var expectNewWithin: Double?
    /// Which of its items the source emits (its own `filter`, else `defaults.filter`).
    public var filter: ItemFilter?
    /// Its `auth` and the hosts that receive it (`AuthOptions`), for its `HTTPClient`.
    public var auth: SourceAuth? = nil
    /// `proxy`: the proxy URL all its requests go through (nil: direct).
    public var proxy: String?

    public init(name: String, type: String, enabled: Bool = true, interval: Double = 900, jitter: Double? = nil, timeout: Double = 20, retries: Int = 2, maxItems: Int? = nil,
                firstRun: FirstRun = .all, emitUpdates: Bool = false, quota: (requests: Int, per: Double)? = nil, expectNewWithin: Double? = nil, filter: ItemFilter? = nil) {
        self.name = name
        self.type = type
        self.enabled = enabled
        self.interval = interval
        self.jitter = jitter ?? interval * 0.1
        self.timeout = timeout
        self.retries = retries
        self.maxItems = maxItems
        self.firstRun = firstRun
        self.emitUpdates = emitUpdates
        self.quota = quota
        self.expectNewWithin = expectNewWithin
        self.filter = filter
    }

    /// The interval of a run that ends now: the fixed one, or the one `adaptive` chooses.
    public var fixedChoice: AdaptiveInterval.Choice { AdaptiveInterval.Choice(seconds: interval, why: "interval") }
}

public struct ConfiguredSource: Sendable {
    public var settings: SourceSettings
    public var source: any FeedSource
    /// Its processing stage, in order: its filter (own or `defaults.filter`) first, then its
    /// `process` list (own or `defaults.process`).
    public var processors: [any Processor] = []
    /// The machine checks of its options (a program that must exist), run before it is.
    public var checks: [PreflightCheck] = []
    /// Its unset environment variables, as messages, when this command does not run it (a
    /// disabled source, or one `--only` leaves out): not errors then, and it must not run.
    public var unresolved: [String] = []
    /// Its config object as written: `${VAR}` not replaced, `$${` not read (`export opml`).
    public var written: JSONObject? = nil
}

public struct ConfiguredSink: Sendable {
    public var type: String
    /// `name`, else the type (`<type>-2`, `<type>-3` for later sinks of one type): the metrics' `sink` label.
    public var name: String
    public var sink: any Sink
    /// Which of the run's items this sink receives (nil: all).
    public var filter: ItemFilter?
    /// The machine checks of its options (an output folder that must be writable).
    public var checks: [PreflightCheck] = []

    /// True when the config named it (`name`), false when the name is derived from the type.
    public let hasExplicitName: Bool

    public init(type: String, name: String? = nil, sink: any Sink, filter: ItemFilter? = nil, checks: [PreflightCheck] = []) {
        self.type = type
        self.hasExplicitName = name != nil
        self.name = name ?? type
        self.sink = sink
        self.filter = filter
        self.checks = checks
    }
}

/// Which sources a command runs. An unset `${VAR}` is an error in those only: another
/// source's does not stop `run --only NAME` or `test NAME`, nor does a disabled source's.
public enum SourceSelection: Sendable {
    /// Every enabled source (`run`, `watch`, `check`).
    case enabled
    /// These sources, enabled or not (`run --only`, `test NAME`).
    case named([String])

    public func includes(name: String?, enabled: Bool) -> Bool {
        switch self {
        case .enabled: return enabled
        // A name that is not a plain string (missing, or itself from a variable) counts as
        // selected, so its variables are reported.
        case .named(let names): return name.map(names.contains) ?? true
        }
    }
}

/// All config errors, each naming the file and key path; exit 2.
public struct ConfigError: Error, CustomStringConvertible, Sendable {
    public let messages: [String]
    public init(messages: [String]) { self.messages = messages }
    public var description: String { messages.joined(separator: "\n") }
}

/// Reads and validates a config file (Docs/contract.md#config-file), or a folder of them
/// (`-c DIR`, Docs/configuration.md#config-folders): strict JSON with line:column errors,
/// `$`-keys dropped, `${VAR}` interpolation, unknown keys rejected with suggestions, every
/// error reported at once, each naming its file. Nothing is fetched or opened here.
public enum ConfigLoader {
    public static let defaults = Option.object("defaults", CommonOptions.Defaults.all, "defaults for every source")
    public static let http = Option.object("http", CommonOptions.HTTP.all, "HTTP settings")
    public static let state = Option.object("state", CommonOptions.State.all, "state database")
    public static let metrics = Option.object("metrics", CommonOptions.Metrics.all, "Prometheus metrics: a file for the node_exporter textfile collector, an endpoint under `watch`")
    public static let stories = Option.object("stories", StorySettings.Options.all, "one story once, across sources: every item gets the `story` it tells, and copies of a story already emitted are dropped or tagged (Docs/stories.md)")
    public static let topLevel: [OptionSpec] = [
        defaults.spec, http.spec, state.spec, metrics.spec, stories.spec,
        OptionSpec("sources", .pluginList, required: true, "the sources to fetch"),
        OptionSpec("sinks", .pluginList, default: "[{\"type\":\"stdout\"}]", "where items go"),
    ]
    /// A file of a config folder may hold any of the top-level keys, `sources` included.
    static let topLevelInFolder: [OptionSpec] = topLevel.map { $0.name == "sources" ? $0.with(required: false) : $0 }

    /// Where `run` looks when `-c` is absent, in order.
    public static func searchPaths() -> [String] {
        var paths = ["./tributary.json"]
        if let x = Environment.get("XDG_CONFIG_HOME"), !x.isEmpty {
            paths.append(x + "/tributary/config.json")
        } else if let home = Environment.get("HOME") {
            paths.append(home + "/.config/tributary/config.json")
        }
        return paths
    }

    /// Loads the file at `path`, or every `*.json` file of the folder at `path`. Unset
    /// variables are errors in the sources `selection` runs, in the top-level sections and in
    /// the sinks; elsewhere they are kept as written and noted on the source (`unresolved`).
    /// `environment` is called from several threads at once for a file of many sources (they
    /// are read on every core): it must only read, as `Environment.get` (getenv) does.
    public static func load(path: String, registry: Registry, environment: (String) -> String? = Environment.get,
                            selection: SourceSelection = .enabled) throws(ConfigError) -> Config {
        if ConfigFolder.isFolder(path) {
            let entries = try ConfigFolder.entries(in: path)
            var parts: [ConfigPart] = []
            var syntax: [String] = []
            for entry in entries {
                do {
                    let bytes = try ConfigFolder.read(entry)
                    parts.append(try ConfigPart(bytes: bytes, file: entry.shown, directory: entry.directory, environment: environment))
                } catch { syntax += error.messages }
            }
            if !syntax.isEmpty { throw ConfigError(messages: syntax) }
            return try assemble(parts, file: path, directory: path, inFolder: true, registry: registry, selection: selection)
        }
        let part = try ConfigPart.read(path: path, environment: environment)
        return try assemble([part], file: path, directory: part.directory, inFolder: false, registry: registry, selection: selection)
    }

    public static func load(bytes: [UInt8], file: String, directory: String, registry: Registry, environment: (String) -> String? = Environment.get,
                            selection: SourceSelection = .enabled) throws(ConfigError) -> Config {
        let part = try ConfigPart(bytes: bytes, file: file, directory: directory, environment: environment)
        return try assemble([part], file: file, directory: directory, inFolder: false, registry: registry, selection: selection)
    }

    public static func isValidName(_ s: String) -> Bool {
        var bytes = s.utf8.makeIterator()
        guard let f = bytes.next(), (f >= UInt8(ascii: "a") && f <= UInt8(ascii: "z")) || (f >= UInt8(ascii: "0") && f <= UInt8(ascii: "9")) else { return false }
        while let c = bytes.next() {
            guard (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9"))
                    || c == UInt8(ascii: ".") || c == UInt8(ascii: "_") || c == UInt8(ascii: "-") else { return false }
        }
        return true
    }
}
