import Foundation
import XCTest
import TributaryTestSupport
@testable import TributaryState

/// `StateBackend.claimDue` on every backend: due sources leased up to the limit, and each
/// candidate that is not due yet named with its time (`DueClaim.later`), so that `watch` stops
/// offering it until then; due ones left out by the limit are not named.
final class StateClaimDueTests: XCTestCase {
    func backends() throws -> [(name: String, state: any StateBackend)] { try StateUnderTest.everyBackend() }

    func testCandidatesNotDueAreNamedWithTheirTimes() throws {
        for (name, state) in try backends() {
            defer { state.close() }
            let now = Date().timeIntervalSince1970
            let keys = ["a", "b", "c", "d"].map { SourceKey(name: $0, type: "json") }
            XCTAssertEqual(try state.claimDue(keys, worker: "w", lease: 60, limit: 0, now: now).claimed.count, 0, name)
            let tx = try state.begin()
            try tx.recordRun(RunRecord(source: "b", type: "json", success: true, error: nil, nextDue: now + 100, now: now))
            try tx.recordRun(RunRecord(source: "d", type: "json", success: true, error: nil, nextDue: now + 50, now: now))
            try tx.commit()
            let claim = try state.claimDue(keys, worker: "w", lease: 60, limit: 1, now: now)
            XCTAssertEqual(claim.claimed.count, 1, name)
            XCTAssertTrue(["a", "c"].contains(claim.claimed.first?.name ?? ""), name)
            let later = Dictionary(uniqueKeysWithValues: claim.later.map { ($0.name, $0.at) })
            XCTAssertEqual(Set(later.keys), ["b", "d"], "\(name): the due one left out by the limit is not put off")
            XCTAssertEqual(later["b"] ?? 0, now + 100, accuracy: 0.01, name)
            XCTAssertEqual(later["d"] ?? 0, now + 50, accuracy: 0.01, name)
            XCTAssertEqual(try state.claimDue([], worker: "w", lease: 60, limit: 5, now: now).later.count, 0, name)
        }
    }
}
