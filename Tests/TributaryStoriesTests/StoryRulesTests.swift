import XCTest
@testable import TributaryStories

/// The pairs the issue names: what matches and what never does, through StoryMatcher with an
/// in-memory store (Docs/stories.md#what-never-matches).
final class StoryRulesTests: XCTestCase {
    let t0: Int64 = 1_780_000_000

    /// Whether the second item is given the first one's story.
    func same(_ a: (String, String?), _ b: (String, String?), gap: Int64 = 1800, sources: (String, String) = ("Wire", "Paper"),
              options: StoryOptions = StoryOptions(), warmUp: [String] = []) -> Bool {
        let m = StoryMatcher(options: options, store: InMemoryStoryStore(retention: 30 * 86400))
        for (k, t) in warmUp.enumerated() { _ = m.assign(StoryItem(id: "warm:\(k)", url: "https://warm.example/\(k)", title: t, published: t0 - 86400, source: "warm"), now: t0 - 86400) }
        let first = m.assign(StoryItem(id: "a", url: a.1, title: a.0, published: t0, source: sources.0), now: t0)
        let second = m.assign(StoryItem(id: "b", url: b.1, title: b.0, published: t0 + gap, source: sources.1), now: t0 + gap)
        XCTAssertTrue(first.isFirst)
        return second.story == first.story
    }

    func title(_ t: String, _ host: String) -> (String, String?) { (t, "https://\(host)/\(abs(t.hashValue))") }

    func testCopiesMatch() {
        let wire = title("Senate passes $1.2 trillion infrastructure bill after marathon session", "wire.example")
        for copy in ["Senate passes $1.2 trillion infrastructure bill after marathon session - Example News",
                     "BREAKING: Senate Passes $1.2 Trillion Infrastructure Bill After Marathon Session",
                     "UPDATE 1-Senate passes $1.2 trillion infrastructure bill after marathon session",
                     "Senate approves $1.2 trillion infrastructure bill after all-night session | The Daily Ledger",
                     "Senate passes $1.2 trillion infrastructure bill",
                     "US Senate passes $1.2tn infrastructure package after marathon debate"] {
            XCTAssertTrue(same(wire, title(copy, "paper.example")), copy)
        }
        // Same page, any wrapper, whatever the title: one story.
        XCTAssertTrue(same(("Fed holds rates", "https://www.wire.example/markets/fed-123?id=9"),
                           ("Markets: the Fed decision", "https://news.google.com/news/url?sa=t&url=https%3A%2F%2Fwire.example%2Fmarkets%2Ffed-123%3Fid%3D9%26utm_source%3Dgn")))
        XCTAssertTrue(same(("Fed holds rates", "https://www.wire.example/a/fed-123"), ("Fed holds rates", "https://m.wire.example/a/fed-123/amp?amp=1#top"),
                           gap: 30 * 86400 - 100), "a URL match is not bounded by within (only by retention)")
        // Rewrites that keep the report's figures.
        XCTAssertTrue(same(title("US economy added 177,000 jobs in April, unemployment steady at 4.2%", "wire.example"),
                           title("US employers added 177,000 jobs in April; jobless rate holds at 4.2%", "paper.example")))
        // Title-case verb swaps are read with what sentence-case titles showed of the words.
        XCTAssertTrue(same(title("Knicks Beat Celtics 105-96 to Take 3-2 Series Lead", "a.example"),
                           title("Knicks Down Celtics 105-96 to Take 3-2 Series Lead", "b.example"),
                           warmUp: ["Police down a drone near the airport", "Rivals beat the deadline for bids"]))
    }

    func testADifferentNumberNeverMatches() {
        let pairs = [("Apple reports record third-quarter revenue, beats estimates", "Apple reports record fourth-quarter revenue, beats estimates"),
                     ("Bank of Canada holds key rate at 4%", "Bank of Canada holds key rate at 3.75%"),
                     ("Mortgage rates today: 30-year fixed rate at 6.19%", "Mortgage rates today: 30-year fixed rate at 6.20%"),
                     ("Storm kills three in Texas as tornadoes touch down", "Storm kills five in Texas as tornadoes touch down"),
                     ("Knicks beat Celtics 105-96 to take 3-2 series lead", "Knicks beat Celtics 99-95 to take 3-2 series lead"),
                     ("Apple releases iOS 19.4 with new Siri features", "Apple releases iOS 19.5 with new Siri features"),
                     ("Ukraine and Russia hold third round of peace talks in Istanbul", "Ukraine and Russia hold 4th round of peace talks in Istanbul")]
        for (a, b) in pairs {
            XCTAssertFalse(same(title(a, "a.example"), title(b, "b.example")), "\(a) / \(b)")
        }
    }

