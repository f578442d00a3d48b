import XCTest
import TributaryCore

/// `interval: "auto"`: the choice from recorded histories of new items and from the servers'
/// hints, deterministic (no clock: `now` is given), and the hints read from response headers.
final class AdaptiveIntervalTests: XCTestCase {
    let auto = AdaptiveInterval(min: 300, max: 86400)
    /// 2026-11-30T00:00:00Z.
    let t0 = 1_795_996_800.0

    /// Times `gaps` apart (seconds, oldest first) ending at `end`.
    func history(_ gaps: [Double], end: Double) -> [Double] {
        var t = end
        var out = [t]
        for g in gaps.reversed() {
            t -= g
            out.insert(t, at: 0)
        }
        return out
    }

    func testRecordedHistories() {
        // A news site's last 20 items (minutes apart, as published on a weekday afternoon).
        let news = history([14, 9, 22, 31, 7, 18, 12, 25, 16, 11, 40, 8, 19, 13, 27, 10, 21, 15, 17].map { $0 * 60 }, end: t0 - 300)
        let n = auto.choose(arrivals: news, now: t0, hint: nil)
        XCTAssertEqual(n, .init(seconds: 480, why: "median gap 16m"))
        // A weekly podcast: 7 days apart, the last 2 days ago: 3.5 days, capped at 24h.
        let podcast = history(Array(repeating: 7 * 86400, count: 19), end: t0 - 2 * 86400)
        XCTAssertEqual(auto.choose(arrivals: podcast, now: t0, hint: nil), .init(seconds: 86400, why: "interval_max (median gap 7d)"))
        // A blog posting about twice a day whose last post is 5 days old: quiet counts.
        let blog = history(Array(repeating: 43200, count: 19), end: t0 - 5 * 86400)
        XCTAssertEqual(auto.choose(arrivals: blog, now: t0, hint: nil), .init(seconds: 86400, why: "interval_max (no new item for 5d)"))
        let wider = AdaptiveInterval(min: 60, max: 7 * 86400)
        XCTAssertEqual(wider.choose(arrivals: blog, now: t0, hint: nil), .init(seconds: 216000, why: "no new item for 5d"))
        // An even number of gaps: the mean of the middle two.
        XCTAssertEqual(auto.choose(arrivals: history([3600, 7200, 10800, 14400], end: t0), now: t0, hint: nil).seconds, 4500)
        // A status page that changes every few seconds: interval_min.
        let busy = history(Array(repeating: 5, count: 19), end: t0)
        XCTAssertEqual(auto.choose(arrivals: busy, now: t0, hint: nil), .init(seconds: 300, why: "interval_min (median gap 5s)"))
    }

    func testTooLittleHistoryStartsAtFifteenMinutesWithinTheBounds() {
        XCTAssertEqual(auto.choose(arrivals: [], now: t0, hint: nil), .init(seconds: 900, why: "no history yet"))
        XCTAssertEqual(auto.choose(arrivals: [t0 - 100, t0], now: t0, hint: nil).why, "no history yet")
        XCTAssertEqual(AdaptiveInterval(min: 3600, max: 7200).choose(arrivals: [], now: t0, hint: nil), .init(seconds: 3600, why: "no history yet"))
    }

    func testHintsAreAFloor() {
        let news = history(Array(repeating: 600, count: 19), end: t0)
        XCTAssertEqual(auto.choose(arrivals: news, now: t0, hint: IntervalHint(seconds: 7200, why: "ttl 2h")), .init(seconds: 7200, why: "ttl 2h"))
        // A hint below what the history gives changes nothing.
        let slow = history(Array(repeating: 14400, count: 19), end: t0)
        XCTAssertEqual(auto.choose(arrivals: slow, now: t0, hint: IntervalHint(seconds: 60, why: "ttl 1m")), .init(seconds: 7200, why: "median gap 4h"))
        // interval_max wins over a hint beyond it.
        XCTAssertEqual(auto.choose(arrivals: [], now: t0, hint: IntervalHint(seconds: 7 * 86400, why: "sy:updatePeriod weekly")),
                       .init(seconds: 86400, why: "interval_max (sy:updatePeriod weekly)"))
    }

