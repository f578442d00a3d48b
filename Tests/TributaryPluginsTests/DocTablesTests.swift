import Foundation
import TributaryCore
import TributaryDocs
import TributaryPlugins
import TributaryPluginKit
import XCTest

/// The options tables in Docs/ are generated from the option declarations (`DocTables`, written
/// by `make generate`; GeneratedFilesTests checks that they are up to date): every registered
/// type has its page, every page belongs to one, and the tables read as intended.
final class DocTablesTests: XCTestCase {
    func testEveryPageWithMarkersBelongsToARegisteredType() throws {
        let types = Set(BuiltinRegistry.standard.sources.map { "sources/\($0.type).md" } + BuiltinRegistry.standard.sinks.map { "sinks/\($0.type).md" } + BuiltinRegistry.standard.processors.map { "processors/\($0.type).md" })
        for folder in ["sources", "sinks", "processors"] {
            for file in try FileManager.default.contentsOfDirectory(atPath: packageRoot + "/Docs/" + folder) where file.hasSuffix(".md") {
                XCTAssertTrue(types.contains(folder + "/" + file), "Docs/\(folder)/\(file) is no registered type's page")
            }
        }
    }

    func testTheTableShowsKindsDefaultsAndNestedKeys() {
        let t = DocTables.table([
            CommonOptions.interval.spec, CommonOptions.enabled.spec, CommonOptions.quota.spec,
            Option.choice("mode", ["a", "b"], "x | y, `<a*b>` <b*c>").defaulted("a").spec,
        ])
        XCTAssertEqual(t, """
        | key | type | default | description |
        |---|---|---|---|
        | `interval` | duration (at least 1s) or `auto` | defaults.interval (15m) | how often `watch` (and `run --respect-schedule`) runs it, at least 1s; "auto": as often as it publishes and its server allows, between `interval_min` and `interval_max` (Docs/scheduling.md) |
        | `enabled` | bool | `true` | false skips the source |
        | `quota` | object |  | request budget: skip the source once `requests` were made in the current `per` window |
        | `quota.requests` | integer (at least 1) | required | requests allowed per window |
        | `quota.per` | duration (at least 1s) | required | window length, e.g. "1d" |
        | `mode` | one of `a`, `b` | `a` | x \\| y, `<a*b>` &lt;b\\*c> |
        """)
    }
}
