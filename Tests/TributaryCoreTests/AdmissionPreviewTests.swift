import XCTest
import TributaryTestSupport
import TributaryStories
@testable import TributaryCore
@testable import TributaryBase
@testable import TributaryState

/// `ProcessorContext.wouldEmit` (`Delivery.wouldEmit`): which items of a batch the delivery
/// would emit, asked by a processor before ids already emitted are dropped and before
/// `stories`. In process, over the in-memory state and a SQLite file (and without state where
/// it says so): ids of an earlier run, `--all`, ids another source delivered in this run, an id
/// twice in a batch, `first_run`, `stories` copies under `action: drop`, a state that fails, a
/// delivery that stopped; and that asking changes nothing.
final class AdmissionPreviewTests: XCTestCase {
    /// A state the tests run over, opened afresh for each run (a run's end closes it).
    struct StateKind {
        let name: String
        let open: () throws -> any StateBackend
    }

    /// The in-memory state and a SQLite file, each a new one.
    func kinds() -> [StateKind] {
        let memory = InMemoryState()
        let dir = TempDir()
        addTeardownBlock { dir.remove() }
        let path = dir.path + "/state.sqlite"
        return [StateKind(name: "memory", open: { memory }), StateKind(name: "sqlite", open: { try SQLiteState(path: path, lockTimeout: 5) })]
    }

    /// One run of `sources` over `kind` (nil: no state); the items written and the warnings.
    func run(_ sources: [ConfiguredSource], over kind: StateKind?, options: Delivery.Options = Delivery.Options()) async throws -> EngineRun.Outcome {
        let sink = InMemorySink()
        let delivery = Delivery(sinks: [sink], state: try kind?.open(), options: options)
        let engine = Engine(sources: sources, delivery: delivery, transport: CannedTransport(status: 404, body: ""))
        let warnings = Locked<[String]>([])
        let report = await engine.run { event in
            if case .warning(_, let m) = event { warnings.withLock { $0.append(m) } }
        }
        await delivery.shutdown()
        return EngineRun.Outcome(report: report, items: sink.items, warnings: warnings.withLock { $0 })
    }

    // MARK: ids

    func testIdsEmittedInAnEarlierRunAreFalse() async throws {
        for kind in kinds() {
            let first = AdmissionProbe()
            let r1 = try await run([.scripted("a", [["a:1", "a:2"]], processors: [first])], over: kind)
            XCTAssertEqual(first.answers, ["a:1": true, "a:2": true], kind.name)
            XCTAssertEqual(r1.ids, ["a:1", "a:2"], kind.name)
            let second = AdmissionProbe()
            let r2 = try await run([.scripted("a", [["a:1", "a:2", "a:3"]], processors: [second])], over: kind)
            XCTAssertEqual(second.answers, ["a:1": false, "a:2": false, "a:3": true], kind.name)
            XCTAssertEqual(r2.ids, ["a:3"], "\(kind.name): the answers were the delivery's")
            XCTAssertEqual(r2.warnings, [], kind.name)
        }
    }

    func testAllIsTrueForEverything() async throws {
        for kind in kinds() {
            _ = try await run([.scripted("a", [["a:1"]])], over: kind)
            let probe = AdmissionProbe()
            let r = try await run([.scripted("a", [["a:1", "a:2"]], processors: [probe])], over: kind, options: Delivery.Options(emitAll: true))
            XCTAssertEqual(probe.answers, ["a:1": true, "a:2": true], kind.name)
            XCTAssertEqual(r.ids, ["a:1", "a:2"], kind.name)
        }
    }

    /// `run` drops an id any source delivered earlier in the run; so does the preview, with a
    /// state or without.
    func testAnIdAnotherSourceDeliveredInThisRunIsFalse() async throws {
        for kind in kinds() + [nil] as [StateKind?] {
            let probe = AdmissionProbe()
            let r = try await run([.scripted("a", [["v:1", "v:2"]]), .scripted("b", [["v:2", "v:3"]], delay: 0.3, processors: [probe])], over: kind)
            XCTAssertEqual(probe.answers, ["v:2": false, "v:3": true], kind?.name ?? "no state")
            XCTAssertEqual(r.ids.sorted(), ["v:1", "v:2", "v:3"], kind?.name ?? "no state")
        }
    }

