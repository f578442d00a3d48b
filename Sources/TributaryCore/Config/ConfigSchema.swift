
/// Generates the JSON Schema (draft 2020-12) of the whole config from the same option
/// declarations the validator uses, so editors and the validator never disagree. The checked-in
/// copy is Sources-config/tributary.schema.json; a test keeps the two equal.
public enum ConfigSchema {
    public static func generate(_ registry: Registry) -> JSONValue {
        // A `process` list: objects with a registered processor type, each with its options.
        let processor = obj([
            ("type", .string("object")),
            ("required", .array([.string("type")])),
            ("properties", obj([("type", obj([("enum", .array(registry.processors.map { .string($0.type) }))]))])),
            ("allOf", .array(registry.processors.map { rule(type: $0.type, specs: [CommonOptions.processorType.spec] + $0.options) })),
        ])
        let lists = ["process": processor]
        var sourceRules: [JSONValue] = []
        for d in registry.sources {
            sourceRules.append(rule(type: d.type, specs: CommonOptions.source.map(\.spec) + d.options, lists: lists))
        }
        var sinkRules: [JSONValue] = []
        for d in registry.sinks {
            sinkRules.append(rule(type: d.type, specs: CommonOptions.sink.map(\.spec) + d.options))
        }
        let source = obj([
            ("type", .string("object")),
            ("required", .array([.string("name"), .string("type")])),
            ("properties", obj([
                ("name", obj([("type", .string("string")), ("pattern", .string("^[a-z0-9][a-z0-9._-]*$"))])),
                ("type", obj([("enum", .array(registry.sources.map { .string($0.type) }))])),
            ])),
            ("allOf", .array(sourceRules)),
        ])
        let sink = obj([
            ("type", .string("object")),
            ("required", .array([.string("type")])),
            ("properties", obj([("type", obj([("enum", .array(registry.sinks.map { .string($0.type) }))]))])),
            ("allOf", .array(sinkRules)),
        ])
        var props: [(String, JSONValue)] = []
        for spec in ConfigLoader.topLevel {
            switch spec.name {
            case "sources": props.append(("sources", obj([("type", .string("array")), ("items", source), ("description", .string(spec.help))])))
            case "sinks": props.append(("sinks", obj([("type", .string("array")), ("items", sink), ("description", .string(spec.help))])))
            default: props.append((spec.name, schema(spec, lists: lists)))
            }
        }
        return obj([
            ("$schema", .string("https://json-schema.org/draft/2020-12/schema")),
            ("$id", .string("https://example.invalid/tributary.schema.json")),
            ("title", .string("Tributary config")),
            ("type", .string("object")),
            ("required", .array([.string("sources")])),
            ("properties", obj(props)),
            ("patternProperties", dollarKeys),
            ("additionalProperties", .bool(false)),
        ])
    }

    static let dollarKeys = obj([("^\\$", obj([]))])

    static func obj(_ entries: [(String, JSONValue)]) -> JSONValue {
        .object(JSONObject(entries.map { (key: $0.0, value: $0.1) }))
    }

    /// `lists`: the item schema of a `pluginList` option, by name (`process`).
    static func rule(type: String, specs: [OptionSpec], lists: [String: JSONValue] = [:]) -> JSONValue {
        obj([
            ("if", obj([("properties", obj([("type", obj([("const", .string(type))]))]))])),
            ("then", objectSchema(specs, lists: lists)),
        ])
    }

    static func objectSchema(_ specs: [OptionSpec], lists: [String: JSONValue] = [:]) -> JSONValue {
        var props: [(String, JSONValue)] = []
        for s in specs { props.append((s.name, schema(s, lists: lists))) }
        var entries: [(String, JSONValue)] = [("type", .string("object")), ("properties", obj(props))]
        let required = specs.filter(\.required).map { JSONValue.string($0.name) }
        if !required.isEmpty { entries.append(("required", .array(required))) }
        entries.append(("patternProperties", dollarKeys))
        entries.append(("additionalProperties", .bool(false)))
        return obj(entries)
    }