    func testADifferentNameTeamCompanyOrPlaceNeverMatches() {
        let pairs = [("Lakers beat Celtics 110-102 in overtime", "Lakers beat Warriors 110-102 in overtime"),
                     ("Microsoft to cut jobs in cloud unit", "Google to cut jobs in cloud unit"),
                     ("Ford recalls SUVs over rearview camera problem", "Honda recalls SUVs over rearview camera problem"),
                     ("Heavy snow warning issued for Denver as storm approaches", "Heavy snow warning issued for Minneapolis as storm approaches"),
                     ("Man charged with murder after stabbing in Leeds city centre", "Man charged with murder after stabbing in Bradford city centre"),
                     ("Heavy Snow Warning Issued for Denver", "Heavy Snow Warning Issued for Boston"),
                     ("Senator Delgado leads in new Ohio poll", "Senator Harmon leads in new Ohio poll")]
        for (a, b) in pairs {
            XCTAssertFalse(same(title(a, "a.example"), title(b, "b.example")), "\(a) / \(b)")
        }
    }

    func testOppositeDirectionsLevelsAndFollowUpsNeverMatch() {
        let pairs = [("Dow rises 300 points as tech stocks rally", "Dow falls 300 points as tech stocks slide"),
                     ("Fed raises rates and signals patience", "Fed cuts rates and signals patience"),
                     ("Met Office issues yellow warning for thunderstorms in London", "Met Office issues amber warning for thunderstorms in London"),
                     ("EU fines Meta over pay or consent model", "Meta to appeal EU fine over pay or consent model"),
                     ("Prime Minister Hollis faces confidence vote", "Prime Minister Hollis survives confidence vote"),
                     ("Senate passes $1.2 trillion infrastructure bill", "What's in the $1.2 trillion infrastructure bill the Senate passed")]
        for (a, b) in pairs {
            XCTAssertFalse(same(title(a, "a.example"), title(b, "b.example")), "\(a) / \(b)")
        }
    }

    func testRecurringHeadlinesNeverMatch() {
        let brief = "Morning briefing: what you need to know today"
        // Days apart: outside within.
        XCTAssertFalse(same(title(brief, "a.example"), title(brief, "b.example"), gap: 4 * 86400))
        // Inside within, but one site (or one source) under another link: a new edition.
        XCTAssertFalse(same((brief, "https://news.example/briefing/2026-05-04"), (brief, "https://news.example/briefing/2026-05-05"), gap: 86400,
                            sources: ("News", "News")))
        XCTAssertFalse(same((brief, "https://news.example/briefing/2026-05-04"),
                            (brief + " - News", "https://news.google.com/news/url?url=https%3A%2F%2Fnews.example%2Fbriefing%2F2026-05-05"), gap: 86400,
                            sources: ("News", "Google News")))
        XCTAssertFalse(same((brief, nil), (brief, nil), gap: 86400, sources: ("News", "News")))
        // Too short to tell anything: "Morning briefing" alone matches only by URL.
        XCTAssertFalse(same(title("Morning briefing", "a.example"), title("Morning briefing", "b.example"), gap: 600))
        // The same text from two outlets within the window is one story.
        XCTAssertTrue(same(title(brief, "a.example"), title(brief, "b.example"), gap: 3600))
    }

    func testWithinAndMatchOptions() {
        let a = title("Volcano erupts in Iceland for the ninth time since December", "a.example")
        let b = title("Iceland volcano erupts for ninth time since December", "b.example")
        XCTAssertTrue(same(a, b, gap: 20 * 3600))
        XCTAssertFalse(same(a, b, gap: 20 * 3600, options: StoryOptions(within: 12 * 3600)))
        XCTAssertFalse(same(a, b, options: StoryOptions(matchTitle: false)))
        let url = "https://www.example.com/a"
        XCTAssertFalse(same(("One title", url), ("Another headline altogether", url), options: StoryOptions(matchURL: false)))
        XCTAssertTrue(same(("One title", url), ("Another headline altogether", url), options: StoryOptions(matchTitle: false)))
    }

    func testScopeTags() {
        let m = StoryMatcher(options: StoryOptions(scope: .tags), store: InMemoryStoryStore(retention: 86400))
        let t = "Volcano erupts in Iceland for the ninth time since December"
        let a = m.assign(StoryItem(id: "a", url: "https://a.example/1", title: t, published: t0, tags: ["world"], source: "A"), now: t0)
        let b = m.assign(StoryItem(id: "b", url: "https://b.example/1", title: t, published: t0, tags: ["science"], source: "B"), now: t0)
        let c = m.assign(StoryItem(id: "c", url: "https://c.example/1", title: t, published: t0, tags: ["europe", "world"], source: "C"), now: t0)
        let d = m.assign(StoryItem(id: "d", url: "https://a.example/1", title: t, published: t0, tags: [], source: "D"), now: t0)
        XCTAssertTrue(b.isFirst, "no shared tag: another story")
        XCTAssertEqual(c.story, a.story)
        XCTAssertTrue(d.isFirst, "without tags nothing is shared, not even the URL")
    }
}
