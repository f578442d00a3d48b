/// A stage between a source and the sinks: items in, items out (Docs/processors.md). A source's
/// `filter` is its first processor, then its `process` list in order.
///
/// Contract:
/// - `start` is called once per source run, before the run's first batch, with what the
///   processor may use: the engine's HTTP client (retries, limits, conditional GET, record and
///   replay), the run's time, and a way to report. What it keeps for the run (a program it
///   started, a cache) lives in the `ProcessorRun` it returns; `finish` ends it once, after the
///   run's last batch, whether the run succeeded or not.
/// - `process` gets each batch in the order the source emitted it and returns what goes on, in
///   order: the same items, changed ones, fewer (a drop is reported with
///   `context.filtered(_:)`), more, or none. It never throws: one item it cannot handle is
///   skipped with `context.skip(_:reason:)` (a warning naming the source, the item and why,
///   counted as `skipped`); the item is not recorded, so it comes again on the next run.
/// - An item that goes on keeps the item rules (an `id` and a `title`, Docs/contract.md#items);
///   `source`, `type` and `fetched` are the engine's.
/// - Processors run in the order of the stages (source -> filter -> process -> ids already
///   emitted are dropped -> stories -> sinks), so a processor may change an item's `id`: what
///   the state decides is new is decided on what the processors gave. A processor whose work
///   per item is costly asks `context.wouldEmit(_:)` which items of its batch would be emitted
///   (a preview that changes nothing) and does it only for those.
/// - It may block only through `await`: the source's task runs it, never the delivery thread.
public protocol Processor: Sendable {
    func start(_ context: ProcessorContext) async -> any ProcessorRun
}

/// One processor's part of one source run.
public protocol ProcessorRun: Sendable {
    func process(_ items: [Item]) async -> [Item]
    /// The run is over (its last batch was processed, or it failed or stopped).
    func finish() async
}

extension ProcessorRun {
    public func finish() async {}
}

/// A processor that needs nothing per run (a filter, a rename): it is its own run.
public protocol StatelessProcessor: Processor, ProcessorRun {}

extension StatelessProcessor {
    public func start(_ context: ProcessorContext) async -> any ProcessorRun { self }
}

/// What a processor gets for one source run.
public struct ProcessorContext: Sendable {
    public let settings: SourceSettings
    /// The engine's HTTP client for this source (its retries and timeout).
    public let http: HTTPClient
    /// When this run fetched.
    public let fetched: Timestamp
    /// What the processor may keep in the state (nil without state: `--no-state`, `test`).
    public let store: ProcessorStore?
    let tally: ProcessingTally
    private let warnHandler: @Sendable (String) -> Void
    private let logHandler: @Sendable (String) -> Void
    private let admission: (@Sendable ([Item]) async -> [Bool])?

    /// `wouldEmit`: the delivery's answer to `wouldEmit(_:)` for this source run
    /// (`Delivery.wouldEmit`); nil: nothing is known, every item would be emitted.
    public init(settings: SourceSettings, http: HTTPClient, fetched: Timestamp, store: ProcessorStore? = nil, tally: ProcessingTally = ProcessingTally(),
                warn: @escaping @Sendable (String) -> Void, log: @escaping @Sendable (String) -> Void,
                wouldEmit: (@Sendable ([Item]) async -> [Bool])? = nil) {
        self.settings = settings
        self.http = http
        self.fetched = fetched
        self.store = store
        self.tally = tally
        self.warnHandler = warn
        self.logHandler = log
        self.admission = wouldEmit
    }

    /// Which of these items, as they are now, the delivery would emit if they were delivered
    /// now: one answer per item, in order. For a processor whose work per item is costly (the
    /// `fulltext` processor fetches each item's page) and worth doing only for items that will
    /// be emitted: processors run before ids already emitted are dropped and before `stories`
    /// (Docs/processors.md#which-items-a-processor-sees), so a batch holds items emitted in an
    /// earlier run too.
    ///
    /// False for an item emitted in an earlier run (unless it is an update under
    /// `emit_updates`, or `--all`), delivered earlier in this run or earlier in `items` (the
    /// first of an id is true), cut by the source's `first_run`, a copy of a story already told
    /// under `stories` `action: drop`, or when delivery has stopped (a sink failed). True
    /// otherwise, and for every item when nothing is known (`test`, a context without a
    /// delivery). The answer is a preview that changes nothing, not a promise:
    ///
    /// - the processor's own changes and those of later processors (another id, a drop) are not
    ///   foreseen, nor `max_items` or sink filters;
    /// - without a state (`--no-state`, `test`) only the ids this run delivered count: a
    ///   `stories` copy is true there (its stories are in memory, and asking would change them);
    /// - on a source's first run under `first_run: N` (which waits for the whole source) it is
    ///   the newest N of these items, which holds every item the run will keep and maybe more;
    /// - a state that fails to answer makes every item not ruled out by this run's ids true
    ///   (fail open: doing the work for an item that is then dropped is only work).
    ///
    /// Each call is one trip to the delivery thread (and, with a state, one rolled-back
    /// transaction): ask once per batch, not once per item.
    public func wouldEmit(_ items: [Item]) async -> [Bool] {
        guard let admission, !items.isEmpty else { return items.map { _ in true } }
        let answers = await admission(items)
        return answers.count == items.count ? answers : items.map { _ in true }
    }

