import XCTest
@testable import TributaryStories

/// The in-memory store: a multimap bounded by retention and size.
final class InMemoryStoryStoreTests: XCTestCase {
    func record(_ n: Int, seen: Int64) -> StoryRecord {
        StoryRecord(story: StoryID(UInt64(n)), item: UInt64(n), identity: UInt64(n) &* 0x9E37_79B9_7F4A_7C15, hasURL: true, origin: 0, host: 0,
                    published: seen, seen: seen, first: true, title: TitleSignature(), tags: [])
    }

    func key(_ n: Int) -> UInt64 { fmix64(UInt64(n) &+ 1) }

    func stories(_ s: InMemoryStoryStore, _ keys: [UInt64]) -> [UInt64] { s.candidates(keys: keys).map(\.story.value).sorted() }

    func testFilesAndFindsUnderEachKey() {
        let s = InMemoryStoryStore(retention: 1000)
        s.insert(record(1, seen: 10), keys: [key(1), key(100)])
        s.insert(record(2, seen: 11), keys: [key(2), key(100)])
        XCTAssertEqual(stories(s, [key(1)]), [1])
        XCTAssertEqual(stories(s, [key(100)]), [1, 2])
        XCTAssertEqual(stories(s, [key(1), key(100), key(2)]), [1, 2], "each record once")
        XCTAssertEqual(stories(s, [key(3)]), [])
        XCTAssertEqual(s.candidates(keys: [key(2)]).first, record(2, seen: 11))
    }

    func testRetentionForgetsWholeChunksOfOldRecords() {
        let s = InMemoryStoryStore(retention: 100)
        let n = InMemoryStoryStore.chunkSize * 3
        for i in 0..<n { s.insert(record(i, seen: Int64(i / InMemoryStoryStore.chunkSize) * 1000), keys: [key(i)]) }
        XCTAssertEqual(s.count, n - InMemoryStoryStore.chunkSize * 2, "chunks 0 and 1 were older than the retention when chunk 2 began")
        XCTAssertEqual(stories(s, [key(0)]), [], "forgotten")
        XCTAssertEqual(stories(s, [key(n - 1)]), [UInt64(n - 1)])
        s.expire(now: 10_000)
        XCTAssertEqual(s.count, 0)
        XCTAssertEqual(stories(s, [key(n - 1)]), [])
        s.insert(record(7, seen: 10_000), keys: [key(7)])
        XCTAssertEqual(stories(s, [key(7)]), [7], "works again after forgetting everything")
    }

    func testMaxRecordsBoundsMemoryWhateverTheRetention() {
        let c = InMemoryStoryStore.chunkSize
        let s = InMemoryStoryStore(retention: 1 << 40, maxRecords: c)
        for i in 0..<(c * 5) { s.insert(record(i, seen: 1), keys: [key(i), key(i + 1)]) }
        XCTAssertLessThanOrEqual(s.count, 2 * c)
        XCTAssertLessThanOrEqual(s.indexCapacity, 1 << 17, "the index is rebuilt for what is remembered, not for all ever inserted")
        XCTAssertEqual(stories(s, [key(c * 5)]), [UInt64(c * 5 - 1)])
    }

    func testAKeyKeepsItsMostRecentRecords() {
        let s = InMemoryStoryStore(retention: 1000, maxPerKey: 4)
        for i in 0..<10 { s.insert(record(i, seen: Int64(i)), keys: [key(999), key(i)]) }
        XCTAssertEqual(stories(s, [key(999)]), [6, 7, 8, 9])
        XCTAssertEqual(stories(s, [key(1)]), [1], "its own key still finds an evicted one")
    }

    func testBandKeysStopAtMaxCandidatesButTheFirstKeysDoNot() {
        let s = InMemoryStoryStore(retention: 1000, maxCandidates: 3, maxPerKey: 100)
        for i in 0..<10 { s.insert(record(i, seen: Int64(i)), keys: [key(500)]) }
        s.insert(record(42, seen: 1), keys: [key(42)])
        XCTAssertEqual(s.candidates(keys: [key(500)]).count, 10, "a first key brings all its records")
        XCTAssertEqual(stories(s, [key(1), key(2), key(3), key(500)]), [7, 8, 9], "a band key brings its most recent, up to maxCandidates")
        XCTAssertEqual(stories(s, [key(42), key(1), key(2), key(500)]), [8, 9, 42], "the first keys' records count toward the cap")
    }

    func testGrowingAndRenumberingKeepEveryLiveRecord() {
        let s = InMemoryStoryStore(retention: 1 << 40)
        let n = 50_000
        for i in 0..<n { s.insert(record(i, seen: 1), keys: [key(i), key(i + n)]) }
        s.lock.withLock { _ in s.rebuildLocked(renumber: true) }
        for i in stride(from: 0, to: n, by: 997) {
            XCTAssertEqual(stories(s, [key(i)]), [UInt64(i)], "\(i)")
            XCTAssertEqual(stories(s, [key(i + n)]), [UInt64(i)], "\(i)")
        }
        XCTAssertGreaterThanOrEqual(s.indexCapacity, 4 * n)
    }
}
