/// The declaration of one config option: its name, value type, whether it is required, its
/// default and a line of help. Sources and sinks declare theirs; the validator, `tributary
/// sources` and the JSON Schema are all derived from these declarations.
public struct OptionSpec: Sendable {
    public indirect enum Kind: Sendable {
        case string
        /// A string that must be non-empty and look like an http(s) URL (or file: where allowed).
        case url
        case integer(min: Int?, max: Int?)
        case number
        case bool
        case duration
        case size
        case keyPath
        case stringList
        /// Object of string -> string (headers, query parameters).
        case stringMap
        /// Object of name -> key path (`data` fields).
        case keyPathMap
        case enumeration([String])
        /// A nested object with its own options.
        case object([OptionSpec])
        /// A list of nested objects with their own options.
        case objectList([OptionSpec])
        /// Either a string or a list of strings (`url` / `urls`).
        case stringOrList
        /// A list of plugin objects (sources, sinks), each validated by its own type's options.
        case pluginList
        /// One of some words, or an integer >= min (`first_run`: "all", "none" or N).
        case enumOrInteger([String], min: Int)
    }

    public let name: String
    public let kind: Kind
    public let required: Bool
    /// The default as shown to people (nil: none).
    public let defaultText: String?
    public let help: String
    /// A secret (an API key, an app secret): its value is registered with `Secrets` when the
    /// config is loaded, so it is scrubbed from every message, log line, state row and
    /// recording, whatever carries it.
    public let secret: Bool

    public init(_ name: String, _ kind: Kind, required: Bool = false, default defaultText: String? = nil, secret: Bool = false, _ help: String) {
        self.name = name
        self.kind = kind
        self.required = required
        self.defaultText = defaultText
        self.secret = secret
        self.help = help
    }

    public var typeName: String {
        switch kind {
        case .string: return "string"
        case .url: return "URL"
        case .integer: return "integer"
        case .number: return "number"
        case .bool: return "bool"
        case .duration: return "duration"
        case .size: return "size"
        case .keyPath: return "key path"
        case .stringList: return "list of strings"
        case .stringMap: return "object of strings"
        case .keyPathMap: return "object of key paths"
        case .enumeration(let v): return v.map { "\"\($0)\"" }.joined(separator: "|")
        case .object: return "object"
        case .objectList: return "list of objects"
        case .stringOrList: return "string or list of strings"
        case .pluginList: return "list of objects"
        case .enumOrInteger(let v, let min): return v.map { "\"\($0)\"" }.joined(separator: "|") + "|integer >= \(min)"
        }
    }
}

/// Keys every source accepts, whatever its type.
public enum CommonOptions {
    public static let source: [OptionSpec] = [
        OptionSpec("name", .string, required: true, "unique name, [a-z0-9][a-z0-9._-]*"),
        OptionSpec("type", .string, required: true, "the source type (see `tributary sources`)"),
        OptionSpec("enabled", .bool, default: "true", "false skips the source"),
        OptionSpec("interval", .duration, default: "defaults.interval (15m)", "how often `watch` (and `run --respect-schedule`) runs it"),
        OptionSpec("timeout", .duration, default: "defaults.timeout (20s)", "total time for one HTTP attempt"),
        OptionSpec("retries", .integer(min: 0, max: 10), default: "defaults.retries (2)", "retries on connection errors, timeouts, 429 and 5xx"),
        OptionSpec("max_items", .integer(min: 1, max: nil), "keep at most this many items per run (first ones as the source returns them)"),
        OptionSpec("first_run", .enumOrInteger(["all", "none"], min: 1), default: "all", "what the very first run emits: all, none (only remember what exists now), or the newest N"),
        OptionSpec("emit_updates", .bool, default: "false", "re-emit an item whose content changed under the same id, with data.updated = true"),
        OptionSpec("quota", .object(quotaOptions), "request budget: skip the source once `requests` were made in the current `per` window"),
    ]

    public static let quotaOptions: [OptionSpec] = [
        OptionSpec("requests", .integer(min: 1, max: nil), required: true, "requests allowed per window"),
        OptionSpec("per", .duration, required: true, "window length, e.g. \"1d\""),
    ]

    public static let sink: [OptionSpec] = [
        OptionSpec("type", .string, required: true, "the sink type (see `tributary sources`)"),
    ]

    public static let defaults: [OptionSpec] = [
        OptionSpec("interval", .duration, default: "15m", "default interval of every source"),
        OptionSpec("timeout", .duration, default: "20s", "default timeout of every source"),
        OptionSpec("retries", .integer(min: 0, max: 10), default: "2", "default retries of every source"),
        OptionSpec("jitter", .duration, default: "10% of the interval", "random spread added to each scheduled run"),
    ]

    public static let http: [OptionSpec] = [
        OptionSpec("concurrency", .integer(min: 1, max: HTTPSettings.maxConcurrency), default: "32", "transfers in flight at once, all hosts"),
        OptionSpec("per_host", .integer(min: 1, max: HTTPSettings.maxConcurrency), default: "6", "transfers in flight at once per host (at most `concurrency`)"),
        OptionSpec("user_agent", .string, default: "tributary/<version>", "User-Agent header"),
        OptionSpec("max_body", .size, default: "16MiB", "largest response body accepted (after decompression)"),
        OptionSpec("replay", .string, "answer every request from recordings in this folder (relative to the config file)"),
    ]

    public static let state: [OptionSpec] = [
        OptionSpec("path", .string, default: "$XDG_STATE_HOME/tributary/state.sqlite", "state database (relative to the config file)"),
        OptionSpec("retention", .duration, default: "30d", "forget ids, validators and removed sources not seen for this long"),
        OptionSpec("lock_timeout", .duration, default: "30s", "how long a second run waits for the first to finish, then exits 2"),
        OptionSpec("url", .string, secret: true, "keep the state in PostgreSQL instead: postgres://user:password@host:port/database (or postgresql://), shared by many workers"),
        OptionSpec("schema", .string, default: "tributary", "the PostgreSQL schema of the state's tables (with url)"),
        OptionSpec("lease", .duration, default: "2m", "how long a worker's claim on a source lasts unless renewed, at least 1s (with url)"),
    ]
}
