/// Where items go: a file, stdout, a feed.
///
/// Contract:
/// - `write` receives each batch of new items in delivery order and returns only when they
///   are durably written (a jsonl file: written and fsynced; whole lines only).
/// - `close` is called once after the last batch; sinks that render a whole document (RSS)
///   write it here, atomically.
/// - Failures throw `SinkError`; a closed stdout throws `SinkError.outputClosed`.
/// - The engine calls a sink from one task at a time, never concurrently.
public protocol Sink: AnyObject, Sendable {
    func write(_ items: [Item]) throws(SinkError)
    func close() throws(SinkError)
}

/// A sink type in the registry.
public struct SinkDescriptor: Sendable {
    public let type: String
    public let summary: String
    public let options: [OptionSpec]
    public let make: @Sendable (OptionReader) -> (any Sink)?

    public init(type: String, summary: String, options: [OptionSpec], make: @escaping @Sendable (OptionReader) -> (any Sink)?) {
        self.type = type
        self.summary = summary
        self.options = options
        self.make = make
    }
}

/// Output that could not be written.
public struct SinkError: Error, CustomStringConvertible, Sendable {
    public let message: String
    /// The reader of stdout went away (`| head -1`): stop quietly.
    public let isOutputClosed: Bool

    public init(_ message: String, outputClosed: Bool = false) {
        self.message = message
        self.isOutputClosed = outputClosed
    }

    public static let outputClosed = SinkError("stdout was closed by its reader", outputClosed: true)
    public var description: String { message }
}

/// The explicit list of built-in types (one line per plugin, in TributaryPlugins).
public struct Registry: Sendable {
    public let sources: [SourceDescriptor]
    public let sinks: [SinkDescriptor]

    public init(sources: [SourceDescriptor], sinks: [SinkDescriptor]) {
        self.sources = sources
        self.sinks = sinks
    }

    public func source(_ type: String) -> SourceDescriptor? { sources.first { $0.type == type } }
    public func sink(_ type: String) -> SinkDescriptor? { sinks.first { $0.type == type } }
}
