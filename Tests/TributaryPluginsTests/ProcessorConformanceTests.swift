import Foundation
import XCTest
import TributaryCore
import TributaryPlugins
import TributaryTestSupport

/// The conformance test every registered processor type passes: its folder holds its page and
/// an example config (`process-<type>.json`, copied to Sources-config/examples by `make
/// generate`) whose sources use it; run through the engine from the recordings the example
/// points at, twice, it gives schema-valid items with ids and titles, the same ones each time,
/// and counts what it drops instead of losing it silently (fetched = new + filtered + skipped).
final class ProcessorConformanceTests: XCTestCase {
    func testEveryRegisteredProcessorTypeConforms() async throws {
        let schema = try SchemaValidator.itemSchema()
        for descriptor in BuiltinRegistry.standard.processors {
            let path = packageRoot + "/Sources-config/examples/process-\(descriptor.type).json"
            XCTAssertTrue(FileManager.default.fileExists(atPath: path), "\(descriptor.type): no example config at \(path)")
            let config = try ConfigLoader.load(path: path, registry: BuiltinRegistry.standard)
            let replay = try XCTUnwrap(config.replayDirectory, "\(descriptor.type): the example must set http.replay")
            XCTAssertTrue(config.sources.contains { $0.processors.count > ($0.settings.filter == nil ? 0 : 1) }, "\(descriptor.type): the example's sources have no process list")
            var runs: [[String]] = []
            for _ in 0..<2 {
                let sink = InMemorySink()
                let delivery = Delivery(sinks: [sink], state: nil)
                let engine = Engine(sources: config.sources, delivery: delivery, transport: try ReplayTransport(directory: replay))
                let report = await engine.run()
                await delivery.shutdown()
                XCTAssertEqual(report.exitCode, 0, "\(descriptor.type): \(report.sources.map { "\($0.name): \($0.status)" })")
                for r in report.sources {
                    XCTAssertEqual(r.fetched, r.new + r.filtered + r.skipped, "\(descriptor.type): \(r.name) lost items without counting them")
                }
                XCTAssertFalse(sink.items.isEmpty, "\(descriptor.type): no items from the example")
                for item in sink.items {
                    XCTAssertFalse(item.id.isEmpty)
                    XCTAssertFalse(item.title.isEmpty)
                    XCTAssertEqual(schema.validate(item.jsonValue()), [], "\(descriptor.type): \(item.id)")
                }
                runs.append(sink.items.map(\.id))
            }
            XCTAssertEqual(runs[0], runs[1], "\(descriptor.type): the same items each run")
        }
    }
}
