import Foundation
import XCTest
@testable import TributaryCore
@testable import TributaryPlugins
import TributaryTestSupport

/// The shared conformance test every registered source type passes: it builds from its example
/// config (Sources-config/examples/<type>.json), fetches from the recorded responses that
/// example points at, and emits schema-valid items with unique, stable ids and non-empty titles.
final class SourceConformanceTests: XCTestCase {
    func testEveryRegisteredSourceTypeConforms() throws {
        let schema = try SchemaValidator.itemSchema()
        for descriptor in BuiltinRegistry.standard.sources {
            let path = packageRoot + "/Sources-config/examples/\(descriptor.type).json"
            XCTAssertTrue(FileManager.default.fileExists(atPath: path), "\(descriptor.type): no example config at \(path)")
            XCTAssertTrue(FileManager.default.fileExists(atPath: packageRoot + "/Docs/sources/\(descriptor.type).md"), "\(descriptor.type): no doc page")
            let config = try ConfigLoader.load(path: path, registry: BuiltinRegistry.standard)
            let replay = try XCTUnwrap(config.replayDirectory, "\(descriptor.type): the example must set http.replay")
            let ofType = config.sources.filter { $0.settings.type == descriptor.type }
            XCTAssertFalse(ofType.isEmpty, "\(descriptor.type): the example has no source of its type")
            let transport = try ReplayTransport(directory: replay)
            for configured in ofType {
                let first = try fetch(configured, transport)
                let second = try fetch(configured, transport)
                XCTAssertFalse(first.isEmpty, "\(configured.settings.name): no items from the recordings")
                XCTAssertEqual(first.map(\.id), second.map(\.id), "\(configured.settings.name): ids must be stable across runs")
                XCTAssertEqual(Set(first.map(\.id)).count, first.count, "\(configured.settings.name): duplicate ids in one fetch")
                for item in first {
                    XCTAssertEqual(item.source, configured.settings.name)
                    XCTAssertEqual(item.type, descriptor.type)
                    XCTAssertFalse(item.title.isEmpty)
                    let problems = schema.validate(item.jsonValue())
                    XCTAssertEqual(problems, [], "\(configured.settings.name) \(item.id)")
                }
            }
        }
    }

    func fetch(_ configured: ConfiguredSource, _ transport: any HTTPTransport) throws -> [Item] {
        let box = ItemsBox()
        let sem = DispatchSemaphore(value: 0)
        let context = FetchContext(settings: configured.settings, http: HTTPClient(transport: transport, retries: 0), fetched: Timestamp.now()) { _ in }
        Task {
            do { box.items = try await configured.source.fetch(context) } catch { box.error = error }
            sem.signal()
        }
        sem.wait()
        if let e = box.error { throw e }
        return box.items
    }
}

final class ItemsBox: @unchecked Sendable {
    // Written by one task before it signals the semaphore the reader waits on.
    var items: [Item] = []
    var error: (any Error)?
}
