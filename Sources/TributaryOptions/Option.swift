import TributaryBase
import TributaryJSON

/// Typed option declarations: one per option, holding its key, kind, default, help and whether
/// it is a secret. The validator, the reader, `tributary sources`, the JSON Schema and the
/// options tables in Docs/ all come from these; a plugin reads its options only through them
/// (`reader[Self.path]`), so a misspelt key does not compile and a default is written once.
///
///     static let path = Option.path("path", "file to write, relative to the config file").required
///     static let title = Option.string("title", "channel title").defaulted("Tributary")
///     static let maxItems = Option.integer("max_items", 1...100_000, "newest items kept").defaulted(100)
///
///     let sink = FeedFile(format: ..., path: reader[path], maxItems: reader[maxItems])
public protocol OptionDeclaration: Sendable {
    /// The declaration as the validator, the schema and the docs see it.
    var spec: OptionSpec { get }
}

/// An option that may be absent: `reader[option]` is nil then.
public struct Option<Value>: OptionDeclaration {
    public let spec: OptionSpec
    /// The value of a present, valid key (validation already ran the same kind check).
    @usableFromInline let read: @Sendable (JSONValue, OptionReader) -> Value?
    /// How a value is written in docs and help (`15m`, `16MiB`, `"date"`).
    let show: @Sendable (Value) -> String
    /// What a required option reads as when its object had errors (its make is not called then;
    /// the top-level objects are read whatever their errors, to report them all at once).
    @usableFromInline let placeholder: @Sendable () -> Value

    /// A custom kind: `read` turns a value that passed `spec`'s kind check into `Value`.
    public init(spec: OptionSpec, read: @escaping @Sendable (JSONValue, OptionReader) -> Value?,
                show: @escaping @Sendable (Value) -> String, placeholder: @escaping @Sendable () -> Value) {
        self.spec = spec
        self.read = read
        self.show = show
        self.placeholder = placeholder
    }

    /// The option must be given; `reader[option]` is its value.
    public var required: RequiredOption<Value> { RequiredOption(option: with(spec.with(required: true))) }

    /// The value when the key is absent; shown in help, schema and docs as `show(value)`.
    public func defaulted(_ value: Value) -> DefaultedOption<Value> where Value: Sendable {
        DefaultedOption(option: with(spec.with(defaultText: show(value), isValue: true)), defaultValue: value)
    }

    /// The value when the key is absent, shown as `shown` (`"10% of the interval"`).
    public func defaulted(_ value: Value, shown: String) -> DefaultedOption<Value> where Value: Sendable {
        DefaultedOption(option: with(spec.with(defaultText: shown)), defaultValue: value)
    }

    /// Says where the value comes from when the key is absent (`defaults.interval (15m)`); the
    /// reader still returns nil then.
    public func documented(default text: String) -> Option<Value> { with(spec.with(defaultText: text)) }

    /// A further rule on a value of the right kind, checked when the config is loaded: returns
    /// what is wrong (`"must be at least 1s"`), or nil. Inlinable, so the rule's closure is
    /// specialized for `Value` where it is declared: unspecialized, every call built the
    /// metadata of `Value?` at run time (once per source and checked option at load).
    @inlinable
    public func checked(_ rule: @escaping @Sendable (Value) -> String?) -> Option<Value> {
        let read = self.read
        let previous = spec.rule
        return with(spec.with(rule: { raw, reader in
            if let problem = previous?(raw, reader) { return problem }
            return read(raw, reader).flatMap(rule)
        }))
    }

    /// A rule about the machine the config runs on rather than about the config (a program
    /// that must exist, a folder that must be writable): `check` tests it, and `run`, `watch`
    /// and `test` test it before anything is fetched, for the sources they run and the sinks
    /// they write (`PreflightCheck`). `rule` gets the value and the config file's folder and
    /// returns what is wrong (`"cannot create folder /proc/nope (No such file or directory)"`;
    /// `"[0]: ..."` for an element), or nil.
    public func preflighted(_ rule: @escaping @Sendable (Value, String) -> String?) -> Option<Value> where Value: Sendable {
        let read = self.read
        return with(spec.with(preflight: { raw, reader in
            guard let value = read(raw, reader) else { return nil }
            let directory = reader.configDirectory
            return { rule(value, directory) }
        }))
    }

    /// The value is a secret as a whole (a webhook URL whose path holds a token): registered
    /// with `Secrets` when the config is loaded, so it is scrubbed from every message, log line,
    /// state row and recording. The plugin shows it in its own messages in a form without the
    /// secret part.
    public var asSecret: Option<Value> { with(spec.with(secret: true)) }

