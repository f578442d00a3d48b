import Dispatch

/// How one source did in a run.
public struct SourceReport: Sendable {
    public enum Status: Sendable, Equatable {
        case ok
        /// Every request was answered 304 Not Modified.
        case notModified
        case failed(String)
        /// Not run: not due yet, or over its quota.
        case skipped(String)
        /// Not run to the end for a reason that is not the source's fault (a signal, a closed
        /// output, a sink that failed).
        case stopped(String)
    }
    public let name: String
    public let type: String
    public let status: Status
    /// Items the source delivered to the engine (up to `max_items`), filtered ones included.
    public let fetched: Int
    /// What its processing stage counted (`filtered`, `skipped`, ...): items not emitted, not
    /// recorded.
    public let processed: [ProcessingTally.Label: Int]
    /// Items the source's filter (or a processor) dropped on purpose.
    public var filtered: Int { processed[.filtered] ?? 0 }
    /// Items a processor could not handle (they come again on the next run).
    public var skipped: Int { processed[.skipped] ?? 0 }
    /// Items delivered to the sinks (new to this run, not duplicates of another source's).
    public let new: Int
    /// Of `new`, items a sink rejected for good (`SinkContext.reject`), counted once per sink
    /// that rejected them; recorded as delivered.
    public let rejected: Int
    public let seconds: Double
    /// When the source is next due (nil without state, or when no run was recorded).
    public let nextDue: Double?

    public init(name: String, type: String, status: Status, fetched: Int = 0, new: Int = 0, processed: [ProcessingTally.Label: Int] = [:], rejected: Int = 0,
                seconds: Double = 0, nextDue: Double? = nil) {
        self.name = name
        self.type = type
        self.status = status
        self.fetched = fetched
        self.processed = processed
        self.new = new
        self.rejected = rejected
        self.seconds = seconds
        self.nextDue = nextDue
    }

    public var isFailure: Bool { if case .failed = status { return true } else { return false } }
}

/// The outcome of a run, from which the CLI derives the summary and the exit code.
public struct RunReport: Sendable {
    public var sources: [SourceReport] = []
    public var sinkError: SinkError?
    public var outputClosed = false
    public var delivered = 0

    public init() {}

    /// Items the sinks rejected in this run (`SourceReport.rejected`, summed).
    public var rejected: Int { sources.reduce(0) { $0 + $1.rejected } }

    /// 3 when a sink failed, 1 when a source failed, else 0 (Docs/contract.md, exit codes).
    public var exitCode: Int32 {
        if sinkError != nil { return 3 }
        if sources.contains(where: \.isFailure) { return 1 }
        return 0
    }
}

/// Progress as the run goes, for the live line, the logs and the metrics.
public enum EngineEvent: Sendable {
    case started(total: Int)
    case finished(SourceReport, done: Int, total: Int, items: Int, failures: Int)
    /// A batch of the source was delivered and committed (state changed: the metrics did).
    case delivered(source: String)
    case warning(source: String, message: String)
    case log(source: String, message: String)
}

/// Runs the selected sources concurrently, isolates each one's failure, and streams every
/// source's batches to the `Delivery` as they are parsed; with state it also keeps each source's
/// schedule, failure count and quota. It never prints: everything it has to say goes through
/// `observer` and the report.
public struct Engine: Sendable {
    public struct Options: Sendable {
        /// Skip sources that are not due yet (`run --respect-schedule`).
        public var respectSchedule = false
        /// With `respectSchedule`: a source due within this many seconds runs now (half the
        /// period of the timer that calls `run --respect-schedule[=PERIOD]`), so one that falls
        /// due just after a call does not wait a whole period more.
        public var dueWithin = 0.0
        /// Transfers in flight at once (`http.concurrency`): sources run `sourcesPerTransfer`
        /// times as many at once, since a source waiting for a transfer slot only costs memory.
        public var concurrency = 32
        /// After a stop is requested, how long sources in flight may go on before they are
        /// cancelled (`run`: 5 s; `watch`: 10 s).
        public var grace = 5.0
        /// Sources explain what their rules matched (`FetchContext.explain`): `tributary test`.
        public var explain = false
        /// Told of every HTTP attempt of every source (and its processors) as it ends, with the
        /// source's name: `--verbose`'s line per request. Nil: nothing is measured for it.
        public var requestLog: (@Sendable (_ source: String, _ record: HTTPRequestRecord) -> Void)? = nil
        public init(respectSchedule: Bool = false, dueWithin: Double = 0, concurrency: Int = 32, grace: Double = 5, explain: Bool = false) {
            self.respectSchedule = respectSchedule
            self.dueWithin = dueWithin
            self.concurrency = concurrency
            self.grace = grace
            self.explain = explain
        }
    }

