import XCTest
import TributaryTestSupport
import TributaryStories
@testable import TributaryCore
@testable import TributaryBase
@testable import TributaryState

/// The `stories` stage in the engine, in process, over the in-memory state: `action: drop`
/// emits a story's first item only and counts the rest, `action: tag` emits every item with
/// its story, stories last across runs (kept in state) and within a run without state, two
/// workers sharing a state give copies one story, a batch that is not delivered remembers no
/// story, and a dry run changes no story state.
final class StoryStageTests: XCTestCase {
    static let published = Timestamp(seconds: 1_800_000_000)

    /// A wire's report and the copies other sources deliver: a tracking-parameter link with the
    /// outlet's name on the title, an m./amp link with BREAKING:, another outlet's light edit.
    static let wire = Item.story("wire:1", "https://www.meridianwire.com/world/pope-calls-for-ceasefire-in-easter-address-idQH0806692/",
                                 "Pope calls for ceasefire in Easter address")
    static let portal = Item.story("portal:1", "https://www.meridianwire.com/world/pope-calls-for-ceasefire-in-easter-address-idQH0806692/?utm_source=rss&utm_medium=feed",
                                   "Pope calls for ceasefire in Easter address - Meridian Wire")
    static let mobile = Item.story("mobile:1", "http://m.meridianwire.com/world/pope-calls-for-ceasefire-in-easter-address-idQH0806692/amp",
                                   "BREAKING: Pope calls for ceasefire in Easter address")
    static let paper = Item.story("paper:1", "https://www.dailyledger.com/news/pope-calls-for-ceasefire-in-easter-address/article_2e17.html",
                                  "Pope Calls for Ceasefire in Easter Address | The Daily Ledger")
    /// Look-alikes that are other stories.
    static let lakers = Item.story("scores:1", "https://www.scoreline.com/sport/lakers-beat-celtics-105-96", "Lakers beat Celtics 105-96 to take 3-2 series lead")
    static let warriors = Item.story("scores:2", "https://www.scoreline.com/sport/lakers-beat-warriors-99-95", "Lakers beat Warriors 99-95 to even series at 2-2")

    static func settings(_ action: StorySettings.Action) -> Delivery.Options {
        Delivery.Options(stories: StorySettings(action: action))
    }

    func testDropEmitsAStorysFirstItemOnlyAndCountsTheCopiesAsDuplicates() async {
        let state = InMemoryState()
        let r = await EngineRun(sources: [.items("wire", [[Self.wire, Self.lakers]]),
                                          .items("aggregator", [[Self.portal, Self.mobile], [Self.paper, Self.warriors]], delay: 0.3)],
                                state: state, options: Self.settings(.drop)).go()
        XCTAssertEqual(r.ids, ["wire:1", "scores:1", "scores:2"], "only the first of the story; the look-alike is another story")
        XCTAssertTrue(r.items.allSatisfy { $0.story.map { StoryID($0) != nil } ?? false }, "every emitted item has a story: \(r.items.map(\.story))")
        XCTAssertNotEqual(r.items[1].story, r.items[2].story)
        let aggregator = r.report.sources.first { $0.name == "aggregator" }
        XCTAssertEqual(aggregator?.processed[.duplicates], 3)
        XCTAssertEqual(aggregator?.new, 1)
        XCTAssertEqual(aggregator?.fetched, 4)
        XCTAssertNil(r.report.sources.first { $0.name == "wire" }?.processed[.duplicates])
        let snapshot = state.snapshot
        XCTAssertEqual(snapshot.counters[.storyDuplicates]?["aggregator"], 3)
        XCTAssertNotNil(snapshot.emitted["portal:1"], "a copy is recorded as seen")
        XCTAssertEqual(snapshot.sources["aggregator"]?.emittedTotal, 1)
        // Recorded as seen: the next run does not bring them back.
        let again = await EngineRun(sources: [.items("aggregator", [[Self.portal, Self.mobile, Self.paper]])], state: state, options: Self.settings(.drop)).go()
        XCTAssertEqual(again.ids, [])
        XCTAssertNil(again.report.sources.first?.processed[.duplicates], "ids already emitted are dropped before stories")
    }

