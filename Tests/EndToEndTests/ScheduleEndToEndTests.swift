import Foundation
import XCTest
import TributaryCore
import TributaryTestSupport

/// `interval: "auto"` and `run --respect-schedule[=PERIOD]` through the release binary, on both
/// state backends: each server hint (`<ttl>`, `sy:updatePeriod`, `Cache-Control: max-age`,
/// `Expires`, `Retry-After`) and the history of new items set the interval `status` shows
/// and the next due time the state keeps; the due tolerance runs a source that falls due just
/// after the timer's call at that call.
final class ScheduleEndToEndTests: XCTestCase {
    static func httpDate(_ t: Date) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "GMT")
        f.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return f.string(from: t)
    }

    /// An RSS 2.0 feed: `items` (guid, pubDate) and extra channel elements.
    static func rss(_ channel: String, items: [(String, Date)]) -> String {
        var s = #"<?xml version="1.0"?><rss version="2.0" xmlns:sy="http://purl.org/rss/1.0/modules/syndication/"><channel><title>t</title>"#
        s += channel
        for (id, t) in items {
            s += "<item><guid>\(id)</guid><title>item \(id)</title><link>http://example.org/\(id)</link><pubDate>\(httpDate(t))</pubDate></item>"
        }
        return s + "</channel></rss>"
    }

    struct Row {
        let interval: Int
        let reason: String?
        let nextDue: Date?
    }

    func status(_ cfg: String) throws -> [String: Row] {
        let r = try BinaryRunner.run(["status", "-c", cfg, "--json"])
        var rows: [String: Row] = [:]
        let iso = ISO8601DateFormatter()
        for line in r.stdoutLines {
            let v = try JSONParser.parse(line)
            let name = v[path: "name"]!.stringValue!
            rows[name] = Row(interval: Int(v[path: "interval"]!.numberValue!.double),
                             reason: v[path: "interval_reason"]?.stringValue,
                             nextDue: v[path: "next_due"]?.stringValue.flatMap { iso.date(from: $0) })
        }
        return rows
    }

    func testAutoIntervalFromEachHintAndFromHistory() throws {
        let now = Date()
        // Items 3 h apart, the newest 1 h ago: median gap 3h -> 1h30m.
        let steady = (0..<20).map { ("s\($0)", now.addingTimeInterval(-3600 - Double(19 - $0) * 10800)) }
        // Items 1 h apart, the newest 3 days ago: quiet for 3 days -> interval_max (1d).
        let quiet = (0..<20).map { ("q\($0)", now.addingTimeInterval(-3 * 86400 - Double(19 - $0) * 3600)) }
        // Items a minute apart, the newest now: half a minute -> interval_min (5m).
        let busy = (0..<20).map { ("b\($0)", now.addingTimeInterval(-Double(19 - $0) * 60)) }
        let few = [("f0", now.addingTimeInterval(-60))]
        let server = try LoopbackServer { req in
            switch req.path {
            case "/ttl": return .text(Self.rss("<ttl>120</ttl>", items: few), contentType: "application/rss+xml")
            case "/sy": return .text(Self.rss("<sy:updatePeriod>daily</sy:updatePeriod><sy:updateFrequency>4</sy:updateFrequency>", items: few), contentType: "application/rss+xml")
            case "/maxage":
                var r = LoopbackResponse.text(Self.rss("", items: few), contentType: "application/rss+xml")
                r.headers.append(("Cache-Control", "public, max-age=7200"))
                return r
            case "/expires":
                var r = LoopbackResponse.text(Self.rss("", items: few), contentType: "application/rss+xml")
                r.headers += [("Date", Self.httpDate(Date())), ("Expires", Self.httpDate(Date().addingTimeInterval(10800)))]
                return r
            case "/retry":
                var r = LoopbackResponse.text("busy", status: 503, contentType: "text/plain")
                r.headers.append(("Retry-After", "3600"))
                return r
            case "/steady": return .text(Self.rss("", items: steady), contentType: "application/rss+xml")
            case "/quiet": return .text(Self.rss("", items: quiet), contentType: "application/rss+xml")
            case "/busy": return .text(Self.rss("<ttl>1</ttl>", items: busy), contentType: "application/rss+xml")
            case "/new": return .text(Self.rss("", items: few), contentType: "application/rss+xml")
            default: return .text("no", status: 404, contentType: "text/plain")
            }
        }
        defer { server.stop() }
        for backend in StateUnderTest.backends {
            let dir = TempDir()
            defer { dir.remove() }
            let state = try StateUnderTest(backend, dir: dir)
            let names = ["ttl", "sy", "maxage", "expires", "retry", "steady", "quiet", "busy", "new"]
            let sources = names.map { #"{"name":"\#($0)","type":"feed","url":"\#(server.url("/" + $0))","retries":0}"# }
            let fixed = #"{"name":"fixed","type":"feed","url":"\#(server.url("/new"))","interval":"10m"}"#
            let cfg = dir.write("tributary.json", #"""
            {"state":\#(state.json()),"defaults":{"interval":"auto"},"sources":[\#(sources.joined(separator: ",")),\#(fixed)],
             "sinks":[{"type":"jsonl","path":"out.jsonl"}]}
            """#)
            let before = try BinaryRunner.run(["status", "-c", cfg, "--json"])
            XCTAssertTrue(before.stdout.contains(#""interval":900,"interval_reason":"auto, no run yet""#), before.stdout)
            let run = try BinaryRunner.run(["run", "-c", cfg])
            XCTAssertEqual(run.status, 1, run.stderr)  // `retry` failed
            let rows = try status(cfg)
            let expected: [String: (Int, String)] = [
                "ttl": (7200, "ttl 2h"),
                "sy": (21600, "sy:updatePeriod daily / sy:updateFrequency 4"),
                "maxage": (7200, "Cache-Control max-age 2h"),
                "expires": (10800, "Expires in 3h"),
                "retry": (3600, "Retry-After 1h"),
                "steady": (5400, "median gap 3h"),
                "quiet": (86400, "interval_max (no new item for 3d)"),
                "busy": (300, "interval_min (ttl 1m)"),
                "new": (900, "no history yet"),
            ]
            for (name, (seconds, why)) in expected {
                guard let row = rows[name] else { XCTFail("\(backend): no status row for \(name)"); continue }
                XCTAssertEqual(row.interval, seconds, "\(backend) \(name)")
                XCTAssertEqual(row.reason, why, "\(backend) \(name)")
                // The next run is an interval (with 10% jitter) away; a failed one twice that.
                let factor = name == "retry" ? 2.0 : 1.0
                if let due = row.nextDue {
                    let wait = due.timeIntervalSince(now)
                    XCTAssertGreaterThan(wait, Double(seconds) * factor * 0.89 - 5, "\(backend) \(name)")
                    XCTAssertLessThan(wait, Double(seconds) * factor * 1.11 + 60, "\(backend) \(name)")
                } else {
                    XCTFail("\(backend) \(name): no next_due")
                }
            }
            XCTAssertEqual(rows["fixed"]?.interval, 600)
            XCTAssertNil(rows["fixed"]?.reason)
            let table = try BinaryRunner.run(["status", "-c", cfg]).stdout
            XCTAssertTrue(table.contains("INTERVAL"), table)
            XCTAssertTrue(table.contains("1h30m (median gap 3h)"), table)
            // The history is kept: the next run of `steady`, with nothing new, keeps its interval.
            _ = try BinaryRunner.run(["run", "-c", cfg, "--only", "steady"])
            XCTAssertEqual(try status(cfg)["steady"]?.reason, "median gap 3h")
        }
    }

    func testRespectScheduleRunsWhatFallsDueWithinHalfThePeriod() throws {
        let server = try LoopbackServer { _ in .text(Self.rss("", items: [("a", Date())]), contentType: "application/rss+xml") }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = dir.write("tributary.json", #"""
        {"state":{"path":"state.sqlite"},"defaults":{"jitter":"0s"},"sources":[{"name":"ten","type":"feed","url":"\#(server.url("/f"))","interval":"10m"}],
         "sinks":[{"type":"jsonl","path":"out.jsonl"}]}
        """#)
        XCTAssertEqual(try BinaryRunner.run(["run", "-c", cfg]).status, 0)
        // Due in 10 minutes: not within 2m30s (half the shipped timer's 5 minutes) ...
        let early = try BinaryRunner.run(["run", "-c", cfg, "--respect-schedule"])
        XCTAssertTrue(early.stderr.contains("not due until"), early.stderr)
        XCTAssertEqual(server.requestCount, 1)
        let cron = try BinaryRunner.run(["run", "-c", cfg, "--respect-schedule=1m"])
        XCTAssertTrue(cron.stderr.contains("not due until"), cron.stderr)
        XCTAssertEqual(server.requestCount, 1)
        // ... but within half of a 30-minute timer's period: it runs now.
        let late = try BinaryRunner.run(["run", "-c", cfg, "--respect-schedule=30m"])
        XCTAssertEqual(late.status, 0, late.stderr)
        XCTAssertFalse(late.stderr.contains("not due"), late.stderr)
        XCTAssertEqual(server.requestCount, 2)
        let bad = try BinaryRunner.run(["run", "-c", cfg, "--respect-schedule=soon"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("--respect-schedule=soon: expected how often the timer or cron entry calls"), bad.stderr)
        let empty = try BinaryRunner.run(["run", "-c", cfg, "--respect-schedule="])
        XCTAssertEqual(empty.status, 2)
        XCTAssertEqual(server.requestCount, 2)
    }

    func testIntervalOptionsAreChecked() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = dir.write("tributary.json", #"""
        {"sources":[
          {"name":"a","type":"feed","url":"http://127.0.0.1:9/f","interval":"often"},
          {"name":"b","type":"feed","url":"http://127.0.0.1:9/f","interval":"auto","interval_min":"2h","interval_max":"1h"},
          {"name":"c","type":"feed","url":"http://127.0.0.1:9/f","interval":"10m","interval_max":"1h"}]}
        """#)
        let r = try BinaryRunner.run(["check", "-c", cfg])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains(#"sources[0] ("a").interval: expected "auto" or a duration"#), r.stderr)
        XCTAssertTrue(r.stderr.contains(#"sources[1] ("b").interval_max: interval_min (2h) must not exceed interval_max (1h)"#), r.stderr)
        XCTAssertTrue(r.stderr.contains(#"sources[2] ("c").interval_max: only applies with "interval": "auto""#), r.stderr)
    }
}
