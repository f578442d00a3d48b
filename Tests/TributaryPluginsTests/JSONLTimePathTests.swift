import Foundation
import XCTest
@testable import TributaryCore
@testable import TributaryBase
@testable import TributaryJSON
@testable import TributaryOptions
@testable import TributaryHTTP
@testable import TributaryState
@testable import TributaryPostgres
@testable import TributaryPluginKit
@testable import TributaryPlugins
import TributaryTestSupport

/// The `jsonl` sink's `%Y %m %d %H` paths, with a clock the test sets.
final class JSONLTimePathTests: XCTestCase {
    final class Clock: Sendable {
        let now = Locked(Timestamp(seconds: 0))
        func set(_ rfc3339: String) { now.withLock { $0 = Timestamp.parseRFC3339(rfc3339)! } }
    }

    func item(_ n: Int) -> Item { Item(id: "t:\(n)", source: "s", type: "json", kind: "entry", title: "Item \(n)", fetched: Timestamp(seconds: 0)) }

    func testABatchGoesWholeToTheFileOfItsWriteTime() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let clock = Clock()
        let sink = JSONLSink(path: dir.path + "/%Y/%m/%d/items-%H.jsonl", clock: { clock.now.withLock { $0 } })
        try sink.open(SinkContext(window: nil))
        clock.set("2026-12-31T23:59:59Z")
        try sink.write([item(1), item(2)])
        clock.set("2027-01-01T00:00:00Z")
        try sink.write([item(3)])
        try sink.write([item(4)])
        try sink.close()
        XCTAssertEqual(dir.read("2026/12/31/items-23.jsonl")?.split(separator: "\n").count, 2, "the folders are created")
        XCTAssertEqual(dir.read("2027/01/01/items-00.jsonl")?.split(separator: "\n").count, 2)
    }

    func testEveryRotatedFileIsRepairedAndNothingIsCreatedWithoutItems() throws {
        let dir = TempDir()
        defer { dir.remove() }
        _ = dir.write("items-2026112911.jsonl", "{\"id\":\"a:1\"}\n{\"id\":\"a:2\",\"tit")
        _ = dir.write("items-2026112912.jsonl", "not ours")
        let clock = Clock()
        let warnings = Locked([String]())
        let sink = JSONLSink(path: dir.path + "/items-%Y%m%d%H.jsonl", clock: { clock.now.withLock { $0 } })
        try sink.open(SinkContext(window: nil, warn: { m in warnings.withLock { $0.append(m) } }))
        clock.set("2026-11-29T11:30:00Z")
        try sink.write([item(1)])
        clock.set("2026-11-29T12:00:00Z")
        try sink.write([item(2)])
        try sink.close()
        XCTAssertEqual(dir.read("items-2026112911.jsonl")?.split(separator: "\n").map { String($0.prefix(13)) }, ["{\"id\":\"a:1\"}", "{\"id\":\"t:1\",\""])
        XCTAssertEqual(dir.read("items-2026112912.jsonl")?.split(separator: "\n").map { String($0.prefix(8)) }, ["not ours", "{\"id\":\"t"])
        XCTAssertEqual(warnings.withLock { $0.count }, 2, "\(warnings.withLock { $0 })")
        let idle = JSONLSink(path: dir.path + "/idle-%H.jsonl")
        try idle.close()
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix("idle") }, [], "a run with nothing to write creates no hourly file")
    }

    func testTruncateEmptiesEachRotatedFileOncePerRun() throws {
        let dir = TempDir()
        defer { dir.remove() }
        _ = dir.write("h-05.jsonl", "{\"id\":\"old\"}\n")
        let clock = Clock()
        clock.set("2026-11-29T05:10:00Z")
        let sink = JSONLSink(path: dir.path + "/h-%H.jsonl", truncate: true, clock: { clock.now.withLock { $0 } })
        try sink.write([item(1)])
        try sink.write([item(2)])
        try sink.close()
        XCTAssertEqual(dir.read("h-05.jsonl")?.split(separator: "\n").count, 2)
    }

    func testTheTemplateAndItsConfigCheck() {
        let t = TimePath("out/%Y-%m-%d/%H%%.jsonl")
        XCTAssertTrue(t.rotates)
        XCTAssertEqual(t.path(at: Timestamp.parseRFC3339("2026-03-04T05:06:07Z")!), "out/2026-03-04/05%.jsonl")
        XCTAssertFalse(TimePath("out/100%%.jsonl").rotates)
        XCTAssertNil(TimePath.problem("out/%Y/%m/%d/%H.jsonl"))
        XCTAssertEqual(TimePath.problem("out/%Y-%M.jsonl"), "%M is not a time field; expected %Y, %m, %d, %H (UTC time of writing) or %% for a literal %")
        XCTAssertNotNil(TimePath.problem("out/50%"))
        do {
            _ = try ConfigLoader.load(bytes: Array(#"{"sinks":[{"type":"jsonl","path":"out/%Y-%M.jsonl"}]}"#.utf8), file: "tributary.json", directory: "/cfg",
                                      registry: BuiltinRegistry.standard, environment: { _ in nil })
            XCTFail("a config error")
        } catch {
            XCTAssertTrue(error.messages.contains { $0.contains("tributary.json: sinks[0].path: %M is not a time field") }, "\(error.messages)")
        }
    }
}