    /// What a task group of source runs waits for, `run`'s and `watch`'s (`Scheduler`): a run
    /// that finished, `watch`'s timer, a stop requested (`watch`; `run` waits for it in its
    /// grace watcher), the end of the grace period after it, or the lease keeper's end
    /// (cancelled with the rest).
    enum GroupEvent: Sendable {
        case finished(SourceReport)
        case timer
        case stopRequested
        case graceOver
        case leasesKept
    }

    /// Each source in flight beyond the transfer slots holds what it has fetched until the CPU
    /// and the delivery reach it: twice the slots keeps every slot busy (`bench/run.sh many`
    /// and `fetch` ran as fast with 2 as with 4) at 4-9 MiB less peak memory.
    static let sourcesPerTransfer = 2
    static let minimumSourcesInFlight = 64

    /// How many sources may run at once: `sourcesPerTransfer` per transfer slot
    /// (`http.concurrency`), at least `minimumSourcesInFlight`.
    var sourcesInFlight: Int { max(Self.minimumSourcesInFlight, options.concurrency * Self.sourcesPerTransfer) }

    /// Adds the lease keeper to a group of source runs when the state has leases: the leases of
    /// the sources held, running or waiting for a slot, are renewed until the group ends.
    func keepLeases(in group: inout TaskGroup<GroupEvent>, observer: @escaping @Sendable (EngineEvent) -> Void) {
        guard leases.isNeeded else { return }
        let leases = self.leases
        group.addTask {
            await leases.keep(observer: observer)
            return .leasesKept
        }
    }

    public let sources: [ConfiguredSource]
    public let delivery: Delivery
    public let transport: any HTTPTransport
    public let options: Options
    /// Set when the program was asked to stop: no further source starts, and sources failing
    /// from then on were interrupted, not broken (no failure count, no backoff).
    public let stopping: StopFlag
    /// The leases of the sources this worker holds, renewed while a run or `watch` goes on.
    let leases: LeaseKeeper

    public init(sources: [ConfiguredSource], delivery: Delivery, transport: any HTTPTransport, options: Options = Options(), stopping: StopFlag = StopFlag()) {
        self.sources = sources
        self.delivery = delivery
        self.transport = transport
        self.options = options
        self.stopping = stopping
        self.leases = LeaseKeeper(gateway: delivery.gateway)
    }

    /// One run: opens the sinks, fetches and delivers every source, closes the sinks.
    public func run(observer: @escaping @Sendable (EngineEvent) -> Void = { _ in }) async -> RunReport {
        var report = RunReport()
        do throws(SinkError) {
            try await delivery.open(warn: { observer(.warning(source: "sink", message: $0)) })
        } catch {
            report.sinkError = error
            return report
        }
        // The loop that starts the sources runs on a worker thread too (`WorkerThreads`): on the
        // pool, each run's end woke a third and fourth thread on two cores.
        report = await withTaskExecutorPreference(WorkerThreads.next()) { await runSources(observer: observer) }
        if let e = await delivery.close(), report.sinkError == nil { report.sinkError = e }
        report.outputClosed = await delivery.isOutputClosed
        return report
    }