    func testOnlyTheFirstOfAnIdInABatchIsTrue() async throws {
        for kind in kinds() + [nil] as [StateKind?] {
            let probe = AdmissionProbe()
            let r = try await run([.scripted("a", [["a:1", "a:2", "a:1"], ["a:2", "a:3"]], processors: [probe])], over: kind)
            XCTAssertEqual(probe.batches, [[true, true, false], [false, true]], kind?.name ?? "no state")
            XCTAssertEqual(r.ids, ["a:1", "a:2", "a:3"], kind?.name ?? "no state")
        }
    }

    /// An item's page text or story is no update; a changed title is one under `emit_updates`.
    func testAnUpdateUnderEmitUpdatesIsTrue() async throws {
        for kind in kinds() {
            _ = try await run([.items("a", [[.test("x:1", source: "a", title: "one"), .test("x:2", source: "a", title: "two")]], emitUpdates: true)], over: kind)
            let probe = AdmissionProbe()
            let r = try await run([.items("a", [[.test("x:1", source: "a", title: "one, edited"), .test("x:2", source: "a", title: "two")]],
                                          emitUpdates: true, processors: [probe])], over: kind)
            XCTAssertEqual(probe.answers, ["x:1": true, "x:2": false], kind.name)
            XCTAssertEqual(r.ids, ["x:1"], kind.name)
        }
    }

    // MARK: first_run

    func testFirstRunNoneIsFalseForEverything() async throws {
        for kind in kinds() {
            let probe = AdmissionProbe()
            let r = try await run([.scripted("a", [["a:1", "a:2"]], firstRun: .none, processors: [probe])], over: kind)
            XCTAssertEqual(probe.answers, ["a:1": false, "a:2": false], kind.name)
            XCTAssertEqual(r.ids, [], kind.name)
            let later = AdmissionProbe()
            _ = try await run([.scripted("a", [["a:1", "a:3"]], firstRun: .none, processors: [later])], over: kind)
            XCTAssertEqual(later.answers, ["a:1": false, "a:3": true], "\(kind.name): later runs emit what is new")
        }
    }

    /// A first run under `first_run: N` waits for its whole source; each batch's answer is the
    /// newest N of that batch, which holds what the run keeps.
    func testFirstRunNewestIsTheNewestOfEachBatchAndHoldsWhatTheRunKeeps() async throws {
        for kind in kinds() {
            let old = Timestamp(seconds: 1_700_000_000)
            let items = [3, 0, 4, 1, 2, 5].map { i in Item.test("a:\(i)", source: "a", published: Timestamp(seconds: old.seconds + Double(i) * 60)) }
            let probe = AdmissionProbe()
            let r = try await run([.items("a", [Array(items[0..<3]), Array(items[3...])], firstRun: .newest(2), processors: [probe])], over: kind)
            XCTAssertEqual(probe.batches, [[true, false, true], [false, true, true]], kind.name)
            XCTAssertEqual(Set(r.ids), ["a:4", "a:5"], kind.name)
            XCTAssertTrue(r.ids.allSatisfy { probe.answers[$0] == true }, kind.name)
        }
    }

    // MARK: stories

    func testAStoryCopyUnderDropIsFalse() async throws {
        for kind in kinds() {
            let probe = AdmissionProbe()
            let r = try await run([.items("wire", [[StoryStageTests.wire]]),
                                   .items("aggregator", [[StoryStageTests.portal, StoryStageTests.warriors, StoryStageTests.paper]], delay: 0.3, processors: [probe])],
                                  over: kind, options: StoryStageTests.settings(.drop))
            XCTAssertEqual(probe.answers, ["portal:1": false, "scores:2": true, "paper:1": false], kind.name)
            XCTAssertEqual(r.ids, ["wire:1", "scores:2"], kind.name)
        }
    }

    /// Two copies of a new story in one batch: the first opens it, the second is its copy.
    func testTheSecondCopyOfANewStoryInABatchIsFalse() async throws {
        for kind in kinds() {
            let probe = AdmissionProbe()
            let r = try await run([.items("aggregator", [[StoryStageTests.portal, StoryStageTests.lakers, StoryStageTests.mobile]], processors: [probe])],
                                  over: kind, options: StoryStageTests.settings(.drop))
            XCTAssertEqual(probe.batches, [[true, true, false]], kind.name)
            XCTAssertEqual(r.ids, ["portal:1", "scores:1"], kind.name)
        }
    }

    func testAStoryCopyUnderTagIsTrue() async throws {
        for kind in kinds() {
            let probe = AdmissionProbe()
            _ = try await run([.items("wire", [[StoryStageTests.wire]]), .items("aggregator", [[StoryStageTests.portal]], delay: 0.3, processors: [probe])],
                              over: kind, options: StoryStageTests.settings(.tag))
            XCTAssertEqual(probe.answers, ["portal:1": true], kind.name)
        }
    }

