import XCTest
import TributaryTestSupport
@testable import TributaryCore
@testable import TributaryJSON
@testable import TributaryOptions
@testable import TributaryHTTP
@testable import TributaryPostgres
@testable import TributaryPluginKit
@testable import TributaryBase
@testable import TributaryState

/// The engine's policies, in process, over the in-memory state and in-memory sinks: what is new
/// (first_run, emit_updates, dedupe across sources), at-least-once when a sink or the state
/// fails, the processing stage, max_items, backoff and leases. The end-to-end tests keep what
/// only the binary shows (files, signals, exit codes, real servers).
final class EngineTests: XCTestCase {
    // MARK: what is new

    func testASecondRunEmitsOnlyWhatIsNew() async {
        let state = InMemoryState()
        let first = await EngineRun(sources: [.scripted("a", [["a:1", "a:2"]])], state: state).go()
        XCTAssertEqual(first.ids, ["a:1", "a:2"])
        let second = await EngineRun(sources: [.scripted("a", [["a:1", "a:2", "a:3"]])], state: state).go()
        XCTAssertEqual(second.ids, ["a:3"])
        XCTAssertEqual(second.report.sources.first?.fetched, 3)
        XCTAssertEqual(second.report.sources.first?.new, 1)
        XCTAssertEqual(state.snapshot.sources["a"]?.emittedTotal, 3)
    }

    func testFirstRunNoneRemembersWhatExistsAndEmitsNothing() async {
        let state = InMemoryState()
        let first = await EngineRun(sources: [.scripted("a", [["a:1", "a:2"]], firstRun: .none)], state: state).go()
        XCTAssertEqual(first.ids, [])
        XCTAssertNotNil(state.snapshot.emitted["a:1"], "what existed is remembered")
        let second = await EngineRun(sources: [.scripted("a", [["a:1", "a:3"]], firstRun: .none)], state: state).go()
        XCTAssertEqual(second.ids, ["a:3"], "later runs emit what is new")
    }

    func testFirstRunNewestKeepsTheNewestAcrossBatches() async {
        let state = InMemoryState()
        let old = Timestamp(seconds: 1_700_000_000)
        let items = (0..<5).map { i in Item.test("a:\(i)", source: "a", published: Timestamp(seconds: old.seconds + Double(i) * 60)) }
        let first = await EngineRun(sources: [.items("a", [Array(items[0..<3]), Array(items[3...])], firstRun: .newest(2))], state: state).go()
        XCTAssertEqual(first.ids, ["a:3", "a:4"])
        XCTAssertEqual(state.snapshot.emitted.count, 5, "every id is remembered")
    }

    func testEmitUpdatesReEmitsAChangeSeenByTheSameSourceOnly() async {
        let state = InMemoryState()
        _ = await EngineRun(sources: [.items("a", [[.test("x:1", source: "a", title: "one")]], emitUpdates: true)], state: state).go()
        let changed = await EngineRun(sources: [.items("a", [[.test("x:1", source: "a", title: "one, edited")]], emitUpdates: true)], state: state).go()
        XCTAssertEqual(changed.ids, ["x:1"])
        XCTAssertEqual(changed.items.first?.data["updated"], .bool(true))
        let other = await EngineRun(sources: [.items("b", [[.test("x:1", source: "b", title: "another view")]], emitUpdates: true)], state: state).go()
        XCTAssertEqual(other.ids, [], "another source's view of the same id is not an update")
        let same = await EngineRun(sources: [.items("a", [[.test("x:1", source: "a", title: "one, edited")]], emitUpdates: true)], state: state).go()
        XCTAssertEqual(same.ids, [], "unchanged: not emitted again")
    }

