/// `watch`: runs each source on its own interval (with jitter, with exponential backoff while
/// it fails), never two runs of one source at once, every run's batches delivered as they come
/// through the engine's one `Delivery`. Retention is applied hourly. When a stop is requested,
/// no run starts, the runs in flight get the grace period, then they are cancelled.
///
/// One task group holds everything that can happen next: a source's run ending, the timer of
/// the next due time, the stop request, the end of the grace period. The loop reacts to whichever
/// comes first; nothing polls.
public struct Scheduler: Sendable {
    public let engine: Engine
    /// `state.retention`, applied at start and every `pruneInterval`.
    public let retention: Double
    public static let pruneInterval = 3600.0
    /// How often a worker with more than half its runs in flight looks for due sources.
    static let busyLookInterval = 1.0
    /// The timer never sleeps longer than this, so a clock jump is noticed.
    static let maxSleep = 60.0
    /// A look's rounds of offers at most (each is one call to the state): a bound, should a
    /// state keep saying its candidates are due later while this clock says they are due now.
    static let maxRoundsPerLook = 64
    /// A candidate the state put off is not offered again sooner than this.
    static let minimumPostpone = 0.05
    /// Nothing in flight and nothing due for at least this long, after runs have ended: the
    /// freed memory is given back to the kernel (`FreedMemory`). glibc keeps what a burst of
    /// runs freed in each thread's arena, so a watch's RSS between cycles crept up in steps with
    /// the largest burst so far; this gives back the pages that are wholly free (10,000
    /// sources: 6-8 MiB less, though the growth is not always gone; Docs/PERFORMANCE.md).
    static let idleBeforeGivingBack = 1.0

    /// How many ready sources a round of a look offers with `free` slots: twice the slots, at
    /// least 32, so that a few not due (another worker's) do not leave a slot empty.
    static func offered(free: Int) -> Int { max(2 * free, 32) }

    /// What going idle does (`idleBeforeGivingBack`); tests count the calls.
    let giveBackFreedMemory: @Sendable () -> Void

    public init(engine: Engine, retention: Double, giveBackFreedMemory: @escaping @Sendable () -> Void = { FreedMemory.giveBack() }) {
        self.engine = engine
        self.retention = retention
        self.giveBackFreedMemory = giveBackFreedMemory
    }

    /// Runs until a stop is requested (the engine's `stopping` flag) and the runs in flight
    /// have ended. The sinks must be open (`Delivery.open`); closing them is the caller's.
    ///
    /// Which sources are due comes from the state at each look (`Delivery.claimDue`, which also
    /// leases them to this worker), so workers sharing one state each run what the others do
    /// not. `notBefore` (`DueQueue`) holds what this worker knows better: the next due time of
    /// its own runs, or a backoff after a run whose record could not be written.
    public func run(observer: @escaping @Sendable (EngineEvent) -> Void) async {
        // The loop on a worker thread, as `Engine.run`'s (`WorkerThreads`).
        await withTaskExecutorPreference(WorkerThreads.next()) { await schedule(observer: observer) }
    }