    /// The item was dropped on purpose (a filter, a program's `null`): counted as `filtered`.
    public func filtered(_ item: Item) { tally.add(.filtered) }

    /// The item could not be processed: a warning naming it and why; counted as `skipped`. It
    /// is not recorded, so it comes again on the next run.
    public func skip(_ item: Item, reason: String) {
        tally.add(.skipped)
        warnHandler(Redactor.redactText("\(item.id): skipped: \(reason)"))
    }

    /// Counts something the summary, the metrics and `status` show per source (`no content`).
    public func count(_ label: String, _ n: Int = 1) {
        tally.add(ProcessingTally.Label(label), n)
        tally.addCounter(.processed, ProcessedCount.label(source: settings.name, what: label), n)
    }

    /// A warning on stderr, prefixed by the source name (secrets redacted).
    public func warn(_ message: String) { warnHandler(Redactor.redactText(message)) }

    /// An informational line on stderr, prefixed by the source name (secrets redacted).
    public func log(_ message: String) { logHandler(Redactor.redactText(message)) }
}

/// What a source run's processors counted, by label, until the engine takes it with a batch.
public final class ProcessingTally: Sendable {
    /// A count's name as the summary writes it (`filtered`, `skipped`, `no content`).
    public struct Label: Hashable, Sendable, Comparable {
        public let name: String
        public init(_ name: String) { self.name = name }
        public static let filtered = Label("filtered")
        public static let skipped = Label("skipped")
        /// Copies of a story already emitted, kept back by `stories` (`action: drop`): fetched
        /// and recorded as seen, not emitted.
        public static let duplicates = Label("duplicates")
        public static func < (a: Label, b: Label) -> Bool { a.name < b.name }
    }

    private let counts = Locked<[Label: Int]>([:])
    /// Counts kept in the state's counters (not a source's): `filter_errors` by rule.
    private let counters = Locked<[StateCounter.Name: [String: Int]]>([:])

    public init() {}

    /// Adds to a counter the state keeps over its life (the metrics' `_total`s).
    public func addCounter(_ name: StateCounter.Name, _ label: String, _ n: Int = 1) {
        counters.withLock { $0[name, default: [:]][label, default: 0] += n }
    }

    /// The counters since the last call; empties them.
    public func takeCounters() -> [StateCounter] {
        counters.withLock { c in
            let taken = c.sorted { $0.key.rawValue < $1.key.rawValue }.flatMap { name, byLabel in
                byLabel.sorted { $0.key < $1.key }.map { StateCounter(name, $0.key, $0.value) }
            }
            c.removeAll()
            return taken
        }
    }

    public func add(_ label: Label, _ n: Int = 1) {
        guard n != 0 else { return }
        counts.withLock { $0[label, default: 0] += n }
    }

    /// The counts since the last call; empties them.
    public func take() -> [Label: Int] {
        counts.withLock { c in
            let taken = c
            c.removeAll()
            return taken
        }
    }
}

/// A processor type in the registry: its name, what it does, its options, and how to build
/// one from validated options (recording further errors on the reader and returning nil).
public struct ProcessorDescriptor: Sendable {
    public let type: String
    public let summary: String
    public let options: [OptionSpec]
    public let make: @Sendable (OptionReader) -> (any Processor)?

    public init(type: String, summary: String, options: [any OptionDeclaration], make: @escaping @Sendable (OptionReader) -> (any Processor)?) {
        self.type = type
        self.summary = summary
        self.options = options.map(\.spec)
        self.make = make
    }
}

/// What processors keep in the state across runs and workers, by namespace (the processor's
/// type) and key: a page's extracted text under its URL. Values are bytes the processor
/// encodes; retention forgets one not set for longer than `state.retention`. A value is a
/// cache, never part of a batch's record: it is set in a transaction of its own.
public struct ProcessorStore: Sendable {
    let gateway: StateGateway

    public init(gateway: StateGateway) { self.gateway = gateway }

    public func get(_ namespace: String, _ keys: [String]) async throws(StateError) -> [String: [UInt8]] {
        try await gateway.values(namespace: namespace, keys: keys)
    }

    public func put(_ namespace: String, _ values: [(key: String, value: [UInt8])]) async throws(StateError) {
        try await gateway.putValues(namespace: namespace, values, now: Timestamp.now().seconds)
    }
}
