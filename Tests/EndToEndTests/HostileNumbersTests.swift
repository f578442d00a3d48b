import Foundation
import XCTest
import TributaryCore
import TributaryTestSupport

/// Numbers and dates that do not fit, from servers, feeds and configs: none may crash the
/// binary (a probe of the release build trapped on each), and one bad item must not keep the
/// healthy sources of the same config from delivering, run after run.
final class HostileNumbersTests: XCTestCase {
    static let healthy = #"{"items":[{"id":"ok-1","title":"fine"}]}"#

    /// The poison pill: dates that do not fit an Int, with state on, three runs in a row.
    func testDatesThatDoNotFitNeverCrashAndTheOtherSourceDelivers() throws {
        let server = try LoopbackServer { req in
            switch req.path {
            case "/bad":
                return .text(#"{"items":[{"id":"a","title":"inf","published":1e999999},{"id":"b","title":"big","published":1e20},{"id":"c","title":"digits","published":"99999999999999999999999"},{"id":"d","title":"1e17","published":1e17},{"id":"e","title":"fine","published":"2026-11-29T10:00:00Z"}]}"#)
            default: return .text(Self.healthy)
            }
        }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = dir.write("tributary.json", #"""
        {"state": {"path": "state.sqlite"},
         "sources": [
           {"name": "bad", "type": "json", "url": "\#(server.baseURL)/bad", "items": "items", "fields": {"id": "id", "title": "title", "published": "published"}},
           {"name": "good", "type": "json", "url": "\#(server.baseURL)/good", "items": "items", "fields": {"id": "id", "title": "title"}}],
         "sinks": [{"type": "jsonl", "path": "out/items.jsonl"}]}
        """#)
        for run in 1...3 {
            let r = try BinaryRunner.run(["run", "-c", cfg])
            XCTAssertEqual(r.status, 0, "run \(run): \(r.stderr)")
            XCTAssertFalse(r.stderr.contains("Fatal error"), r.stderr)
            if run == 1 {
                let summary = r.stderr.replacingOccurrences(of: " +", with: " ", options: .regularExpression)
                XCTAssertTrue(summary.contains("bad json ok 5 fetched 5 new"), r.stderr)
                XCTAssertTrue(summary.contains("good json ok 1 fetched 1 new"), r.stderr)
                XCTAssertTrue(r.stderr.contains("warning: bad: items[1].published: 1e20 is not a time within years 0000-9999; the item is emitted without a published time"), r.stderr)
            } else {
                XCTAssertTrue(r.stderr.contains("total: 2 sources, 0 failed, 6 fetched, 0 new"), "run \(run): nothing twice: \(r.stderr)")
            }
        }
        let lines = (dir.read("out/items.jsonl") ?? "").split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 6)
        for line in lines {
            let item = try JSONNode(JSONParser.parse(line))
            if let published = try item["published"].optionalString() {
                XCTAssertNotNil(Timestamp.parseRFC3339(published), "valid RFC 3339: \(published)")
            }
        }
        XCTAssertTrue(lines.contains { $0.contains(#""id":"bad:e""#) && $0.contains(#""published":"2026-11-29T10:00:00Z""#) })
        XCTAssertTrue(lines.contains { $0.contains(#""id":"bad:b""#) && !$0.contains("published") })
    }

    func testFeedDatesThatDoNotFitAreDroppedNotCrashed() throws {
        let rss = #"""
        <?xml version="1.0" encoding="UTF-8"?>
        <rss version="2.0"><channel><title>t</title><link>https://e.org/</link>
        <item><title>digits</title><link>https://e.org/1</link><pubDate>99999999999999999999999</pubDate></item>
        <item><title>year</title><link>https://e.org/2</link><pubDate>Sun, 29 Nov 300000000000 10:00:00 GMT</pubDate></item>
        <item><title>feb 31</title><link>https://e.org/3</link><pubDate>Tue, 31 Feb 2026 10:00:00 GMT</pubDate></item>
        <item><title>cet</title><link>https://e.org/4</link><pubDate>Sun, 29 Nov 2026 11:00:00 CET</pubDate></item>
        </channel></rss>
        """#
        let server = try LoopbackServer { _ in .text(rss, contentType: "application/rss+xml") }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = dir.write("t.json", #"{"sources":[{"name":"f","type":"feed","url":"\#(server.baseURL)/feed"}]}"#)
        let r = try BinaryRunner.run(["run", "-c", cfg, "--no-state", "--jsonl"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdoutLines.count, 4, r.stderr)
        for (line, title) in zip(r.stdoutLines, ["digits", "year", "feb 31"]) {
            XCTAssertTrue(line.contains(title) && !line.contains("\"published\""), line)
        }
        XCTAssertTrue(r.stdoutLines[3].contains(#""published":"2026-11-29T10:00:00Z""#), r.stdoutLines[3])
    }

    /// Any server can send a Retry-After; one that does not fit is ignored, as curl does.
    func testRetryAfterThatDoesNotFitIsIgnored() throws {
        let hits = Locked(0)
        let server = try LoopbackServer { _ in
            let n = hits.withLock { $0 += 1; return $0 }
            if n == 1 {
                return LoopbackResponse(status: 503, headers: [("Retry-After", "Sun, 29 Nov 300000000000 10:00:00 GMT")], body: Array("busy".utf8))
            }
            return .text(Self.healthy)
        }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = dir.write("t.json", #"{"sources":[{"name":"s","type":"json","url":"\#(server.baseURL)/x","items":"items","fields":{"id":"id","title":"title"},"retries":1}]}"#)
        let r = try BinaryRunner.run(["run", "-c", cfg, "--no-state", "--jsonl"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdoutLines.count, 1)
        XCTAssertEqual(hits.withLock { $0 }, 2, "retried once, after the backoff, not after the header's absurd date")
    }

    func testConfigNumbersThatDoNotFitAreConfigErrors() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let cases: [(String, String)] = [
            (#""http":{"max_body":"1e30 GiB"}"#, #"(top level).http.max_body: expected a size up to 1TiB"#),
            (#""http":{"max_body":"99999999999999999999999B"}"#, #"(top level).http.max_body: expected a size up to 1TiB"#),
            (#""defaults":{"timeout":1e300}"#, #"(top level).defaults.timeout: expected a duration up to 3650d"#),
        ]
        for (section, message) in cases {
            let cfg = dir.write("c.json", #"{\#(section),"sources":[{"name":"s","type":"json","url":"http://127.0.0.1:9/x","fields":{"id":"id"}}]}"#)
            for command in ["check", "run"] {
                let r = try BinaryRunner.run([command, "-c", cfg, "--no-state"].filter { command == "run" || $0 != "--no-state" })
                XCTAssertEqual(r.status, 2, "\(command) \(section): \(r.stderr)")
                XCTAssertTrue(r.stderr.contains(message), "\(command) \(section): \(r.stderr)")
            }
        }
        let timeout = dir.write("t.json", #"{"sources":[{"name":"s","type":"json","url":"http://127.0.0.1:9/x","fields":{"id":"id"},"timeout":1e300}]}"#)
        let r = try BinaryRunner.run(["check", "-c", timeout])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains(#"sources[0] ("s").timeout: expected a duration up to 3650d"#), r.stderr)
    }

    func testWeatherNumbersBeyondAnyMeasurementAreWrittenNotTrapped() throws {
        let body = #"{"coord":{"lon":13.4,"lat":52.5},"weather":[{"id":804,"main":"Clouds","description":"overcast clouds","icon":"04d"}],"main":{"temp":1e+300,"feels_like":-1e300,"humidity":87},"wind":{"speed":1e999,"deg":1e999},"dt":1795956000,"sys":{"country":"DE"},"timezone":3600,"id":2950159,"name":"Berlin","cod":200}"#
        let server = try LoopbackServer { _ in .text(body) }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = dir.write("t.json", #"{"sources":[{"name":"w","type":"openweathermap","cities":["Berlin,DE"],"api_key":"k","base_url":"\#(server.baseURL)"}]}"#)
        for format in [["--jsonl"], []] {
            let r = try BinaryRunner.run(["run", "-c", cfg, "--no-state"] + format)
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(r.stdoutLines.count, 1, r.stderr)
            XCTAssertTrue(r.stdout.contains("1e+300"), r.stdout)
        }
    }

    func testAnObservationTimeOutsideTheRangeFailsThatPlaceOnly() throws {
        let server = try LoopbackServer { req in
            let dt = req.path.contains("q=Bad") ? "99999999999999999" : "1795956000"
            return .text(#"{"coord":{"lon":13.4,"lat":52.5},"main":{"temp":3.5},"dt":\#(dt),"id":\#(req.path.contains("q=Bad") ? 1 : 2),"name":"X","cod":200}"#)
        }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = dir.write("t.json", #"{"sources":[{"name":"w","type":"openweathermap","cities":["Bad","Good"],"api_key":"k","base_url":"\#(server.baseURL)"}]}"#)
        let r = try BinaryRunner.run(["run", "-c", cfg, "--no-state", "--jsonl"])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(r.stdoutLines.count, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("dt: expected a unix time within years 0000-9999, found 99999999999999999"), r.stderr)
    }
}
