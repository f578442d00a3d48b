import Foundation
import XCTest
import TributaryCore
import TributaryTestSupport

/// The binary under test (the release build in `make test`) run again and again: every source
/// type against one loopback server through real libcurl transfers, and the demo from its
/// recordings. Every run must exit 0 with exactly the same items. The crash and the silent
/// item loss that the optimizer caused (Tests/CompilerBugs/tuple-await-dse) showed in about
/// half of such runs. `STRESS_RUNS` sets the count (`make stress` runs many more).
final class StressTests: XCTestCase {
    static var runs: Int { Int(ProcessInfo.processInfo.environment["STRESS_RUNS"] ?? "") ?? 200 }

    static func fixture(_ path: String) -> String {
        (try? String(contentsOfFile: BinaryRunner.packageRoot + "/Tests/Fixtures/" + path, encoding: .utf8)) ?? ""
    }

    /// The OpenWeatherMap fixture with the city id and name taken from the query, so each place
    /// is its own item (`owm:<city id>:<dt>`).
    static func weather(for query: String) -> String {
        let id = 1000 + abs(query.hashValue % 9000)
        return #"{"coord":{"lon":10.99,"lat":44.34},"weather":[{"id":501,"main":"Rain","description":"moderate rain","icon":"10d"}],"main":{"temp":18.5,"humidity":64},"wind":{"speed":0.62,"deg":349},"dt":1795956000,"sys":{"country":"IT"},"timezone":7200,"id":\#(id),"name":"Place \#(id)","cod":200}"#
    }

    /// Items each source must deliver, by source name (from the fixtures' contents).
    static let expected: [String: Int] = [
        "json-one": 4, "json-many": 12, "youtube": 4, "feed": 3, "channels": 5,
        "owm": 3, "meteo": 3, "dianping": 4, "yelp": 3, "exec": 3,
    ]

