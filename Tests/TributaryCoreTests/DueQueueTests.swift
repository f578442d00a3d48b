import XCTest
@testable import TributaryCore
import TributaryTestSupport

/// `DueQueue` answers what the scheduler's dictionary scans answered (the candidates: not
/// running and never run here or due; the soonest later next time of a source not running),
/// over a long random sequence of looks, starts and ends with repeated and equal times.
final class DueQueueTests: XCTestCase {
    func testTheSameAnswersAsAScanOfEverySource() {
        let n = 40
        var queue = DueQueue(count: n)
        var notBefore: [Int: Double] = [:]
        var running = Set<Int>()
        var rng = SeededGenerator(seed: 25)
        func next(_ k: Int) -> Int { rng.below(k) }
        var now = 0.0
        for step in 0..<20_000 {
            switch next(4) {
            case 0:
                now += Double(next(5))
            case 1:
                // A look: the candidates, in order; the state claims some of them.
                queue.advance(to: now)
                let expected = (0..<n).filter { !running.contains($0) && (notBefore[$0] ?? now) <= now }
                XCTAssertEqual(queue.candidates, expected, "step \(step)")
                for i in expected where next(3) == 0 {
                    running.insert(i)
                    queue.started(i)
                }
            case 2:
                let ids = running.sorted()
                guard !ids.isEmpty else { continue }
                let i = ids[next(ids.count)]
                running.remove(i)
                let t = now + Double(next(12)) - 2   // sometimes already due
                notBefore[i] = t
                queue.finished(i, next: t)
            default:
                queue.advance(to: now)
                let expected = notBefore.filter { !running.contains($0.key) && $0.value > now }.values.min()
                XCTAssertEqual(queue.soonest(), expected, "step \(step)")
            }
        }
    }

    func testANewQueueOffersEverySourceAndHasNoNextTime() {
        var q = DueQueue(count: 3)
        q.advance(to: 100)
        XCTAssertEqual(q.candidates, [0, 1, 2])
        XCTAssertNil(q.soonest())
        q.started(1)
        XCTAssertEqual(q.candidates, [0, 2])
        q.finished(1, next: 160)
        q.advance(to: 100)
        XCTAssertEqual(q.candidates, [0, 2])
        XCTAssertEqual(q.soonest(), 160)
        q.advance(to: 160)
        XCTAssertEqual(q.candidates, [0, 1, 2])
        XCTAssertNil(q.soonest())
    }
}