    /// Page text (`content`, `content_html`) a processor added in a later run, or that changed,
    /// is no update: `emit_updates` compares what the item says without it.
    func testPageTextAddedLaterIsNoUpdate() async {
        let state = InMemoryState()
        let bare = Item.test("x:1", source: "a", title: "one")
        _ = await EngineRun(sources: [.items("a", [[bare]], emitUpdates: true)], state: state).go()
        var withPage = bare
        withPage.content = "The article's text."
        withPage.contentHTML = "<p>The article's text.</p>"
        let paged = await EngineRun(sources: [.items("a", [[withPage]], emitUpdates: true)], state: state).go()
        XCTAssertEqual(paged.ids, [], "the page fetched later does not make the item new again")
        withPage.content = "The article's text, corrected."
        let changedPage = await EngineRun(sources: [.items("a", [[withPage]], emitUpdates: true)], state: state).go()
        XCTAssertEqual(changedPage.ids, [], "nor does a page that changed")
        withPage.title = "one, edited"
        let edited = await EngineRun(sources: [.items("a", [[withPage]], emitUpdates: true)], state: state).go()
        XCTAssertEqual(edited.ids, ["x:1"], "what the item says still makes an update")
        XCTAssertEqual(edited.items.first?.content, "The article's text, corrected.")
    }

    func testAnIdTwoSourcesDeliverInOneRunIsEmittedOnce() async {
        for state in [InMemoryState(), nil] as [InMemoryState?] {
            let r = await EngineRun(sources: [.scripted("a", [["v:1", "v:2"]]), .scripted("b", [["v:2", "v:3"]])], state: state).go()
            XCTAssertEqual(r.ids.sorted(), ["v:1", "v:2", "v:3"], "state: \(state != nil)")
        }
    }

    func testAllEmitsEverythingFetched() async {
        let state = InMemoryState()
        _ = await EngineRun(sources: [.scripted("a", [["a:1"]])], state: state).go()
        let again = await EngineRun(sources: [.scripted("a", [["a:1", "a:2"]])], state: state, options: Delivery.Options(emitAll: true)).go()
        XCTAssertEqual(again.ids, ["a:1", "a:2"])
    }

    // MARK: at least once

    func testAFailedSinkRecordsNothingAndTheNextRunEmitsTheBatchAgain() async {
        let state = InMemoryState()
        let failing = InMemorySink(failWith: SinkError("disk full"))
        let broken = await EngineRun(sources: [.scripted("a", [["a:1", "a:2"]])], state: state, sinks: [failing]).go()
        XCTAssertEqual(broken.report.exitCode, 3)
        XCTAssertEqual(broken.report.sinkError?.message, "disk full")
        XCTAssertTrue(state.snapshot.emitted.isEmpty, "nothing recorded")
        XCTAssertEqual(state.snapshot.counters[.sinkFailures]?["sinks[0]"], 1, "the failure is counted")
        let next = await EngineRun(sources: [.scripted("a", [["a:1", "a:2"]])], state: state).go()
        XCTAssertEqual(next.ids, ["a:1", "a:2"])
    }

    func testAStateThatFailsToCommitStopsTheRunAndRecordsNothing() async {
        let state = InMemoryState()
        state.inject(.commit(StateError("database is locked")))
        let r = await EngineRun(sources: [.scripted("a", [["a:1"]])], state: state).go()
        XCTAssertEqual(r.report.exitCode, 3)
        XCTAssertTrue(r.report.sinkError?.message.contains("items were written but could not be recorded") == true, "\(String(describing: r.report.sinkError))")
        XCTAssertNil(state.snapshot.emitted["a:1"])
        let next = await EngineRun(sources: [.scripted("a", [["a:1"]])], state: state).go()
        XCTAssertEqual(next.ids, ["a:1"], "written once, not recorded: emitted again")
    }