    static let durationPattern = "^([0-9]+(\\.[0-9]+)?(ms|s|m|h|d|w))+$|^[0-9]+(\\.[0-9]+)?$"
    static let sizePattern = "^[0-9]+(\\.[0-9]+)?\\s*(B|KiB|MiB|GiB|KB|MB|GB)?$"

    /// `{"jq": "<program>"}`, a field mapping's program.
    static let jqMapping = obj([("type", .string("object")), ("required", .array([.string("jq")])), ("additionalProperties", .bool(false)),
                                ("properties", obj([("jq", obj([("type", .string("string")), ("minLength", .int(1))]))]))])

    static func schema(_ s: OptionSpec, lists: [String: JSONValue] = [:]) -> JSONValue {
        var e: [(String, JSONValue)] = []
        switch s.kind {
        case .string, .keyPath: e.append(("type", .string("string")))
        case .url(let fileAllowed): e.append(("type", .string("string"))); e.append(("pattern", .string(fileAllowed ? "^(https?://|file:)" : "^https?://")))
        case .integer(let lo, let hi):
            e.append(("type", .string("integer")))
            if let lo { e.append(("minimum", .int(lo))) }
            if let hi { e.append(("maximum", .int(hi))) }
        case .number: e.append(("type", .string("number")))
        case .bool: e.append(("type", .string("boolean")))
        case .duration:
            e.append(("oneOf", .array([obj([("type", .string("number")), ("minimum", .int(0))]), obj([("type", .string("string")), ("pattern", .string(durationPattern))])])))
        case .durationOrAuto:
            e.append(("oneOf", .array([obj([("type", .string("number")), ("minimum", .int(0))]), obj([("type", .string("string")), ("pattern", .string(durationPattern))]),
                                       obj([("const", .string("auto"))])])))
        case .size:
            e.append(("oneOf", .array([obj([("type", .string("integer")), ("minimum", .int(0))]), obj([("type", .string("string")), ("pattern", .string(sizePattern))])])))
        case .stringList: e.append(("type", .string("array"))); e.append(("items", obj([("type", .array([.string("string"), .string("integer")]))])))
        case .stringOrList:
            e.append(("oneOf", .array([obj([("type", .string("string"))]), obj([("type", .string("array")), ("items", obj([("type", .string("string"))]))])])))
        case .stringMap:
            e.append(("type", .string("object")))
            e.append(("additionalProperties", obj([("type", .array([.string("string"), .string("number"), .string("boolean")]))])))
        case .keyPathMap:
            e.append(("type", .string("object")))
            e.append(("additionalProperties", obj([("type", .string("string"))])))
        case .fieldMapping:
            e.append(("oneOf", .array([obj([("type", .string("string"))]), jqMapping])))
        case .fieldMappingMap:
            e.append(("type", .string("object")))
            e.append(("additionalProperties", obj([("oneOf", .array([obj([("type", .string("string"))]), jqMapping]))])))
        case .enumeration(let values): e.append(("enum", .array(values.map { .string($0) })))
        case .object(let sub):
            if case .object(let o)? = objectSchema(sub, lists: lists).objectValue.map({ JSONValue.object($0) }) { e += o.entries.map { ($0.key, $0.value) } }
        case .objectList(let sub): e.append(("type", .string("array"))); e.append(("items", objectSchema(sub)))
        case .objectMap(let sub): e.append(("type", .string("object"))); e.append(("additionalProperties", objectSchema(sub)))
        case .pluginList: e.append(("type", .string("array"))); e.append(("items", lists[s.name] ?? obj([("type", .string("object"))])))
        case .enumOrInteger(let words, let min):
            e.append(("oneOf", .array([obj([("enum", .array(words.map { .string($0) }))]), obj([("type", .string("integer")), ("minimum", .int(min))])])))
        }
        var d = s.help
        if let def = s.defaultText { d += " (default: \(def))" }
        e.append(("description", .string(d)))
        return obj(e)
    }
}