    /// The names people write when they mean this option (`OptionSpec.aliases`).
    public func aliases(_ names: String...) -> Option<Value> { with(spec.with(aliases: names)) }

    /// Says what `checked` bounds the value to, for the docs (`at least 1s`).
    public func bounded(_ text: String) -> Option<Value> { with(spec.with(bound: text)) }

    @usableFromInline
    package func with(_ spec: OptionSpec) -> Option<Value> { Option(spec: spec, read: read, show: show, placeholder: placeholder) }
}

/// An option that must be present: `reader[option]` is its value.
public struct RequiredOption<Value>: OptionDeclaration {
    public let option: Option<Value>
    public var spec: OptionSpec { option.spec }

    public func checked(_ rule: @escaping @Sendable (Value) -> String?) -> RequiredOption<Value> {
        RequiredOption(option: option.checked(rule))
    }

    public func preflighted(_ rule: @escaping @Sendable (Value, String) -> String?) -> RequiredOption<Value> where Value: Sendable {
        RequiredOption(option: option.preflighted(rule))
    }
}

/// An option with a default: `reader[option]` is its value or the default.
public struct DefaultedOption<Value: Sendable>: OptionDeclaration {
    public let option: Option<Value>
    public let defaultValue: Value
    public var spec: OptionSpec { option.spec }

    public func checked(_ rule: @escaping @Sendable (Value) -> String?) -> DefaultedOption<Value> {
        DefaultedOption(option: option.checked(rule), defaultValue: defaultValue)
    }

    public func preflighted(_ rule: @escaping @Sendable (Value, String) -> String?) -> DefaultedOption<Value> {
        DefaultedOption(option: option.preflighted(rule), defaultValue: defaultValue)
    }
}

// The subscripts are inlinable, so each plugin's read is specialized for its option's type:
// unspecialized, each read built the metadata of `Value?` at run time (`swift_getGenericMetadata`,
// 4% of loading a config of 10,000 sources).
extension OptionReader {
    @inlinable
    public subscript<Value>(_ option: Option<Value>) -> Value? { value(option) }

    @inlinable
    public subscript<Value>(_ option: DefaultedOption<Value>) -> Value { value(option.option) ?? option.defaultValue }

    @inlinable
    public subscript<Value>(_ option: RequiredOption<Value>) -> Value {
        if let v = value(option.option) { return v }
        // Reached only for an object with errors (a missing or wrong required key was reported),
        // or for a value with an unset variable (reported, or tolerated in a source not run).
        assert(!diagnostics.errors.isEmpty || object[option.spec.name].map(diagnostics.isUnresolved) == true, "\(context).\(option.spec.name) is required but was read without a value and without an error")
        return option.option.placeholder()
    }

    /// True when the key is given (for options whose presence changes what others mean).
    public func has(_ option: some OptionDeclaration) -> Bool { member(checkedName(option.spec)) != nil }

    /// The value as written in the config (a number's own digits, for a URL that must show
    /// them as given).
    public func raw(_ option: some OptionDeclaration) -> JSONValue? { member(checkedName(option.spec)) }

    /// Records an error about one option's value.
    public func error(_ option: some OptionDeclaration, _ message: String) { error(option.spec.name, message) }

    @inlinable
    func value<Value>(_ option: Option<Value>) -> Value? {
        guard let raw = member(checkedName(option.spec)) else { return nil }
        return option.read(raw, self)
    }

    /// An option read here must be one this object declares: reading another plugin's or a
    /// misspelt declaration is a bug the tests catch.
    @usableFromInline
    func checkedName(_ spec: OptionSpec) -> String {
        assert(specs.contains { $0.name == spec.name }, "\(context): option \"\(spec.name)\" is read but not declared")
        return spec.name
    }
}

// MARK: kinds

extension Option where Value == String {
    /// Any string.
    public static func string(_ name: String, _ help: String) -> Option {
        Option(spec: OptionSpec(name, .string, help), read: { v, _ in v.stringValue }, show: { $0 }, placeholder: { "" })
    }

    /// A secret (an API key, a password): it must not be empty or blank, it is read trimmed, and
    /// its value is scrubbed from every message, log line, recording and state row (`Secrets`).
    public static func secret(_ name: String, _ help: String) -> Option {
        Option(spec: OptionSpec(name, .string, secret: true, help, rule: { v, _ in
            guard let s = v.stringValue else { return nil }
            return s.trimmingBlanks.isEmpty ? "must not be empty" : nil
        }), read: { v, _ in v.stringValue?.trimmingBlanks }, show: { _ in "***" }, placeholder: { "" })
    }