    /// Fetches and delivers the sources with the sinks already open (one `watch` round).
    public func runSources(observer: @escaping @Sendable (EngineEvent) -> Void = { _ in }) async -> RunReport {
        let now = Timestamp.now().seconds
        var report = RunReport()
        let states: [String: SourceState]
        do { states = try await delivery.gateway.sourceStates(sources.map(\.settings.name)) } catch {
            report.sinkError = SinkError("state: \(error.message)")
            return report
        }
        report.sources.reserveCapacity(sources.count)
        // The sources to run, by their index in `sources`: a `ConfiguredSource` is a few hundred
        // bytes, and copies of the list (this one, then the leased ones) were a third of the
        // peak memory of a run of 10,000 sources.
        var runnable: [Int] = []
        runnable.reserveCapacity(sources.count)
        for (index, configured) in sources.enumerated() {
            let settings = configured.settings
            if let skip = await skipReason(settings, states[settings.name], now: now, observer: observer) {
                let r = SourceReport(name: settings.name, type: settings.type, status: .skipped(skip.reason), nextDue: skip.until ?? states[settings.name]?.nextDue)
                report.sources.append(r)
                if let until = skip.until {
                    do { try await delivery.gateway.setNextDue(source: settings.name, type: settings.type, due: until, now: now) } catch {
                        observer(.warning(source: settings.name, message: "state: \(error.message)"))
                    }
                }
                observer(.finished(r, done: report.sources.count, total: sources.count, items: 0, failures: 0))
                continue
            }
            runnable.append(index)
        }
        // A source another worker holds is skipped, not failed (a shared state; see Leases).
        do {
            var held: [String: String] = [:]
            if leases.isNeeded {  // with state only (`StateGateway.lease`)
                held = try await delivery.gateway.lease(runnable.map { SourceKey(name: sources[$0].settings.name, type: sources[$0].settings.type) })
            }
            if !held.isEmpty { runnable = runnable.filter { index in
                let configured = sources[index]
                guard let holder = held[configured.settings.name] else { return true }
                let r = SourceReport(name: configured.settings.name, type: configured.settings.type, status: .skipped("leased by \(holder)"), nextDue: states[configured.settings.name]?.nextDue)
                report.sources.append(r)
                observer(.finished(r, done: report.sources.count, total: sources.count, items: 0, failures: 0))
                return false
            } }
            if leases.isNeeded { leases.hold(runnable.map { sources[$0].settings.name }) }  // renewed until each one's run ends
        } catch {
            report.sinkError = SinkError("state: \(error.message)")
            return report
        }
        // Their validators in one read (one round trip on a shared state, not one per source).
        await delivery.gateway.prefetchValidators(runnable.map { sources[$0].settings.name })
        let total = sources.count
        observer(.started(total: total))
        let fetched = Timestamp(seconds: now.rounded(.down))
        let limit = sourcesInFlight
        var itemsSoFar = 0
        var failures = 0
        var next = 0
        var halted = false
        await withTaskGroup(of: GroupEvent.self) { group in
            // The shutdown policy: once a stop is requested no source starts, and the ones in
            // flight are cancelled when the grace period is over.
            let stopping = self.stopping, grace = options.grace
            group.addTask {
                await stopping.wait()
                if Task.isCancelled { return .graceOver }
                try? await Task.sleep(nanoseconds: UInt64(grace * 1e9))
                return .graceOver
            }
            // Every source leased above, started or waiting for a slot, keeps its lease.
            keepLeases(in: &group, observer: observer)
            var running = 0
            while next < runnable.count && next < limit {
                let configured = sources[runnable[next]]
                group.addTask(executorPreference: WorkerThreads.next()) { .finished(await runSource(configured, previous: states[configured.settings.name], fetched: fetched, observer: observer)) }
                next += 1
                running += 1
            }
            if running == 0 { group.cancelAll() }
            while let event = await group.next() {
                if case .leasesKept = event { continue }
                guard case .finished(let r) = event else {
                    group.cancelAll()  // the grace period is over: cancel what is left
                    if stopping.isSet { delivery.interruptSinks() }  // and a sink's write waiting for its server or program
                    continue
                }
                running -= 1
                if r.isFailure { failures += 1 }
                itemsSoFar += r.fetched
                report.delivered += r.new
                report.sources.append(r)
                observer(.finished(r, done: report.sources.count, total: total, items: itemsSoFar, failures: failures))
                if case .stopped(let why) = r.status, why != "interrupted" || stopping.isSet {
                    halted = true
                    group.cancelAll()
                }
                if !halted && !stopping.isSet && next < runnable.count {
                    let configured = sources[runnable[next]]
                    group.addTask(executorPreference: WorkerThreads.next()) { .finished(await runSource(configured, previous: states[configured.settings.name], fetched: fetched, observer: observer)) }
                    next += 1
                    running += 1
                }
                if running == 0 { group.cancelAll() }  // ends the grace watcher
            }
        }
        // Sources never started because the run stopped.
        let closed = await delivery.isOutputClosed
        for configured in runnable[next...].lazy.map({ sources[$0] }) {
            let r = SourceReport(name: configured.settings.name, type: configured.settings.type, status: .stopped(closed ? "output closed" : "interrupted"))
            report.sources.append(r)
            observer(.finished(r, done: report.sources.count, total: total, items: itemsSoFar, failures: failures))
        }
        report.sinkError = await delivery.sinkFailure
        report.outputClosed = closed
        // In the config's order: each report's position looked up once, not twice per
        // comparison (10,000 sources made 300,000 lookups of hashed names).
        let order = Dictionary(uniqueKeysWithValues: sources.enumerated().map { ($0.element.settings.name, $0.offset) })
        let keys = report.sources.map { order[$0.name] ?? 0 }
        let sorted = report.sources.indices.sorted { (keys[$0], $0) < (keys[$1], $1) }
        report.sources = sorted.map { report.sources[$0] }
        return report
    }

