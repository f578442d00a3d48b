/// Where a source's batches become output, one batch at a time, on the state's thread
/// (`StateGateway`): `max_items` and the run's duplicates are dropped, the batch's ids are
/// claimed in the state, the `BatchPolicy` decides what is new, the `SinkSet` writes it, and
/// one state transaction commits the ids, the validators of the responses they came from, the
/// sinks' windows, the totals the metrics and `status` read (items fetched and delivered, HTTP
/// answers, items each sink wrote or rejected) and, with a source's end, its run record.
/// Nothing is recorded unless every sink wrote its items (or rejected some for good:
/// `SinkContext.reject`).
///
/// Its parts each have one job: the gateway owns the state, the sink set the sinks, the
/// policy decides. Nothing calls back up: the sinks hand their windows and rejections back in
/// their notes, the HTTP client reads stored bodies through the gateway (`HTTPCache`), and a
/// terminal's progress line is the output layer's (`FDOutput.setOverlay`).
///
/// Threading rule (why `@unchecked Sendable` is sound): everything mutable below is touched
/// only by jobs on the gateway's thread (asserted in debug builds); the public async methods
/// hop there.
public final class Delivery: @unchecked Sendable {
    public struct Options: Sendable {
        /// Emit everything fetched (`--all`), not only what state has not seen.
        public var emitAll = false
        /// Drop an id already delivered by any source in this Delivery's life (`run`). `watch`
        /// keeps ids apart per source run and relies on state across runs, so `emit_updates`
        /// can re-emit a changed item in a later run.
        public var dedupeAcrossSources = true
        /// Set when a sink fails (or its reader leaves): nothing more can be delivered, so the
        /// engine stops starting sources (`watch` ends).
        public var stopOnFailure: StopFlag?
        /// The sinks' names in the counters (`sink_written`, `sink_failures`, `sink_rejected`)
        /// and in rejection warnings, in the order of the sinks; a sink without one is
        /// `sinks[<index>]`.
        public var sinkNames: [String]
        /// This process's name in leases (`--worker`, default `<hostname>:<pid>`).
        public var worker = Leases.defaultWorker
        /// How long a lease lasts unless renewed (`state.lease`).
        public var lease = Leases.defaultDuration
        /// A state that cannot be reached for now (a `transient` error) stops only the source
        /// whose batch it hit (`stopped: state unavailable: ...`, nothing recorded, retried
        /// later) instead of all delivery (`watch`). Otherwise it is a sink failure (`run`).
        public var waitsOutStateOutages = false
        /// A sink that fails (its server down, a write error) stops only the batch it failed:
        /// nothing of that batch is recorded, its source's run ends `stopped: sink unavailable:
        /// ...` and the batch comes again with the source's next run. Delivery then writes to no
        /// sink until a backoff has passed (1 s, 2 s, 4 s, ... 30 s, for as long as the sink
        /// keeps failing), and the next batch after it tries again (`watch`). Otherwise a sink
        /// failure stops all delivery (`run`: exit 3).
        public var waitsOutSinkOutages = false
        /// `--verbose`: each HTTP request a sink sends (the webhook's), with the sink's name
        /// (`SinkContext.requestLog`).
        public var requestLog: (@Sendable (_ sink: String, _ record: HTTPRequestRecord) -> Void)? = nil
        /// How items read as text, for the sinks (`SinkContext.lines`): `Registry.itemLines`.
        public var lines: ItemLines
        /// The `stories` section: every emitted item gets its story, and under `action: drop`
        /// only a story's first item is emitted (`StoryStage`). Nil: no stories.
        public var stories: StorySettings?
        /// How long the state remembers (`state.retention`): stories too.
        public var retention: Double
        public init(emitAll: Bool = false, dedupeAcrossSources: Bool = true, stopOnFailure: StopFlag? = nil, lines: ItemLines = .standard, sinkNames: [String] = [],
                    worker: String = Leases.defaultWorker, lease: Double = Leases.defaultDuration, waitsOutStateOutages: Bool = false,
                    waitsOutSinkOutages: Bool = false, stories: StorySettings? = nil, retention: Double = 30 * 86400) {
            self.lines = lines
            self.stories = stories
            self.retention = retention
            self.emitAll = emitAll
            self.dedupeAcrossSources = dedupeAcrossSources
            self.stopOnFailure = stopOnFailure
            self.sinkNames = sinkNames
            self.worker = worker
            self.lease = lease
            self.waitsOutStateOutages = waitsOutStateOutages
            self.waitsOutSinkOutages = waitsOutSinkOutages
        }
    }

