import TributaryBase
import TributaryJSON

/// The declaration of one config option: its name, value type, whether it is required, its
/// default and a line of help. Sources and sinks declare theirs; the validator, `tributary
/// sources` and the JSON Schema are all derived from these declarations.
public struct OptionSpec: Sendable {
    public indirect enum Kind: Sendable {
        case string
        /// A string that must be an absolute http(s) URL (or a `file:` one where allowed).
        case url(fileAllowed: Bool)
        case integer(min: Int?, max: Int?)
        case number
        case bool
        case duration
        /// A duration, or the word `"auto"` (`interval`).
        case durationOrAuto
        case size
        case keyPath
        case stringList
        /// Object of string -> string (headers, query parameters).
        case stringMap
        /// Object of name -> key path (`data` fields).
        case keyPathMap
        /// A key path, or `{"jq": "<program>"}`: a `json` source's field mapping (`FieldMapping`).
        case fieldMapping
        /// Object of name -> field mapping (`data` fields of a `json` source).
        case fieldMappingMap
        case enumeration([String])
        /// A nested object with its own options.
        case object([OptionSpec])
        /// A list of nested objects with their own options.
        case objectList([OptionSpec])
        /// An object of names to nested objects with their own options (`rules`: host -> rule).
        case objectMap([OptionSpec])
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
    /// A secret (an API key, an app secret, a webhook URL with its token in the path): its
    /// value is registered with `Secrets` when the config is loaded (a URL with
    /// `Secrets.registerURL`: whole, and its path and query), so it is scrubbed from every
    /// message, log line, state row and recording, whatever carries it.
    public let secret: Bool
    /// A rule beyond the kind (`must be at least 1s`), checked when the config is loaded on a
    /// value that passed the kind check: returns what is wrong, or nil.
    public private(set) var rule: (@Sendable (JSONValue, OptionReader) -> String?)?
    /// A bound the kind does not carry, as people read it (`at least 1s`, `-90 to 90`): set by
    /// the kinds whose rule checks one, shown in the docs' type column.
    public internal(set) var bound: String?
    /// True when `defaultText` is a value as written in the config (`15m`, `true`), false when
    /// it says in words where the value comes from (`defaults.interval (15m)`).
    public internal(set) var defaultIsValue = false
    /// A rule about the machine rather than the config (a program that must exist, a folder
    /// that must be writable): given a valid value when the config is loaded, it returns the
    /// test to run later, by `check` and before `run` fetches anything (see `PreflightCheck`).
    public private(set) var preflight: (@Sendable (JSONValue, OptionReader) -> (@Sendable () -> String?)?)?
    /// The names people write for this option when they mean it (`link` for a feed's `url`,
    /// `file` for a sink's `path`): an unknown key that is one of them is pointed here, before
    /// any spelling suggestion.
    public internal(set) var aliases: [String] = []

    public init(_ name: String, _ kind: Kind, required: Bool = false, default defaultText: String? = nil, secret: Bool = false, _ help: String,
                rule: (@Sendable (JSONValue, OptionReader) -> String?)? = nil) {
        self.name = name
        self.kind = kind
        self.required = required
        self.defaultText = defaultText
        self.secret = secret
        self.help = help
        self.rule = rule
    }

    package func with(required: Bool) -> OptionSpec {
        keeping(OptionSpec(name, kind, required: required, default: defaultText, secret: secret, help, rule: rule))
    }

    package func with(defaultText: String, isValue: Bool = false) -> OptionSpec {
        var s = keeping(OptionSpec(name, kind, required: required, default: defaultText, secret: secret, help, rule: rule))
        s.defaultIsValue = isValue
        return s
    }

    package func with(secret: Bool) -> OptionSpec {
        keeping(OptionSpec(name, kind, required: required, default: defaultText, secret: secret, help, rule: rule))
    }

    @usableFromInline
    package func with(rule: @escaping @Sendable (JSONValue, OptionReader) -> String?) -> OptionSpec {
        keeping(OptionSpec(name, kind, required: required, default: defaultText, secret: secret, help, rule: rule))
    }

    package func with(preflight: @escaping @Sendable (JSONValue, OptionReader) -> (@Sendable () -> String?)?) -> OptionSpec {
        var s = self
        s.preflight = preflight
        return s
    }

    package func with(aliases: [String]) -> OptionSpec {
        var s = self
        s.aliases = aliases
        return s
    }

    package func with(bound: String) -> OptionSpec {
        var s = self
        s.bound = bound
        return s
    }

    /// `spec` with this one's bound, default flag and machine check.
    private func keeping(_ spec: OptionSpec) -> OptionSpec {
        var s = spec
        s.bound = bound
        s.defaultIsValue = defaultIsValue
        s.preflight = preflight
        s.aliases = aliases
        return s
    }

    public var typeName: String {
        switch kind {
        case .string: return "string"
        case .url(let fileAllowed): return fileAllowed ? "URL (http, https or file)" : "URL (http or https)"
        case .integer: return "integer"
        case .number: return "number"
        case .bool: return "bool"
        case .duration: return "duration"
        case .durationOrAuto: return "duration|\"auto\""
        case .size: return "size"
        case .keyPath: return "key path"
        case .stringList: return "list of strings"
        case .stringMap: return "object of strings"
        case .keyPathMap: return "object of key paths"
        case .fieldMapping: return "key path or {\"jq\": program}"
        case .fieldMappingMap: return "object of key paths or {\"jq\": program}"
        case .enumeration(let v): return v.map { "\"\($0)\"" }.joined(separator: "|")
        case .object: return "object"
        case .objectList: return "list of objects"
        case .objectMap: return "object of objects"
        case .stringOrList: return "string or list of strings"
        case .pluginList: return "list of objects"
        case .enumOrInteger(let v, let min): return v.map { "\"\($0)\"" }.joined(separator: "|") + "|integer >= \(min)"
        }
    }

    /// The type as the docs' option tables show it: `string`, `URL (http/https)`, `duration
    /// (at least 1s)`, `one of `a`, `b``.
    public var readableType: String {
        func bounded(_ base: String) -> String { bound.map { "\(base) (\($0))" } ?? base }
        switch kind {
        case .string: return secret ? "string (secret)" : bounded("string")
        case .url(let fileAllowed): return (fileAllowed ? "URL (http/https/file)" : "URL (http/https)") + (secret ? ", secret" : "")
        case .integer(let min?, let max?): return "integer (\(min) to \(max))"
        case .integer(let min?, nil): return "integer (at least \(min))"
        case .integer(nil, let max?): return "integer (at most \(max))"
        case .integer: return bounded("integer")
        case .number: return bounded("number")
        case .duration: return bounded("duration")
        case .durationOrAuto: return bounded("duration") + " or `auto`"
        case .enumeration(let v): return "one of " + v.map { "`\($0)`" }.joined(separator: ", ")
        case .enumOrInteger(let v, let min): return "one of " + v.map { "`\($0)`" }.joined(separator: ", ") + ", or an integer (at least \(min))"
        default: return bounded(typeName)
        }
    }
}