    /// Without a state stories are matched in memory, where a look-up would be remembered: the
    /// preview does not ask them (the documented limit), and a copy is true.
    func testWithoutStateAStoryCopyIsTrueButTheRunStillDropsIt() async throws {
        let probe = AdmissionProbe()
        let r = try await run([.items("wire", [[StoryStageTests.wire]]), .items("aggregator", [[StoryStageTests.portal]], delay: 0.3, processors: [probe])],
                              over: nil, options: StoryStageTests.settings(.drop))
        XCTAssertEqual(probe.answers, ["portal:1": true])
        XCTAssertEqual(r.ids, ["wire:1"])
    }

    // MARK: changes nothing

    /// A preview of a new item, a known one and a story's first leaves the state as it was:
    /// the delivery afterwards emits each new item once and records it, the known id is not
    /// re-dated, and the story the preview looked at is still untold (another source's copy
    /// of it opens it).
    func testAPreviewLeavesTheStateAsItWas() async throws {
        for kind in kinds() {
            _ = try await run([.scripted("a", [["a:1"]])], over: kind)
            let memory = kind.name == "memory" ? try kind.open() as? InMemoryState : nil
            let before = memory.map(Self.contents)
            let delivery = Delivery(sinks: [InMemorySink()], state: try kind.open(), options: StoryStageTests.settings(.drop))
            try await delivery.open()
            let settings = SourceSettings(name: "paper", type: "test")
            let (paperRun, _) = await delivery.begin(settings, previous: nil)
            var paper = StoryStageTests.paper
            paper.source = "paper"
            var known = Item.test("a:1", source: "paper")
            known.url = "https://elsewhere.example/1"
            let answers = await delivery.wouldEmit([paper, known, .test("a:2", source: "paper")], for: paperRun)
            XCTAssertEqual(answers, [true, false, true], kind.name)
            let twice = await delivery.wouldEmit([paper, known, .test("a:2", source: "paper")], for: paperRun)
            XCTAssertEqual(twice, answers, "\(kind.name): asking twice, the same answer")
            if let memory, let before {
                XCTAssertEqual(Self.contents(memory), before, "\(kind.name): nothing recorded, nothing held")
            }
            // The wire's report comes next from another source: the preview told no story.
            let (wireRun, _) = await delivery.begin(SourceSettings(name: "wire", type: "test"), previous: nil)
            var wire = StoryStageTests.wire
            wire.source = "wire"
            try await delivery.deliver([wire, .test("a:2", source: "wire")], to: wireRun, validators: [])
            _ = await delivery.finish(wireRun, failure: nil, stopped: false, requests: 0, validators: [])
            let after = await delivery.wouldEmit([paper, .test("a:2", source: "paper")], for: paperRun)
            XCTAssertEqual(after, [false, false], "\(kind.name): now the wire told it, and delivered a:2")
            _ = await delivery.finish(paperRun, failure: nil, stopped: false, requests: 0, validators: [])
            _ = await delivery.close()
            await delivery.shutdown()
            let again = AdmissionProbe()
            let r = try await run([.scripted("wire", [["a:2", "a:3"]], processors: [again])], over: kind)
            XCTAssertEqual(again.answers, ["a:2": false, "a:3": true], "\(kind.name): a:2 was recorded once, by the real delivery")
            XCTAssertEqual(r.ids, ["a:3"], kind.name)
        }
    }

    /// The stories stage learns words from every title it looks up (`WordSightings`); a
    /// preview's look-ups teach it nothing, and tell no story.
    func testAPreviewTeachesTheStoriesStageNothing() throws {
        let stage = StoryStage(settings: StorySettings(action: .drop), retention: 30 * 86400, hasState: true)
        let state = InMemoryState()
        let titles = [StoryStageTests.wire, StoryStageTests.lakers]
        let tokens = titles.flatMap { item in
            let s = TitleAnalyzer.signature(item.title, host: "www.meridianwire.com")
            return (0..<s.count).map { s.tokens[$0] }
        }
        func learned() -> [UInt32] { tokens.filter { stage.matcher.sightings.seenAsCommon($0) || stage.matcher.sightings.seenAsName($0) } }
        let tx = try state.begin()
        XCTAssertEqual(try stage.wouldEmit(titles, in: tx, now: StoryStageTests.published.seconds), [true, true])
        tx.rollback()
        XCTAssertEqual(learned(), [], "the preview taught nothing")
        let told = try state.begin()
        _ = try stage.tell(titles, in: told, now: StoryStageTests.published.seconds)
        told.rollback()
        XCTAssertFalse(learned().isEmpty, "telling does teach (so the check above can fail)")
    }