    /// The state's one owner; its thread is the delivery's.
    public let gateway: StateGateway
    let sinks: SinkSet
    let policy: BatchPolicy
    /// The `stories` stage, when the config has one.
    let stories: StoryStage?
    let options: Options
    private var seen = IDSet()
    private var failure: SinkError?
    private var outputClosed = false
    /// The sink whose write failed in the batch being delivered, counted after its rollback.
    private var failedSink: Int?
    /// Where the sinks' notes go (`open`'s `warn`); rejections and sink outages too.
    private var warn: @Sendable (String) -> Void = { _ in }

    /// `sinkFilters`: the filter of each sink, by position (missing ones: none).
    public init(sinks: [any Sink], sinkFilters: [ItemFilter?] = [], state: (any StateBackend)?, options: Options = Options()) {
        self.gateway = StateGateway(state: state, worker: options.worker, lease: options.lease)
        self.sinks = SinkSet(sinks: sinks, filters: sinkFilters, names: sinks.indices.map { $0 < options.sinkNames.count ? options.sinkNames[$0] : "sinks[\($0)]" },
                             lines: options.lines, waitsOutOutages: options.waitsOutSinkOutages, requestLog: options.requestLog)
        self.policy = BatchPolicy(emitAll: options.emitAll)
        self.stories = options.stories.map { StoryStage(settings: $0, retention: options.retention, hasState: state != nil) }
        self.options = options
    }

    public var state: (any StateBackend)? { gateway.state }
    var thread: SerialThread { gateway.thread }

    /// Closes the state and ends the delivery thread; call once, after `close()`.
    public func shutdown() async { await gateway.shutdown() }

    /// While a sink failure is waited out (`Options.waitsOutSinkOutages`): when the sinks are
    /// tried again. `watch` starts no run before then. Any thread.
    public var sinksPausedUntil: Double? { sinks.pausedUntil }

    /// The sinks' names, in config order (the metrics' `sink` label).
    public var sinkNames: [String] { sinks.names }

    /// The sink failure that stopped delivery, if any (an output closed by its reader is not one).
    public var sinkFailure: SinkError? { get async { await thread.run { self.failure } } }
    public var isOutputClosed: Bool { get async { await thread.run { self.outputClosed } } }

    // MARK: opening and closing

    /// Opens every sink; sinks that keep a window load it from state. `warn` carries what the
    /// sinks have to say.
    public func open(warn: @escaping @Sendable (String) -> Void = { _ in }) async throws(SinkError) {
        try await thread.run { () throws(SinkError) in
            self.warn = warn
            var windows: (@Sendable (String) throws(StateError) -> [[UInt8]])? = nil
            if let state = self.state {
                windows = { (key: String) throws(StateError) -> [[UInt8]] in try state.window(sink: key) }
            }
            do throws(SinkSetOpenError) { try self.sinks.open(windows: windows, warn: warn) } catch {
                self.countSinkFailure(error.index)
                throw error.error
            }
        }
    }

    /// Closes every sink; returns the first failure of the run, if any.
    public func close() async -> SinkError? {
        await thread.run {
            for (i, error) in self.sinks.close() {
                if error.isOutputClosed { self.outputClosed = true } else {
                    self.countSinkFailure(i)
                    if self.failure == nil { self.failure = error }
                }
            }
            return self.failure
        }
    }

    /// Tells the sinks to stop waiting (the grace period after a signal is over): a write
    /// waiting for a server or a program gives up and fails. Any thread; idempotent.
    public func interruptSinks() { sinks.interruption.set() }

