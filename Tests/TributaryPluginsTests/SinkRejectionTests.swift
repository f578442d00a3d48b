import XCTest
import TributaryCore
import TributaryPlugins
import TributaryTestSupport

/// The sink rejection contract (`SinkContext.reject`): an item a sink can never write is
/// counted (`sink_rejected`, not `sink_written`), reported, and recorded with its batch, while
/// the other sinks and the other items go on; a write that throws drops its rejections.
final class SinkRejectionTests: XCTestCase {
    /// Rejects the items whose ids are in `ids` (twice, and an id not in the batch too, which
    /// must count once and not at all), writes the rest, and throws after that when `fails`.
    final class PickySink: Sink {
        let ids: Set<String>
        let fails: Bool
        private let state = Locked<(context: SinkContext?, written: [String])>((nil, []))
        init(rejecting ids: Set<String>, fails: Bool = false) {
            self.ids = ids
            self.fails = fails
        }
        func open(_ context: SinkContext) throws(SinkError) { state.withLock { $0.context = context } }
        func write(_ items: [Item]) throws(SinkError) {
            let context = state.withLock { $0.context }
            for item in items where ids.contains(item.id) {
                context?.reject(item, reason: "too big for the test's server")
                context?.reject(item, reason: "again")
            }
            context?.reject(Item(id: "not:in-the-batch", source: "x", type: "json", kind: "entry", title: "", fetched: Timestamp(seconds: 0)), reason: "stray")
            if fails { throw SinkError("picky: down") }
            state.withLock { $0.written += items.map(\.id).filter { !ids.contains($0) } }
        }
        var written: [String] { state.withLock { $0.written } }
    }

    let config = #"""
    {"sources":[{"name":"a","type":"json","url":"https://example.test/a","items":"items","fields":{"id":"id","title":"t"}}]}
    """#

    func run(_ sinks: [any Sink], state: (any StateBackend)?, dir: TempDir) async throws -> (RunReport, [String]) {
        EngineHarness.record(dir, [(url: "https://example.test/a", status: 200, body: #"{"items":[{"id":1,"t":"one"},{"id":2,"t":"two"},{"id":3,"t":"three"}]}"#)])
        let cfg = try ConfigLoader.load(bytes: Array(config.utf8), file: "t.json", directory: dir.path, registry: BuiltinRegistry.standard, environment: { _ in nil })
        let delivery = Delivery(sinks: sinks, state: state, options: Delivery.Options(sinkNames: ["picky", "all"]))
        let engine = Engine(sources: cfg.sources, delivery: delivery, transport: try ReplayTransport(directory: dir.path))
        let warnings = Locked<[String]>([])
        let report = await engine.run { event in
            if case .warning(_, let message) = event { warnings.withLock { $0.append(message) } }
        }
        await delivery.shutdown()
        return (report, warnings.withLock { $0 })
    }

    func testARejectedItemIsCountedReportedAndRecordedWhileTheRestIsDelivered() async throws {
        let dir = TempDir()
        defer { dir.remove() }
        let path = dir.path + "/s.sqlite"
        let picky = PickySink(rejecting: ["a:2"])
        let all = InMemorySink()
        let (report, warnings) = try await run([picky, all], state: try SQLiteState(path: path, lockTimeout: 1), dir: dir)
        XCTAssertEqual(report.exitCode, 0)
        XCTAssertNil(report.sinkError)
        XCTAssertEqual(report.sources.map(\.rejected), [1])
        XCTAssertEqual(report.sources.map(\.new), [3])
        XCTAssertEqual(report.rejected, 1)
        XCTAssertEqual(picky.written, ["a:1", "a:3"])
        XCTAssertEqual(all.items.map(\.id), ["a:1", "a:2", "a:3"], "the other sinks get the item")
        XCTAssertEqual(warnings, ["sink picky rejected item a:2: too big for the test's server; recorded as delivered, so it is not retried"])
        let store = try SQLiteState(path: path, lockTimeout: 1)
        let counters = try store.counters()
        store.close()
        XCTAssertTrue(counters.contains(StateCounter(.sinkRejected, "picky", 1)), "\(counters)")
        XCTAssertTrue(counters.contains(StateCounter(.sinkWritten, "picky", 2)), "\(counters)")
        XCTAssertTrue(counters.contains(StateCounter(.sinkWritten, "all", 3)), "\(counters)")
        XCTAssertFalse(counters.contains { $0.name == .sinkRejected && $0.label == "all" }, "\(counters)")
        let metrics = Metrics(sources: [("a", "json")], states: [:], counters: counters, sinks: ["picky", "all"]).text
        XCTAssertTrue(metrics.contains("tributary_sink_rejected_items_total{sink=\"picky\"} 1\n"), metrics)
        XCTAssertTrue(metrics.contains("tributary_sink_rejected_items_total{sink=\"all\"} 0\n"), metrics)
        XCTAssertTrue(metrics.contains("# TYPE tributary_sink_rejected_items_total counter\n"), metrics)

        // Recorded: the next run has nothing new, and rejects nothing.
        let (next, quiet) = try await run([PickySink(rejecting: ["a:2"]), InMemorySink()], state: try SQLiteState(path: path, lockTimeout: 1), dir: dir)
        XCTAssertEqual(next.sources.map(\.new), [0])
        XCTAssertEqual(next.rejected, 0)
        XCTAssertEqual(quiet, [])
    }

    func testAWriteThatThrowsDropsItsRejectionsWithItsBatch() async throws {
        let dir = TempDir()
        defer { dir.remove() }
        let path = dir.path + "/s.sqlite"
        let (report, warnings) = try await run([PickySink(rejecting: ["a:2"], fails: true), InMemorySink()], state: try SQLiteState(path: path, lockTimeout: 1), dir: dir)
        XCTAssertEqual(report.exitCode, 3)
        XCTAssertEqual(report.rejected, 0)
        XCTAssertEqual(warnings, [])
        let store = try SQLiteState(path: path, lockTimeout: 1)
        let counters = try store.counters()
        store.close()
        XCTAssertFalse(counters.contains { $0.name == .sinkRejected }, "\(counters)")
        XCTAssertTrue(counters.contains(StateCounter(.sinkFailures, "picky", 1)), "\(counters)")
    }

    func testWithoutStateRejectionsAreStillReported() async throws {
        let dir = TempDir()
        defer { dir.remove() }
        let (report, warnings) = try await run([PickySink(rejecting: ["a:1", "a:3"]), InMemorySink()], state: nil, dir: dir)
        XCTAssertEqual(report.exitCode, 0)
        XCTAssertEqual(report.rejected, 2)
        XCTAssertEqual(warnings.count, 2)
        XCTAssertTrue(warnings[0].hasPrefix("sink picky rejected item a:1: "), "\(warnings)")
    }
}
