import TributaryJQ
import TributaryCore

/// Sinks' `template`s in jq (Docs/templates.md): the registry's template language. A template
/// is a jq program compiled once when the config is loaded and run on each item's JSON line
/// just before the sink, on the delivery thread; each output is a value the sink writes.
public struct JQTemplate: ItemTemplate {
    /// The registry's template compiler (`Registry.templates`).
    public static let compiler = TemplateCompiler(language: "jq") { text in
        switch JQProgram.compile(text, limits: JQLimits(timeLimit: timeLimit)) {
        case .success(let p): return .success(JQTemplate(program: p))
        case .failure(let e): return .failure(TemplateError(e.description))
        }
    }

    /// The time limit of one template run on one item.
    public static let timeLimit: Duration = JQLimits.defaultTimeLimit

    let program: JQProgram

    public var text: String { program.text }

    public func render(_ item: Item) -> Result<[TemplateOutput], TemplateError> {
        var line: [UInt8] = []
        line.reserveCapacity(1024)
        item.appendJSON(into: &line)
        var outputs: [TemplateOutput] = []
        let failure = line.withUnsafeBytes { raw in
            program.run(json: raw) { outputs.append(TemplateOutput(json: $0.json, string: $0.text)) }
        }
        if let failure { return .failure(TemplateError(failure.description)) }
        return .success(outputs)
    }
}