    // MARK: one source's run

    /// Starts a source's run: loads the validators state has for its requests.
    public func begin(_ settings: SourceSettings, previous: SourceState?) async -> (SourceRun, warning: String?) {
        // Without state there is nothing to read: the run is made here and reaches the thread
        // with the first `deliver` (whose hop orders these writes before the thread's).
        guard state != nil else { return (SourceRun(settings: settings, previous: previous, validators: [:], buffersFirstRun: false), nil) }
        var validators: [String: HTTPValidators] = [:]
        var warning: String? = nil
        do throws(StateError) { validators = try await gateway.validators(scope: settings.name) } catch {
            warning = "state: cannot read stored validators, fetching everything: \(error.message)"
        }
        var buffers = false
        if !options.emitAll, previous?.lastSuccess == nil, case .newest = settings.firstRun { buffers = true }
        let run = SourceRun(settings: settings, previous: previous, validators: validators, buffersFirstRun: buffers)
        if settings.adaptive != nil {
            do throws(StateError) {
                let stored = try await gateway.values(namespace: AdaptiveInterval.arrivalsNamespace, keys: [settings.name])
                run.arrivals = AdaptiveInterval.decodeArrivals(stored[settings.name])
            } catch {
                warning = (warning.map { $0 + "; " } ?? "") + "state: cannot read when its last items came (interval: auto): \(error.message)"
            }
        }
        return (run, warning)
    }

    /// Delivers one batch of a source's items (see the type's description). Throws when the
    /// source should stop: delivery stopped (a sink failed, a sink's reader went away) or
    /// `max_items` was reached (after delivering up to it). `processed`: what the source's
    /// processing stage counted on the way (items it filtered or skipped: fetched, never
    /// claimed in state, so they come again on a later run); `statuses`: the HTTP answers (by
    /// status) since the last batch, counted with this one.
    /// `counters`: what the processors counted for the state (`filter_errors`). Returns the
    /// warnings for the log the batch gave (a sink filter's rule that could not test an item);
    /// those of a batch that throws come with `finish`.
    @discardableResult
    public func deliver(_ items: [Item], processed: [ProcessingTally.Label: Int] = [:], counters: [StateCounter] = [], to run: SourceRun,
                        validators: [(key: String, response: CachedResponse)], statuses: [String: Int] = [:]) async throws(SourceError) -> [String] {
        try await thread.run { () throws(SourceError) -> [String] in
            try self.deliverNow(items, processed, counters, run, validators, statuses)
            defer { run.warnings = [] }
            return run.warnings
        }
    }

    private func deliverNow(_ items: [Item], _ processed: [ProcessingTally.Label: Int], _ counters: [StateCounter], _ run: SourceRun,
                            _ validators: [(key: String, response: CachedResponse)], _ statuses: [String: Int]) throws(SourceError) {
        thread.assertCurrent("Delivery.deliver")
        let admitted = try admit(items, processed, counters, run, statuses)
        if run.buffersFirstRun {
            run.buffer += admitted.batch
            run.bufferedValidators += validators
        } else {
            try process(admitted.batch, run, validators: validators)
        }
        if admitted.reachedCap { throw SourceError.enough }
    }

