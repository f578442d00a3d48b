import XCTest
@testable import TributaryCore

/// `IDSet`, the run's delivered ids (its own open-addressing table of 128-bit hashes), answers
/// as a `Set<String>` of the ids does, through every doubling, with the key 0 and with keys
/// that share their slot.
final class IDSetTests: XCTestCase {
    func testAnswersAsASetOfTheStringsThroughEveryDoubling() {
        var ids = IDSet()
        var strings = Set<String>()
        var rng = SystemRandomNumberGenerator()
        var order: [String] = []
        // 200,000 inserts of 150,000 distinct ids: every id of the first 50,000 comes twice.
        for i in 0..<150_000 { order.append("id-\(i)-\(rng.next() % 1000)") }
        order += order.prefix(50_000).shuffled()
        for (n, id) in order.enumerated() {
            XCTAssertEqual(ids.contains(id), strings.contains(id), "before insert #\(n)")
            XCTAssertEqual(ids.insert(id), strings.insert(id).inserted, "insert #\(n) of \(id)")
            if n % 9973 == 0 { XCTAssertEqual(ids.count, strings.count) }
        }
        XCTAssertEqual(ids.count, 150_000)
        XCTAssertEqual(strings.count, 150_000)
        for i in 0..<1000 { XCTAssertFalse(ids.contains("never-\(i)")) }
        for id in order.suffix(1000) { XCTAssertTrue(ids.contains(id)) }
    }

    func testFillsToSevenEighthsBeforeItDoubles() {
        var ids = IDSet()
        XCTAssertEqual(ids.capacity, 0, "nothing allocated before the first insert")
        var grownAt: [Int: Int] = [:]  // capacity -> count at which it was reached
        var last = 0
        for i in 0..<120_000 {
            XCTAssertTrue(ids.insert(key: UInt128(i + 1) &* 0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835))
            if ids.capacity != last {
                grownAt[ids.capacity] = ids.count
                last = ids.capacity
            }
        }
        XCTAssertEqual(grownAt[64], 1)
        XCTAssertEqual(grownAt[128], 57, "56 = 7/8 of 64 slots fit before the first doubling")
        XCTAssertEqual(grownAt[131_072], 57_345)
        XCTAssertEqual(grownAt[262_144], 114_689, "100,000 ids fit in 131,072 slots (2 MiB)")
    }

    func testTheZeroKeyAndKeysThatShareASlot() {
        var ids = IDSet()
        XCTAssertFalse(ids.contains(key: 0))
        XCTAssertTrue(ids.insert(key: 0))
        XCTAssertFalse(ids.insert(key: 0))
        XCTAssertTrue(ids.contains(key: 0))
        // Keys with the same low bits: one slot, probed past in order, and the table's end wraps.
        let slotMates = (1...40).map { UInt128($0) << 64 | 63 }
        for k in slotMates { XCTAssertTrue(ids.insert(key: k)) }
        for k in slotMates { XCTAssertTrue(ids.contains(key: k)); XCTAssertFalse(ids.insert(key: k)) }
        XCTAssertFalse(ids.contains(key: UInt128(41) << 64 | 63))
        XCTAssertFalse(ids.contains(key: 63))
        XCTAssertEqual(ids.count, 41)
        ids.removeAll()
        XCTAssertEqual(ids.count, 0)
        XCTAssertFalse(ids.contains(key: 0))
        for k in slotMates { XCTAssertFalse(ids.contains(key: k)) }
        XCTAssertEqual(ids.capacity, 64, "removeAll keeps the table")
        XCTAssertTrue(ids.insert(key: slotMates[5]))
        XCTAssertTrue(ids.insert("an id"))
        XCTAssertTrue(ids.contains("an id"))
        XCTAssertFalse(ids.contains("another id"))
    }
}
