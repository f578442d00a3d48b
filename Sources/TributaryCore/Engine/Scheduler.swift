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
    /// The timer never sleeps longer than this, so a clock jump is noticed.
    static let maxSleep = 60.0

    public init(engine: Engine, retention: Double) {
        self.engine = engine
        self.retention = retention
    }

    enum Event: Sendable {
        case finished(SourceReport)
        case timer
        case stopRequested
        case graceOver
    }

    /// Runs until a stop is requested (the engine's `stopping` flag) and the runs in flight
    /// have ended. The sinks must be open (`Delivery.open`); closing them is the caller's.
    public func run(observer: @escaping @Sendable (EngineEvent) -> Void) async {
        let delivery = engine.delivery
        let sources = engine.sources
        let byName = Dictionary(uniqueKeysWithValues: sources.map { ($0.settings.name, $0) })
        var due: [String: Double] = [:]
        var states: [String: SourceState] = [:]
        do { states = try await delivery.sourceStates(sources.map(\.settings.name)) } catch {
            observer(.warning(source: "state", message: "cannot read the sources' schedule, running every source now: \(error.message)"))
        }
        let start = Timestamp.now().seconds
        for s in sources { due[s.settings.name] = states[s.settings.name]?.nextDue ?? start }
        var lastPrune = -Double.infinity
        let stopping = engine.stopping
        let grace = engine.options.grace

        await withTaskGroup(of: Event.self) { group in
            group.addTask {
                await stopping.wait()
                return .stopRequested
            }
            var running = Set<String>()
            // When the latest timer fires; another is added whenever the next due time moves
            // earlier than that (a stale timer only causes a look at the schedule).
            var armedUntil: Double? = nil
            var stopped = stopping.isSet
            while true {
                let now = Timestamp.now().seconds
                if !stopped {
                    if now - lastPrune >= Self.pruneInterval {
                        lastPrune = now
                        do throws(StateError) { _ = try await delivery.prune(retention: retention, now: now) } catch {
                            observer(.warning(source: "state", message: "retention: \(error.message)"))
                        }
                    }
                    for name in sources.map(\.settings.name) where !running.contains(name) && (due[name] ?? now) <= now {
                        guard let configured = byName[name] else { continue }
                        running.insert(name)
                        group.addTask { .finished(await runOnce(configured, observer: observer)) }
                    }
                    let soonest = due.filter { !running.contains($0.key) }.values.min() ?? now + Self.maxSleep
                    let wake = min(max(soonest, now + 0.01), now + Self.maxSleep, max(now + 0.01, lastPrune + Self.pruneInterval))
                    if armedUntil == nil || wake < armedUntil! - 0.001 {
                        armedUntil = wake
                        group.addTask {
                            try? await Task.sleep(nanoseconds: UInt64((wake - now) * 1e9))
                            return .timer
                        }
                    }
                }
                if stopped && running.isEmpty { break }
                guard let event = await group.next() else { break }
                switch event {
                case .finished(let r):
                    running.remove(r.name)
                    let interval = byName[r.name]?.settings.interval ?? 900
                    // No recorded next time (a state failure): back off rather than hammer.
                    due[r.name] = r.nextDue ?? Schedule.nextDue(interval: interval, jitter: 0, failures: 1, now: Timestamp.now().seconds)
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
                }
            }
            group.cancelAll()
        }
    }

    /// One run of one source, with its state read fresh (it changed since the last run).
    func runOnce(_ configured: ConfiguredSource, observer: @escaping @Sendable (EngineEvent) -> Void) async -> SourceReport {
        let settings = configured.settings
        let now = Timestamp.now().seconds
        var previous: SourceState? = nil
        do { previous = try await engine.delivery.sourceStates([settings.name])[settings.name] } catch {
            observer(.warning(source: settings.name, message: "state: \(error.message)"))
        }
        if let skip = await engine.skipReason(settings, previous, now: now, observer: observer) {
            if let until = skip.until {
                do { try await engine.delivery.setNextDue(source: settings.name, type: settings.type, due: until, now: now) } catch {
                    observer(.warning(source: settings.name, message: "state: \(error.message)"))
                }
            }
            return SourceReport(name: settings.name, type: settings.type, status: .skipped(skip.reason), nextDue: skip.until ?? now + settings.interval)
        }
        return await engine.runSource(configured, previous: previous, fetched: Timestamp(seconds: now.rounded(.down)), observer: observer)
    }
}