    /// What of a batch goes on: its counts taken, `max_items` applied (`.enough` when the cap
    /// was reached before it), the run's duplicates dropped.
    private func admit(_ items: [Item], _ processed: [ProcessingTally.Label: Int], _ counters: [StateCounter], _ run: SourceRun,
                       _ statuses: [String: Int]) throws(SourceError) -> (batch: [Item], reachedCap: Bool) {
        run.uncountedStatuses.merge(statuses, uniquingKeysWith: +)
        for c in counters { run.uncountedCounters[c.name, default: [:]][c.label, default: 0] += c.value }
        if !processed.isEmpty {
            // Filtered and skipped items were fetched: counted, never claimed in state.
            let dropped = (processed[.filtered] ?? 0) + (processed[.skipped] ?? 0)
            run.processed.merge(processed, uniquingKeysWith: +)
            run.fetched += dropped
            run.uncountedFetched += dropped
        }
        try checkStillDelivering()
        guard let capped = BatchPolicy.capped(items, maxItems: run.settings.maxItems, passed: run.passed) else { throw SourceError.enough }
        var batch = capped.items
        run.fetched += batch.count
        run.uncountedFetched += batch.count
        run.passed += batch.count
        // The run's duplicates are dropped; most batches have none, and are then kept as they
        // are rather than copied item by item.
        var repeated: [Int] = []
        for i in batch.indices where !(options.dedupeAcrossSources ? seen.insert(batch[i].id) : run.seen.insert(batch[i].id)) {
            repeated.append(i)
        }
        if !repeated.isEmpty {
            let drop = Set(repeated)
            batch = batch.indices.filter { !drop.contains($0) }.map { batch[$0] }
        }
        return (batch, capped.reachedCap)
    }

    /// Which of `items`, as they are now, this delivery would emit if `run`'s source delivered
    /// them now (`ProcessorContext.wouldEmit`, what a processor asks before costly work such as
    /// fetching pages): one answer per item, in order. It runs on the delivery thread, between
    /// batches, and changes nothing. False for an item that:
    ///
    /// - delivery can no longer take (a sink failed, the output was closed);
    /// - has an id longer than `Item.maxIDBytes` (the engine skips it);
    /// - was delivered earlier in this run (by any source, or under `watch` by this source run:
    ///   the sets `deliver` drops such ids with), or repeats an id earlier in `items` (only the
    ///   first of an id is true);
    /// - with a state: is not new by the `BatchPolicy` (known, and not an update under
    ///   `emit_updates`; `--all` makes every item new), is cut by the first-run policy
    ///   (`first_run: none`, or not among the newest N: for a first run that waits for its whole
    ///   source, the newest N of `items` alone, a superset of what the run will keep), or is a
    ///   copy of a story already told under `stories` `action: drop`. These are decided as a
    ///   batch is (the ids claimed, the policy, the stories told) in a transaction that is then
    ///   rolled back, so the state, its locks and the stories stage are as they were.
    ///
    /// Without a state only the in-run sets answer (no first-run policy applies there either),
    /// and stories are not asked: without a state they are matched in memory, where a look-up
    /// would be remembered, so a `stories` copy is true there. A state that fails in the preview
    /// answers true for every item the in-run sets did not rule out (fail open: a processor
    /// that does its work for an item that is then dropped only does too much), silently: the
    /// batch's own delivery reports a state that stays broken. `max_items` and sink filters are
    /// not foreseen (later processors may drop items, which leaves room).
    public func wouldEmit(_ items: [Item], for run: SourceRun) async -> [Bool] {
        guard !items.isEmpty else { return [] }
        return await thread.run { self.wouldEmitNow(items, run) }
    }

    private func wouldEmitNow(_ items: [Item], _ run: SourceRun) -> [Bool] {
        thread.assertCurrent("Delivery.wouldEmit")
        var answers = [Bool](repeating: false, count: items.count)
        if outputClosed || failure != nil { return answers }
        // The ids `deliverNow` would let through, first of each in `items`.
        var candidates: [Int] = []
        var inBatch = IDSet()
        for (i, item) in items.enumerated() where item.idLengthProblem == nil {
            let delivered = options.dedupeAcrossSources ? seen.contains(item.id) : run.seen.contains(item.id)
            if !delivered && inBatch.insert(item.id) { candidates.append(i) }
        }
        for i in candidates { answers[i] = true }
        guard let state, !candidates.isEmpty else { return answers }
        let batch = candidates.map { items[$0] }
        let tx: any StateTransaction
        do { tx = try state.begin() } catch { return answers }
        defer { tx.rollback() }
        do {
            let hashes = Item.contentHashes(batch)
            let now = Timestamp.now().seconds
            let known = try tx.claim(zip(batch, hashes).map { EmittedID(id: $0.id, source: run.settings.name, hash: $1) }, now: now)
            let toEmit = policy.toEmit(batch, hashes: hashes, known: known, settings: run.settings, firstRun: run.firstRun)
            let told = try stories?.wouldEmit(toEmit, in: tx, now: now) ?? toEmit.map { _ in true }
            // Ids are unique among the candidates, and the policy keeps their order.
            let emitted = Set(zip(toEmit, told).compactMap { $1 ? $0.id : nil })
            for i in candidates { answers[i] = emitted.contains(items[i].id) }
        } catch {
            return answers  // fail open: the state's answer is unknown
        }
        return answers
    }

