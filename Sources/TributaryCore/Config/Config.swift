#if canImport(Glibc)
import Glibc
#endif

/// A loaded, validated configuration: global settings plus ready-to-run sources and sinks.
public struct Config: Sendable {
    public var file: String
    public var directory: String
    public var http: HTTPSettings
    /// `http.replay`, resolved against the config folder.
    public var replayDirectory: String?
    /// `state.path` resolved against the config folder (nil: the default location).
    public var statePath: String?
    public var retention: Double
    public var lockTimeout: Double
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
    public var interval: Double
    /// Random spread (seconds) of each scheduled run.
    public var jitter: Double
    public var timeout: Double
    public var retries: Int
    public var maxItems: Int?
    public var firstRun: FirstRun
    public var emitUpdates: Bool
    /// At most `requests` per `per` seconds.
    public var quota: (requests: Int, per: Double)?
    /// Which of its items the source emits (its own `filter`, else `defaults.filter`).
    public var filter: ItemFilter?

    public init(name: String, type: String, enabled: Bool = true, interval: Double = 900, jitter: Double? = nil, timeout: Double = 20, retries: Int = 2, maxItems: Int? = nil,
                firstRun: FirstRun = .all, emitUpdates: Bool = false, quota: (requests: Int, per: Double)? = nil, filter: ItemFilter? = nil) {
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
        self.filter = filter
    }
}

public struct ConfiguredSource: Sendable {
    public var settings: SourceSettings
    public var source: any FeedSource
}

public struct ConfiguredSink: Sendable {
    public var type: String
    public var sink: any Sink
    /// Which of the run's items this sink receives (nil: all).
    public var filter: ItemFilter?

    public init(type: String, sink: any Sink, filter: ItemFilter? = nil) {
        self.type = type
        self.sink = sink
        self.filter = filter
    }
}

/// All config errors, each naming the file and key path; exit 2.
public struct ConfigError: Error, CustomStringConvertible, Sendable {
    public let messages: [String]
    public init(messages: [String]) { self.messages = messages }
    public var description: String { messages.joined(separator: "\n") }
}

/// Reads and validates a config file (Docs/contract.md#config-file): strict JSON with line:column errors,
/// `$`-keys dropped, `${VAR}` interpolation, unknown keys rejected with suggestions, every error
/// reported at once. Nothing is fetched or opened here.
public enum ConfigLoader {
    public static let defaults = Option.object("defaults", CommonOptions.Defaults.all, "defaults for every source")
    public static let http = Option.object("http", CommonOptions.HTTP.all, "HTTP settings")
    public static let state = Option.object("state", CommonOptions.State.all, "state database")
    public static let topLevel: [OptionSpec] = [
        defaults.spec, http.spec, state.spec,
        OptionSpec("sources", .pluginList, required: true, "the sources to fetch"),
        OptionSpec("sinks", .pluginList, default: "[{\"type\":\"stdout\"}]", "where items go"),
    ]

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

    public static func load(path: String, registry: Registry, environment: (String) -> String? = Environment.get) throws(ConfigError) -> Config {
        let display = path
        guard let bytes = readFile(path) else {
            throw ConfigError(messages: ["\(display): cannot read the config file (\(String(cString: strerror(errno))))"])
        }
        var dir = "."
        if let slash = path.lastIndex(of: "/") { dir = String(path[..<slash]); if dir.isEmpty { dir = "/" } }
        return try load(bytes: bytes, file: display, directory: dir, registry: registry, environment: environment)
    }

