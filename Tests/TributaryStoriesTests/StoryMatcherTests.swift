import Foundation
import XCTest
@testable import TributaryStories

/// Story ids, first copies, the same item seen again, and looking up without remembering.
final class StoryMatcherTests: XCTestCase {
    let t0: Int64 = 1_780_000_000

    func matcher(_ options: StoryOptions = StoryOptions()) -> StoryMatcher {
        StoryMatcher(options: options, store: InMemoryStoryStore(retention: 7 * 86400))
    }

    func testStoryIDForm() throws {
        let id = StoryID(0x00AB_CDEF_0123_4567)
        XCTAssertEqual(id.description, "story:00abcdef01234567")
        XCTAssertEqual(StoryID("story:00abcdef01234567"), id)
        XCTAssertEqual(StoryID("story:00ABCDEF01234567"), id)
        XCTAssertNil(StoryID("story:abc"))
        XCTAssertNil(StoryID("item:00abcdef01234567"))
        let a = matcher().assign(StoryItem(id: "x", url: "https://example.com/a", title: "Anything at all here", published: t0), now: t0)
        XCTAssertNotNil(a.story.description.wholeMatch(of: /story:[0-9a-f]{16}/))
    }

    func testTheFirstItemGivesAStableIDWhoeverSeesIt() {
        // Two processes (two matchers, two stores) that see the same first item give it one id:
        // the hash of its canonical URL, or of its id without a URL.
        let item = StoryItem(id: "feed:1", url: "https://www.example.com/a?utm_source=rss", title: "Volcano erupts in Iceland again", published: t0)
        let a = matcher().assign(item, now: t0), b = matcher().assign(item, now: t0 + 99)
        XCTAssertEqual(a.story, b.story)
        XCTAssertEqual(a.story, StoryID(URLCanonicalizer.canonicalize("https://example.com/a")!.hash))
        let noURL = StoryItem(id: "feed:2", title: "Volcano erupts in Iceland again", published: t0)
        XCTAssertEqual(matcher().assign(noURL, now: t0).story, StoryID(stableHash("feed:2", seed: HashSeed.itemID)))
        // The same copy of another URL, seen first elsewhere, makes another id.
        let copy = StoryItem(id: "feed:3", url: "https://m.example.com/a/amp", title: "Volcano erupts in Iceland again", published: t0)
        XCTAssertEqual(matcher().assign(copy, now: t0).story, a.story)
    }

    func testFirstCopyAndLaterCopies() {
        let m = matcher()
        let items = [
            StoryItem(id: "1", url: "https://wire.example/world/volcano-1", title: "Volcano erupts in Iceland for the ninth time since December", published: t0, source: "Wire"),
            StoryItem(id: "2", url: "https://wire.example/world/volcano-1?utm_source=rss", title: "BREAKING: Volcano erupts in Iceland", published: t0 + 60, source: "Portal"),
            StoryItem(id: "3", url: "https://paper.example/volcano", title: "Iceland Volcano Erupts for Ninth Time Since December | Paper", published: t0 + 900, source: "Paper"),
            StoryItem(id: "4", url: "https://other.example/quake", title: "Strong earthquake shakes southern Italy", published: t0 + 1000, source: "Other"),
        ]
        let r = items.map { m.assign($0, now: $0.published!) }
        XCTAssertEqual(r.map(\.isFirst), [true, false, false, true])
        XCTAssertEqual(r.map(\.match), [.none, .url, .title, .none])
        XCTAssertEqual(r[1].story, r[0].story)
        XCTAssertEqual(r[2].story, r[0].story)
        XCTAssertNotEqual(r[3].story, r[0].story)
    }

    func testTheSameItemSeenAgainGetsItsOwnAnswer() {
        // An item the engine did not record as emitted (a sink failed) comes again: it is still
        // its story's first, not a copy of itself.
        let m = matcher()
        let item = StoryItem(id: "1", url: "https://wire.example/a", title: "Volcano erupts in Iceland again today", published: t0)
        let first = m.assign(item, now: t0)
        let again = m.assign(item, now: t0 + 3600)
        XCTAssertEqual(again, StoryAssignment(story: first.story, isFirst: true, match: .sameItem))
        let copy = m.assign(StoryItem(id: "2", url: "https://wire.example/a#x", title: "x", published: t0), now: t0 + 7200)
        XCTAssertFalse(copy.isFirst)
        XCTAssertEqual(m.assign(StoryItem(id: "2", url: "https://wire.example/a#x", title: "x", published: t0), now: t0 + 9000),
                       StoryAssignment(story: first.story, isFirst: false, match: .sameItem))
    }

