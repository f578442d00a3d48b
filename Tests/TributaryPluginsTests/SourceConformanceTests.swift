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

/// The shared conformance test every registered source type passes: it builds from its example
/// config (Sources-config/examples/<type>.json), fetches from the recorded responses that
/// example points at, and emits schema-valid items with unique, stable ids and non-empty titles.
final class SourceConformanceTests: XCTestCase {
    func testEveryRegisteredSourceTypeConforms() async throws {
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
                let first = try await fetch(configured, transport)
                let second = try await fetch(configured, transport)
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

    func fetch(_ configured: ConfiguredSource, _ transport: any HTTPTransport) async throws -> [Item] {
        let r = await plugins.fetch(configured, transport: transport, fetched: Timestamp.now())
        if let e = r.sourceError { throw e }
        return r.items
    }
}
