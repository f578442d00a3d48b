/// A sink's `template` (Docs/templates.md): a program run on each item just before the sink,
/// whose outputs are what that sink writes instead of the item's JSON line. The language is the
/// registry's (`Registry.templates`: jq); the engine only declares the key, compiles it when the
/// config is loaded, and hands the compiled template to the sinks that take one
/// (`SinkDescriptor.takesTemplate`) through their descriptor's `make`.
///
/// Contract: `render` may be called from any thread, one call at a time or several at once;
/// it never throws and never blocks for long (a time limit bounds each call). What a sink does
/// with an item whose template fails is the sink's: the built-in ones reject it
/// (`SinkContext.reject`), since the same item fails the same way every time.
public protocol ItemTemplate: Sendable {
    /// The program as written in the config.
    var text: String { get }
    /// The item's outputs in order (none: the sink writes nothing for it), or why it failed.
    func render(_ item: Item) -> Result<[TemplateOutput], TemplateError>
}

/// One output of a template.
public struct TemplateOutput: Sendable, Equatable {
    /// The value as compact JSON (UTF-8).
    public let json: [UInt8]
    /// When the value is a string: its text (not JSON-quoted).
    public let string: String?

    public init(json: [UInt8], string: String? = nil) {
        self.json = json
        self.string = string
    }

    /// What a sink that writes text writes for it: a string as it is, any other value as
    /// compact JSON.
    public var text: [UInt8] { string.map { Array($0.utf8) } ?? json }
}

/// Why a template could not be compiled, or gave nothing for one item (the language's own
/// message: `jq: error: Cannot index number with "title"`).
public struct TemplateError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// How the registry compiles a sink's `template`: the language's name (for messages) and its
/// compiler, called once per `template` when the config is loaded.
public struct TemplateCompiler: Sendable {
    public let language: String
    public let compile: @Sendable (String) -> Result<any ItemTemplate, TemplateError>

    public init(language: String, compile: @escaping @Sendable (String) -> Result<any ItemTemplate, TemplateError>) {
        self.language = language
        self.compile = compile
    }
}
