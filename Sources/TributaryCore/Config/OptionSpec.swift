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
    /// A rule beyond the kind (`must be at least 1s`), checked when the config is loaded on a
    /// value that passed the kind check: returns what is wrong, or nil.
    public private(set) var rule: (@Sendable (JSONValue, OptionReader) -> String?)?

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

    func with(required: Bool) -> OptionSpec {
        OptionSpec(name, kind, required: required, default: defaultText, secret: secret, help, rule: rule)
    }

    func with(defaultText: String) -> OptionSpec {
        OptionSpec(name, kind, required: required, default: defaultText, secret: secret, help, rule: rule)
    }

    func with(rule: @escaping @Sendable (JSONValue, OptionReader) -> String?) -> OptionSpec {
        OptionSpec(name, kind, required: required, default: defaultText, secret: secret, help, rule: rule)
    }

    public var typeName: String {
        switch kind {
        case .string: return "string"
        case .url(let fileAllowed): return fileAllowed ? "URL (http, https or file)" : "URL (http or https)"
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
