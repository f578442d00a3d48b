/// One run of one source as the delivery thread sees it: what the source has delivered so
/// far, what state knew of it before, and what must wait for the end of the run.
///
/// Threading rule (why `@unchecked Sendable` is sound): mutated only on the delivery thread, by
/// `Delivery`'s jobs; the engine holds the reference between calls and reads only
/// `validators`, a `let` set before `Delivery.begin` returns the run. Without state, `begin`
/// makes the run on the caller and `finish` reads its counts there: the source's calls into
/// the delivery thread are awaited one after another, so each hop orders those accesses.
public final class SourceRun: @unchecked Sendable {
    let settings: SourceSettings
    let previous: SourceState?
    /// The validators state has for this source's requests (bodies are read on a 304).
    public let validators: [String: HTTPValidators]
    /// No successful run before: `first_run` applies.
    let firstRun: Bool
    /// `first_run: N` on a first run needs the whole source to pick the newest N: its items
    /// wait here until `finish`. Every other policy streams.
    let buffersFirstRun: Bool
    var buffer: [Item] = []
    var bufferedValidators: [(key: String, response: CachedResponse)] = []
    /// Items the source handed over (up to `max_items`), filtered ones included.
    var fetched = 0
    /// Of `fetched`, those not yet added to the source's totals in state (they are, with the
    /// next committed batch).
    var uncountedFetched = 0
    /// HTTP answers by status not yet added to the counters in state.
    var uncountedStatuses: [String: Int] = [:]
    /// What its processing stage counted: items filtered, skipped, ...
    var processed: [ProcessingTally.Label: Int] = [:]
    /// Counters not yet added to the state's (filter rules' failed tests, by the rule's path).
    var uncountedCounters: [StateCounter.Name: [String: Int]] = [:]
    /// Filter rules this run has warned about (by path): once per rule per run.
    var warnedFilterRules: Set<String> = []
    /// Warnings for the log not yet handed out (by `Delivery.deliver` or `finish`).
    var warnings: [String] = []
    /// Items that passed the filter (what `max_items` counts).
    var passed = 0
    /// Items delivered to the sinks.
    var new = 0
    /// Items a sink rejected in the batches recorded so far (`SinkContext.reject`).
    var rejections: [SinkRejection] = []
    /// Ids delivered by this run, when ids are deduplicated per source run (`watch`).
    var seen = IDSet()
    /// `interval: "auto"`: the times of its last new items, as the state has them
    /// (`AdaptiveInterval.merged`), and the interval its run's end chose (written with the record).
    var arrivals: [Double] = []
    var intervalChoice: AdaptiveInterval.Choice?

    init(settings: SourceSettings, previous: SourceState?, validators: [String: HTTPValidators], buffersFirstRun: Bool) {
        self.settings = settings
        self.previous = previous
        self.validators = validators
        self.firstRun = previous?.lastSuccess == nil
        self.buffersFirstRun = buffersFirstRun
    }
}

/// What `Delivery.finish` reports about a source run.
public struct SourceRunResult: Sendable {
    public var fetched: Int
    public var new: Int
    /// What its processing stage counted: items filtered, skipped, ...
    public var processed: [ProcessingTally.Label: Int]
    /// When the source is next due (nil without state).
    public var nextDue: Double?
    /// Warnings for the log: the source started failing, or recovered.
    public var notes: [String]
    /// Items a sink rejected in this run's recorded batches, in the order they were rejected.
    public var rejections: [SinkRejection] = []
    /// A state failure while finishing (the run's bookkeeping was not recorded).
    public var stateError: String?
    /// Why the delivery of the run's last batch (`HeldBatch`) stopped the run, if it did: the
    /// error `deliver` would have thrown to the source.
    public var deliveryStop: SourceError? = nil
}

/// A source's batch the engine holds until the source emits another or its fetch ends: the
/// last one is delivered by `Delivery.finish`, in the transaction that records the run, so a
/// source of one page costs the state one transaction, not two. With what `deliver` takes
/// beside the items.
public struct HeldBatch: Sendable {
    public var items: [Item]
    public var processed: [ProcessingTally.Label: Int]
    public var counters: [StateCounter]
    public var validators: [(key: String, response: CachedResponse)]
    public var statuses: [String: Int]
    public init(items: [Item], processed: [ProcessingTally.Label: Int], counters: [StateCounter], validators: [(key: String, response: CachedResponse)],
                statuses: [String: Int]) {
        self.items = items
        self.processed = processed
        self.counters = counters
        self.validators = validators
        self.statuses = statuses
    }
}
