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
        var offered = Set<Int>()
        var rng = SeededGenerator(seed: 25)
        func next(_ k: Int) -> Int { rng.below(k) }
        var now = 0.0
        for step in 0..<20_000 {
            switch next(5) {
            case 0:
                now += Double(next(5))
            case 1:
                // A look: the candidates, in order; the state claims some of them.
                queue.advance(to: now)
                let expected = (0..<n).filter { !running.contains($0) && (notBefore[$0] ?? now) <= now }
                XCTAssertEqual(queue.candidates.sorted(), expected, "step \(step)")
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
            case 3:
                // A round of a look: the first few of the line; the state puts some off.
                queue.advance(to: now)
                let first = queue.candidates(max: 1 + next(6))
                XCTAssertEqual(first, Array(queue.candidates.prefix(first.count)), "step \(step): the front of the line")
                offered.formUnion(first)
                for i in first where next(4) == 0 {
                    let t = now + Double(next(10)) + 1
                    notBefore[i] = t
                    queue.postpone(i, until: t)
                }
            default:
                queue.advance(to: now)
                let expected = notBefore.filter { !running.contains($0.key) && $0.value > now }.values.min()
                XCTAssertEqual(queue.soonest(), expected, "step \(step)")
            }
        }
    }

    /// A look takes the front of the line; sources ready again join at its back in the order
    /// of their times; one the state puts off leaves it until its time.
    func testTheLineKeepsTheOrderSourcesBecameReadyIn() {
        var q = DueQueue(count: 5)
        q.advance(to: 0)
        XCTAssertEqual(q.candidates(max: 2), [0, 1])
        q.started(0)
        XCTAssertEqual(q.candidates(max: 2), [1, 2], "a source that started leaves the front")
        q.postpone(1, until: 30)
        XCTAssertEqual(q.candidates(max: 10), [2, 3, 4])
        q.finished(0, next: 20)
        q.advance(to: 25)
        XCTAssertEqual(q.candidates(max: 10), [2, 3, 4, 0])
        XCTAssertEqual(q.soonest(), 30)
        q.advance(to: 30)
        XCTAssertEqual(q.candidates(max: 10), [2, 3, 4, 0, 1])
        XCTAssertEqual(q.readyCount, 5)
        XCTAssertEqual(q.candidates(max: 0), [])
    }

    /// Many looks over a long line cost what they take: the entries taken are dropped from the
    /// front (the line is compacted), so 10,000 sources started 8 at a time stay linear.
    func testLooksTakeTheFrontOfALongLine() {
        let n = 10_000
        var q = DueQueue(count: n)
        q.advance(to: 0)
        var started = 0
        while q.readyCount > 0 {
            let c = q.candidates(max: 32)
            XCTAssertEqual(c.first, started)
            for i in c.prefix(8) { q.started(i) }
            started += min(8, c.count)
        }
        XCTAssertEqual(started, n)
        for i in 0..<n { q.finished(i, next: Double(n - i)) }
        q.advance(to: Double(n))
        XCTAssertEqual(q.candidates(max: 3), [n - 1, n - 2, n - 3], "in the order of their times")
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
        XCTAssertEqual(q.candidates, [0, 2, 1], "ready again: at the back of the line")
        XCTAssertNil(q.soonest())
    }
}