    /// An absolute `http://` or `https://` URL.
    public static func httpURL(_ name: String, _ help: String) -> Option {
        Option(spec: OptionSpec(name, .url(fileAllowed: false), help), read: { v, _ in v.stringValue }, show: { $0 }, placeholder: { "" })
    }

    /// An `http(s)://` URL, or `file:` for a local document.
    public static func url(_ name: String, _ help: String) -> Option {
        Option(spec: OptionSpec(name, .url(fileAllowed: true), help), read: { v, _ in v.stringValue }, show: { $0 }, placeholder: { "" })
    }

    /// The root of an API (`https://api.example.com/v3`): http(s), no query or fragment; read
    /// without trailing slashes, so a path can be appended.
    public static func baseURL(_ name: String, _ help: String) -> Option {
        Option(spec: OptionSpec(name, .url(fileAllowed: false), help, rule: { v, _ in
            guard let s = v.stringValue else { return nil }
            if s.utf8.contains(0x3F) || s.utf8.contains(0x23) { return "expected the API root without a query or fragment, found \"\(Redactor.redactURL(s))\"" }
            return nil
        }), read: { v, _ in
            guard var s = v.stringValue else { return nil }
            while s.hasSuffix("/") { s.removeLast() }
            return s
        }, show: { $0 }, placeholder: { "" })
    }

    /// A file or folder path, resolved against the config file's folder (`~` is $HOME).
    public static func path(_ name: String, _ help: String) -> Option {
        Option(spec: OptionSpec(name, .string, help), read: { v, r in v.stringValue.map(r.resolvePath) }, show: { $0 }, placeholder: { "" })
            .bounded("file path")
    }

    /// A file the program writes (a sink's output, replaced or appended to), resolved like
    /// `path`; `-` (stdout) where `stdoutAllowed`. Its folder must exist or be creatable, and be
    /// writable (`replaced`: the file is written next to itself and renamed into place) or the
    /// file itself writable: checked before a run fetches anything (`preflighted`).
    public static func outputFile(_ name: String, replaced: Bool, stdoutAllowed: Bool = false, _ help: String) -> Option {
        Option.path(name, help).preflighted { path, _ in
            stdoutAllowed && path == "-" ? nil : FileAccess.outputProblem(path, replaced: replaced)
        }
    }

    /// The kind of the items a source makes (`[a-z][a-z0-9_]*`), `entry` unless set.
    public static func itemKind(_ help: String) -> DefaultedOption<String> {
        Option.string("kind", help).checked { Names.isSnakeCase($0) ? nil : "\"\($0)\" must match [a-z][a-z0-9_]*" }
            .bounded("`[a-z][a-z0-9_]*`").defaulted("entry")
    }

    /// One of some words.
    public static func choice(_ name: String, _ words: [String], _ help: String) -> Option {
        Option(spec: OptionSpec(name, .enumeration(words), help), read: { v, _ in v.stringValue }, show: { $0 }, placeholder: { words.first ?? "" })
    }
}

extension Option where Value: RawRepresentable & CaseIterable & Sendable, Value.RawValue == String {
    /// One of an enum's raw values. Inlinable, so each plugin's call is specialized for its
    /// enum: unspecialized, the runtime would look up `allCases`'s associated types at start.
    @inlinable
    public static func choice(_ name: String, _ type: Value.Type, _ help: String) -> Option {
        // A loop rather than `allCases.map(\.rawValue)`: a key path over a generic type is
        // built at run time, and every plugin's choices are declared at each start.
        var words: [String] = []
        for c in Value.allCases { words.append(c.rawValue) }
        return Option(spec: OptionSpec(name, .enumeration(words), help), read: { v, _ in v.stringValue.flatMap(Value.init(rawValue:)) },
                      show: { $0.rawValue }, placeholder: { Value.allCases.first! })
    }
}

extension Option where Value == Int {
    public static func integer(_ name: String, _ range: ClosedRange<Int>, _ help: String) -> Option {
        Option(spec: OptionSpec(name, .integer(min: range.lowerBound, max: range.upperBound), help), read: { v, _ in v.numberValue?.int64.map { Int($0) } },
               show: { "\($0)" }, placeholder: { range.lowerBound })
    }

    public static func integer(_ name: String, atLeast min: Int, _ help: String) -> Option {
        Option(spec: OptionSpec(name, .integer(min: min, max: nil), help), read: { v, _ in v.numberValue?.int64.map { Int($0) } },
               show: { "\($0)" }, placeholder: { min })
    }