    /// A source's last batch is held until its fetch ends and committed with the run's record:
    /// a source of one page costs one transaction; each batch before the last, one of its own.
    func testTheLastBatchIsRecordedInTheRunsOwnTransaction() async {
        for (batches, commits) in [([["a:1", "a:2"]], 1), ([["a:1"], ["a:2"], ["a:3"]], 3)] {
            let state = InMemoryState()
            let r = await EngineRun(sources: [.scripted("a", batches)], state: state).go()
            XCTAssertEqual(r.ids, batches.flatMap { $0 })
            XCTAssertEqual(state.snapshot.commits, commits, "\(batches.count) batch(es)")
            XCTAssertNotNil(state.snapshot.sources["a"]?.lastSuccess)
            XCTAssertEqual(state.snapshot.sources["a"]?.emittedTotal, batches.joined().count)
        }
        // `max_items` and `interval: "auto"` deliver each batch at once: one transaction more.
        let capped = InMemoryState()
        _ = await EngineRun(sources: [.scripted("a", [["a:1", "a:2"]], maxItems: 5)], state: capped).go()
        XCTAssertEqual(capped.snapshot.commits, 2)
    }

    /// A last batch its sink refuses stops the run like any batch: nothing of it and no run
    /// record is committed (the earlier batches are), and the next run emits it.
    func testALastBatchASinkRefusesIsNotRecordedAndComesAgain() async {
        let state = InMemoryState()
        let sink = InMemorySink(failWith: SinkError("disk full"), after: 1)
        let r = await EngineRun(sources: [.scripted("a", [["a:1"], ["a:2"]])], state: state, sinks: [sink]).go()
        XCTAssertEqual(r.report.exitCode, 3)
        XCTAssertEqual(r.ids, ["a:1"])
        guard case .stopped(let why)? = r.report.sources.first?.status else { return XCTFail("\(r.report.sources)") }
        XCTAssertEqual(why, "sink failed")
        XCTAssertNotNil(state.snapshot.emitted["a:1"])
        XCTAssertNil(state.snapshot.emitted["a:2"])
        XCTAssertNil(state.snapshot.sources["a"]?.lastRun, "no run recorded")
        XCTAssertEqual(state.snapshot.counters[.sinkFailures]?["sinks[0]"], 1)
        let next = await EngineRun(sources: [.scripted("a", [["a:1"], ["a:2"]])], state: state).go()
        XCTAssertEqual(next.ids, ["a:2"])
        XCTAssertNotNil(state.snapshot.sources["a"]?.lastSuccess)
    }

    /// Without a state the last batch is written all the same, and a sink's failure on it stops
    /// the run.
    func testWithoutStateTheLastBatchIsWrittenAndItsFailureStopsTheRun() async {
        let r = await EngineRun(sources: [.scripted("a", [["a:1"], ["a:2"]])], state: nil).go()
        XCTAssertEqual(r.ids, ["a:1", "a:2"])
        XCTAssertEqual(r.report.sources.first?.fetched, 2)
        XCTAssertEqual(r.report.sources.first?.new, 2)
        let sink = InMemorySink(failWith: SinkError("disk full"), after: 1)
        let broken = await EngineRun(sources: [.scripted("a", [["a:1"], ["a:2"]])], state: nil, sinks: [sink]).go()
        XCTAssertEqual(broken.report.exitCode, 3)
        XCTAssertEqual(broken.ids, ["a:1"])
        guard case .stopped? = broken.report.sources.first?.status else { return XCTFail("\(broken.report.sources)") }
    }

    func testAFailingSourceKeepsWhatItDeliveredAndBacksOff() async {
        let state = InMemoryState()
        let r = await EngineRun(sources: [.scripted("a", [["a:1"]], failAfter: "HTTP 500"), .scripted("b", [["b:1"]])], state: state).go()
        XCTAssertEqual(r.report.exitCode, 1)
        XCTAssertEqual(r.ids.sorted(), ["a:1", "b:1"], "the batch before the failure and the other source are delivered")
        let a = state.snapshot.sources["a"]
        XCTAssertEqual(a?.failures, 1)
        XCTAssertEqual(a?.lastError, "HTTP 500")
        let interval = 900.0
        XCTAssertGreaterThan((a?.nextDue ?? 0) - (a?.lastRun ?? 0), interval * 2 - interval * 0.1 - 1, "backoff: interval x 2 after one failure")
    }