    private func schedule(observer: @escaping @Sendable (EngineEvent) -> Void) async {
        let delivery = engine.delivery
        let sources = engine.sources
        let byName = Dictionary(uniqueKeysWithValues: sources.map { ($0.settings.name, $0) })
        let indexOf = Dictionary(uniqueKeysWithValues: sources.enumerated().map { ($1.settings.name, $0) })
        // This worker's own next times and which sources are candidates now.
        var queue = DueQueue(count: sources.count)
        var unrecorded: [String: Int] = [:]
        var lastPrune = -Double.infinity
        let stopping = engine.stopping
        let grace = engine.options.grace
        let limit = engine.sourcesInFlight
        var outage = StateOutage()
        var lastLook = -Double.infinity
        var ranSinceGivingBack = false

        await withTaskGroup(of: Engine.GroupEvent.self) { group in
            group.addTask {
                await stopping.wait()
                return .stopRequested
            }
            // The leases of the runs in flight, renewed while they go on.
            engine.keepLeases(in: &group, observer: observer)
            var running = Set<String>()
            // When the latest timer fires; another is added whenever the next look moves
            // earlier than that (a stale timer only causes a look at the schedule).
            var armedUntil: Double? = nil
            var stopped = stopping.isSet
            while true {
                var now = Timestamp.now().seconds
                if !stopped {
                    if now - lastPrune >= Self.pruneInterval {
                        lastPrune = now
                        do throws(StateError) { _ = try await delivery.gateway.prune(retention: retention, now: now) } catch {
                            observer(.warning(source: "state", message: "retention: \(error.message)"))
                        }
                    }
                    var look = now + Self.maxSleep
                    // A look costs the state a pass over the candidates: while more than half of
                    // `limit` runs are in flight, look at most every `busyLookInterval` rather
                    // than after every run that ends (10,000 sources: 150 looks, not 10,000).
                    let busy = running.count > limit / 2 && now - lastLook < Self.busyLookInterval
                    if busy { look = lastLook + Self.busyLookInterval }
                    // A sink failure being waited out: no run starts before the sinks are tried
                    // again (its batches could not be delivered).
                    let paused = delivery.sinksPausedUntil.flatMap { $0 > now ? $0 : nil }
                    if let paused { look = min(look, paused) }
                    queue.advance(to: now)
                    // A look offers the state the first few ready sources of the line, a few
                    // times the free slots, not every ready one (that made each look a pass over
                    // all sources, and a cycle O(n²)); those the state says are not due yet leave
                    // the line until they are (`postpone`), and the next few are offered, until
                    // the slots are full, the line is empty, or a round moves nothing.
                    var rounds = 0
                    while paused == nil && !busy && running.count < limit && queue.readyCount > 0 && rounds < Self.maxRoundsPerLook {
                        rounds += 1
                        let free = limit - running.count
                        let candidates = queue.candidates(max: Self.offered(free: free)).map { sources[$0] }
                        lastLook = now
                        do throws(StateError) {
                            let claim = try await delivery.gateway.claimDue(candidates.map { SourceKey(name: $0.settings.name, type: $0.settings.type) }, limit: free, now: now)
                            if let note = outage.ended() { observer(.warning(source: "state", message: note)) }
                            for (name, state) in claim.claimed {
                                guard let configured = byName[name] else { continue }
                                running.insert(name)
                                if let i = indexOf[name] { queue.started(i) }
                                group.addTask(executorPreference: WorkerThreads.next()) { .finished(await runOnce(configured, previous: state, observer: observer)) }
                            }
                            for (name, at) in claim.later {
                                if let i = indexOf[name] { queue.postpone(i, until: max(at, now + Self.minimumPostpone)) }
                            }
                            // A due source left over is another worker's claim in progress, or
                            // one past `limit` (looked at again when a run ends).
                            if let next = claim.nextCheck, running.count < limit { look = min(look, max(next, now + 0.05)) }
                            if claim.claimed.isEmpty && claim.later.isEmpty { break }
                        } catch {
                            let retry = outage.failed()
                            observer(.warning(source: "state", message: "cannot reach the state, looking again in \(Durations.format(retry)): \(error.message)"))
                            look = min(look, now + retry)
                            break
                        }
                    }
                    // Rounds left over (a long line of sources other workers hold): soon.
                    if rounds == Self.maxRoundsPerLook && running.count < limit && queue.readyCount > 0 { look = min(look, now + 0.05) }
                    now = Timestamp.now().seconds
                    queue.advance(to: now)
                    let soonest = queue.soonest() ?? look
                    let wake = min(max(min(soonest, look), now + 0.01), now + Self.maxSleep, max(now + 0.01, lastPrune + Self.pruneInterval))
                    let delay = wake - now
                    if armedUntil == nil || wake < armedUntil! - 0.001 {
                        armedUntil = wake
                        group.addTask {
                            try? await Task.sleep(nanoseconds: UInt64(delay * 1e9))
                            return .timer
                        }
                    }
                    if running.isEmpty && ranSinceGivingBack && delay >= Self.idleBeforeGivingBack {
                        ranSinceGivingBack = false
                        giveBackFreedMemory()
                    }
                }
                if stopped && running.isEmpty { break }
                guard let event = await group.next() else { break }
                switch event {
                case .finished(let r):
                    running.remove(r.name)
                    ranSinceGivingBack = true
                    // No recorded next time (the state could not be written): back off rather
                    // than hammer, less than the interval backoff while the state is unreachable.
                    unrecorded[r.name] = r.nextDue == nil ? (unrecorded[r.name] ?? 0) + 1 : nil
                    let next = r.nextDue ?? Timestamp.now().seconds + StateOutage.backoff(interval: byName[r.name]?.settings.interval ?? 900, attempt: unrecorded[r.name] ?? 1)
                    if let i = indexOf[r.name] { queue.finished(i, next: next) }
                    observer(.finished(r, done: 0, total: sources.count, items: r.fetched, failures: r.isFailure ? 1 : 0))
                case .timer:
                    if let until = armedUntil, Timestamp.now().seconds >= until - 0.001 { armedUntil = nil }
                case .stopRequested:
                    stopped = true
                    group.addTask {
                        try? await Task.sleep(nanoseconds: UInt64(grace * 1e9))
                        return .graceOver
                    }
                case .graceOver:
                    group.cancelAll()  // the runs still in flight are interrupted
                    delivery.interruptSinks()  // and a sink's write waiting for its server or program
                case .leasesKept:
                    break
                }
            }
            group.cancelAll()
        }
    }