    private func checkStillDelivering() throws(SourceError) {
        if outputClosed { throw SourceError.deliveryStopped("output closed") }
        if let failure { throw SourceError.deliveryStopped("a sink failed: \(failure.message)") }
    }

    /// Claims the batch's ids, gives what is new its story (`StoryStage`), writes it to every
    /// sink, commits; `record` joins the same transaction (a source's last batch).
    private func process(_ batch: [Item], _ run: SourceRun, validators: [(key: String, response: CachedResponse)], record: RunRecord? = nil,
                         cursor: String? = nil) throws(SourceError) {
        guard let state else {
            defer { failedSink = nil }
            var toEmit = batch
            var duplicates = 0
            if let stories {
                // Without a state the stories are the run's, in memory: nothing to fail.
                let told = try? stories.tell(batch, in: nil, now: Timestamp.now().seconds)
                toEmit = told?.items ?? batch
                duplicates = told?.duplicates ?? 0
            }
            let written = try write(toEmit, run)
            run.new += toEmit.count
            run.rejections += written.rejections
            if duplicates > 0 { run.processed[.duplicates, default: 0] += duplicates }
            return
        }
        let settings = run.settings
        let tx: any StateTransaction
        do { tx = try state.begin() } catch { throw stateFailure(error, written: false) }
        var toEmit: [Item]
        var duplicates = 0
        var arrivals: [Double]? = nil
        do {
            let hashes = Item.contentHashes(batch)
            let now = Timestamp.now().seconds
            let known = try tx.claim(zip(batch, hashes).map { EmittedID(id: $0.id, source: settings.name, hash: $1) }, now: now)
            toEmit = policy.toEmit(batch, hashes: hashes, known: known, settings: settings, firstRun: run.firstRun)
            if settings.adaptive != nil {
                // `interval: "auto"` learns from the items new to the state, emitted or not.
                let fresh = zip(batch, known).compactMap { $1 == nil ? $0 : nil }
                if !fresh.isEmpty { arrivals = AdaptiveInterval.merged(run.arrivals, adding: fresh, now: now) }
            }
            if let stories {
                let told = try stories.tell(toEmit, in: tx, now: now)
                toEmit = told.items
                duplicates = told.duplicates
            }
        } catch {
            tx.rollback()
            throw stateFailure(error, written: false)
        }
        let written: SinkSet.Written
        do { written = try write(toEmit, run) } catch {
            tx.rollback()
            if let i = failedSink {
                failedSink = nil
                countSinkFailure(i)
            }
            throw error
        }
        do {
            let now = Timestamp.now().seconds
            try tx.storeValidators(validators, now: now)
            for w in written.windows { try tx.replaceWindow(sink: w.sink, items: w.items) }
            try tx.addSourceCounts(SourceCounts(source: settings.name, type: settings.type, fetched: run.uncountedFetched, new: toEmit.count, now: now))
            try tx.addCounters(uncountedCounters(run, written: written.perSink) + Self.rejectedCounters(written.rejections)
                               + (duplicates > 0 ? [StateCounter(.storyDuplicates, settings.name, duplicates)] : []))
            if let arrivals {
                try tx.putValues(namespace: AdaptiveInterval.arrivalsNamespace, [(settings.name, AdaptiveInterval.encode(arrivals: arrivals))], now: now)
            }
            if let record {
                try tx.recordRun(record)
                try recordInterval(tx, run, now: now)
                try storeCursor(cursor, of: record, in: tx)
                try tx.releaseLease(source: record.source, worker: options.worker)
            }
            try tx.commit()
        } catch {
            tx.rollback()
            throw stateFailure(error, written: !toEmit.isEmpty)
        }
        if let arrivals { run.arrivals = arrivals }
        run.uncountedFetched = 0
        run.uncountedStatuses = [:]
        run.uncountedCounters = [:]
        run.new += toEmit.count
        run.rejections += written.rejections
        if duplicates > 0 { run.processed[.duplicates, default: 0] += duplicates }
    }

