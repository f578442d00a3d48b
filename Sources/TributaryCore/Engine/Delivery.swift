/// The one owner of the sinks and the state. Every batch a source emits is delivered here, on
/// one dedicated thread (`SerialThread`), one batch at a time: ids already delivered this run
/// are dropped, `max_items` is applied, the batch's ids are claimed in state, `first_run` and
/// `emit_updates` decide what is new, every sink writes it, and one state transaction commits
/// the ids, the validators of the responses they came from, the sinks' windows, the totals the
/// metrics and `status` read (items fetched and delivered, HTTP answers, items each sink
/// wrote or rejected) and, with a source's end, its run record. Nothing is recorded unless
/// every sink wrote its items (or rejected some for good: `SinkContext.reject`).
///
/// Threading rule (why `@unchecked Sendable` is sound): everything below `thread` is touched
/// only by jobs on `thread` (asserted in debug builds); the public async methods hop there.
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
        /// Called on the delivery thread just before the sinks write a batch, and just after
        /// (also when they failed): the CLI takes its progress line off a terminal a sink may
        /// write to, and puts it back.
        public var willWrite: (@Sendable () -> Void)?
        public var didWrite: (@Sendable () -> Void)?
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
        /// How items read as text, for the sinks (`SinkContext.lines`): `Registry.itemLines`.
        public var lines: ItemLines
        public init(emitAll: Bool = false, dedupeAcrossSources: Bool = true, stopOnFailure: StopFlag? = nil, lines: ItemLines = .standard, sinkNames: [String] = [],
                    willWrite: (@Sendable () -> Void)? = nil, didWrite: (@Sendable () -> Void)? = nil,
                    worker: String = Leases.defaultWorker, lease: Double = Leases.defaultDuration, waitsOutStateOutages: Bool = false,
                    waitsOutSinkOutages: Bool = false) {
            self.lines = lines
            self.emitAll = emitAll
            self.dedupeAcrossSources = dedupeAcrossSources
            self.stopOnFailure = stopOnFailure
            self.sinkNames = sinkNames
            self.willWrite = willWrite
            self.didWrite = didWrite
            self.worker = worker
            self.lease = lease
            self.waitsOutStateOutages = waitsOutStateOutages
            self.waitsOutSinkOutages = waitsOutSinkOutages
        }
    }

    let thread = SerialThread(name: "tributary-deliv")
    private let sinks: [any Sink]
    /// Each sink's `filter`, by position (nil: the sink takes every item).
    private let sinkFilters: [ItemFilter?]
    public let state: (any StateBackend)?
    let options: Options
    private var seen = IDSet()
    private var failure: SinkError?
    private var outputClosed = false
    /// The sink whose write failed in the batch being delivered.
    private var failedSink: Int?
    /// Windows the sinks saved during the batch being delivered.
    private var stagedWindows: [(sink: String, items: [WindowItem])] = []
    /// Items each sink wrote of the batch being delivered (its filter may have taken fewer, it
    /// may have rejected some).
    private var stagedWritten: [Int] = []
    /// Items the sinks rejected in the batch being delivered (`SinkContext.reject`).
    private var stagedRejections: [SinkRejection] = []
    /// The sink whose `write` runs now, and the items it was given: a rejection counts only
    /// then, for an item of its batch, once. (Looked through only when a sink rejects, which is
    /// rare: no set of ids is built for every batch.)
    private var writing: (sink: Int, items: [Item])?
    /// The sinks' `SinkContext.interruption`: set from any thread (the delivery thread may be
    /// blocked in a sink's write, waiting for exactly this).
    private let interruption = StopFlag()
    /// The sink failure being waited out (`Options.waitsOutSinkOutages`), if any.
    private var sinkOutage: SinkOutage?
    /// When the sinks may be written again after a failure (nil: now). Written on the delivery
    /// thread, read by the scheduler from any thread (`sinksPausedUntil`).
    private let sinkPause = Locked<Double?>(nil)
    /// Where the sinks' notes go (`open`'s `warn`); the outages of `waitsOutSinkOutages` too.
    private var warn: @Sendable (String) -> Void = { _ in }

    /// `sinkFilters`: the filter of each sink, by position (missing ones: none).
    public init(sinks: [any Sink], sinkFilters: [ItemFilter?] = [], state: (any StateBackend)?, options: Options = Options()) {
        self.sinks = sinks
        self.sinkFilters = sinks.indices.map { $0 < sinkFilters.count ? sinkFilters[$0] : nil }
        self.state = state
        self.options = options
    }

    deinit { thread.stop() }

    /// Closes the state and ends the delivery thread; call once, after `close()`.
    public func shutdown() async {
        await thread.run { self.state?.close() }
        thread.stop()
    }

    /// While a sink failure is waited out (`Options.waitsOutSinkOutages`): when the sinks are
    /// tried again. `watch` starts no run before then. Any thread.
    public var sinksPausedUntil: Double? { sinkPause.withLock { $0 } }

    /// The sink failure that stopped delivery, if any (an output closed by its reader is not one).
    public var sinkFailure: SinkError? { get async { await thread.run { self.failure } } }
    public var isOutputClosed: Bool { get async { await thread.run { self.outputClosed } } }

    // MARK: opening and closing

    /// Opens every sink; sinks that keep a window load it from state. `warn` carries what the
    /// sinks have to say.
    public func open(warn: @escaping @Sendable (String) -> Void = { _ in }) async throws(SinkError) {
        try await thread.run { () throws(SinkError) in
            self.warn = warn
            // `unowned`: the sinks keep the window for their life, and the Delivery keeps the sinks.
            let windows: SinkWindowStore? = self.state.map { [unowned self] state in
                SinkWindowStore(load: { [unowned self] key throws(StateError) in
                    self.thread.assertCurrent("loading a sink window")
                    return try state.window(sink: key)
                }, save: { [unowned self] key, items in
                    self.thread.assertCurrent("saving a sink window")
                    self.stagedWindows.removeAll { $0.sink == key }
                    self.stagedWindows.append((key, items))
                })
            }
            for (i, sink) in self.sinks.enumerated() {
                let context = SinkContext(window: windows, lines: self.options.lines, interruption: self.interruption, warn: warn,
                                          reject: { [unowned self] item, reason in
                    self.thread.assertCurrent("rejecting an item")
                    let name = self.sinkName(i)
                    guard let w = self.writing, w.sink == i, w.items.contains(where: { $0.id == item.id }),
                          !self.stagedRejections.contains(where: { $0.sink == name && $0.id == item.id }) else { return }
                    self.stagedRejections.append(SinkRejection(sink: name, id: item.id, reason: reason))
                })
                do throws(SinkError) { try sink.open(context) } catch {
                    self.countSinkFailure(i)
                    throw error
                }
            }
        }
    }

    /// Closes every sink; returns the first failure of the run, if any.
    public func close() async -> SinkError? {
        await thread.run {
            for (i, sink) in self.sinks.enumerated() {
                do throws(SinkError) { try sink.close() } catch {
                    if error.isOutputClosed { self.outputClosed = true } else {
                        self.countSinkFailure(i)
                        if self.failure == nil { self.failure = error }
                    }
                }
            }
            return self.failure
        }
    }

    /// Tells the sinks to stop waiting (the grace period after a signal is over): a write
    /// waiting for a server or a program gives up and fails. Any thread; idempotent.
    public func interruptSinks() { interruption.set() }

    // MARK: one source's run

    /// Starts a source's run: loads the validators state has for its requests.
    public func begin(_ settings: SourceSettings, previous: SourceState?) async -> (SourceRun, warning: String?) {
        // Without state there is nothing to read: the run is made here and reaches the thread
        // with the first `deliver` (whose hop orders these writes before the thread's).
        guard state != nil else { return (SourceRun(settings: settings, previous: previous, validators: [:], buffersFirstRun: false), nil) }
        return await thread.run {
            var validators: [String: Validators] = [:]
            var warning: String? = nil
            if let state = self.state {
                do throws(StateError) { validators = try state.validators(scope: settings.name) } catch {
                    warning = "state: cannot read stored validators, fetching everything: \(error.message)"
                }
            }
            let buffers: Bool = {
                guard self.state != nil, !self.options.emitAll, previous?.lastSuccess == nil else { return false }
                if case .newest = settings.firstRun { return true }
                return false
            }()
            return (SourceRun(settings: settings, previous: previous, validators: validators, buffersFirstRun: buffers), warning)
        }
    }

    /// The body stored with a validator, to answer a 304.
    public func cachedBody(_ key: String) async throws(StateError) -> [UInt8]? {
        guard state != nil else { return nil }
        return try await thread.run { () throws(StateError) in try self.state!.cachedBody(key) }
    }

    /// Delivers one batch of a source's items (see the type's description). Throws when the
    /// source should stop: delivery stopped (a sink failed, a sink's reader went away) or `max_items` was
    /// reached (after delivering up to it). `statuses`: the HTTP answers (by status) since the
    /// last batch, counted with this one. Returns the warnings for the log the batch gave (a
    /// filter rule that could not be tested); those of a batch that throws come with `finish`.
    @discardableResult
    public func deliver(_ items: [Item], to run: SourceRun, validators: [(key: String, response: CachedResponse)], statuses: [String: Int] = [:]) async throws(SourceError) -> [String] {
        try await thread.run { () throws(SourceError) -> [String] in
            try self.deliverNow(items, run, validators, statuses)
            defer { run.warnings = [] }
            return run.warnings
        }
    }

    private func deliverNow(_ items: [Item], _ run: SourceRun, _ validators: [(key: String, response: CachedResponse)], _ statuses: [String: Int]) throws(SourceError) {
        thread.assertCurrent("Delivery.deliver")
        run.uncountedStatuses.merge(statuses, uniquingKeysWith: +)
        try checkStillDelivering()
        var batch = items
        // The source's filter first: what it drops is counted as fetched and filtered, never
        // claimed in state, so a looser rule lets it through on a later run.
        if let filter = run.settings.filter, !filter.isEmpty {
            let now = Timestamp.now().seconds
            batch = batch.filter { item in filter.passes(item, now: now) { filterFailed($0, item, run, sink: nil) } }
            run.filtered += items.count - batch.count
            run.fetched += items.count - batch.count
            run.uncountedFetched += items.count - batch.count
        }
        var reachedCap = false
        if let cap = run.settings.maxItems {
            let room = cap - run.passed
            if room <= 0 { throw SourceError.enough }
            if batch.count >= room {
                batch = Array(batch.prefix(room))
                reachedCap = true
            }
        }
        run.fetched += batch.count
        run.uncountedFetched += batch.count
        run.passed += batch.count
        batch = batch.filter { options.dedupeAcrossSources ? seen.insert($0.id) : run.seen.insert($0.id) }
        if run.buffersFirstRun {
            run.buffer += batch
            run.bufferedValidators += validators
        } else {
            try process(batch, run, validators: validators)
        }
        if reachedCap { throw SourceError.enough }
    }

    /// A filter rule that could not test an item: counted every time, warned about once per
    /// rule per source run. `sink`: the sink whose filter it is (nil: the source's).
    private func filterFailed(_ e: FilterRuleError, _ item: Item, _ run: SourceRun, sink: String?) {
        run.uncountedFilterErrors[e.rule.path, default: 0] += 1
        guard run.warnedFilterRules.insert(e.rule.path).inserted else { return }
        var rule = e.rule.file.isEmpty ? e.rule.path : "\(e.rule.file): \(e.rule.path)"
        if case .regex(let p) = e.rule.test, let r = p as? RegexPattern { rule += " (regex \"\(r.source)\")" }
        let outcome: String
        switch (sink, e.excludes) {
        case (let sink?, _): outcome = "sink \(sink) does not receive the item"
        case (nil, true): outcome = "the item is excluded"
        case (nil, false): outcome = "the item is not included (and not recorded as emitted, so a fixed rule lets it through later)"
        }
        run.warnings.append("filter rule \(rule) failed on item \"\(item.id)\": \(e.message); \(outcome); "
                            + "further failures of this rule in this run are only counted (tributary_filter_errors_total)")
    }

    private func checkStillDelivering() throws(SourceError) {
        if outputClosed { throw SourceError.deliveryStopped("output closed") }
        if let failure { throw SourceError.deliveryStopped("a sink failed: \(failure.message)") }
    }

    /// Claims the batch's ids, writes what is new to every sink, commits; `record` joins the
    /// same transaction (a source's last batch).
    private func process(_ batch: [Item], _ run: SourceRun, validators: [(key: String, response: CachedResponse)], record: RunRecord? = nil) throws(SourceError) {
        guard let state else {
            try write(batch, run)
            run.new += batch.count
            run.rejections += stagedRejections
            stagedRejections.removeAll()
            return
        }
        let settings = run.settings
        let tx: any StateTransaction
        do { tx = try state.begin() } catch { throw stateFailure(error, written: false) }
        var toEmit: [Item] = []
        do {
            let hashes = batch.map(\.contentHash)
            let known = try tx.claim(zip(batch, hashes).map { EmittedID(id: $0.id, source: settings.name, hash: $1) }, now: Timestamp.now().seconds)
            toEmit.reserveCapacity(batch.count)
            for (i, item) in batch.enumerated() {
                guard let old = known[i], !options.emitAll else { toEmit.append(item); continue }
                // An update is a change seen by the source that emitted the item: another
                // source's view of the same id (a feed vs a search) is not an update.
                if settings.emitUpdates && old.source == settings.name && old.hash != hashes[i] {
                    var updated = item
                    updated.data["updated"] = .bool(true)
                    toEmit.append(updated)
                }
            }
            if run.firstRun && !options.emitAll {
                switch settings.firstRun {
                case .all: break
                case .none: toEmit = []
                case .newest(let n): toEmit = Self.newest(toEmit, n)
                }
            }
        } catch {
            tx.rollback()
            throw stateFailure(error, written: false)
        }
        do { try write(toEmit, run) } catch {
            tx.rollback()
            stagedWindows.removeAll()
            stagedRejections.removeAll()
            if let i = failedSink {
                failedSink = nil
                countSinkFailure(i)
            }
            throw error
        }
        do {
            let now = Timestamp.now().seconds
            try tx.storeValidators(validators, now: now)
            for w in stagedWindows { try tx.replaceWindow(sink: w.sink, items: w.items) }
            stagedWindows.removeAll()
            try tx.addSourceCounts(SourceCounts(source: settings.name, type: settings.type, fetched: run.uncountedFetched, new: toEmit.count, now: now))
            try tx.addCounters(uncountedCounters(run, written: stagedWritten) + rejectedCounters())
            if let record {
                try tx.recordRun(record)
                try tx.releaseLease(source: record.source, worker: options.worker)
            }
            try tx.commit()
        } catch {
            tx.rollback()
            stagedWindows.removeAll()
            stagedRejections.removeAll()
            throw stateFailure(error, written: !toEmit.isEmpty)
        }
        run.uncountedFetched = 0
        run.uncountedStatuses = [:]
        run.uncountedFilterErrors = [:]
        run.new += toEmit.count
        run.rejections += stagedRejections
        stagedRejections.removeAll()
    }

    /// The batch's rejections per sink (`sink_rejected`, labelled by the sink's name).
    private func rejectedCounters() -> [StateCounter] {
        var bySink: [String: Int] = [:]
        for r in stagedRejections { bySink[r.sink, default: 0] += 1 }
        return bySink.sorted { $0.key < $1.key }.map { StateCounter(.sinkRejected, $0.key, $0.value) }
    }

    /// A sink failure `watch` waits out: the sink, its last message, since when, and when the
    /// sinks are tried again (the backoff of a state outage: 1 s, 2 s, 4 s, ... 30 s).
    struct SinkOutage {
        var sink: Int
        var message: String
        var since: Double
        var retryAt: Double
        var backoff = StateOutage()
    }

    /// The run's HTTP answers and filter errors not yet counted, and the items each sink wrote
    /// (`written[i]`).
    private func uncountedCounters(_ run: SourceRun, written: [Int]) -> [StateCounter] {
        var out = run.uncountedStatuses.sorted { $0.key < $1.key }.map { StateCounter(.httpRequests, $0.key, $0.value) }
        out += run.uncountedFilterErrors.sorted { $0.key < $1.key }.map { StateCounter(.filterErrors, $0.key, $0.value) }
        for (i, n) in written.enumerated() where n > 0 { out.append(StateCounter(.sinkWritten, sinkName(i), n)) }
        return out
    }

    var sinkNamesInOrder: [String] { sinks.indices.map(sinkName) }

    func sinkName(_ index: Int) -> String {
        index < options.sinkNames.count ? options.sinkNames[index] : "sinks[\(index)]"
    }

    /// Counts a sink's failure in a transaction of its own (the batch's was rolled back). When
    /// that fails too, the count is lost: the failure itself is reported by the run.
    private func countSinkFailure(_ index: Int) {
        guard let state else { return }
        do throws(StateError) {
            let tx = try state.begin()
            do throws(StateError) {
                try tx.addCounters([StateCounter(.sinkFailures, sinkName(index), 1)])
                try tx.commit()
            } catch {
                tx.rollback()
                throw error
            }
        } catch {
            return
        }
    }

    /// Writes to every sink; a failure is counted once the batch's transaction is rolled back
    /// (`failedSink`). What a sink rejected is staged (`stagedRejections`) and not counted as
    /// written by it. While a sink failure is waited out, a batch before the end of the backoff
    /// is stopped without writing (`Options.waitsOutSinkOutages`).
    private func write(_ items: [Item], _ run: SourceRun) throws(SourceError) {
        stagedWritten = Array(repeating: 0, count: sinks.count)
        stagedRejections.removeAll()
        guard !items.isEmpty else { return }
        if let outage = sinkOutage, Timestamp.now().seconds < outage.retryAt {
            throw SourceError.deliveryStopped("sink unavailable: \(outage.message)")
        }
        options.willWrite?()
        defer { options.didWrite?() }
        let now = Timestamp.now().seconds
        for (i, (sink, filter)) in zip(sinks, sinkFilters).enumerated() {
            // A sink's filter decides which of the batch it receives; the others still get all.
            let mine = filter.map { f in
                f.isEmpty ? items : items.filter { item in f.passes(item, now: now) { filterFailed($0, item, run, sink: sinkName(i)) } }
            } ?? items
            guard !mine.isEmpty else { continue }
            writing = (i, mine)
            let before = stagedRejections.count
            defer { writing = nil }
            do throws(SinkError) {
                try sink.write(mine)
                stagedWritten[i] = mine.count - (stagedRejections.count - before)
            } catch {
                if error.isOutputClosed {
                    options.stopOnFailure?.set()
                    outputClosed = true
                    throw SourceError.deliveryStopped("output closed")
                }
                failedSink = i
                if options.waitsOutSinkOutages {
                    throw sinkUnavailable(i, error)
                }
                options.stopOnFailure?.set()
                failure = error
                throw SourceError.deliveryStopped("a sink failed: \(error.message)")
            }
        }
        if let outage = sinkOutage {
            sinkOutage = nil
            sinkPause.withLock { $0 = nil }
            let seconds = Timestamp.now().seconds - outage.since
            warn("\(sinkName(outage.sink)): written again after \(outage.backoff.failures) failed attempt\(outage.backoff.failures == 1 ? "" : "s") (\(Durations.format(seconds.rounded(.up))))")
        }
    }

    /// A sink failed under `waitsOutSinkOutages`: says so, and pauses the sinks for the next
    /// step of the backoff.
    private func sinkUnavailable(_ index: Int, _ error: SinkError) -> SourceError {
        let now = Timestamp.now().seconds
        var outage = sinkOutage ?? SinkOutage(sink: index, message: error.message, since: now, retryAt: now)
        outage.sink = index
        outage.message = error.message
        let wait = outage.backoff.failed()
        outage.retryAt = now + wait
        sinkOutage = outage
        let retryAt = outage.retryAt
        sinkPause.withLock { $0 = retryAt }
        warn("\(sinkName(index)) failed (attempt \(outage.backoff.failures)), trying again in \(Durations.format(wait)); the batch is not recorded and comes again: \(error.message)")
        return SourceError.deliveryStopped("sink unavailable: \(error.message)")
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
    public func finish(_ run: SourceRun, failure: String?, stopped: Bool, requests: Int, validators: [(key: String, response: CachedResponse)],
                       seconds: Double? = nil, statuses: [String: Int] = [:]) async -> SourceRunResult {
        // Without state there is nothing to record: the counts are read here, after the last
        // `deliver` has come back from the thread (every write to them happened before that).
        guard state != nil else {
            return SourceRunResult(fetched: run.fetched, new: run.new, filtered: run.filtered, nextDue: nil, notes: run.warnings, rejections: run.rejections, stateError: nil)
        }
        return await thread.run {
            self.thread.assertCurrent("Delivery.finish")
            let settings = run.settings
            var result = SourceRunResult(fetched: run.fetched, new: run.new, filtered: run.filtered, nextDue: nil, notes: [], stateError: nil)
            guard let state = self.state else { return result }
            let now = Timestamp.now().seconds
            let failures = failure == nil ? 0 : (run.previous?.failures ?? 0) + 1
            let due = Schedule.nextDue(interval: settings.interval, jitter: settings.jitter, failures: failures, now: now)
            let record = RunRecord(source: settings.name, type: settings.type, success: failure == nil, error: failure, nextDue: due, now: now,
                                   requests: requests, quotaPer: settings.quota?.per, seconds: seconds)
            run.uncountedStatuses.merge(statuses, uniquingKeysWith: +)
            let kept = failure == nil ? validators : []
            do throws(SourceError) {
                if run.buffersFirstRun && (!run.buffer.isEmpty || !stopped) {
                    let buffered = run.buffer
                    run.buffer = []
                    try self.checkStillDelivering()
                    try self.process(buffered, run, validators: run.bufferedValidators + kept, record: stopped ? nil : record)
                }
                // The record and the end of the lease in one transaction (the lease alone for a
                // stopped run, so another worker may take the source at once).
                if !(run.buffersFirstRun && !stopped) {
                    let tx = try self.begin(state)
                    do throws(StateError) {
                        if !stopped {
                            try tx.storeValidators(kept, now: now)
                            try tx.recordRun(record)
                        }
                        try tx.addCounters(self.uncountedCounters(run, written: []))
                        try tx.releaseLease(source: settings.name, worker: self.options.worker)
                        try tx.commit()
                        run.uncountedStatuses = [:]
                        run.uncountedFilterErrors = [:]
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

    private func begin(_ state: any StateBackend) throws(SourceError) -> any StateTransaction {
        do { return try state.begin() } catch { throw SourceError.deliveryStopped("state: \(error.message)") }
    }

    /// The `n` newest by published time (undated last), kept in their original order.
    static func newest(_ items: [Item], _ n: Int) -> [Item] {
        guard items.count > n else { return items }
        let keep = Set(items.indices.sorted { a, b in
            let ta = items[a].published?.seconds ?? -Double.infinity, tb = items[b].published?.seconds ?? -Double.infinity
            return ta != tb ? ta > tb : a < b
        }.prefix(n))
        return items.indices.filter { keep.contains($0) }.map { items[$0] }
    }
}