    func testMatchWithoutRememberingChangesNothing() {
        let store = InMemoryStoryStore(retention: 86400)
        let m = StoryMatcher(store: store)
        let a = StoryItem(id: "1", url: "https://wire.example/a", title: "Volcano erupts in Iceland again today", published: t0)
        let b = StoryItem(id: "2", url: "https://paper.example/b", title: "Volcano erupts in Iceland again today", published: t0)
        let (dry, prepared) = m.match(a, now: t0)
        XCTAssertTrue(dry.isFirst)
        XCTAssertEqual(store.count, 0)
        XCTAssertTrue(m.match(b, now: t0).0.isFirst, "a dry run remembered nothing")
        m.remember(prepared)
        XCTAssertEqual(store.count, 1)
        XCTAssertEqual(m.match(b, now: t0).0, StoryAssignment(story: dry.story, isFirst: false, match: .title))
    }

    func testAStoreSharedByTwoMatchersIsOneMemory() {
        // Two matchers over one store (what a shared state gives two workers): a copy seen by
        // the second joins the story the first opened.
        let store = InMemoryStoryStore(retention: 86400)
        let w1 = StoryMatcher(store: store), w2 = StoryMatcher(store: store)
        let a = w1.assign(StoryItem(id: "1", url: "https://wire.example/a", title: "Volcano erupts in Iceland for the ninth time", published: t0), now: t0)
        let b = w2.assign(StoryItem(id: "2", url: "https://paper.example/b", title: "Volcano erupts in Iceland for the ninth time - Paper", published: t0), now: t0)
        XCTAssertEqual(b, StoryAssignment(story: a.story, isFirst: false, match: .title))
    }

    func testTwoThreadsShareAStore() {
        // Each worker its own matcher (a matcher is used by one thread at a time), one store:
        // every item gets a story, the copies of one story on both threads end in one story
        // when one thread's first copy was remembered before the other looked.
        final class Results: @unchecked Sendable {
            let lock = NSLock()
            var byWorker = [[StoryAssignment]](repeating: [], count: 2)
        }
        let store = InMemoryStoryStore(retention: 86400)
        let titles = (0..<2000).map { "Storm number \($0) hits the coast overnight" }
        let shared = Results()
        let t0 = self.t0
        DispatchQueue.concurrentPerform(iterations: 2) { w in
            let m = StoryMatcher(store: store)
            var out: [StoryAssignment] = []
            for (k, t) in titles.enumerated() {
                out.append(m.assign(StoryItem(id: "w\(w):\(k)", url: "https://site\(w).example/\(k)", title: t, published: t0 + Int64(k), source: "S\(w)"), now: t0 + Int64(k)))
            }
            shared.lock.withLock { shared.byWorker[w] = out }
        }
        let results = shared.byWorker
        XCTAssertEqual(store.count, 4000)
        var firsts = 0
        for k in 0..<titles.count {
            firsts += (results[0][k].isFirst ? 1 : 0) + (results[1][k].isFirst ? 1 : 0)
            if !results[0][k].isFirst || !results[1][k].isFirst { XCTAssertEqual(results[0][k].story, results[1][k].story, titles[k]) }
        }
        XCTAssertGreaterThanOrEqual(firsts, titles.count)
    }

    func testRecordsOfCopiesExtendTheStory() {
        // A copy's own title is remembered: a later copy that matches it (and not the first)
        // still joins.
        let m = matcher()
        let a = m.assign(StoryItem(id: "1", url: "https://a.example/1", title: "Senate passes $1.2 trillion infrastructure bill after marathon session", published: t0), now: t0)
        let b = m.assign(StoryItem(id: "2", url: "https://b.example/2", title: "Senate passes $1.2 trillion infrastructure package", published: t0 + 60), now: t0 + 60)
        let c = m.assign(StoryItem(id: "3", url: "https://c.example/3", title: "US Senate passes $1.2 trillion infrastructure package", published: t0 + 120), now: t0 + 120)
        XCTAssertEqual([b.story, c.story], [a.story, a.story])
    }

    func testItemsWithoutTitleOrURL() {
        let m = matcher()
        let a = m.assign(StoryItem(id: "1"), now: t0)
        let b = m.assign(StoryItem(id: "2"), now: t0)
        XCTAssertTrue(a.isFirst && b.isFirst)
        XCTAssertNotEqual(a.story, b.story)
        XCTAssertEqual(m.assign(StoryItem(id: "1"), now: t0 + 5).match, .sameItem)
    }

    func testOptionsDefaults() {
        let o = StoryOptions()
        XCTAssertEqual([o.matchURL, o.matchTitle], [true, true])
        XCTAssertEqual(o.within, 72 * 3600)
        XCTAssertEqual(o.scope, .all)
    }
}