    // MARK: the processing stage

    func testTheFilterIsTheFirstProcessorAndTheOthersFollowInOrder() async {
        let state = InMemoryState()
        let filter = ItemFilter(exclude: [FilterRule(field: .title, test: .contains("spam"))])
        let source = ConfiguredSource.items("a", [[.test("a:1", source: "a", title: "hello"), .test("a:2", source: "a", title: "spam offer"), .test("a:3", source: "a", title: "bad")]],
                                            processors: [FilterProcessor(filter), Shout(), Doubler()])
        let r = await EngineRun(sources: [source], state: state).go()
        XCTAssertEqual(r.ids, ["a:1", "a:1#2", "a:3", "a:3#2"], "filter, then upper case, then two of each")
        XCTAssertEqual(r.items.first?.title, "HELLO")
        XCTAssertEqual(r.report.sources.first?.filtered, 1)
        XCTAssertEqual(r.report.sources.first?.fetched, 5, "what the source gave and the processors made, the filtered one included")
        XCTAssertNil(state.snapshot.emitted["a:2"], "a filtered item is never recorded")
    }

    func testASkippedItemIsWarnedCountedAndComesAgain() async {
        let state = InMemoryState()
        let make = { ConfiguredSource.items("a", [[.test("a:1", source: "a"), .test("a:2", source: "a", title: "poison")]], processors: [SkipPoison()]) }
        let r = await EngineRun(sources: [make()], state: state).go()
        XCTAssertEqual(r.ids, ["a:1"])
        XCTAssertEqual(r.report.sources.first?.skipped, 1)
        XCTAssertEqual(r.report.exitCode, 0, "a skipped item does not fail the source")
        XCTAssertTrue(r.warnings.contains { $0.contains("a:2: skipped: cannot handle poison") }, "\(r.warnings)")
        XCTAssertNil(state.snapshot.emitted["a:2"])
        let again = await EngineRun(sources: [make()], state: state).go()
        XCTAssertEqual(again.report.sources.first?.skipped, 1, "it comes again on the next run")
    }

    func testAnItemAProcessorLeftWithoutTitleIsSkipped() async {
        let source = ConfiguredSource.items("a", [[.test("a:1", source: "a"), .test("a:2", source: "a")]], processors: [BlankTitle(id: "a:2")])
        let r = await EngineRun(sources: [source], state: nil).go()
        XCTAssertEqual(r.ids, ["a:1"])
        XCTAssertEqual(r.report.sources.first?.skipped, 1)
        XCTAssertTrue(r.warnings.contains { $0.contains("empty title") }, "\(r.warnings)")
    }

    func testProcessorsStartOnceAndFinishOncePerSourceRun() async {
        let probe = LifecycleProbe()
        let source = ConfiguredSource.scripted("a", [["a:1"], ["a:2"], ["a:3"]], processors: [probe])
        _ = await EngineRun(sources: [source], state: nil).go()
        XCTAssertEqual(probe.events, ["start", "process 1", "process 1", "process 1", "finish"])
    }

    func testMaxItemsCountsWhatThePipelineLetThrough() async {
        let filter = ItemFilter(exclude: [FilterRule(field: .id, test: .equals("a:1"))])
        let source = ConfiguredSource.scripted("a", [["a:1", "a:2"], ["a:3", "a:4"]], maxItems: 2, processors: [FilterProcessor(filter)])
        let r = await EngineRun(sources: [source], state: InMemoryState()).go()
        XCTAssertEqual(r.ids, ["a:2", "a:3"])
        XCTAssertEqual(r.report.sources.first?.status, .ok, "max_items reached is not a failure")
    }

    // MARK: leases: two workers share one state

