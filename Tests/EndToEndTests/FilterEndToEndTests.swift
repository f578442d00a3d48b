import Foundation
import XCTest
import TributaryCore
import TributaryTestSupport

/// Filters through the real binary: a source's filter decides what it emits (and what is
/// recorded), a sink's filter what that sink receives, `defaults.filter` applies to sources
/// without their own, and a rule that cannot work is a config error.
final class FilterEndToEndTests: XCTestCase {
    static let body = #"""
    {"items":[
      {"id":1,"title":"Swift concurrency","tags":["swift"],"views":10,"url":"https://e.org/v/1","published":"2026-11-30T10:00:00Z"},
      {"id":2,"title":"Rust news","tags":["rust"],"views":500,"url":"https://e.org/v/2","published":"2026-11-30T11:00:00Z"},
      {"id":3,"title":"swift shorts","views":7,"url":"https://e.org/shorts/3","published":"2026-11-30T12:00:00Z"},
      {"id":4,"title":"Old Swift","views":900,"url":"https://e.org/v/4","published":"2020-01-01T00:00:00Z"}
    ]}
    """#

    func config(_ dir: TempDir, url: String, filter: String?, sinks: String = #"[{"type":"jsonl","path":"out/items.jsonl"}]"#, defaults: String = "") -> String {
        dir.write("tributary.json", #"""
        {\#(defaults)"state":{"path":"state.sqlite"},"sources":[{"name":"api","type":"json","url":"\#(url)","items":"items",
          "fields":{"id":"id","title":"title","url":"url","tags":"tags","published":"published","data":{"views":"views"}}\#(filter.map { #","filter":"# + $0 } ?? "")}],
         "sinks":\#(sinks)}
        """#)
    }

    func ids(_ text: String?) -> [String] {
        (text ?? "").split(separator: "\n").compactMap { (try? JSONParser.parse(String($0)))?[path: "id"]?.stringValue }
    }

    func testASourceFilterDecidesWhatIsEmittedAndFilteredItemsAreNotRecorded() throws {
        let server = try LoopbackServer { _ in .text(Self.body) }
        let dir = TempDir()
        defer { server.stop(); dir.remove() }
        let strict = #"{"include":[{"field":"title","regex":"(?i)\\bswift\\b"}],"exclude":[{"field":"url","contains":"/SHORTS/"}],"max_age":"3650d"}"#
        var cfg = config(dir, url: server.baseURL + "/items", filter: strict)
        let first = try BinaryRunner.run(["run", "-c", cfg])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(ids(dir.read("out/items.jsonl")), ["api:1", "api:4"])
        XCTAssertTrue(first.stderr.contains("4 fetched  2 new  2 filtered"), first.stderr)
        XCTAssertTrue(first.stderr.contains(", 2 filtered,"), "the total line counts them: \(first.stderr)")

        // A looser rule lets the filtered items through on the next run; the emitted ones stay emitted.
        cfg = config(dir, url: server.baseURL + "/items", filter: #"{"max_age":"3650d"}"#)
        let second = try BinaryRunner.run(["run", "-c", cfg])
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertEqual(ids(dir.read("out/items.jsonl")), ["api:1", "api:4", "api:2", "api:3"])
        XCTAssertTrue(second.stderr.contains("4 fetched  2 new  "), second.stderr)
        XCTAssertFalse(second.stderr.contains("filtered"), second.stderr)

        // max_age: the 2020 item is too old for 30 days, counted as filtered, never emitted again.
        let third = try BinaryRunner.run(["run", "-c", config(dir, url: server.baseURL + "/items", filter: #"{"max_age":"30d"}"#)])
        XCTAssertEqual(third.status, 0, third.stderr)
        XCTAssertTrue(third.stderr.contains("4 fetched  0 new"), third.stderr)
    }

    func testASinkFilterDecidesWhatThatSinkReceivesAndTheOthersGetEverything() throws {
        let server = try LoopbackServer { _ in .text(Self.body) }
        let dir = TempDir()
        defer { server.stop(); dir.remove() }
        let sinks = #"[{"type":"jsonl","path":"out/all.jsonl"},{"type":"jsonl","path":"out/popular.jsonl","filter":{"include":[{"field":"data.views","min":100,"max":1000}],"exclude":[{"field":"tags","equals":"rust"}]}}]"#
        let r = try BinaryRunner.run(["run", "-c", config(dir, url: server.baseURL + "/items", filter: nil, sinks: sinks)])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(ids(dir.read("out/all.jsonl")), ["api:1", "api:2", "api:3", "api:4"])
        XCTAssertEqual(ids(dir.read("out/popular.jsonl")), ["api:4"])
        XCTAssertFalse(r.stderr.contains("filtered"), "a sink's filter is not the source's: \(r.stderr)")
    }

    func testDefaultsFilterAppliesToSourcesWithoutTheirOwn() throws {
        let server = try LoopbackServer { _ in .text(Self.body) }
        let dir = TempDir()
        defer { server.stop(); dir.remove() }
        let defaults = #""defaults":{"filter":{"include":[{"field":"tags","equals":"rust"}]}},"#
        let r = try BinaryRunner.run(["run", "-c", config(dir, url: server.baseURL + "/items", filter: nil, defaults: defaults), "--no-state", "--jsonl"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(ids(r.stdout), ["api:2"])
        let own = try BinaryRunner.run(["run", "-c", config(dir, url: server.baseURL + "/items", filter: #"{"include":[{"field":"id","equals":"api:3"}]}"#, defaults: defaults), "--no-state", "--jsonl"])
        XCTAssertEqual(ids(own.stdout), ["api:3"], "the source's own filter replaces the default")
    }

    func testRulesThatCannotWorkAreConfigErrorsWithTheirKeyPath() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let bad = #"{"include":[{"field":"title","regex":"sw(ift"},{"field":"titel","contains":"x"},{"field":"url"},{"field":"title","contains":"a","equals":"a"},{"field":"title","min":1}],"exclude":[{"field":"data.n","min":5,"max":1}]}"#
        let r = try BinaryRunner.run(["check", "-c", config(dir, url: "https://e.org/items", filter: bad)])
        XCTAssertEqual(r.status, 2)
        for needle in [
            #"sources[0] ("api").filter.include[0].regex: invalid regular expression at offset 6: missing closing parenthesis"#,
            #"sources[0] ("api").filter.include[1].field: expected one of id, kind, title, summary, url, author, tags, source, data.<name>, found "titel" (did you mean "title"?)"#,
            #"sources[0] ("api").filter.include[2]: needs one test"#,
            #"sources[0] ("api").filter.include[3]: has more than one test (contains, equals)"#,
            #"sources[0] ("api").filter.include[4].min: applies to data.<name> fields that hold numbers, not to "title""#,
            #"sources[0] ("api").filter.exclude[0].min: is larger than max"#,
        ] {
            XCTAssertTrue(r.stderr.contains(needle), "missing: \(needle)\nin:\n\(r.stderr)")
        }
        let sinkBad = try BinaryRunner.run(["check", "-c", config(dir, url: "https://e.org/items", filter: nil, sinks: #"[{"type":"stdout","filter":{"include":[{"field":"title","regex":"("}]}}]"#)])
        XCTAssertEqual(sinkBad.status, 2)
        XCTAssertTrue(sinkBad.stderr.contains("sinks[0].filter.include[0].regex: invalid regular expression"), sinkBad.stderr)
    }
}