    /// A size in bytes: a number or `"512KiB"`, `"16MiB"`.
    public static func size(_ name: String, _ help: String) -> Option {
        Option(spec: OptionSpec(name, .size, help), read: { v, _ in ByteSizes.parse(v) }, show: { ByteSizes.format($0) }, placeholder: { 0 })
    }
}

extension Option where Value == Double {
    public static func number(_ name: String, _ help: String) -> Option {
        Option(spec: OptionSpec(name, .number, help), read: { v, _ in v.numberValue?.double }, show: { "\($0)" }, placeholder: { 0 })
    }

    /// A number within `range` (a latitude, a longitude).
    public static func number(_ name: String, _ range: ClosedRange<Double>, _ help: String) -> Option {
        Option.number(name, help).checked { range.contains($0) ? nil : "expected a number from \(Self.text(range.lowerBound)) to \(Self.text(range.upperBound)), found \(Self.text($0))" }
            .bounded("\(Self.text(range.lowerBound)) to \(Self.text(range.upperBound))")
    }

    static func text(_ d: Double) -> String { d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : "\(d)" }

    /// A duration in seconds: a number or `"250ms"`, `"20s"`, `"15m"`, `"2h"`, `"1d"`.
    public static func duration(_ name: String, _ help: String) -> Option {
        Option(spec: OptionSpec(name, .duration, help), read: { v, _ in Durations.parse(v) }, show: { Durations.format($0) }, placeholder: { 0 })
    }

    /// A duration of at least `minimum` seconds (a timeout must be positive: at least 1ms).
    public static func duration(_ name: String, atLeast minimum: Double, _ help: String) -> Option {
        Option.duration(name, help).checked { $0 >= minimum ? nil : "must be at least \(Durations.format(minimum)), found \(Durations.format($0))" }
            .bounded("at least \(Durations.format(minimum))")
    }
}

extension Option where Value == Bool {
    public static func bool(_ name: String, _ help: String) -> Option {
        Option(spec: OptionSpec(name, .bool, help), read: { v, _ in v.boolValue }, show: { $0 ? "true" : "false" }, placeholder: { false })
    }
}

extension Option where Value == KeyPath {
    public static func keyPath(_ name: String, _ help: String) -> Option {
        Option(spec: OptionSpec(name, .keyPath, help), read: { v, _ in v.stringValue.flatMap { try? KeyPath(parsing: $0) } },
               show: { "\"\($0)\"" }, placeholder: { KeyPath(components: []) })
    }
}

extension Option where Value == [String] {
    /// A list of strings (integers are taken as their text: city ids are numbers).
    public static func stringList(_ name: String, _ help: String) -> Option {
        Option(spec: OptionSpec(name, .stringList, help), read: { v, _ in OptionReader.strings(v) }, show: { $0.joined(separator: ", ") }, placeholder: { [] })
    }

    /// A list of absolute http(s) URLs (and `file:` ones when `fileAllowed`).
    public static func urlList(_ name: String, fileAllowed: Bool, _ help: String) -> Option {
        Option(spec: OptionSpec(name, .stringList, help, rule: { v, _ in
            for (i, u) in (OptionReader.strings(v) ?? []).enumerated() {
                if let problem = OptionReader.urlProblem(u, fileAllowed: fileAllowed) { return "[\(i)]: \(problem)" }
            }
            return nil
        }), read: { v, _ in OptionReader.strings(v) }, show: { $0.joined(separator: ", ") }, placeholder: { [] })
            .bounded(fileAllowed ? "http/https/file URLs" : "http/https URLs")
    }

    /// A string or a list of strings; a string reads as a list of one.
    public static func stringOrList(_ name: String, _ help: String) -> Option {
        Option(spec: OptionSpec(name, .stringOrList, help), read: { v, _ in OptionReader.strings(v) }, show: { $0.joined(separator: ",") }, placeholder: { [] })
    }
}

extension Option where Value == [(String, String)] {
    /// An object of names to strings (headers, query parameters), in order; numbers and bools
    /// are taken as their text.
    public static func stringMap(_ name: String, _ help: String) -> Option {
        Option(spec: OptionSpec(name, .stringMap, help), read: { v, _ in OptionReader.pairs(v) }, show: { _ in "{}" }, placeholder: { [] })
    }
}

