import Foundation

/// How one source did in a run.
public struct SourceReport: Sendable {
    public enum Status: Sendable, Equatable {
        case ok
        /// Every request was answered 304 Not Modified.
        case notModified
        case failed(String)
        /// Not run: not due yet, or over its quota.
        case skipped(String)
        /// Not run to the end for a reason that is not the source's fault (stdout closed).
        case stopped(String)
    }
    public let name: String
    public let type: String
    public let status: Status
    /// Items the source returned (after `max_items`).
    public let fetched: Int
    /// Items delivered to the sinks (new to this run, not duplicates of another source's).
    public let new: Int
    public let seconds: Double

    public var isFailure: Bool { if case .failed = status { return true } else { return false } }
}

/// The outcome of a run, from which the CLI derives the summary and the exit code.
public struct RunReport: Sendable {
    public var sources: [SourceReport] = []
    public var sinkError: SinkError?
    public var outputClosed = false
    public var delivered = 0

    /// SPEC.md section 1: 3 when a sink failed, 1 when a source failed, else 0.
    public var exitCode: Int32 {
        if sinkError != nil { return 3 }
        if sources.contains(where: \.isFailure) { return 1 }
        return 0
    }
}

/// Progress as the run goes, for the live line and logs.
public enum EngineEvent: Sendable {
    case started(total: Int)
    case finished(SourceReport, done: Int, total: Int, items: Int, failures: Int)
    case warning(source: String, message: String)
    case log(source: String, message: String)
}

/// Runs the selected sources concurrently, isolates each one's failure, and hands each source's
/// items to the `Delivery` as soon as that source is done; with state it also keeps each
/// source's schedule, failure count and quota. It never prints: everything it has to say goes
/// through `observer` and the report.
public struct Engine: Sendable {
    public struct Options: Sendable {
        /// Emit everything fetched (`--all`).
        public var emitAll = false
        /// Skip sources that are not due yet (`run --respect-schedule`).
        public var respectSchedule = false
        public init(emitAll: Bool = false, respectSchedule: Bool = false) {
            self.emitAll = emitAll
            self.respectSchedule = respectSchedule
        }
    }

    public let sources: [ConfiguredSource]
    public let delivery: Delivery
    public let transport: any HTTPTransport
    public let options: Options
    /// Set when the program was asked to stop: sources failing from then on were interrupted,
    /// not broken, so they get no failure count and no backoff.
    public let stopping: StopFlag

    public init(sources: [ConfiguredSource], sinks: [any Sink], transport: any HTTPTransport, state: StateStore? = nil, options: Options = Options(), stopping: StopFlag = StopFlag()) {
        self.init(sources: sources, delivery: Delivery(sinks: sinks, state: state, emitAll: options.emitAll), transport: transport, options: options, stopping: stopping)
    }

    public init(sources: [ConfiguredSource], delivery: Delivery, transport: any HTTPTransport, options: Options = Options(), stopping: StopFlag = StopFlag()) {
        self.sources = sources
        self.delivery = delivery
        self.transport = transport
        self.options = options
        self.stopping = stopping
    }

    var state: StateStore? { delivery.state }

    /// One run: opens the sinks, fetches, delivers, closes the sinks.
    public func run(observer: @escaping @Sendable (EngineEvent) -> Void = { _ in }) async -> RunReport {
        var report = RunReport()
        do throws(SinkError) { try delivery.open(warn: { observer(.warning(source: "sink", message: $0)) }) } catch {
            report.sinkError = error
            return report
        }
        report = await runBatch(observer: observer)
        if let e = delivery.close(), report.sinkError == nil { report.sinkError = e }
        report.outputClosed = delivery.isOutputClosed
        return report
    }

