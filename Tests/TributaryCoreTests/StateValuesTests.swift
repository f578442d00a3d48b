import XCTest
import TributaryTestSupport
@testable import TributaryCore
@testable import TributaryBase
@testable import TributaryState

/// The values processors keep (`StateBackend.values`, `putValues`, `claimValues`) on every
/// backend: set, read back, replaced, claimed once, kept with a batch only when it commits,
/// keyed whatever the key's length, forgotten by retention.
final class StateValuesTests: XCTestCase {
    func backends() throws -> [(name: String, state: any StateBackend)] { try StateUnderTest.everyBackend() }

    func testValuesAreSetReadReplacedAndClaimedOnce() throws {
        for (name, state) in try backends() {
            defer { state.close() }
            let long = "https://example.org/" + String(repeating: "x", count: 5000)
            var tx = try state.begin()
            try tx.putValues(namespace: "fulltext", [("a", [1, 2]), (long, Array("long".utf8))], now: 100)
            try tx.commit()
            XCTAssertEqual(try state.values(namespace: "fulltext", keys: ["a", long, "missing"]), ["a": [1, 2], long: Array("long".utf8)], name)
            XCTAssertEqual(try state.values(namespace: "stories", keys: ["a"]), [:], "\(name): namespaces are apart")
            tx = try state.begin()
            try tx.putValues(namespace: "fulltext", [("a", [3])], now: 101)
            XCTAssertEqual(try tx.claimValues(namespace: "fulltext", [("a", [9]), ("b", [4]), ("b", [5])], now: 101), [[3], nil, [4]], name)
            try tx.commit()
            XCTAssertEqual(try state.values(namespace: "fulltext", keys: ["a", "b"]), ["a": [3], "b": [4]], name)
        }
    }

    func testARolledBackBatchKeepsNoValue() throws {
        for (name, state) in try backends() {
            defer { state.close() }
            let tx = try state.begin()
            XCTAssertEqual(try tx.claimValues(namespace: "stories", [("k", [1])], now: 1), [nil], name)
            tx.rollback()
            XCTAssertEqual(try state.values(namespace: "stories", keys: ["k"]), [:], name)
            let again = try state.begin()
            XCTAssertEqual(try again.claimValues(namespace: "stories", [("k", [2])], now: 2), [nil], "\(name): free again")
            try again.commit()
        }
    }

    func testRetentionForgetsValuesNotSetForLong() throws {
        for (name, state) in try backends() {
            defer { state.close() }
            let tx = try state.begin()
            try tx.putValues(namespace: "fulltext", [("old", [1])], now: 1000)
            try tx.putValues(namespace: "fulltext", [("new", [2])], now: 100_000)
            try tx.commit()
            try state.prune(retention: 86400, now: 100_500)
            XCTAssertEqual(try state.values(namespace: "fulltext", keys: ["old", "new"]), ["new": [2]], name)
        }
    }
}