    /// One source's run, from its validators to its bookkeeping.
    func runSource(_ configured: ConfiguredSource, previous: SourceState?, fetched: Timestamp, observer: @escaping @Sendable (EngineEvent) -> Void) async -> SourceReport {
        let settings = configured.settings
        let name = settings.name
        let delivery = self.delivery
        let (run, warning) = await delivery.begin(settings, previous: previous)
        if let warning { observer(.warning(source: name, message: warning)) }
        let ledger = RequestLedger(scope: name, known: run.validators, cache: delivery.state == nil ? nil : delivery.gateway,
                                   warn: { observer(.warning(source: name, message: $0)) }, keepsValidators: delivery.state != nil,
                                   collectsHints: settings.adaptive != nil && delivery.state != nil)
        var client = HTTPClient(transport: transport, retries: settings.retries, timeout: settings.timeout, ledger: ledger)
        client.auth = settings.auth
        client.proxy = settings.proxy
        if let requestLog = options.requestLog { client.requestLog = { requestLog(name, $0) } }
        // The processing stage: the source's filter, then its `process` list.
        let tally = ProcessingTally()
        let stage: ProcessingStage? = configured.processors.isEmpty ? nil : await ProcessingStage.start(configured.processors, context: ProcessorContext(
            settings: settings, http: client, fetched: fetched, store: delivery.state == nil ? nil : ProcessorStore(gateway: delivery.gateway), tally: tally,
            warn: { observer(.warning(source: name, message: $0)) }, log: { observer(.log(source: name, message: $0)) },
            wouldEmit: { items in await delivery.wouldEmit(items, for: run) }))
        let cursor = CursorSlot { () async throws(SourceError) -> String? in
            do throws(StateError) {
                return try await delivery.gateway.values(namespace: CursorSlot.namespace, keys: [name])[name].map { String(decoding: $0, as: UTF8.self) }
            } catch {
                throw SourceError("state: cannot read the stored cursor: \(error.message)")
            }
        }
        // Each batch waits here until the source emits the next one or its fetch ends: the last
        // one is delivered by `finish`, in the transaction that records the run (`HeldBatch`).
        // A source with `max_items` delivers each at once (it must learn at once that it has
        // enough), and so does one with `interval: "auto"` (its record's interval is chosen
        // from the new items of the batches before it).
        let holds = settings.maxItems == nil && settings.adaptive == nil
        let held = Locked<HeldBatch?>(nil)
        /// Puts `batch` in the slot and returns what was there.
        @Sendable func swapHeld(_ batch: HeldBatch?) -> HeldBatch? {
            held.withLock { h in
                defer { h = batch }
                return h
            }
        }
        let context = FetchContext(
            settings: settings, http: client, fetched: fetched,
            previousSuccess: previous?.lastSuccess.map { Timestamp(seconds: $0) },
            parallelism: options.concurrency, explains: options.explain, cursor: cursor,
            emit: { items throws(SourceError) in
                @Sendable func deliver(_ batch: HeldBatch) async throws(SourceError) {
                    let warnings = try await delivery.deliver(batch.items, processed: batch.processed, counters: batch.counters, to: run,
                                                              validators: batch.validators, statuses: batch.statuses)
                    for w in warnings { observer(.warning(source: name, message: w)) }
                    observer(.delivered(source: name))
                }
                // The batch before is delivered first: the processors that ask what would be
                // emitted (`ProcessorContext.wouldEmit`) then know every earlier item.
                if let previous = swapHeld(nil) { try await deliver(previous) }
                // The processing stage, then the item rules every backend and sink relies on: an id
                // longer than they take is one item's problem, skipped with a warning.
                let admitted = ProcessingStage.admitted(await stage?.process(items) ?? items) { item, why in
                    tally.add(.skipped)
                    observer(.warning(source: name, message: why))
                }
                let batch = HeldBatch(items: admitted, processed: tally.take(), counters: tally.takeCounters(), validators: ledger.takePending(),
                                      statuses: ledger.takeStatuses())
                if holds {
                    // A batch another emit held meanwhile (a source that emits from several tasks) goes now.
                    if let displaced = swapHeld(batch) { try await deliver(displaced) }
                } else {
                    try await deliver(batch)
                }
            },
            warn: { observer(.warning(source: name, message: $0)) },
            log: { observer(.log(source: name, message: $0)) })
        let start = DispatchTime.now().uptimeNanoseconds
        var ended: SourceError? = nil
        leases.hold(CollectionOfOne(name))  // `watch` claimed it just now; a `run` holds it already
        do throws(SourceError) { try await configured.source.fetch(context) } catch { ended = error }
        await stage?.finish()
        leases.drop(name)  // before `finish` releases it: never renewed after that
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        var status = SourceReport.Status.ok
        var failure: String? = nil
        var stopped = false
        if let e = ended, !e.isEnough {
            let outputClosed = await delivery.isOutputClosed
            let sinkFailed = await delivery.sinkFailure != nil
            if e.isDeliveryStop || ((e.isInterruption || Task.isCancelled) && (outputClosed || sinkFailed)) {
                // Delivery stopped under it (or the run cancelled it for that reason).
                stopped = true
                status = .stopped(outputClosed ? "output closed" : sinkFailed || !e.isDeliveryStop ? "sink failed" : e.message)
            } else if e.isInterruption || Task.isCancelled || stopping.isSet {
                stopped = true
                status = .stopped("interrupted")  // by SIGINT/SIGTERM: not the source's fault, no backoff
            } else {
                status = .failed(e.message)
                failure = e.message
            }
        } else if ledger.allNotModified {
            status = .notModified
        }
        let last = swapHeld(nil)
        let result = await delivery.finish(run, last: last, failure: failure, stopped: stopped, requests: ledger.requests, validators: ledger.takePending(),
                                           seconds: seconds, statuses: ledger.takeStatuses(), hint: ledger.largestHint, cursor: cursor.proposed)
        if let e = result.deliveryStop {
            // The last batch's delivery stopped the run, as `deliver` stops a source.
            let outputClosed = await delivery.isOutputClosed
            status = .stopped(outputClosed ? "output closed" : await delivery.sinkFailure != nil ? "sink failed" : e.message)
        } else if last != nil {
            observer(.delivered(source: name))
        }
        for r in result.rejections { observer(.warning(source: name, message: r.message)) }
        for note in result.notes { observer(.warning(source: name, message: note)) }
        if let e = result.stateError { observer(.warning(source: name, message: e)) }
        return SourceReport(name: name, type: settings.type, status: status, fetched: result.fetched, new: result.new, processed: result.processed,
                            rejected: result.rejections.count, seconds: seconds, nextDue: result.nextDue)
    }