    func testEverySourceTypeAgainstLoopbackGivesTheExactItemsEveryRun() throws {
        let server = try LoopbackServer { req in
            let p = req.path
            if p.hasPrefix("/data/2.5/weather") { return .text(Self.weather(for: p)) }
            if p.hasPrefix("/v1/forecast") { return .text(Self.fixture("open-meteo/current-berlin.json")) }
            if p.hasPrefix("/youtube/v3/search") { return .text(Self.fixture("youtube.search/search-mixed.json")) }
            if p.hasPrefix("/feed.xml") { return .text(Self.fixture("feed/rss2-blog.xml"), contentType: "application/rss+xml") }
            if p.hasPrefix("/channels.json") { return .text(Self.fixture("channels/list.json")) }
            if p.hasPrefix("/v1/business/find_businesses") { return .text(Self.fixture("dianping/find_businesses_ok.json")) }
            if p.hasPrefix("/v3/businesses/search") { return .text(Self.fixture("yelp/search_ok.json")) }
            if p.hasPrefix("/api/") {
                let page = p.split(separator: "/").last.map(String.init) ?? "x"
                let items = (1...4).map { #"{"id":"\#(page)-\#($0)","title":"Item \#($0) of \#(page)"}"# }
                return .text(#"{"data":[\#(items.joined(separator: ","))]}"#)
            }
            return .text("{}", status: 404)
        }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let base = server.baseURL
        let config = dir.write("stress.json", #"""
        {
          "http": {"concurrency": 16, "per_host": 16},
          "sources": [
            {"name": "json-one", "type": "json", "url": "\#(base)/api/one", "items": "data", "fields": {"id": "id", "title": "title"}},
            {"name": "json-many", "type": "json", "urls": ["\#(base)/api/a", "\#(base)/api/b", "\#(base)/api/c"], "items": "data", "fields": {"id": "id", "title": "title"}},
            {"name": "youtube", "type": "youtube.search", "query": "swift & roll", "api_key": "k", "base_url": "\#(base)"},
            {"name": "feed", "type": "feed", "url": "\#(base)/feed.xml"},
            {"name": "channels", "type": "channels", "url": "\#(base)/channels.json"},
            {"name": "owm", "type": "openweathermap", "api_key": "k", "cities": ["Zocca,IT", "Berlin,DE"], "city_ids": [3163858], "base_url": "\#(base)"},
            {"name": "meteo", "type": "open-meteo", "coordinates": [{"lat": 52.52, "lon": 13.41}, {"lat": -19.92, "lon": -43.94}, {"lat": 35.68, "lon": 139.69}], "base_url": "\#(base)"},
            {"name": "dianping", "type": "dianping", "app_key": "k", "app_secret": "s", "params": {"city": "上海"}, "base_url": "\#(base)/"},
            {"name": "yelp", "type": "yelp", "api_key": "k", "location": "Berlin", "base_url": "\#(base)"},
            {"name": "exec", "type": "exec", "command": ["/bin/sh", "-c", "printf '%s\\n' '{\"id\":\"1\",\"title\":\"a\"}' '{\"id\":\"2\",\"title\":\"b\"}' '{\"id\":\"3\",\"title\":\"c\"}'"]}
          ]
        }
        """#)
        var reference: [String]? = nil
        for run in 1...Self.runs {
            let r = try BinaryRunner.run(["run", "-c", config, "--no-state", "--jsonl", "--quiet"], timeout: 60)
            XCTAssertEqual(r.status, 0, "run \(run): \(r.stderr)")
            var counts: [String: Int] = [:]
            for line in r.stdoutLines {
                guard let source = try? JSONNode(JSONParser.parse(line))["source"].string() else {
                    XCTFail("run \(run): not an item line: \(line)")
                    continue
                }
                counts[source, default: 0] += 1
            }
            XCTAssertEqual(counts, Self.expected, "run \(run): \(r.stderr)")
            let items = Self.normalized(r.stdoutLines)
            if let reference, let d = Self.firstDifference(items, reference) { XCTFail("run \(run) differs from run 1: \(d)"); break }
            if reference == nil { reference = items }
            if counts != Self.expected || r.status != 0 { break }  // one failure says enough
        }
    }

    func testTheDemoFromRecordingsGivesTheSameItemsEveryRun() throws {
        let demo = BinaryRunner.packageRoot + "/Sources-config/demo.json"
        var reference: [String]? = nil
        for run in 1...Self.runs {
            let r = try BinaryRunner.run(["run", "-c", demo, "--no-state", "--jsonl", "--quiet"], timeout: 60)
            XCTAssertEqual(r.status, 0, "run \(run): \(r.stderr)")
            XCTAssertEqual(r.stdoutLines.count, Demo.itemCount, "run \(run): \(r.stderr)")
            // A video found by both the channel feed and the search is emitted once, by
            // whichever source delivers first: the ids are exact, the winning source is not.
            let items = r.stdoutLines.compactMap { try? JSONNode(JSONParser.parse($0))["id"].string() }.sorted()
            if let reference, let d = Self.firstDifference(items, reference) { XCTFail("run \(run) differs from run 1: \(d)"); break }
            if reference == nil { reference = items }
            if r.status != 0 || r.stdoutLines.count != 37 { break }
        }
    }

    /// The first line that is not the same in both, shown briefly.
    static func firstDifference(_ a: [String], _ b: [String]) -> String? {
        if a == b { return nil }
        for (x, y) in zip(a, b) where x != y { return "got \(x.prefix(300)) where run 1 had \(y.prefix(300))" }
        return "\(a.count) lines where run 1 had \(b.count)"
    }

    /// The lines sorted, without `fetched` (the only field that changes between runs).
    static func normalized(_ lines: [String]) -> [String] {
        lines.map { $0.replacingOccurrences(of: #","fetched":"[^"]*""#, with: "", options: .regularExpression) }.sorted()
    }
}
