import Foundation
import XCTest
import TributaryCore
import TributaryTestSupport

/// The `json` source's `incremental` cursor through the release binary, against a loopback API
/// that checks the cursor parameter of every request (400 naming what it expected otherwise):
/// the first run sends `initial` (or nothing), the next one the largest value the last
/// successful run delivered; a run whose sink fails, and a `--dry-run`, leave it where it was;
/// numeric ids longer than 64 bits and RFC 3339 times with offsets are ordered as values.
final class IncrementalEndToEndTests: XCTestCase {
    /// What the API holds and which cursor the next request must carry (nil: none).
    struct API {
        var statuses: [String] = []
        var expected: String?
        var refused: [String] = []
        /// Answer 503 to every request for an older page (`max_id`): a run that fails midway.
        var failOlderPages = false
    }

    static func query(_ target: String) -> [String: String] {
        var out: [String: String] = [:]
        for item in URLComponents(string: "http://x" + target)?.queryItems ?? [] { out[item.name] = item.value ?? "" }
        return out
    }

    /// Decimal strings of any length compared as numbers (the API's own order).
    static func greater(_ a: String, _ b: String) -> Bool { a.count != b.count ? a.count > b.count : a > b }

    /// A Mastodon timeline: newest first, `since_id` exclusive, 2 a page, a `Link` header with
    /// `max_id` to the older page (without `since_id`, as Mastodon writes it).
    static func mastodon(_ api: Locked<API>, base: @escaping @Sendable () -> String) -> @Sendable (LoopbackRequest) -> LoopbackResponse {
        { req in
            let q = query(req.path)
            return api.withLock { a in
                guard q["since_id"] == a.expected else {
                    let why = "expected since_id \(a.expected ?? "absent"), got \(q["since_id"] ?? "absent")"
                    a.refused.append(why)
                    return .text(#"{"error":"\#(why)"}"#, status: 400)
                }
                if a.failOlderPages, q["max_id"] != nil { return .text(#"{"error":"down"}"#, status: 503) }
                var ids = a.statuses.sorted { greater($0, $1) }
                if let s = q["since_id"] { ids = ids.filter { greater($0, s) } }
                if let m = q["max_id"] { ids = ids.filter { greater(m, $0) } }
                let page = Array(ids.prefix(2))
                var r = LoopbackResponse.text("[" + page.map { #"{"id":"\#($0)","content":"status \#($0)","created_at":"2026-11-30T10:00:00.000Z"}"# }.joined(separator: ",") + "]")
                if ids.count > 2, let last = page.last {
                    r.headers.append((name: "Link", value: #"<\#(base())/api/v1/timelines/public?limit=2&max_id=\#(last)>; rel="next", <\#(base())/api/v1/timelines/public?limit=2&min_id=\#(page[0])>; rel="prev""#))
                }
                return r
            }
        }
    }

    func config(_ dir: TempDir, _ file: String = "tributary.json", url: String, sink: String, incremental: String,
                pagination: String = #","pagination":{"type":"link_header"}"#) -> String {
        dir.write(file, #"""
        {"state":{"path":"state.sqlite"},"sources":[{"name":"timeline","type":"json","url":"\#(url)","items":"auto",
          "fields":{"id":"id","title":"content","published":"created_at"},"incremental":\#(incremental)\#(pagination)}],
         "sinks":[\#(sink)]}
        """#)
    }

    func ids(_ text: String?) -> [String] {
        (text ?? "").split(separator: "\n").compactMap { (try? JSONParser.parse(String($0)))?[path: "id"]?.stringValue }
    }

    func testTheLargestIdIsSentNextRunAndAFailedSinkOrADryRunDoesNotAdvanceIt() throws {
        let api = Locked(API())
        let base = Locked("")
        let server = try LoopbackServer(handler: Self.mastodon(api, base: { base.withLock { $0 } }))
        base.withLock { $0 = server.baseURL }
        let dir = TempDir()
        defer { server.stop(); dir.remove() }
        let url = server.baseURL + "/api/v1/timelines/public?limit=2"
        let incremental = #"{"cursor_path":"id","param":"since_id"}"#
        let good = config(dir, url: url, sink: #"{"type":"jsonl","path":"out.jsonl"}"#, incremental: incremental)
        func run(_ extra: [String] = [], expect: String?, add: [String] = []) throws -> BinaryRunner.Result {
            api.withLock { $0.expected = expect; $0.statuses += add }
            return try BinaryRunner.run(["run", "-c", good] + extra)
        }
        // Run 1: no cursor kept and no initial: no since_id; two pages of the timeline.
        let first = try run(expect: nil, add: ["109876543210987650", "109876543210987651", "109876543210987652", "9999999999999999"])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(Set(ids(dir.read("out.jsonl"))).count, 4)
        // Run 2: since_id is the largest id as a number (not "9999999999999999" as text), on
        // every page the Link header leads to (Mastodon's next link has no since_id).
        let second = try run(expect: "109876543210987652", add: ["109876543210987653", "109876543210987654", "109876543210987655"])
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertEqual(ids(dir.read("out.jsonl")).suffix(3), ["timeline:109876543210987655", "timeline:109876543210987654", "timeline:109876543210987653"])
        // Run 3: a sink that fails: the run stops, and the cursor stays.
        let failing = config(dir, "failing.json", url: url, sink: #"{"type":"exec","command":["sh","-c","cat >/dev/null; echo down >&2; exit 3"]}"#, incremental: incremental)
        api.withLock { $0.expected = "109876543210987655"; $0.statuses += ["109876543210987656"] }
        let broken = try BinaryRunner.run(["run", "-c", failing])
        XCTAssertNotEqual(broken.status, 0, broken.stderr)
        // Run 4: --dry-run sees the same cursor and keeps nothing.
        let dry = try run(["--dry-run"], expect: "109876543210987655")
        XCTAssertEqual(dry.status, 0, dry.stderr)
        // Run 5: still the cursor of run 2; the status the failed run did not deliver comes now.
        let fifth = try run(expect: "109876543210987655")
        XCTAssertEqual(fifth.status, 0, fifth.stderr)
        XCTAssertEqual(ids(dir.read("out.jsonl")).last, "timeline:109876543210987656")
        // Run 6: advanced at last.
        let sixth = try run(expect: "109876543210987656")
        XCTAssertEqual(sixth.status, 0, sixth.stderr)
        XCTAssertEqual(api.withLock { $0.refused }, [])
        let sinces = server.requests.map { Self.query($0.path)["since_id"] ?? "-" }
        // Run 1's two pages had none; run 2's two pages (3 new statuses, 2 a page) both carry it.
        XCTAssertEqual(Array(sinces.prefix(4)), ["-", "-", "109876543210987652", "109876543210987652"])
        XCTAssertTrue(server.requests.contains { Self.query($0.path)["max_id"] != nil && Self.query($0.path)["since_id"] == "109876543210987652" })
    }

    func testTimesAreComparedAsInstantsAndInitialIsSentFirst() throws {
        let api = Locked(API())
        let server = try LoopbackServer { req in
            let q = Self.query(req.path)
            return api.withLock { a in
                guard q["updated_since"] == a.expected else {
                    a.refused.append("expected \(a.expected ?? "absent"), got \(q["updated_since"] ?? "absent")")
                    return .text(#"{"error":"wrong updated_since"}"#, status: 400)
                }
                return .text(#"{"total":\#(a.statuses.count),"records":[\#(a.statuses.enumerated().map { #"{"id":\#($0.offset),"updated_at":"\#($0.element)"}"# }.joined(separator: ","))]}"#)
            }
        }
        let dir = TempDir()
        defer { server.stop(); dir.remove() }
        let config = self.config(dir, url: server.baseURL + "/changes", sink: #"{"type":"jsonl","path":"out.jsonl"}"#,
                                 incremental: #"{"cursor_path":"updated_at","param":"updated_since","initial":"2026-01-01T00:00:00Z"}"#, pagination: "")
        // 12:00+02:00 is 10:00Z: the latest instant is 11:00Z, though not the largest text.
        api.withLock { $0.expected = "2026-01-01T00:00:00Z"; $0.statuses = ["2026-11-30T12:00:00+02:00", "2026-11-30T11:00:00Z", "2026-11-30T09:30:00.5Z"] }
        let first = try BinaryRunner.run(["run", "-c", config])
        XCTAssertEqual(first.status, 0, first.stderr)
        api.withLock { $0.expected = "2026-11-30T11:00:00Z"; $0.statuses = ["2026-11-30T13:15:00+01:00"] }
        let second = try BinaryRunner.run(["run", "-c", config])
        XCTAssertEqual(second.status, 0, second.stderr)
        // --no-state: the initial value every time, nothing kept.
        api.withLock { $0.expected = "2026-01-01T00:00:00Z" }
        let stateless = try BinaryRunner.run(["run", "-c", config, "--no-state"])
        XCTAssertEqual(stateless.status, 0, stateless.stderr)
        api.withLock { $0.expected = "2026-11-30T13:15:00+01:00" }
        let third = try BinaryRunner.run(["run", "-c", config])
        XCTAssertEqual(third.status, 0, third.stderr)
        // A value that is not a time: a warning, and the cursor stays.
        api.withLock { $0.statuses = ["yesterday"] }
        let mixed = try BinaryRunner.run(["run", "-c", config])
        XCTAssertEqual(mixed.status, 0, mixed.stderr)
        XCTAssertTrue(mixed.stderr.contains(#"incremental: records[0].updated_at: "yesterday" is neither a number nor an RFC 3339 time; the cursor stays at "2026-11-30T13:15:00+01:00""#), mixed.stderr)
        let after = try BinaryRunner.run(["run", "-c", config])
        XCTAssertEqual(after.status, 0, after.stderr)
        XCTAssertEqual(api.withLock { $0.refused }, [])
    }

    /// A run that fails after delivering its first page keeps its items delivered but not the
    /// cursor: the next run asks again from the old value.
    func testASourceThatFailsMidwayDoesNotAdvanceTheCursor() throws {
        let api = Locked(API())
        let base = Locked("")
        let server = try LoopbackServer(handler: Self.mastodon(api, base: { base.withLock { $0 } }))
        base.withLock { $0 = server.baseURL }
        let dir = TempDir()
        defer { server.stop(); dir.remove() }
        let config = dir.write("midway.json", #"""
        {"state":{"path":"state.sqlite"},"sources":[{"name":"timeline","type":"json","retries":0,
          "url":"\#(server.baseURL)/api/v1/timelines/public?limit=2","items":"auto","fields":{"id":"id","title":"content"},
          "pagination":{"type":"link_header"},"incremental":{"cursor_path":"id","param":"since_id","initial":"5"}}],
         "sinks":[{"type":"jsonl","path":"out.jsonl"}]}
        """#)
        api.withLock { $0.expected = "5"; $0.statuses = ["6", "7", "8"]; $0.failOlderPages = true }
        let failed = try BinaryRunner.run(["run", "-c", config])
        XCTAssertNotEqual(failed.status, 0, failed.stderr)
        XCTAssertTrue(failed.stderr.contains("HTTP 503"), failed.stderr)
        XCTAssertEqual(ids(dir.read("out.jsonl")), ["timeline:8", "timeline:7"], "the first page stays delivered")
        api.withLock { $0.failOlderPages = false }
        let again = try BinaryRunner.run(["run", "-c", config])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(ids(dir.read("out.jsonl")).last, "timeline:6")
        api.withLock { $0.expected = "8" }
        let then = try BinaryRunner.run(["run", "-c", config])
        XCTAssertEqual(then.status, 0, then.stderr)
        XCTAssertEqual(api.withLock { $0.refused }, [])
    }

    /// `first_run: N` holds the first run's items until its end: the cursor is kept with them,
    /// in the transaction that records the run, and is the largest of all records fetched.
    func testAFirstRunThatKeepsTheNewestNStillKeepsTheCursor() throws {
        let api = Locked(API())
        let base = Locked("")
        let server = try LoopbackServer(handler: Self.mastodon(api, base: { base.withLock { $0 } }))
        base.withLock { $0 = server.baseURL }
        let dir = TempDir()
        defer { server.stop(); dir.remove() }
        let config = dir.write("first.json", #"""
        {"state":{"path":"state.sqlite"},"sources":[{"name":"timeline","type":"json","first_run":1,
          "url":"\#(server.baseURL)/api/v1/timelines/public?limit=2","items":"auto","fields":{"id":"id","title":"content"},
          "pagination":{"type":"link_header"},"incremental":{"cursor_path":"id","param":"since_id"}}],
         "sinks":[{"type":"jsonl","path":"out.jsonl"}]}
        """#)
        api.withLock { $0.expected = nil; $0.statuses = ["7", "9", "8"] }
        let first = try BinaryRunner.run(["run", "-c", config])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(ids(dir.read("out.jsonl")).count, 1)
        api.withLock { $0.expected = "9"; $0.statuses += ["10"] }
        let second = try BinaryRunner.run(["run", "-c", config])
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertEqual(ids(dir.read("out.jsonl")).last, "timeline:10")
        XCTAssertEqual(api.withLock { $0.refused }, [])
    }

    /// On a PostgreSQL state the cursor is the database's: a second worker's run sends the
    /// largest id the first worker's run delivered, and the value is in the state's `kv`.
    func testWorkersOnAPostgreSQLStateShareTheCursor() throws {
        let pg = try PostgresServer.shared()
        let api = Locked(API())
        let base = Locked("")
        let server = try LoopbackServer(handler: Self.mastodon(api, base: { base.withLock { $0 } }))
        base.withLock { $0 = server.baseURL }
        let dir = TempDir()
        defer { server.stop(); dir.remove() }
        let schema = "t_" + UUID().uuidString.prefix(8).lowercased()
        let config = dir.write("pg.json", #"""
        {"state":{"url":"\#(pg.url())","schema":"\#(schema)"},"sources":[{"name":"timeline","type":"json",
          "url":"\#(server.baseURL)/api/v1/timelines/public?limit=2","items":"auto","fields":{"id":"id","title":"content"},
          "pagination":{"type":"link_header"},"incremental":{"cursor_path":"id","param":"since_id","initial":"100"}}],
         "sinks":[{"type":"jsonl","path":"out.jsonl"}]}
        """#)
        api.withLock { $0.expected = "100"; $0.statuses = ["101", "1000000000000000000001", "99999"] }
        let a = try BinaryRunner.run(["run", "-c", config, "--worker", "a"])
        XCTAssertEqual(a.status, 0, a.stderr)
        api.withLock { $0.expected = "1000000000000000000001"; $0.statuses += ["1000000000000000000002"] }
        let b = try BinaryRunner.run(["run", "-c", config, "--worker", "b"])
        XCTAssertEqual(b.status, 0, b.stderr)
        XCTAssertEqual(ids(dir.read("out.jsonl")).last, "timeline:1000000000000000000002")
        api.withLock { $0.expected = "1000000000000000000002" }
        let c = try BinaryRunner.run(["run", "-c", config, "--worker", "a"])
        XCTAssertEqual(c.status, 0, c.stderr)
        XCTAssertEqual(api.withLock { $0.refused }, [])
        let kept = try pg.psql("SELECT convert_from(value, 'UTF8') FROM \(schema).kv WHERE ns = 'cursor'")
        XCTAssertEqual(kept.trimmingCharacters(in: .whitespacesAndNewlines), "1000000000000000000002")
    }
}
