import XCTest
import Synchronization
import TributaryBase

/// `SerialThread`: a job's captures (the delivery's batch of items) are freed once it has run.
final class SerialThreadTests: XCTestCase {
    /// What a job captures, with a count of the live ones.
    private final class Payload: Sendable {
        static let live = Atomic<Int>(0)
        init() { Self.live.add(1, ordering: .relaxed) }
        deinit { Self.live.subtract(1, ordering: .relaxed) }
    }

    /// The queue kept each job it had run until it next compacted, up to 256 jobs later; with
    /// the delivery's jobs that held 11 MB of items already written at the peak of a decode run.
    func testAJobsCapturesAreFreedOnceItHasRun() async {
        let thread = SerialThread(name: "test-release")
        defer { thread.stop() }
        let before = Payload.live.load(ordering: .relaxed)
        for round in 1...300 {
            let payload = Payload()
            let count = await thread.run { withExtendedLifetime(payload) { round } }
            XCTAssertEqual(count, round)
        }
        // The job after the last one runs once the thread has dropped the last one's closure.
        await thread.run {}
        XCTAssertEqual(Payload.live.load(ordering: .relaxed), before, "jobs that have run still hold what they captured")
    }
}
