/// Where items go: a file, stdout, a feed, a program, a server.
///
/// Contract:
/// - The engine calls a sink from its delivery thread only, one call at a time: `open` once,
///   then `write` for each batch of new items in delivery order, then `close` once. Calls may
///   block (files, fsync, sockets); they never run on the cooperative thread pool.
/// - `write` returns only when its items are durably written (a jsonl file: written and
///   fsynced; whole lines only). A sink that renders a whole document (RSS) rewrites it
///   atomically in every `write`, so returning means the items are in it.
/// - Failures throw `SinkError`; a reader that went away (a closed pipe) throws
///   `SinkError.outputClosed`, which stops the run quietly.
/// - A sink that keeps items across runs (a feed's window) loads them in `open` through
///   `context.window` and saves them in `write`; the engine commits the saved window in the
///   same state transaction as the batch's ids.
/// - Sinks keep their mutable state in `Locked` (or need none): they are `Sendable` without
///   `@unchecked`.
public protocol Sink: AnyObject, Sendable {
    func open(_ context: SinkContext) throws(SinkError)
    func write(_ items: [Item]) throws(SinkError)
    func close() throws(SinkError)
}

extension Sink {
    public func open(_ context: SinkContext) throws(SinkError) {}
    public func close() throws(SinkError) {}
}

/// What a sink may use besides its own options: its window of recent items kept in state (nil
/// when running without state), and a way to warn (a sink never prints).
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

/// A sink's remembered items in state, keyed by the sink's own identity (e.g. `rss:<path>`).
/// `load` reads them (in `open`); `save` hands the new contents to the batch being delivered,
/// and the engine commits them with that batch's ids, in one transaction.
public struct SinkWindow: Sendable {
    let loader: @Sendable (String) throws(StateError) -> [[UInt8]]
    let saver: @Sendable (String, [WindowItem]) -> Void

    public init(load: @escaping @Sendable (String) throws(StateError) -> [[UInt8]], save: @escaping @Sendable (String, [WindowItem]) -> Void) {
        self.loader = load
        self.saver = save
    }

    public func load(_ key: String) throws(SinkError) -> [Item] {
        do {
            return try loader(key).compactMap { try? Item(jsonLine: $0) }
        } catch {
            throw SinkError("state: cannot read the window of \(key): \(error.message)")
        }
    }

    public func save(_ key: String, _ items: [Item]) {
        saver(key, items.map { WindowItem(id: $0.id, sortTime: ($0.published ?? $0.fetched).seconds, line: $0.jsonLine()) })
    }
}

/// A sink type in the registry.
public struct SinkDescriptor: Sendable {
    public let type: String
    public let summary: String
    public let options: [OptionSpec]
    public let make: @Sendable (OptionReader) -> (any Sink)?

    public init(type: String, summary: String, options: [any OptionDeclaration], make: @escaping @Sendable (OptionReader) -> (any Sink)?) {
        self.type = type
        self.summary = summary
        self.options = options.map(\.spec)
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