extension Option where Value == [(String, KeyPath)] {
    /// An object of names to key paths (`data` fields), in order.
    public static func keyPathMap(_ name: String, _ help: String) -> Option {
        Option(spec: OptionSpec(name, .keyPathMap, help), read: { v, _ in
            v.objectValue?.entries.compactMap { e in e.value.stringValue.flatMap { try? KeyPath(parsing: $0) }.map { (e.key, $0) } }
        }, show: { _ in "{}" }, placeholder: { [] })
    }
}

/// Where a field's value comes from: a key path, or a program in a language the reader of the
/// option knows (`{"jq": "<program>"}`: the `json` source compiles it).
public enum FieldMapping: Sendable, Equatable {
    case path(KeyPath)
    /// A jq program, as written.
    case jq(String)

    public init?(_ v: JSONValue) {
        if let s = v.stringValue {
            guard let p = try? KeyPath(parsing: s) else { return nil }
            self = .path(p)
        } else if let o = v.objectValue, o.count == 1, let program = o["jq"]?.stringValue {
            self = .jq(program)
        } else {
            return nil
        }
    }

    /// What is wrong with `v` as a field mapping, or nil.
    static func problem(_ v: JSONValue) -> String? {
        if let s = v.stringValue {
            if KeyPaths.isPlain(s) { return nil }
            do { _ = try KeyPath(parsing: s) } catch { return "\(error)" }
            return nil
        }
        guard let o = v.objectValue else { return "expected a key path string or {\"jq\": \"<program>\"}, found \(v.typeName)" }
        if let other = o.keys.first(where: { $0 != "jq" }) {
            return "expected {\"jq\": \"<program>\"}, found the key \"\(other)\" (a mapping object has the one key jq)"
        }
        guard let program = o["jq"] else { return "expected {\"jq\": \"<program>\"}, found an empty object" }
        guard let text = program.stringValue else { return "expected {\"jq\": \"<program>\"}, found a \(program.typeName) as the program" }
        if text.isEmpty { return "expected a jq program, found an empty string" }
        return nil
    }
}

extension Option where Value == FieldMapping {
    /// A key path, or `{"jq": "<program>"}`.
    public static func fieldMapping(_ name: String, _ help: String) -> Option {
        Option(spec: OptionSpec(name, .fieldMapping, help), read: { v, _ in FieldMapping(v) },
               show: { m in
                   switch m {
                   case .path(let p): return "\"\(p)\""
                   case .jq(let t): return "{\"jq\": \"\(t)\"}"
                   }
               }, placeholder: { .path(KeyPath(components: [])) })
    }
}

extension Option where Value == [(String, FieldMapping)] {
    /// An object of names to field mappings (`data` fields), in order.
    public static func fieldMappingMap(_ name: String, _ help: String) -> Option {
        Option(spec: OptionSpec(name, .fieldMappingMap, help), read: { v, _ in
            v.objectValue?.entries.compactMap { e in FieldMapping(e.value).map { (e.key, $0) } }
        }, show: { _ in "{}" }, placeholder: { [] })
    }
}

extension Option where Value == OptionReader {
    /// A nested object with its own options, read through a reader of its own.
    public static func object(_ name: String, _ options: [any OptionDeclaration], _ help: String) -> Option {
        let specs = options.map(\.spec)
        return Option(spec: OptionSpec(name, .object(specs), help), read: { v, r in v.objectValue.map { r.nested($0, key: name, specs: specs) } },
                      show: { _ in "{}" }, placeholder: { OptionReader(placeholderFor: name, specs: specs) })
    }
}

extension Option where Value == [(String, OptionReader)] {
    /// An object of names to objects with their own options (`rules`: a host to its rule), in
    /// order, each read through a reader of its own (errors name `<option>.<name>.<key>`).
    public static func objectMap(_ name: String, _ options: [any OptionDeclaration], _ help: String) -> Option {
        let specs = options.map(\.spec)
        return Option(spec: OptionSpec(name, .objectMap(specs), help), read: { v, r in
            v.objectValue?.entries.compactMap { e in e.value.objectValue.map { (e.key, r.nested($0, key: "\(name).\(e.key)", specs: specs)) } }
        }, show: { _ in "{}" }, placeholder: { [] })
    }
}

extension Option where Value == [OptionReader] {
    /// A list of objects with their own options, each read through a reader of its own.
    public static func objectList(_ name: String, _ options: [any OptionDeclaration], _ help: String) -> Option {
        let specs = options.map(\.spec)
        return Option(spec: OptionSpec(name, .objectList(specs), help), read: { v, r in
            v.arrayValue?.enumerated().compactMap { i, el in el.objectValue.map { r.nested($0, key: "\(name)[\(i)]", specs: specs) } }
        }, show: { _ in "[]" }, placeholder: { [] })
    }
}