    public static func load(bytes: [UInt8], file: String, directory: String, registry: Registry, environment: (String) -> String? = Environment.get) throws(ConfigError) -> Config {
        let doc: JSONValue
        do { doc = try JSONParser.parse(bytes) } catch {
            throw ConfigError(messages: ["\(file):\(error.line):\(error.column): \(error.message)"])
        }
        let diag = ConfigDiagnostics(file: file)
        let cleaned = prepare(doc, path: "", diag: diag, env: environment)
        guard case .object(let root) = cleaned else {
            throw ConfigError(messages: ["\(file): the config must be a JSON object, found \(doc.typeName)"])
        }
        let top = OptionReader(object: root, context: "(top level)", specs: topLevel, diagnostics: diag, configDirectory: directory)
        // An absent section reads as an empty one: every option's default.
        let empty = OptionReader(object: JSONObject(), context: "", specs: [], diagnostics: ConfigDiagnostics(file: file), configDirectory: directory)
        let defaults = top[Self.defaults] ?? empty.nested(JSONObject(), key: "defaults", specs: CommonOptions.Defaults.all.map(\.spec))
        let httpR = top[Self.http] ?? empty.nested(JSONObject(), key: "http", specs: CommonOptions.HTTP.all.map(\.spec))
        var http = HTTPSettings()
        http.concurrency = httpR[CommonOptions.HTTP.concurrency]
        http.perHost = httpR[CommonOptions.HTTP.perHost]
        if http.perHost > http.concurrency, httpR.has(CommonOptions.HTTP.perHost) {
            httpR.error(CommonOptions.HTTP.perHost, "must not exceed http.concurrency (\(http.concurrency)), found \(http.perHost)")
        }
        http.perHost = min(http.perHost, http.concurrency)
        http.userAgent = httpR[CommonOptions.HTTP.userAgent]
        http.maxBody = httpR[CommonOptions.HTTP.maxBody]
        let replay = httpR[CommonOptions.HTTP.replay]
        let defInterval = defaults[CommonOptions.Defaults.interval]
        let defTimeout = defaults[CommonOptions.Defaults.timeout]
        let defRetries = defaults[CommonOptions.Defaults.retries]
        let defJitter = defaults[CommonOptions.Defaults.jitter]
        let defFilter = FilterOptions.read(defaults)
        let stateR = top[Self.state] ?? empty.nested(JSONObject(), key: "state", specs: CommonOptions.State.all.map(\.spec))
        let statePath = stateR[CommonOptions.State.path]
        let retention = stateR[CommonOptions.State.retention]
        let lockTimeout = stateR[CommonOptions.State.lockTimeout]

        var sources: [ConfiguredSource] = []
        var names: [String: Int] = [:]
        for (i, el) in (root["sources"]?.arrayValue ?? []).enumerated() {
            guard let obj = el.objectValue else { continue }  // reported by the top-level check
            let name = obj["name"]?.stringValue
            let context = name.map { "sources[\(i)] (\"\($0)\")" } ?? "sources[\(i)]"
            if let name {
                if !isValidName(name) { diag.add("\(context).name: \"\(name)\" must match [a-z0-9][a-z0-9._-]*") }
                if let prev = names[name] { diag.add("\(context).name: \"\(name)\" is already used by sources[\(prev)]") }
                names[name] = i
            } else {
                diag.add("\(context): missing required key \"name\"")
            }
            guard let type = obj["type"]?.stringValue else {
                diag.add("\(context): missing required key \"type\" (one of: \(registry.sources.map(\.type).joined(separator: ", ")))")
                continue
            }
            guard let desc = registry.source(type) else {
                var msg = "\(context).type: unknown source type \"\(type)\""
                if let s = Suggest.closest(to: type, in: registry.sources.map(\.type)) { msg += " (did you mean \"\(s)\"?)" }
                diag.add(msg + "; known types: " + registry.sources.map(\.type).joined(separator: ", "))
                continue
            }
            let before = diag.errors.count
            let reader = OptionReader(object: obj, context: context, specs: CommonOptions.source.map(\.spec) + desc.options, diagnostics: diag, configDirectory: directory)
            let quota = reader[CommonOptions.quota]
            let interval = reader[CommonOptions.interval] ?? defInterval
            let settings = SourceSettings(
                name: name ?? "source\(i)", type: type,
                enabled: reader[CommonOptions.enabled],
                interval: interval,
                jitter: defJitter.map { min($0, interval) },
                timeout: reader[CommonOptions.timeout] ?? defTimeout,
                retries: reader[CommonOptions.retries] ?? defRetries,
                maxItems: reader[CommonOptions.maxItems],
                firstRun: reader[CommonOptions.firstRun],
                emitUpdates: reader[CommonOptions.emitUpdates],
                quota: quota.map { q in (q[CommonOptions.Quota.requests], q[CommonOptions.Quota.per]) },
                filter: FilterOptions.read(reader) ?? defFilter)
            // The plugin's own checks run even when a key was wrong (typed reads give a
            // placeholder then), so every error of the config is reported at once.
            if let source = desc.make(settings, reader), diag.errors.count == before {
                sources.append(ConfiguredSource(settings: settings, source: source))
            }
        }

        var sinks: [ConfiguredSink] = []
        let sinkList = root["sinks"]?.arrayValue ?? [.object(JSONObject([("type", .string("stdout"))]))]
        for (i, el) in sinkList.enumerated() {
            guard let obj = el.objectValue else { continue }
            let context = "sinks[\(i)]"
            guard let type = obj["type"]?.stringValue else {
                diag.add("\(context): missing required key \"type\" (one of: \(registry.sinks.map(\.type).joined(separator: ", ")))")
                continue
            }
            guard let desc = registry.sink(type) else {
                var msg = "\(context).type: unknown sink type \"\(type)\""
                if let s = Suggest.closest(to: type, in: registry.sinks.map(\.type)) { msg += " (did you mean \"\(s)\"?)" }
                diag.add(msg + "; known types: " + registry.sinks.map(\.type).joined(separator: ", "))
                continue
            }
            let before = diag.errors.count
            let reader = OptionReader(object: obj, context: context, specs: CommonOptions.sink.map(\.spec) + desc.options, diagnostics: diag, configDirectory: directory)
            if let sink = desc.make(reader), diag.errors.count == before {
                sinks.append(ConfiguredSink(type: type, sink: sink, filter: FilterOptions.read(reader)))
            }
        }
        if !diag.errors.isEmpty { throw ConfigError(messages: diag.errors) }
        return Config(file: file, directory: directory, http: http, replayDirectory: replay,
                      statePath: statePath, retention: retention, lockTimeout: lockTimeout, sources: sources, sinks: sinks)
    }

