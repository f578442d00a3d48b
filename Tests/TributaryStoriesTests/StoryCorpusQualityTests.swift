import Foundation
import XCTest
@testable import TributaryStories

/// The labelled corpus (Tests/Fixtures/stories, NOTES.md there) through the matcher with the
/// default options, items in the order they were fetched: pairwise precision and recall.
final class StoryCorpusQualityTests: XCTestCase {
    struct Item {
        var id, source, title, truth, edit: String
        var url: String?
        var published: Int64?
        var fetched: Int64
        var tags: [String]
        var family: String?
        var differsBy: String?
    }

    static let corpusPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/stories/corpus.json").path

    static func load() throws -> [Item] {
        let data = try Data(contentsOf: URL(fileURLWithPath: corpusPath))
        let doc = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        let items = try XCTUnwrap(doc["items"] as? [[String: Any]])
        return try items.map { o in
            Item(id: try XCTUnwrap(o["id"] as? String), source: try XCTUnwrap(o["source"] as? String), title: try XCTUnwrap(o["title"] as? String),
                 truth: try XCTUnwrap(o["truth"] as? String), edit: try XCTUnwrap(o["edit"] as? String), url: o["url"] as? String,
                 published: (o["published"] as? String).flatMap(seconds), fetched: try XCTUnwrap((o["fetched"] as? String).flatMap(seconds)),
                 tags: o["tags"] as? [String] ?? [], family: o["family"] as? String, differsBy: o["differs_by"] as? String)
        }
    }

    static func seconds(_ s: String) -> Int64? {
        let f = ISO8601DateFormatter()
        return f.date(from: s).map { Int64($0.timeIntervalSince1970) }
    }

    func testTheCorpusHasTheMakeupItClaims() throws {
        let items = try Self.load()
        XCTAssertGreaterThanOrEqual(items.count, 1500)
        XCTAssertGreaterThanOrEqual(Set(items.map(\.truth)).count, 400)
        XCTAssertGreaterThanOrEqual(Set(items.map(\.source)).count, 40)
        let kinds = Set(items.compactMap(\.differsBy))
        XCTAssertTrue(kinds.isSuperset(of: ["number", "name", "recurring", "event", "word", "outlet"]), "\(kinds)")
        let edits = Dictionary(grouping: items, by: \.edit).mapValues(\.count)
        XCTAssertGreaterThan(edits["light"] ?? 0, 50)
        XCTAssertGreaterThan(edits["rewrite"] ?? 0, 30)
        // The URL and title variants the issue lists are all there.
        let urls = items.compactMap(\.url).joined(separator: "\n")
        for form in ["utm_source=", "news.google.com/news/url?", "l.facebook.com/l.php?u=", "://m.", "/amp", "?amp=1", ".amp", "#0", "#3", "mc_cid=",
                     "cdn.ampproject.org/c/s/", "google.com/amp/s/", "ocid=rss"] {
            XCTAssertTrue(urls.contains(form), form)
        }
        let titles = items.map(\.title).joined(separator: "\n")
        for form in ["BREAKING: ", "UPDATE 1-", " - ", " | ", " — ", " – ", "WATCH: "] { XCTAssertTrue(titles.contains(form), form) }
    }

    func testPrecisionAndRecallOnTheCorpus() throws {
        let items = try Self.load()
        let matcher = StoryMatcher(store: InMemoryStoryStore(retention: 30 * 86400))
        let stories = items.map { i in
            matcher.assign(StoryItem(id: i.id, url: i.url, title: i.title, published: i.published, tags: i.tags, source: i.source), now: i.fetched).story
        }
        let all = PairwiseScore(truth: items.map(\.truth), predicted: stories)
        let copies = items.indices.filter { items[$0].edit != "rewrite" }
        let withoutRewrites = PairwiseScore(truth: copies.map { items[$0].truth }, predicted: copies.map { stories[$0] })
        print("stories corpus, \(items.count) items in \(Set(items.map(\.truth)).count) stories: \(all)")
        print("  copies with the same or a lightly edited headline (\(copies.count) items): \(withoutRewrites)")

        XCTAssertGreaterThanOrEqual(all.precision, 0.99, "\(all)")
        XCTAssertGreaterThanOrEqual(withoutRewrites.recall, 0.95, "\(withoutRewrites)")
        // Rewrites by another desk are beyond title matching; the floor catches regressions.
        XCTAssertGreaterThanOrEqual(all.recall, 0.90, "\(all)")

        // Inside the families that differ by a number, a name or a date, nothing merges.
        var merged: [String] = []
        var byStory: [StoryID: [Int]] = [:]
        for (k, s) in stories.enumerated() { byStory[s, default: []].append(k) }
        for (_, ks) in byStory {
            let truths = Set(ks.map { items[$0].truth })
            guard truths.count > 1 else { continue }
            for k in ks where ["number", "name", "recurring"].contains(items[k].differsBy ?? "") { merged.append("\(items[k].family!): \(items[k].title)") }
        }
        XCTAssertEqual(merged, [], "items of must-never-merge families joined another story")
    }
}