    /// Fetches and delivers the sources without opening or closing the sinks (`watch` batches).
    public func runBatch(observer: @escaping @Sendable (EngineEvent) -> Void = { _ in }) async -> RunReport {
        let now = Timestamp.now().seconds
        let fetched = Timestamp(seconds: now.rounded(.down))
        var report = RunReport()
        var failures = 0
        var itemsSoFar = 0
        var runnable: [(Int, ConfiguredSource, SourceState?)] = []
        for (index, configured) in sources.enumerated() {
            let settings = configured.settings
            let previous = try? state?.sourceState(settings.name)
            if let skip = skipReason(settings, previous, now: now) {
                let r = SourceReport(name: settings.name, type: settings.type, status: .skipped(skip.reason), fetched: 0, new: 0, seconds: 0)
                report.sources.append(r)
                if let until = skip.until { try? state?.setNextDue(source: settings.name, type: settings.type, due: until, now: now) }
                observer(.finished(r, done: report.sources.count, total: sources.count, items: 0, failures: 0))
                continue
            }
            runnable.append((index, configured, previous ?? nil))
        }
        let total = sources.count
        observer(.started(total: total))
        await withTaskGroup(of: (Int, Result<[Item], SourceError>, Double, RequestLedger).self) { group in
            for (index, configured, previous) in runnable {
                let settings = configured.settings
                let ledger = RequestLedger(lookup: state, scope: settings.name)
                let client = HTTPClient(transport: transport, retries: settings.retries, timeout: settings.timeout, ledger: ledger)
                let context = FetchContext(
                    settings: settings, http: client, fetched: fetched,
                    previousSuccess: previous?.lastSuccess.map { Timestamp(seconds: $0) },
                    warn: { observer(.warning(source: settings.name, message: $0)) },
                    log: { observer(.log(source: settings.name, message: $0)) })
                group.addTask {
                    let start = DispatchTime.now().uptimeNanoseconds
                    let result: Result<[Item], SourceError>
                    do throws(SourceError) {
                        let items = try await configured.source.fetch(context)
                        result = .success(items)
                    } catch {
                        result = .failure(Task.isCancelled ? SourceError.interrupted(partial: error.partial) : error)
                    }
                    return (index, result, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, ledger)
                }
            }
            for await (index, result, seconds, ledger) in group {
                let settings = sources[index].settings
                let previous = runnable.first { $0.0 == index }?.2
                var items: [Item]
                var status = SourceReport.Status.ok
                var failure: String? = nil
                switch result {
                case .success(let list):
                    items = list
                    if ledger.allNotModified { status = .notModified }
                case .failure(let e):
                    items = e.partial
                    if delivery.isOutputClosed {
                        status = .stopped("output closed")
                    } else if e.isInterruption || stopping.isSet {
                        status = .stopped("interrupted")  // by SIGINT/SIGTERM: not the source's fault, no backoff
                    } else {
                        status = .failed(e.message)
                        failure = e.message
                        failures += 1
                    }
                }
                if let cap = settings.maxItems, items.count > cap { items = Array(items.prefix(cap)) }
                let firstRun = previous?.lastSuccess == nil
                let outcome = delivery.deliver(items, settings: settings, firstRun: firstRun,
                                               validators: failure == nil ? ledger.pendingValidators : [], now: now)
                if let f = outcome.failure {
                    if f.isOutputClosed { report.outputClosed = true } else { report.sinkError = f }
                    group.cancelAll()
                }
                if case .stopped = status {} else if outcome.failure == nil {
                    record(settings, previous: previous, failure: failure, requests: ledger.requests, now: now, observer: observer)
                }
                report.delivered += outcome.new
                itemsSoFar += items.count
                let r = SourceReport(name: settings.name, type: settings.type, status: status, fetched: items.count, new: outcome.new, seconds: seconds)
                report.sources.append(r)
                observer(.finished(r, done: report.sources.count, total: total, items: itemsSoFar, failures: failures))
            }
        }
        let order = Dictionary(uniqueKeysWithValues: sources.enumerated().map { ($0.element.settings.name, $0.offset) })
        report.sources.sort { (order[$0.name] ?? 0) < (order[$1.name] ?? 0) }
        return report
    }

    /// Why a source is not run now, and (for a quota) until when.
    func skipReason(_ settings: SourceSettings, _ previous: SourceState??, now: Double) -> (reason: String, until: Double?)? {
        guard let state else { return nil }
        if options.respectSchedule, let due = previous??.nextDue, due > now {
            return ("not due until \(Timestamp(seconds: due).rfc3339)", nil)
        }
        if let q = settings.quota, let used = try? state.quotaUsed(source: settings.name, per: q.per, now: now), used.used >= q.requests {
            return ("quota of \(q.requests) requests per \(Durations.format(q.per)) used up until \(Timestamp(seconds: used.resets).rfc3339)", used.resets)
        }
        return nil
    }

    /// Updates the source's run record, schedule and quota; warns when it starts failing and
    /// when it recovers.
    func record(_ settings: SourceSettings, previous: SourceState?, failure: String?, requests: Int, now: Double, observer: @Sendable (EngineEvent) -> Void) {
        guard let state else { return }
        let failures = failure == nil ? 0 : (previous?.failures ?? 0) + 1
        let due = Schedule.nextDue(interval: settings.interval, jitter: settings.jitter, failures: failures, now: now)
        do {
            try state.recordRun(source: settings.name, type: settings.type, success: failure == nil, error: failure, nextDue: due, now: now)
            if let q = settings.quota { try state.addRequests(source: settings.name, count: requests, per: q.per, now: now) }
        } catch {
            observer(.warning(source: settings.name, message: "state: \(error.message)"))
        }
        let before = previous?.failures ?? 0
        if failures == 1 && before == 0 {
            observer(.warning(source: settings.name, message: "started failing; next try at \(Timestamp(seconds: due).rfc3339)"))
        } else if failures == 0 && before > 0 {
            observer(.warning(source: settings.name, message: "recovered after \(before) failed run\(before == 1 ? "" : "s")"))
        }
    }
}

/// A one-way "stop was requested" flag shared between the signal handler and the engine.
public final class StopFlag: Sendable {
    private let value = Locked(false)
    public init() {}
    public var isSet: Bool { value.withLock { $0 } }
    public func set() { value.withLock { $0 = true } }
}

/// When a source runs next: its interval with jitter, or after failures an exponential backoff
/// (interval x 2^failures, capped at 24 h), so a broken source is retried but never hammered.
public enum Schedule {
    public static let maxBackoff = 86400.0

    public static func nextDue(interval: Double, jitter: Double, failures: Int, now: Double) -> Double {
        let base = failures == 0 ? interval : min(interval * pow(2, Double(min(failures, 30))), maxBackoff)
        let spread = jitter > 0 ? Double.random(in: -jitter...jitter) : 0
        return now + max(1, base + spread)
    }
}