    func testTagEmitsEveryItemWithTheStoryOfItsFirst() async {
        let r = await EngineRun(sources: [.items("wire", [[Self.wire, Self.lakers]]),
                                          .items("aggregator", [[Self.portal, Self.mobile, Self.paper, Self.warriors]], delay: 0.3)],
                                state: InMemoryState(), options: Self.settings(.tag)).go()
        XCTAssertEqual(r.ids, ["wire:1", "scores:1", "portal:1", "mobile:1", "paper:1", "scores:2"])
        let story = Dictionary(uniqueKeysWithValues: r.items.map { ($0.id, $0.story) })
        let first = StoryID.first(canonicalURL: URLCanonicalizer.canonicalize(Self.wire.url!), itemID: "wire:1").description
        XCTAssertEqual(story["wire:1"], first, "the story's id is its first item's canonical URL's")
        for copy in ["portal:1", "mobile:1", "paper:1"] { XCTAssertEqual(story[copy], first, copy) }
        XCTAssertNotEqual(story["scores:1"], story["scores:2"])
        XCTAssertNotEqual(story["scores:1"], first)
        XCTAssertNil(r.report.sources.first { $0.name == "aggregator" }?.processed[.duplicates])
    }

    func testTheStoryFieldStandsAfterTagsAndBeforeGeoAndReadsBack() throws {
        var item = Self.wire
        item.tags = ["world"]
        item.story = "story:0123456789abcdef"
        item.geo = Geo(lat: 41.9, lon: 12.45)
        let line = String(decoding: item.jsonLine(), as: UTF8.self)
        XCTAssertTrue(line.contains(#""tags":["world"],"story":"story:0123456789abcdef","geo":{"lat":41.9,"lon":12.45}"#), line)
        XCTAssertEqual(try Item(jsonLine: item.jsonLine()), item)
        var other = item
        other.story = "story:fedcba9876543210"
        XCTAssertEqual(other.contentHash, item.contentHash, "a story is not content: emit_updates does not see it")
        XCTAssertFalse(String(decoding: Self.wire.jsonLine(), as: UTF8.self).contains("story"), "no story: no field")
    }

    func testASecondRunOnOneStateGivesACopyTheStoryOfItsFirst() async {
        let state = InMemoryState()
        let first = await EngineRun(sources: [.items("wire", [[Self.wire]])], state: state, options: Self.settings(.tag)).go()
        let second = await EngineRun(sources: [.items("paper", [[Self.paper, Self.lakers]])], state: state, options: Self.settings(.tag)).go()
        XCTAssertEqual(second.items.first?.story, first.items.first?.story)
        XCTAssertNotNil(first.items.first?.story)
        XCTAssertNotEqual(second.items.last?.story, first.items.first?.story)
        XCTAssertFalse(state.snapshot.values["stories", default: [:]].isEmpty, "stories are kept in the state's values")
        // Under drop, the copy of an earlier run's story is a duplicate.
        let third = await EngineRun(sources: [.items("mobile", [[Self.mobile]])], state: state, options: Self.settings(.drop)).go()
        XCTAssertEqual(third.ids, [])
        XCTAssertEqual(third.report.sources.first?.processed[.duplicates], 1)
    }

    func testWithoutStateStoriesAreMatchedWithinTheRun() async {
        let r = await EngineRun(sources: [.items("wire", [[Self.wire]]), .items("aggregator", [[Self.portal, Self.paper]], delay: 0.3)],
                                state: nil, options: Self.settings(.drop)).go()
        XCTAssertEqual(r.ids, ["wire:1"])
        XCTAssertEqual(r.report.sources.first { $0.name == "aggregator" }?.processed[.duplicates], 2)
        XCTAssertNotNil(r.items.first?.story)
        // Another run without state remembers nothing of this one.
        let next = await EngineRun(sources: [.items("aggregator", [[Self.portal]])], state: nil, options: Self.settings(.drop)).go()
        XCTAssertEqual(next.ids, ["portal:1"])
    }

    func testWithoutAStoriesSectionItemsGetNoStory() async {
        let r = await EngineRun(sources: [.items("wire", [[Self.wire, Self.portal]])], state: InMemoryState()).go()
        XCTAssertEqual(r.ids, ["wire:1", "portal:1"])
        XCTAssertTrue(r.items.allSatisfy { $0.story == nil })
    }

    func testABatchTheSinksFailedRemembersNoStory() async {
        let state = InMemoryState()
        let failing = InMemorySink(failWith: SinkError("disk full"))
        let broken = await EngineRun(sources: [.items("wire", [[Self.wire]])], state: state, sinks: [failing], options: Self.settings(.drop)).go()
        XCTAssertEqual(broken.report.exitCode, 3)
        XCTAssertTrue(state.snapshot.values["stories", default: [:]].isEmpty, "rolled back with the batch")
        let next = await EngineRun(sources: [.items("paper", [[Self.paper]])], state: state, options: Self.settings(.drop)).go()
        XCTAssertEqual(next.ids, ["paper:1"], "the first item was never emitted: its copy opens the story")
    }

    func testFirstRunNoneTellsNoStory() async {
        let state = InMemoryState()
        let r = await EngineRun(sources: [.items("wire", [[Self.wire]], firstRun: .none)], state: state, options: Self.settings(.drop)).go()
        XCTAssertEqual(r.ids, [])
        XCTAssertTrue(state.snapshot.values["stories", default: [:]].isEmpty, "what first_run: none skips is not a story's first")
    }

    func testScopeTagsKeepsItemsWithoutASharedTagApart() async {
        var sports = Self.paper
        sports.tags = ["sports"]
        var world = Self.wire
        world.tags = ["world"]
        var alsoWorld = Self.portal
        alsoWorld.tags = ["world", "europe"]
        let r = await EngineRun(sources: [.items("a", [[world, sports, alsoWorld]])], state: InMemoryState(),
                                options: Delivery.Options(stories: StorySettings(scope: .tags, action: .tag))).go()
        XCTAssertEqual(r.items.count, 3)
        XCTAssertNotEqual(r.items[0].story, r.items[1].story, "no tag in common: apart")
        XCTAssertEqual(r.items[0].story, r.items[2].story, "world in common")
    }

    func testMatchURLAloneNeverMergesTwoPages() async {
        let r = await EngineRun(sources: [.items("a", [[Self.wire, Self.paper, Self.portal]])], state: InMemoryState(),
                                options: Delivery.Options(stories: StorySettings(match: [.url], action: .tag))).go()
        XCTAssertEqual(r.items.count, 3)
        XCTAssertNotEqual(r.items[0].story, r.items[1].story, "another page with the same title")
        XCTAssertEqual(r.items[0].story, r.items[2].story, "the same page")
    }

    /// Two workers (two engines, each with its own delivery thread) share one state and see
    /// copies of the same new stories at the same moment: each story gets one id, and under
    /// drop exactly one of its copies is emitted. `InMemoryState` makes a claim on a key
    /// another open batch holds wait, as PostgreSQL does (the binary's test runs PostgreSQL).
    func testTwoWorkersSharingAStateGiveCopiesOneStory() async {
        let state = InMemoryState()
        let count = 20
        func copies(_ worker: String) -> [[Item]] {
            (0..<count).map { k in
                [Item.story("\(worker):\(k)", "https://\(worker).example/news/\(k)", "Council approves plan \(k * 7 + 3) for the new harbour bridge in \(["Leeds", "York", "Bath", "Hull"][k % 4])")]
            }
        }
        async let a = EngineRun(sources: [.items("wa", copies("wa"))], state: state, sinks: [InMemorySink()], options: Self.settings(.tag)).go()
        async let b = EngineRun(sources: [.items("wb", copies("wb"))], state: state, sinks: [InMemorySink()], options: Self.settings(.tag)).go()
        let (ra, rb) = await (a, b)
        XCTAssertEqual(ra.items.count, count)
        XCTAssertEqual(rb.items.count, count)
        for k in 0..<count {
            let sa = ra.items.first { $0.id == "wa:\(k)" }?.story, sb = rb.items.first { $0.id == "wb:\(k)" }?.story
            XCTAssertNotNil(sa)
            XCTAssertEqual(sa, sb, "story \(k): the two copies got two stories")
        }
        XCTAssertEqual(Set(ra.items.compactMap(\.story)).count, count)

        let shared = InMemoryState()
        async let c = EngineRun(sources: [.items("wa", copies("wa"))], state: shared, sinks: [InMemorySink()], options: Self.settings(.drop)).go()
        async let d = EngineRun(sources: [.items("wb", copies("wb"))], state: shared, sinks: [InMemorySink()], options: Self.settings(.drop)).go()
        let (rc, rd) = await (c, d)
        XCTAssertEqual(rc.items.count + rd.items.count, count, "each story once: \(rc.ids) \(rd.ids)")
        let dups = shared.snapshot.counters[.storyDuplicates, default: [:]].values.reduce(0, +)
        XCTAssertEqual(dups, count)
    }

    /// A batch of twice `StoryStage.preparedTogether` items or more is prepared on several
    /// threads at once: its items get the stories the same items get in batches small enough to be
    /// prepared one by one, copies inside the one batch included (a copy's original is earlier
    /// in it, in another thread's share). One source's items match by URL only.
    func testALargeBatchGetsTheStoriesOfSmallOnes() async {
        let who = ["Leeds council", "York hospital trust", "Bath rugby club", "Hull port authority", "Derby rail workers",
                   "Wells cathedral choir", "Ripon racecourse", "Truro city museum"]
        let what = ["approves plan for new harbour bridge", "warns of winter staff shortages", "signs record sponsorship deal",
                    "reopens after flood repairs"]
        let when = ["after long delay", "despite protests"]
        var items: [Item] = []
        for k in 0..<40 {
            let title = "\(who[k % 8]) \(what[k / 8 % 4]) \(when[k / 32])"
            let url = "https://www.meridianwire.com/uk/council-plan-\(k)/"
            items.append(Item.story("wire:\(k)", url, title))
            switch k % 4 {
            case 0: items.append(Item.story("portal:\(k)", url + "?utm_source=rss&utm_medium=feed", title + " - Meridian Wire"))
            case 1: items.append(Item.story("mobile:\(k)", "http://m.meridianwire.com/uk/council-plan-\(k)/amp", "BREAKING: " + title))
            case 2: items.append(Item.story("other:\(k)", "https://www.scoreline.com/sport/match-\(k)", "Lakers beat Celtics \(100 + k)-\(90 + k) in game \(k)"))
            default: break
            }
        }
        XCTAssertGreaterThan(items.count, 3 * StoryStage.preparedTogether)
        let small = stride(from: 0, to: items.count, by: StoryStage.preparedTogether).map {
            Array(items[$0..<min(items.count, $0 + StoryStage.preparedTogether)])
        }
        let large = await EngineRun(sources: [.items("feed", [items])], state: nil, options: Self.settings(.tag)).go()
        let bySmall = await EngineRun(sources: [.items("feed", small)], state: nil, options: Self.settings(.tag)).go()
        XCTAssertEqual(large.ids, items.map(\.id))
        XCTAssertEqual(large.items.map(\.story), bySmall.items.map(\.story))
        let stories = Dictionary(large.items.map { ($0.id, $0.story ?? "") }, uniquingKeysWith: { a, _ in a })
        for k in 0..<40 {
            XCTAssertNotEqual(stories["wire:\(k)"], "", "item \(k) has a story")
            if k % 4 == 0 { XCTAssertEqual(stories["portal:\(k)"], stories["wire:\(k)"], "the link copy of \(k)") }
            if k % 4 == 1 { XCTAssertEqual(stories["mobile:\(k)"], stories["wire:\(k)"], "the mobile copy of \(k)") }
            if k % 4 == 2 { XCTAssertNotEqual(stories["other:\(k)"], stories["wire:\(k)"], "another story beside \(k)") }
        }
        XCTAssertEqual(Set(stories.values).count, 50, "40 stories and 10 others")
    }

    /// `run --dry-run`'s transactions (a read-only SQLite state) find the stories the file
    /// holds and those earlier batches of the dry run told, and write none.
    func testADryRunFindsStoriesAndChangesNone() async throws {
        let dir = TempDir()
        let path = dir.path + "/state.sqlite"
        let writable = try SQLiteState(path: path, lockTimeout: 5)
        let first = await EngineRun(sources: [.items("wire", [[Self.wire]])], state: nil, options: Self.settings(.tag)).goOver(writable)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let readOnly = try XCTUnwrap(try SQLiteState.readOnly(path: path))
        let dry = await EngineRun(sources: [.items("paper", [[Self.paper], [Self.mobile]])], state: nil, options: Self.settings(.tag)).goOver(readOnly)
        XCTAssertEqual(dry.items.map(\.story), [first.items[0].story, first.items[0].story])
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before, "the file is not changed")
        let values = try SQLiteState(path: path, lockTimeout: 5)
        defer { values.close() }
        let tx = try values.begin()
        let held = try tx.values(namespace: "stories", keys: ["r" + StateStoryStore.hex(stableHash("paper:1", seed: HashSeed.itemID))])
        tx.rollback()
        XCTAssertEqual(held, [:], "the dry run's copy is not remembered")
    }
}

extension Item {
    static func story(_ id: String, _ url: String, _ title: String) -> Item {
        Item(id: id, source: "", type: "test", kind: "entry", title: title, url: url, published: StoryStageTests.published, fetched: Timestamp(seconds: 1_800_000_100))
    }
}

extension EngineRun {
    /// The run over any state backend (a SQLite file, a dry run's read-only one).
    func goOver(_ backend: any StateBackend) async -> Outcome {
        let delivery = Delivery(sinks: sinks, state: backend, options: options)
        let engine = Engine(sources: sources, delivery: delivery, transport: CannedTransport(status: 404, body: ""))
        let report = await engine.run { _ in }
        await delivery.shutdown()
        return Outcome(report: report, items: sinks.first?.items ?? [], warnings: [])
    }
}
