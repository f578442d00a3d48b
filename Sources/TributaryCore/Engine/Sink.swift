/// Where items go: a file, stdout, a feed, a program, a server.
///
/// Contract:
/// - The engine calls a sink from its delivery thread only, one call at a time: `open` once,
///   then `write` for each batch of new items in delivery order, then `close` once. Calls may
///   block (files, fsync, sockets); they never run on the cooperative thread pool.
/// - `write` returns only when its items are durably written (a jsonl file: written and
///   fsynced; whole lines only). A sink that renders a whole document (RSS) rewrites it
///   atomically in every `write`, so returning means the items are in it.
/// - Failures throw `SinkError`. A sink whose reader went away (a closed pipe, `| head -1`)
///   throws `SinkError.readerGone(...)`: any sink may, and the run then stops quietly (what was
///   delivered is recorded, the rest waits for the next run) instead of failing.
/// - An item the sink can never write, however often it is retried (larger than its server
///   accepts: a NATS message over the server's `max_payload`, one item a webhook receiver still
///   answers 413), is rejected, not thrown: during `write` the sink calls
///   `context.reject(item, reason:)` for it, writes the rest of the batch, and returns. The
///   engine then records the batch as delivered, the rejected item too (the other sinks wrote
///   it, and an item that can never fit would otherwise block its source for ever), counts it
///   (`sink_rejected` in state, `tributary_sink_rejected_items_total`, the run's summary) and
///   warns naming the sink, the item and the reason. Only what retrying cannot fix is rejected:
///   anything that may pass later (a server down, a timeout, a full disk) throws. A `write`
///   that throws after rejecting some items drops those rejections with its batch.
/// - A sink that keeps items across runs (a feed's window) gets its window in `open` through
///   `context.window(type:path:)`, loads it there and saves it in `write`; the engine commits
///   the saved window in the same state transaction as the batch's ids. Without state the
///   window loads nothing: a file sink then reads what it showed back from its own file
///   (`FeedFile`), so a run without state never drops what the file held.
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

/// What a sink may use besides its own options: the windows of recent items kept in state
/// (none when running without state: `run --no-state`, `test`), how items read as a line, the
/// run's interruption, a way to warn (a sink never prints) and a way to reject an item it can
/// never write. Each sink gets its own context (its rejections are counted under its name).
public struct SinkContext: Sendable {
    /// The state's windows; nil without state.
    let store: SinkWindowStore?
    /// Set when the run must stop waiting: the grace period after SIGINT/SIGTERM is over, or a
    /// second signal came. A sink whose `write` waits on something outside (a server, a program)
    /// gives up then with a `SinkError` (`BatchHandOff.wait` in the plugin kit does this); its
    /// batch is not recorded. Never set in a run that is not interrupted.
    public let interruption: StopFlag
    private let warnHandler: @Sendable (String) -> Void
    private let rejectHandler: @Sendable (Item, String) -> Void
    /// How items read as a line of text: the lines the source types registered, for sinks that
    /// write text for people.
    public let lines: ItemLines
    /// `--verbose`: where a sink that sends HTTP requests (`HTTPClient.requestLog`) logs each
    /// one, under the sink's name; nil otherwise.
    public let requestLog: (@Sendable (HTTPRequestRecord) -> Void)?

    public init(window store: SinkWindowStore?, lines: ItemLines = .standard, interruption: StopFlag = StopFlag(),
                warn: @escaping @Sendable (String) -> Void = { _ in }, reject: @escaping @Sendable (_ item: Item, _ reason: String) -> Void = { _, _ in },
                requestLog: (@Sendable (HTTPRequestRecord) -> Void)? = nil) {
        self.store = store
        self.lines = lines
        self.interruption = interruption
        self.warnHandler = warn
        self.rejectHandler = reject
        self.requestLog = requestLog
    }

    /// True when the run has a state file (its windows can be loaded and saved).
    public var hasState: Bool { store != nil }

    /// The remembered window of the sink of type `type` that writes `path`, keyed
    /// `<type>:<path>` (`SinkWindow.key`). Without state it loads nothing and saves nothing.
    public func window(type: String, path: String) -> SinkWindow {
        SinkWindow(key: SinkWindow.key(type: type, path: path), store: store)
    }

    /// A warning on stderr about this sink's output (secrets redacted).
    public func warn(_ message: String) { warnHandler(Redactor.redactText(message)) }

    /// Skips `item` for good (see the `Sink` contract): called during `write`, for an item of
    /// the batch being written that this sink can never write; the sink writes the others and
    /// returns. `reason` says why in words, with the sizes or status that show it (`the message
    /// is 1.2 MB, over the server's max_payload of 1 MB`); the engine adds the sink's name and
    /// the item's id, and redacts secrets. Outside `write` it does nothing.
    public func reject(_ item: Item, reason: String) { rejectHandler(item, Redactor.redactText(reason)) }
}

/// An item a sink rejected (`SinkContext.reject`): recorded as delivered, counted, reported.
public struct SinkRejection: Sendable, Equatable {
    /// The sink's name (`Delivery.Options.sinkNames`: its `name`, else its type).
    public let sink: String
    public let id: String
    public let reason: String

    /// The warning the run prints for it.
    public var message: String {
        "sink \(sink) rejected item \(id): \(reason); recorded as delivered, so it is not retried"
    }
}