    func testTwoWorkersOnOneStateNeverRunOneSourceAtOnce() async throws {
        let state = InMemoryState()
        let slow = ConfiguredSource.scripted("a", [["a:1"]], delay: 0.5)
        let one = EngineRun(sources: [slow], state: state, options: Delivery.Options(worker: "w1"))
        let two = EngineRun(sources: [slow], state: state, options: Delivery.Options(worker: "w2"))
        async let first = one.go()
        try await Task.sleep(nanoseconds: 100_000_000)
        let second = await two.go()
        let done = await first
        XCTAssertEqual(done.ids, ["a:1"])
        XCTAssertEqual(second.ids, [])
        XCTAssertEqual(second.report.sources.first?.status, .skipped("leased by w1"))
        XCTAssertNil(state.snapshot.leases["a"], "the run's end released its lease")
    }

    func testAnIdClaimedByAnotherWorkersOpenBatchIsNotEmittedTwice() throws {
        let state = InMemoryState()
        let t1 = try state.begin(), t2 = try state.begin()
        XCTAssertNil(try t1.claim([EmittedID(id: "x", source: "a", hash: "h")], now: 1)[0])
        XCTAssertNotNil(try t2.claim([EmittedID(id: "x", source: "b", hash: "h")], now: 1)[0], "reserved by the open transaction")
        t1.rollback()
        t2.rollback()
        let t3 = try state.begin()
        XCTAssertNil(try t3.claim([EmittedID(id: "x", source: "b", hash: "h")], now: 1)[0], "a rollback frees it")
        try t3.commit()
        XCTAssertEqual(state.snapshot.emitted["x"]?.source, "b")
    }

    func testALeaseThatRanOutIsReportedAsLost() throws {
        let state = InMemoryState()
        let now = Locked(1000.0)
        state.clock = { now.withLock { $0 } }
        XCTAssertEqual(try state.lease([SourceKey(name: "a", type: "json")], worker: "w1", lease: 10), [:])
        XCTAssertEqual(try state.lease([SourceKey(name: "a", type: "json")], worker: "w2", lease: 10), ["a": "w1"])
        now.withLock { $0 = 1011 }
        XCTAssertEqual(try state.lease([SourceKey(name: "a", type: "json")], worker: "w2", lease: 10), [:], "expired: taken over")
        XCTAssertEqual(try state.renewLeases(["a"], worker: "w1", lease: 10), ["a": "w2"])
        XCTAssertEqual(try state.renewLeases(["a"], worker: "w2", lease: 10), [:])
    }

    // MARK: watch

    func testTheSchedulerRunsADueSourceAgainAfterItsInterval() async throws {
        let state = InMemoryState()
        let counter = Locked(0)
        let source = ConfiguredSource(settings: SourceSettings(name: "a", type: "test", interval: 1, jitter: 0),
                                      source: ScriptedSource(batches: [], onRun: { counter.withLock { $0 += 1 } }))
        let stop = StopFlag()
        let engine = Engine(sources: [source], delivery: Delivery(sinks: [InMemorySink()], state: state, options: Delivery.Options(dedupeAcrossSources: false)),
                            transport: CannedTransport(status: 404, body: ""), options: Engine.Options(grace: 1), stopping: stop)
        let task = Task { await Scheduler(engine: engine, retention: 86400).run { _ in } }
        try await Task.sleep(nanoseconds: 2_600_000_000)
        stop.set()
        await task.value
        let runs = counter.withLock { $0 }
        XCTAssertTrue((2...4).contains(runs), "every second for 2.6 s: \(runs) runs")
        XCTAssertNotNil(state.snapshot.sources["a"]?.lastSuccess)
    }

