/// Where items go: a file, stdout, a feed.
///
/// Contract:
/// - `write` receives each batch of new items in delivery order and returns only when they
///   are durably written (a jsonl file: written and fsynced; whole lines only).
/// - `close` is called once after the last batch. A sink that renders a whole document (RSS)
///   rewrites it atomically after every batch, so `write` returning means the items are in it.
/// - Failures throw `SinkError`; a closed stdout throws `SinkError.outputClosed`.
/// - The engine calls a sink from one task at a time, never concurrently.
public protocol Sink: AnyObject, Sendable {
    /// Called once before the first batch; sinks that keep a window across runs load it here.
    func open(_ context: SinkContext) throws(SinkError)
    func write(_ items: [Item]) throws(SinkError)
    func close() throws(SinkError)
}

extension Sink {
    public func open(_ context: SinkContext) throws(SinkError) {}
}

/// What a sink may use besides its own options: the state store's per-sink window of recent
/// items (nil when running without state), and a way to warn (a sink never prints).
public struct SinkContext: Sendable {
    public let window: SinkWindow?
    private let warnHandler: @Sendable (String) -> Void
    public init(window: SinkWindow?, warn: @escaping @Sendable (String) -> Void = { _ in }) {
        self.window = window
        self.warnHandler = warn
    }

    /// A warning on stderr about this sink's output (secrets redacted).
    public func warn(_ message: String) { warnHandler(Redactor.redactText(message)) }
}

/// A sink's remembered items in the state store, keyed by the sink's own identity (e.g. its path).
public struct SinkWindow: Sendable {
    let store: StateStore
    public init(store: StateStore) { self.store = store }

    public func load(_ key: String) throws(SinkError) -> [Item] {
        do {
            return try store.window(sink: key).compactMap { try? Item(jsonLine: $0) }
        } catch {
            throw SinkError("state: cannot read the window of \(key): \(error.message)")
        }
    }

    public func save(_ key: String, _ items: [Item]) throws(SinkError) {
        do {
            try store.replaceWindow(sink: key, items: items.map { ($0.id, ($0.published ?? $0.fetched).seconds, $0.jsonLine()) })
        } catch {
            throw SinkError("state: cannot save the window of \(key): \(error.message)")
        }
    }
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