    /// One run of one source leased to this worker, with its record as the lease found it.
    func runOnce(_ configured: ConfiguredSource, previous: SourceState, observer: @escaping @Sendable (EngineEvent) -> Void) async -> SourceReport {
        let settings = configured.settings
        let now = Timestamp.now().seconds
        if let skip = await engine.skipReason(settings, previous, now: now, observer: observer) {
            if let until = skip.until {
                do { try await engine.delivery.gateway.setNextDue(source: settings.name, type: settings.type, due: until, now: now) } catch {
                    observer(.warning(source: settings.name, message: "state: \(error.message)"))
                }
            }
            do { try await engine.delivery.gateway.releaseLease(source: settings.name) } catch {
                observer(.warning(source: settings.name, message: "state: \(error.message)"))
            }
            return SourceReport(name: settings.name, type: settings.type, status: .skipped(skip.reason), nextDue: skip.until ?? now + settings.interval)
        }
        return await engine.runSource(configured, previous: previous, fetched: Timestamp(seconds: now.rounded(.down)), observer: observer)
    }
}

/// How `watch` waits out a state it cannot reach: looks again after 1 s, 2 s, 4 s, ... up to
/// 30 s, and says once when the state answers again.
struct StateOutage {
    static let maxRetry = 30.0
    private(set) var failures = 0

    /// Counts a failed look; returns the wait before the next one.
    mutating func failed() -> Double {
        failures += 1
        return min(Self.maxRetry, Double(1 << min(failures - 1, 5)))
    }

    /// Counts a look that worked; the note to log when it ends an outage.
    mutating func ended() -> String? {
        defer { failures = 0 }
        return failures > 0 ? "reachable again after \(failures) failed look\(failures == 1 ? "" : "s")" : nil
    }

    /// The wait before a source whose run could not be recorded runs again, after `attempt`
    /// such runs in a row: 1 s, 2 s, 4 s, ... up to 5 min, and never longer than the failure
    /// backoff of its interval (2 x interval).
    static func backoff(interval: Double, attempt: Int) -> Double {
        min(Double(1 << min(max(attempt, 1) - 1, 9)), 300, 2 * interval)
    }
}