    /// Why a source is not run now, and (for a quota) until when.
    func skipReason(_ settings: SourceSettings, _ previous: SourceState?, now: Double, observer: @Sendable (EngineEvent) -> Void) async -> (reason: String, until: Double?)? {
        guard delivery.state != nil else { return nil }
        if options.respectSchedule, let due = previous?.nextDue, due > now + options.dueWithin {
            return ("not due until \(Timestamp(seconds: due).rfc3339)", nil)
        }
        if let q = settings.quota {
            let used: (used: Int, resets: Double)
            do { used = try await delivery.gateway.quotaUsed(source: settings.name, per: q.per, now: now) } catch {
                observer(.warning(source: settings.name, message: "state: cannot read the quota, running the source: \(error.message)"))
                return nil
            }
            if used.used >= q.requests {
                return ("quota of \(q.requests) requests per \(Durations.format(q.per)) used up until \(Timestamp(seconds: used.resets).rfc3339)", used.resets)
            }
        }
        return nil
    }
}

/// When a source runs next: its interval with jitter, or after failures an exponential backoff
/// (interval x 2^failures, capped at 24 h), so a broken source is retried but never hammered.
public enum Schedule {
    public static let maxBackoff = 86400.0

    public static func nextDue(interval: Double, jitter: Double, failures: Int, now: Double) -> Double {
        let base = failures == 0 ? interval : min(interval * Double(1 << min(failures, 30)), maxBackoff)
        let spread = jitter > 0 ? Double.random(in: -jitter...jitter) : 0
        return now + max(1, base + spread)
    }
}