    public static func isValidName(_ s: String) -> Bool {
        guard let first = s.unicodeScalars.first, ("a"..."z").contains(first) || ("0"..."9").contains(first) else { return false }
        return s.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "." || $0 == "_" || $0 == "-" }
    }

    /// Drops `$`-keys everywhere and interpolates `${VAR}` in every string.
    static func prepare(_ v: JSONValue, path: String, diag: ConfigDiagnostics, env: (String) -> String?) -> JSONValue {
        switch v {
        case .string(let s):
            let (text, missing) = Environment.interpolate(s, lookup: env)
            for name in missing {
                diag.add("\(path.isEmpty ? "(top level)" : path): environment variable \(name) is not set (write ${\(name):-default} to give a default)")
            }
            return .string(text)
        case .array(let a):
            return .array(a.enumerated().map { prepare($0.element, path: "\(path)[\($0.offset)]", diag: diag, env: env) })
        case .object(let o):
            var out = JSONObject()
            for e in o.entries where !e.key.hasPrefix("$") {
                out.entries.append((e.key, prepare(e.value, path: path.isEmpty ? e.key : "\(path).\(e.key)", diag: diag, env: env)))
            }
            return .object(out)
        default:
            return v
        }
    }

    static func readFile(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        // A buffer the size of the file (a config is a few KB), not a fixed 64 KiB one: zeroing
        // and faulting in 16 fresh pages was a measurable part of `check`.
        var st = stat()
        let size = fstat(fd, &st) == 0 && st.st_size > 0 ? Int(st.st_size) : 0
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: min(max(size + 1, 4096), 65536))
        while true {
            let n = buf.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR { continue }; return nil }
            if n == 0 { break }
            out.append(contentsOf: buf[0..<n])
        }
        return out
    }
}