    /// Freed memory goes back to the kernel when the scheduler goes idle after runs (nothing in
    /// flight, nothing due for a second or more), once per idle spell; never while sources run
    /// back to back with less than a second between them.
    func testTheSchedulerGivesFreedMemoryBackWhenItGoesIdleAfterRuns() async throws {
        func watch(interval: Double, for seconds: Double) async throws -> (runs: Int, givenBack: Int) {
            let runs = Locked(0), given = Locked(0)
            let source = ConfiguredSource(settings: SourceSettings(name: "a", type: "test", interval: interval, jitter: 0),
                                          source: ScriptedSource(batches: [], onRun: { runs.withLock { $0 += 1 } }))
            let stop = StopFlag()
            let engine = Engine(sources: [source], delivery: Delivery(sinks: [InMemorySink()], state: InMemoryState(), options: Delivery.Options(dedupeAcrossSources: false)),
                                transport: CannedTransport(status: 404, body: ""), options: Engine.Options(grace: 1), stopping: stop)
            let task = Task { await Scheduler(engine: engine, retention: 86400, giveBackFreedMemory: { given.withLock { $0 += 1 } }).run { _ in } }
            try await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
            stop.set()
            await task.value
            return (runs.withLock { $0 }, given.withLock { $0 })
        }
        let idle = try await watch(interval: 1.5, for: 3.8)
        XCTAssertTrue((2...3).contains(idle.runs), "every 1.5 s for 3.8 s: \(idle.runs) runs")
        XCTAssertTrue((1...idle.runs).contains(idle.givenBack), "once after each run at most, at least once: \(idle.givenBack) for \(idle.runs) runs")
        let busy = try await watch(interval: 0.4, for: 1.5)
        XCTAssertGreaterThanOrEqual(busy.runs, 2)
        XCTAssertEqual(busy.givenBack, 0, "never idle for a second: \(busy.runs) runs")
    }

    /// A look offers the front of the line; the state's answer that a source is not due takes
    /// it out of the line until its time (`DueClaim.later`), when it runs. 600 sources, a
    /// third due now, a third in a second (put off by the state, not by this worker), a third
    /// in an hour: each of the first two thirds runs exactly once in 2.5 s, the last never.
    func testTheSchedulerRunsWhatTheStateSaysIsDueAndPutsOffTheRest() async throws {
        let state = InMemoryState()
        let now = Timestamp.now().seconds
        let counts = Locked([String: Int]())
        var sources: [ConfiguredSource] = []
        let tx = try state.begin()
        for i in 0..<600 {
            let name = "s\(i)"
            sources.append(ConfiguredSource(settings: SourceSettings(name: name, type: "test", interval: 3600, jitter: 0),
                                            source: ScriptedSource(batches: [], onRun: { counts.withLock { $0[name, default: 0] += 1 } })))
            if i % 3 == 1 { try tx.recordRun(RunRecord(source: name, type: "test", success: true, error: nil, nextDue: now + 1, now: now - 3599)) }
            if i % 3 == 2 { try tx.recordRun(RunRecord(source: name, type: "test", success: true, error: nil, nextDue: now + 3600, now: now)) }
        }
        try tx.commit()
        let stop = StopFlag()
        let engine = Engine(sources: sources, delivery: Delivery(sinks: [InMemorySink()], state: state, options: Delivery.Options(dedupeAcrossSources: false)),
                            transport: CannedTransport(status: 404, body: ""), options: Engine.Options(concurrency: 2, grace: 1), stopping: stop)
        let task = Task { await Scheduler(engine: engine, retention: 86400).run { _ in } }
        try await Task.sleep(nanoseconds: 2_500_000_000)
        stop.set()
        await task.value
        let ran = counts.withLock { $0 }
        for i in 0..<600 {
            let expected = i % 3 == 2 ? nil : 1
            XCTAssertEqual(ran["s\(i)"], expected, "s\(i)")
        }
    }
}

// MARK: test doubles

/// A whole run of the engine over given sources, sinks and state, with the warnings it gave.
struct EngineRun: Sendable {
    var sources: [ConfiguredSource]
    var state: InMemoryState?
    var sinks: [InMemorySink] = [InMemorySink()]
    var options = Delivery.Options()

    struct Outcome {
        let report: RunReport
        let items: [Item]
        let warnings: [String]
        var ids: [String] { items.map(\.id) }
    }

