/// A subscription list format a plugin reads and writes (`import opml FILE`, `export opml`): the
/// command line finds it in the registry by name and prints what it gives, so no command names a
/// plugin's types.
public struct SubscriptionFormat: Sendable {
    /// What a conversion gives: the document for stdout, and the warnings for stderr (each a
    /// whole line without its newline), or why nothing could be made.
    public struct Outcome: Sendable {
        public var document: [UInt8]
        public var warnings: [String]
        public init(document: [UInt8], warnings: [String]) {
            self.document = document
            self.warnings = warnings
        }
    }

    /// `opml`: the word after `import` and `export`.
    public let name: String
    /// A config document (strict JSON, valid for `check`) made from the list in a file; the
    /// error is the reason, naming the file.
    public let importList: @Sendable (_ path: String) -> Result<Outcome, ConfigError>
    /// The config's sources of this format's kind, as a list.
    public let exportList: @Sendable (_ config: Config) -> Outcome

    public init(name: String, importList: @escaping @Sendable (String) -> Result<Outcome, ConfigError>, exportList: @escaping @Sendable (Config) -> Outcome) {
        self.name = name
        self.importList = importList
        self.exportList = exportList
    }
}
