import TributaryCore

/// `tributary sources`: every built-in type with its options, from the same declarations the
/// validator uses.
enum Catalog {
    static func render(_ registry: Registry) -> String {
        var s = "Source types (every source also takes: \(CommonOptions.source.map(\.spec.name).joined(separator: ", ")))\n"
        for d in registry.sources {
            s += "\n  \(d.type): \(d.summary)\n"
            s += options(d.options, indent: "    ")
        }
        s += "\nSink types\n"
        for d in registry.sinks {
            s += "\n  \(d.type): \(d.summary)\n"
            s += options(d.options, indent: "    ")
        }
        s += "\nProcessor types (in a source's `process` list, or defaults.process)\n"
        for d in registry.processors {
            s += "\n  \(d.type): \(d.summary)\n"
            s += options(d.options, indent: "    ")
        }
        return s
    }

    static func options(_ specs: [OptionSpec], indent: String) -> String {
        var s = ""
        for o in specs {
            var line = "\(indent)\(o.name) (\(o.typeName)\(o.required ? ", required" : ""))"
            if let d = o.defaultText { line += " [default: \(d)]" }
            line += ": \(o.help)\n"
            s += line
            if case .object(let sub) = o.kind { s += options(sub, indent: indent + "  ") }
            if case .objectList(let sub) = o.kind { s += options(sub, indent: indent + "  ") }
            if case .objectMap(let sub) = o.kind { s += options(sub, indent: indent + "  ") }
        }
        return s
    }
}