    func go() async -> Outcome {
        let delivery = Delivery(sinks: sinks, state: state, options: options)
        let engine = Engine(sources: sources, delivery: delivery, transport: CannedTransport(status: 404, body: ""))
        let warnings = Locked<[String]>([])
        let report = await engine.run { event in
            if case .warning(_, let m) = event { warnings.withLock { $0.append(m) } }
        }
        await delivery.shutdown()
        return Outcome(report: report, items: sinks.first?.items ?? [], warnings: warnings.withLock { $0 })
    }
}

/// A source that emits the given batches (and can fail after them, or wait before them).
struct ScriptedSource: FeedSource {
    var batches: [[Item]]
    var failAfter: String? = nil
    var delay: Double = 0
    var onRun: @Sendable () -> Void = {}

    func fetch(_ context: FetchContext) async throws(SourceError) {
        onRun()
        if delay > 0 { try? await Task.sleep(nanoseconds: UInt64(delay * 1e9)) }
        for b in batches { try await context.emit(b.map { var i = $0; i.source = context.settings.name; i.fetched = context.fetched; return i }) }
        if let failAfter { throw SourceError(failAfter) }
    }
}

extension ConfiguredSource {
    static func items(_ name: String, _ batches: [[Item]], firstRun: FirstRun = .all, emitUpdates: Bool = false, maxItems: Int? = nil,
                      failAfter: String? = nil, delay: Double = 0, processors: [any Processor] = []) -> ConfiguredSource {
        ConfiguredSource(settings: SourceSettings(name: name, type: "test", maxItems: maxItems, firstRun: firstRun, emitUpdates: emitUpdates),
                         source: ScriptedSource(batches: batches, failAfter: failAfter, delay: delay), processors: processors)
    }

    static func scripted(_ name: String, _ ids: [[String]], firstRun: FirstRun = .all, maxItems: Int? = nil, failAfter: String? = nil,
                         delay: Double = 0, processors: [any Processor] = []) -> ConfiguredSource {
        items(name, ids.map { $0.map { Item.test($0, source: name) } }, firstRun: firstRun, maxItems: maxItems, failAfter: failAfter, delay: delay, processors: processors)
    }
}

extension Item {
    static func test(_ id: String, source: String, title: String? = nil, published: Timestamp? = nil) -> Item {
        Item(id: id, source: source, type: "test", kind: "entry", title: title ?? "title of \(id)", published: published, fetched: Timestamp(seconds: 1_800_000_000))
    }
}

/// Upper-cases titles.
struct Shout: StatelessProcessor {
    func process(_ items: [Item]) async -> [Item] { items.map { var i = $0; i.title = i.title.uppercased(); return i } }
}

/// Two items for each: the item and a copy with `#2` on its id.
struct Doubler: StatelessProcessor {
    func process(_ items: [Item]) async -> [Item] { items.flatMap { i in [i, { var c = i; c.id += "#2"; return c }()] } }
}

/// Skips an item titled "poison".
struct SkipPoison: Processor {
    func start(_ context: ProcessorContext) async -> any ProcessorRun { Run(context: context) }
    struct Run: ProcessorRun {
        let context: ProcessorContext
        func process(_ items: [Item]) async -> [Item] {
            items.filter { item in
                guard item.title == "poison" else { return true }
                context.skip(item, reason: "cannot handle poison")
                return false
            }
        }
    }
}

/// Blanks the title of one item (which the engine must refuse).
struct BlankTitle: StatelessProcessor {
    let id: String
    func process(_ items: [Item]) async -> [Item] { items.map { var i = $0; if i.id == id { i.title = "" }; return i } }
}

/// Notes when it starts, processes and finishes.
final class LifecycleProbe: Processor, ProcessorRun, Sendable {
    private let log = Locked<[String]>([])
    var events: [String] { log.withLock { $0 } }
    func start(_ context: ProcessorContext) async -> any ProcessorRun { log.withLock { $0.append("start") }; return self }
    func process(_ items: [Item]) async -> [Item] { log.withLock { $0.append("process \(items.count)") }; return items }
    func finish() async { log.withLock { $0.append("finish") } }
}