    func testMergedKeepsTheNewestDistinctTimes() {
        func item(_ id: String, _ published: Double?) -> Item {
            var i = Item(id: id, source: "s", type: "feed", kind: "entry", title: id, fetched: Timestamp(seconds: t0))
            i.published = published.map { Timestamp(seconds: $0) }
            return i
        }
        let known = (0..<20).map { t0 - 3600 * Double(20 - $0) }
        // No published time, or one far ahead: when it was first seen. Equal times count once.
        let merged = AdaptiveInterval.merged(known, adding: [item("a", nil), item("b", t0 + 86400), item("c", t0 - 1800)], now: t0)
        XCTAssertEqual(merged.count, 20)
        XCTAssertEqual(merged.last, t0)
        XCTAssertTrue(merged.contains(t0 - 1800))
        XCTAssertFalse(merged.contains(known[0]))
        XCTAssertEqual(merged, merged.sorted())
        XCTAssertEqual(AdaptiveInterval.decodeArrivals(AdaptiveInterval.encode(arrivals: merged)), merged)
        let c = AdaptiveInterval.Choice(seconds: 5400, why: "median gap 3h")
        XCTAssertEqual(AdaptiveInterval.decodeChoice(AdaptiveInterval.encode(c)), c)
        XCTAssertEqual(AdaptiveInterval.decodeArrivals(Array("not json".utf8)), [])
    }

    func testJitter() {
        XCTAssertEqual(auto.jitter(for: 3600), 360)
        XCTAssertEqual(AdaptiveInterval(min: 300, max: 86400, jitter: 60).jitter(for: 3600), 60)
        XCTAssertEqual(AdaptiveInterval(min: 1, max: 86400, jitter: 600).jitter(for: 30), 30)
    }

    func testHintsFromHeaders() {
        let now = t0
        func hint(_ status: Int, _ headers: [(String, String)]) -> IntervalHint? {
            IntervalHint.of(status: status, headers: headers.map { (name: $0.0, value: $0.1) }, now: now)
        }
        XCTAssertEqual(hint(200, [("Cache-Control", "public, max-age=3600")]), IntervalHint(seconds: 3600, why: "Cache-Control max-age 1h"))
        XCTAssertEqual(hint(200, [("cache-control", "max-age=\"600\", must-revalidate")])?.seconds, 600)
        XCTAssertNil(hint(200, [("Cache-Control", "no-cache, max-age=3600")]))
        XCTAssertNil(hint(200, [("Cache-Control", "max-age=0")]))
        XCTAssertNil(hint(200, [("Cache-Control", "max-age=soon")]))
        XCTAssertEqual(hint(200, [("Date", "Mon, 30 Nov 2026 00:00:00 GMT"), ("Expires", "Mon, 30 Nov 2026 02:00:00 GMT")]),
                       IntervalHint(seconds: 7200, why: "Expires in 2h"))
        // Cache-Control takes precedence over Expires (RFC 9111 5.3).
        XCTAssertEqual(hint(200, [("Cache-Control", "max-age=60"), ("Expires", "Mon, 30 Nov 2026 02:00:00 GMT")])?.seconds, 60)
        XCTAssertNil(hint(200, [("Expires", "0")]))
        XCTAssertNil(hint(200, [("Expires", "Sun, 29 Nov 2026 00:00:00 GMT")]))  // in the past
        XCTAssertEqual(hint(429, [("Retry-After", "120")]), IntervalHint(seconds: 120, why: "Retry-After 2m"))
        XCTAssertEqual(hint(503, [("Retry-After", "Mon, 30 Nov 2026 03:00:00 GMT")])?.seconds, 10800)
        XCTAssertNil(hint(200, [("Retry-After", "120")]))  // only with 429 and 503
        XCTAssertEqual(hint(429, [("Retry-After", "7200"), ("Cache-Control", "max-age=60")])?.why, "Retry-After 2h")
        XCTAssertEqual(IntervalHint.shown(5430), "1h31m")
        XCTAssertEqual(IntervalHint.shown(45), "45s")
    }
}