    /// Writes to every sink through the sink set; a failure stops the run, or (`watch`) only
    /// this batch while it is waited out. A failed sink is counted once the batch's transaction
    /// is rolled back (`failedSink`).
    private func write(_ items: [Item], _ run: SourceRun) throws(SourceError) -> SinkSet.Written {
        let written: SinkSet.Written
        // A sink filter's rule that cannot test an item: counted each time, said once per rule
        // per run; that sink does not get the item.
        let filterFailed: (FilterRuleError, Item, String) -> Void = { e, item, sink in
            run.uncountedCounters[.filterErrors, default: [:]][e.rule.path, default: 0] += 1
            if run.warnedFilterRules.insert(e.rule.path).inserted { run.warnings.append(FilterFailureNote.warning(e, item: item, sink: sink)) }
        }
        do throws(SinkSet.Failure) { written = try sinks.write(items, warn: warn, filterFailed: filterFailed) } catch {
            switch error {
            case .paused(let message):
                throw SourceError.deliveryStopped("sink unavailable: \(message)")
            case .outputClosed:
                options.stopOnFailure?.set()
                outputClosed = true
                throw SourceError.deliveryStopped("output closed")
            case .failed(let index, let e, let waitedOut):
                failedSink = index
                if waitedOut { throw SourceError.deliveryStopped("sink unavailable: \(e.message)") }
                options.stopOnFailure?.set()
                failure = e
                throw SourceError.deliveryStopped("a sink failed: \(e.message)")
            }
        }
        return written
    }

    /// The batch's rejections per sink (`sink_rejected`, labelled by the sink's name).
    static func rejectedCounters(_ rejections: [SinkRejection]) -> [StateCounter] {
        var bySink: [String: Int] = [:]
        for r in rejections { bySink[r.sink, default: 0] += 1 }
        return bySink.sorted { $0.key < $1.key }.map { StateCounter(.sinkRejected, $0.key, $0.value) }
    }