    /// What an in-memory state holds that a preview could touch: ids (with their hashes and
    /// times), values, and what open transactions hold.
    static func contents(_ state: InMemoryState) -> [String] {
        let s = state.snapshot
        return s.emitted.map { "emitted \($0.key) \($0.value.source) \($0.value.hash) \($0.value.lastSeen)" }.sorted()
            + s.values.flatMap { ns, values in values.map { "value \(ns) \($0.key) \($0.value.value)" } }.sorted()
            + s.pending.keys.map { "pending \($0)" }.sorted() + s.heldValues.keys.map { "held \($0)" }.sorted()
            + s.counters.map { "counter \($0.key) \($0.value.sorted { $0.key < $1.key })" }.sorted()
    }

    // MARK: failures

    /// A state that cannot begin the preview's transaction answers true (fail open), silently;
    /// the ids this run delivered are still false.
    func testAStateThatFailsAnswersTrueSilently() async throws {
        let state = InMemoryState()
        _ = await EngineRun(sources: [.scripted("a", [["a:1"]])], state: state).go()
        state.inject(.begin(StateError("database is locked")))
        let probe = AdmissionProbe()
        let r = await EngineRun(sources: [.scripted("a", [["a:1", "a:2"], ["a:2"]], processors: [probe])], state: state).go()
        XCTAssertEqual(probe.batches, [[true, true], [false]], "the first batch's preview failed; the second knows a:2 was delivered")
        XCTAssertEqual(r.ids, ["a:2"], "the delivery still decides")
        XCTAssertEqual(r.warnings, [], "no warning for a preview")
    }

    /// Once a sink failed, nothing more is delivered: everything is false.
    func testAfterASinkFailedEverythingIsFalse() async throws {
        let delivery = Delivery(sinks: [InMemorySink(failWith: SinkError("disk full"))], state: InMemoryState())
        try await delivery.open()
        let (run, _) = await delivery.begin(SourceSettings(name: "a", type: "test"), previous: nil)
        let items: [Item] = [.test("a:1", source: "a"), .test("a:2", source: "a")]
        let before = await delivery.wouldEmit(items, for: run)
        XCTAssertEqual(before, [true, true])
        do {
            try await delivery.deliver([items[0]], to: run, validators: [])
            XCTFail("the sink fails")
        } catch {}
        let after = await delivery.wouldEmit(items, for: run)
        XCTAssertEqual(after, [false, false])
        _ = await delivery.close()
        await delivery.shutdown()
    }

    /// A context made without a delivery (a processor's own tests) knows nothing: all true.
    func testAContextWithoutADeliveryAnswersTrue() async {
        let context = ProcessorContext(settings: SourceSettings(name: "a", type: "test"), http: HTTPClient(transport: CannedTransport(status: 404, body: "")),
                                       fetched: Timestamp(seconds: 0), warn: { _ in }, log: { _ in })
        let answers = await context.wouldEmit([.test("a:1", source: "a"), .test("a:1", source: "a")])
        XCTAssertEqual(answers, [true, true])
        let none = await context.wouldEmit([])
        XCTAssertEqual(none, [])
    }
}

/// Asks `wouldEmit` for each batch it gets and notes the answers; passes the batch on as it is.
final class AdmissionProbe: Processor, Sendable {
    private let log = Locked<[[(id: String, answer: Bool)]]>([])

    /// Each batch's answers, in order.
    var batches: [[Bool]] { log.withLock { $0.map { $0.map(\.answer) } } }
    /// The last answer for each id.
    var answers: [String: Bool] {
        log.withLock { Dictionary($0.joined().map { ($0.id, $0.answer) }, uniquingKeysWith: { $1 }) }
    }

    func start(_ context: ProcessorContext) async -> any ProcessorRun { Run(context: context, log: log) }

    struct Run: ProcessorRun {
        let context: ProcessorContext
        let log: Locked<[[(id: String, answer: Bool)]]>
        func process(_ items: [Item]) async -> [Item] {
            let answers = await context.wouldEmit(items)
            log.withLock { $0.append(Array(zip(items.map(\.id), answers))) }
            return items
        }
    }
}