/// The state's table of sink windows as the engine hands it to the sinks: `load` reads a
/// window by key, `save` stages new contents for the batch being delivered, and the engine
/// commits them with that batch's ids, in one transaction.
public struct SinkWindowStore: Sendable {
    let loader: @Sendable (String) throws(StateError) -> [[UInt8]]
    let saver: @Sendable (String, [WindowItem]) -> Void

    public init(load: @escaping @Sendable (String) throws(StateError) -> [[UInt8]], save: @escaping @Sendable (String, [WindowItem]) -> Void) {
        self.loader = load
        self.saver = save
    }
}

/// One sink's remembered items in state, under a key of the sink's own identity: its type and
/// the resolved path it writes (`rss:/srv/www/feed.xml`), so two configs that share a state file
/// and write the same file share one window, and two sink types writing one path never mix.
/// `load` (in `open`) and `save` (in `write`) are called from the delivery thread only.
public struct SinkWindow: Sendable {
    public let key: String
    let store: SinkWindowStore?

    /// `<type>:<path>`: the one way a key is made.
    public static func key(type: String, path: String) -> String { type + ":" + path }

    /// True when the window is kept in state; false when running without state.
    public var isKeptInState: Bool { store != nil }

    /// The items state holds for this key, newest first; nil without state. Lines that no
    /// longer read as items are skipped.
    public func load() throws(SinkError) -> [Item]? {
        guard let store else { return nil }
        do {
            return try store.loader(key).compactMap { try? Item(jsonLine: $0) }
        } catch {
            throw SinkError("state: cannot read the window of \(key): \(error.message)")
        }
    }

    /// Hands the window's new contents to the batch being delivered (nothing without state).
    public func save(_ items: [Item]) {
        store?.saver(key, items.map { WindowItem(id: $0.id, sortTime: ($0.published ?? $0.fetched).seconds, line: $0.jsonLine()) })
    }
}

/// A sink type in the registry.
public struct SinkDescriptor: Sendable {
    public let type: String
    public let summary: String
    /// Its options; with `takesTemplate`, `template` (`CommonOptions.template`) is the last.
    public let options: [OptionSpec]
    /// Builds the sink from its validated options and its compiled `template` (nil without one).
    public let makeWithTemplate: @Sendable (OptionReader, (any ItemTemplate)?) -> (any Sink)?
    /// The type names people write when they mean this one (`file` for `jsonl`).
    public let aliases: [String]
    /// Whether the sink takes a `template` (Docs/templates.md). A config that gives one to a
    /// sink that does not take it is refused, naming the key.
    public let takesTemplate: Bool

    public init(type: String, summary: String, options: [any OptionDeclaration], aliases: [String] = [], make: @escaping @Sendable (OptionReader) -> (any Sink)?) {
        self.type = type
        self.summary = summary
        self.options = options.map(\.spec)
        self.aliases = aliases
        self.takesTemplate = false
        self.makeWithTemplate = { reader, _ in make(reader) }
    }

    /// A sink that takes a `template`: `make` gets the compiled template (nil when the config
    /// sets none), and `template` joins the sink's options (docs, schema, `tributary sources`).
    public init(type: String, summary: String, options: [any OptionDeclaration], aliases: [String] = [],
                makeWithTemplate: @escaping @Sendable (OptionReader, (any ItemTemplate)?) -> (any Sink)?) {
        self.type = type
        self.summary = summary
        self.options = options.map(\.spec) + [CommonOptions.template.spec]
        self.aliases = aliases
        self.takesTemplate = true
        self.makeWithTemplate = makeWithTemplate
    }

    /// Builds the sink without a template.
    public var make: @Sendable (OptionReader) -> (any Sink)? {
        let m = makeWithTemplate
        return { m($0, nil) }
    }
}

/// The explicit list of built-in types (one line per plugin, in TributaryPlugins).
public struct Registry: Sendable {
    public let sources: [SourceDescriptor]
    public let sinks: [SinkDescriptor]
    public let processors: [ProcessorDescriptor]
    /// Subscription list formats (`import opml`, `export opml`).
    public let formats: [SubscriptionFormat]
    /// What plugins need of the process before a command fetches (the exec plugins adopt their
    /// programs' orphans), run once by the command line.
    public let preparations: [@Sendable () -> Void]

    /// The item lines the source types registered (the stdout sink's text format).
    public let itemLines: ItemLines
    /// The language of sinks' `template`s (nil: no sink may set one).
    public let templates: TemplateCompiler?

    public init(sources: [SourceDescriptor], sinks: [SinkDescriptor], processors: [ProcessorDescriptor] = [], formats: [SubscriptionFormat] = [],
                preparations: [@Sendable () -> Void] = [], templates: TemplateCompiler? = nil) {
        self.sources = sources
        self.sinks = sinks
        self.processors = processors
        self.formats = formats
        self.preparations = preparations
        self.templates = templates
        self.itemLines = ItemLines(sources.flatMap(\.lines))
    }

    public func source(_ type: String) -> SourceDescriptor? { sources.first { $0.type == type } }
    public func sink(_ type: String) -> SinkDescriptor? { sinks.first { $0.type == type } }
    public func processor(_ type: String) -> ProcessorDescriptor? { processors.first { $0.type == type } }
    public func format(_ name: String) -> SubscriptionFormat? { formats.first { $0.name == name } }
}

/// A sink that keeps every item it receives in a file `tributary search` reads (the `sqlite`
/// sink): how the command finds the config's archive without naming the plugin.
public protocol ArchivingSink: Sink {
    /// The file the items are kept in (resolved against the config file's folder).
    var archivePath: String { get }
}