    /// The run's HTTP answers and other counters (filter errors) not yet counted, and the items
    /// each sink wrote (`written[i]`).
    private func uncountedCounters(_ run: SourceRun, written: [Int]) -> [StateCounter] {
        var out = run.uncountedStatuses.sorted { $0.key < $1.key }.map { StateCounter(.httpRequests, $0.key, $0.value) }
        for (name, byLabel) in run.uncountedCounters.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            out += byLabel.sorted { $0.key < $1.key }.map { StateCounter(name, $0.key, $0.value) }
        }
        for (i, n) in written.enumerated() where n > 0 { out.append(StateCounter(.sinkWritten, sinks.name(i), n)) }
        return out
    }

    /// Counts a sink's failure in a transaction of its own (the batch's was rolled back). When
    /// that fails too, the count is lost: the failure itself is reported by the run.
    private func countSinkFailure(_ index: Int) {
        guard let state else { return }
        do throws(StateError) {
            let tx = try state.begin()
            do throws(StateError) {
                try tx.addCounters([StateCounter(.sinkFailures, sinks.name(index), 1)])
                try tx.commit()
            } catch {
                tx.rollback()
                throw error
            }
        } catch {
            return
        }
    }

    private func stateFailure(_ error: StateError, written: Bool) -> SourceError {
        let message = written
            ? "state: items were written but could not be recorded (they will be emitted again): \(error.message)"
            : "state: \(error.message)"
        if error.transient && options.waitsOutStateOutages {
            return SourceError.deliveryStopped("state unavailable: " + (written ? "items were written but could not be recorded (they will be emitted again): " : "") + error.message)
        }
        failure = SinkError(message)
        options.stopOnFailure?.set()
        return SourceError.deliveryStopped(message)
    }

    /// Ends a source's run: delivers what `first_run: N` held back, then records the run (its
    /// failure count, next due time, quota use) with the remaining validators when it succeeded.
    /// `stopped`: interrupted or delivery stopped, not the source's fault: no run is recorded,
    /// so there is no failure count and no backoff. `seconds`: how long the run took;
    /// `statuses`: the HTTP answers since the last batch.
    /// `hint`: what the servers said about asking again (`interval: "auto"`).
    /// `cursor`: the source's proposed incremental cursor (`CursorSlot`), kept with the record
    /// of a successful run only.
    ///
    /// `last`: the source's last batch, which the engine held back until its fetch ended
    /// (`HeldBatch`): it is delivered here as `deliver` would, and recorded in the transaction
    /// that records the run. When its delivery stops (a sink failed), the run is stopped:
    /// `SourceRunResult.deliveryStop` says why.
    public func finish(_ run: SourceRun, last: HeldBatch? = nil, failure: String?, stopped: Bool, requests: Int, validators: [(key: String, response: CachedResponse)],
                       seconds: Double? = nil, statuses: [String: Int] = [:], hint: IntervalHint? = nil, cursor: String? = nil) async -> SourceRunResult {
        // Without state there is nothing to record: the counts are read here, after the last
        // `deliver` has come back from the thread (every write to them happened before that).
        guard state != nil else {
            var stop: SourceError? = nil
            if let last { stop = await thread.run { self.deliverLast(last, run, validators: [], record: nil, cursor: nil).stop } }
            return SourceRunResult(fetched: run.fetched, new: run.new, processed: run.processed, nextDue: nil, notes: run.warnings, rejections: run.rejections,
                                   stateError: nil, deliveryStop: stop)
        }
        return await thread.run {
            self.thread.assertCurrent("Delivery.finish")
            let settings = run.settings
            var result = SourceRunResult(fetched: run.fetched, new: run.new, processed: run.processed, nextDue: nil, notes: [], stateError: nil)
            guard let state = self.state else { return result }
            var stopped = stopped
            let now = Timestamp.now().seconds
            let failures = failure == nil ? 0 : (run.previous?.failures ?? 0) + 1
            let interval = self.interval(run, hint: hint, now: now)
            let due = Schedule.nextDue(interval: interval.seconds, jitter: settings.adaptive?.jitter(for: interval.seconds) ?? settings.jitter, failures: failures, now: now)
            let record = RunRecord(source: settings.name, type: settings.type, success: failure == nil, error: failure, nextDue: due, now: now,
                                   requests: requests, quotaPer: settings.quota?.per, seconds: seconds)
            run.uncountedStatuses.merge(statuses, uniquingKeysWith: +)
            let kept = failure == nil ? validators : []
            // The last batch and the run's record in one transaction.
            var recorded = false
            if let last {
                let delivered = self.deliverLast(last, run, validators: stopped ? [] : kept, record: stopped ? nil : record, cursor: cursor)
                recorded = delivered.recorded
                if let stop = delivered.stop {
                    result.deliveryStop = stop
                    stopped = true
                }
                result.fetched = run.fetched
                result.processed = run.processed
            }
            do throws(SourceError) {
                if run.buffersFirstRun && (!run.buffer.isEmpty || !stopped) {
                    let buffered = run.buffer
                    run.buffer = []
                    try self.checkStillDelivering()
                    try self.process(buffered, run, validators: run.bufferedValidators + kept, record: stopped ? nil : record, cursor: cursor)
                }
                // The record and the end of the lease in one transaction (the lease alone for a
                // stopped run, so another worker may take the source at once).
                if !(run.buffersFirstRun && !stopped) && !recorded {
                    let tx = try self.begin(state)
                    do throws(StateError) {
                        if !stopped {
                            try tx.storeValidators(kept, now: now)
                            try tx.recordRun(record)
                            try self.recordInterval(tx, run, now: now)
                            try self.storeCursor(cursor, of: record, in: tx)
                        }
                        try tx.addCounters(self.uncountedCounters(run, written: []))
                        try tx.releaseLease(source: settings.name, worker: self.options.worker)
                        try tx.commit()
                        run.uncountedStatuses = [:]
                        run.uncountedCounters = [:]
                    } catch {
                        tx.rollback()
                        throw SourceError.deliveryStopped("state: \(error.message)")
                    }
                }
            } catch {
                result.stateError = error.message
            }
            result.new = run.new
            result.rejections = run.rejections
            result.notes += run.warnings
            run.warnings = []
            if !stopped && result.stateError == nil {
                result.nextDue = due
                let before = run.previous?.failures ?? 0
                if failures == 1 && before == 0 {
                    result.notes.append("started failing; next try at \(Timestamp(seconds: due).rfc3339)")
                } else if failures == 0 && before > 0 {
                    result.notes.append("recovered after \(before) failed run\(before == 1 ? "" : "s")")
                }
            }
            return result
        }
    }

    /// Delivers a run's last batch as `deliverNow` does, with `record` and `cursor` (nil: none)
    /// in its transaction; `recorded`: whether the record was committed with it. A first run
    /// that waits for its whole source (`first_run: N`) adds the batch to what it waits with.
    private func deliverLast(_ last: HeldBatch, _ run: SourceRun, validators: [(key: String, response: CachedResponse)], record: RunRecord?,
                             cursor: String?) -> (recorded: Bool, stop: SourceError?) {
        do throws(SourceError) {
            let admitted = try admit(last.items, last.processed, last.counters, run, last.statuses)
            if run.buffersFirstRun {
                run.buffer += admitted.batch
                run.bufferedValidators += last.validators
                return (false, nil)
            }
            try process(admitted.batch, run, validators: last.validators + validators, record: record, cursor: cursor)
            return (record != nil, nil)
        } catch {
            // `max_items` reached before it: nothing of it is delivered, and the run ends as usual.
            return (false, error.isEnough ? nil : error)
        }
    }

    /// The interval of the run ending now: the fixed one, or for `interval: "auto"` the one
    /// its arrivals and the servers' hint give (kept in `run` for `recordInterval`). A first
    /// run that waited for its whole source counts its items as they will be.
    private func interval(_ run: SourceRun, hint: IntervalHint?, now: Double) -> AdaptiveInterval.Choice {
        guard let adaptive = run.settings.adaptive else { return run.settings.fixedChoice }
        let arrivals = run.buffersFirstRun ? AdaptiveInterval.merged(run.arrivals, adding: run.buffer, now: now) : run.arrivals
        let choice = adaptive.choose(arrivals: arrivals, now: now, hint: hint)
        run.intervalChoice = choice
        return choice
    }

    /// Writes the interval `interval` chose, beside the run's record (`status` shows it).
    private func recordInterval(_ tx: any StateTransaction, _ run: SourceRun, now: Double) throws(StateError) {
        guard let choice = run.intervalChoice else { return }
        try tx.putValues(namespace: AdaptiveInterval.intervalNamespace, [(run.settings.name, AdaptiveInterval.encode(choice))], now: now)
    }

    /// Keeps a successful run's proposed cursor in the transaction that records the run.
    private func storeCursor(_ cursor: String?, of record: RunRecord, in tx: any StateTransaction) throws(StateError) {
        guard let cursor, record.success else { return }
        try tx.putValues(namespace: CursorSlot.namespace, [(key: record.source, value: Array(cursor.utf8))], now: record.now)
    }

    private func begin(_ state: any StateBackend) throws(SourceError) -> any StateTransaction {
        do { return try state.begin() } catch { throw SourceError.deliveryStopped("state: \(error.message)") }
    }
}
