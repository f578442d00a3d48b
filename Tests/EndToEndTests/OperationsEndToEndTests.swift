import Foundation
import XCTest
import TributaryCore
import TributaryTestSupport

/// What an operator monitors, through the real binary: `status` (text and JSON, exit 1 as a
/// health check), `expect_new_within`, JSON logs read back by Python's json, RFC 3339 times on
/// text log lines, Prometheus metrics (a file for `run`, `/metrics` and `/healthz` under
/// `watch`) read by prometheus_client's parser, and the progress line on a terminal (a pty).
final class OperationsEndToEndTests: XCTestCase {
    /// `good` answers `n` items (the next call adds one more), `bad` answers 500.
    final class API: @unchecked Sendable {
        private let lock = NSLock()
        private var n = 2
        func grow() { lock.lock(); n += 1; lock.unlock() }
        func respond(_ req: LoopbackRequest) -> LoopbackResponse {
            if req.path.hasPrefix("/bad") { return .text(#"{"error":"down"}"#, status: 500) }
            lock.lock(); let count = n; lock.unlock()
            var delay = 0.0
            if let q = req.path.split(separator: "=").last, req.path.contains("delay="), let d = Double(q) { delay = d }
            let items = (1...count).map { #"{"id":\#($0),"title":"item \#($0)"}"# }.joined(separator: ",")
            var r = LoopbackResponse.text(#"{"items":[\#(items)]}"#)
            r.delay = delay
            return r
        }
    }

    func source(_ name: String, _ url: String, extra: String = "") -> String {
        #"{"name":"\#(name)","type":"json","url":"\#(url)","items":"items","retries":0,"fields":{"id":"id","title":"title"}\#(extra)}"#
    }

    func writeConfig(_ dir: TempDir, sources: [String], sinks: String = #"[{"type":"jsonl","path":"out/items.jsonl"}]"#, top: String = "") -> String {
        dir.write("tributary.json", #"{\#(top)"state":{"path":"state.sqlite"},"sources":[\#(sources.joined(separator: ","))],"sinks":\#(sinks)}"#)
    }

    func jsonLines(_ text: String) throws -> [JSONValue] {
        try text.split(separator: "\n").map { try JSONParser.parse(String($0)) }
    }

    // MARK: status

    func testStatusReportsEachSourceAndExitsOneWhenOneIsFailingOrStale() throws {
        let api = API()
        let server = try LoopbackServer { api.respond($0) }
        let dir = TempDir()
        defer { server.stop(); dir.remove() }
        let cfg = writeConfig(dir, sources: [
            source("good", server.url("/good")),
            source("bad", server.url("/bad?token=s3cr3t")),
            source("later", server.url("/good"), extra: #","enabled":false"#),
        ])
        let before = try BinaryRunner.run(["status", "-c", cfg])
        XCTAssertEqual(before.status, 0, "no state yet: nothing is failing: \(before.stdout)\(before.stderr)")
        XCTAssertTrue(before.stdout.contains("never run"), before.stdout)

        let run = try BinaryRunner.run(["run", "-c", cfg])
        XCTAssertEqual(run.status, 1, run.stderr)
        let text = try BinaryRunner.run(["status", "-c", cfg])
        XCTAssertEqual(text.status, 1, "bad is failing: \(text.stdout)")
        let lines = text.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 4, "a header and one line per configured source: \(text.stdout)")
        XCTAssertTrue(lines[0].hasPrefix("NAME"), lines[0])
        XCTAssertTrue(lines[1].hasPrefix("good ") && lines[1].contains(" ok "), lines[1])
        XCTAssertTrue(lines[2].hasPrefix("bad ") && lines[2].contains("failing") && lines[2].contains("500"), lines[2])
        XCTAssertTrue(lines[3].hasPrefix("later ") && lines[3].contains("disabled"), lines[3])

        let json = try BinaryRunner.run(["status", "-c", cfg, "--json"])
        XCTAssertEqual(json.status, 1)
        let rows = try jsonLines(json.stdout)
        XCTAssertEqual(rows.map { $0[path: "name"]?.stringValue }, ["good", "bad", "later"])
        let good = rows[0], bad = rows[1]
        for key in ["name", "type", "last_run", "last_success", "failures", "next_due", "emitted", "stale"] {
            XCTAssertNotNil(good[path: KeyPath(stringLiteral: key)], "key \(key) in \(json.stdout)")
        }
        XCTAssertNil(good[path: "last_error"], "no error, no key")
        XCTAssertEqual(good[path: "emitted"]?.numberValue?.text, "2")
        XCTAssertEqual(good[path: "failures"]?.numberValue?.text, "0")
        XCTAssertEqual(good[path: "stale"], .bool(false))
        XCTAssertEqual(good[path: "type"]?.stringValue, "json")
        for key in ["last_run", "next_due", "last_success"] {
            let t = good[path: KeyPath(stringLiteral: key)]?.stringValue ?? ""
            XCTAssertNotNil(Timestamp.parseRFC3339(t), "\(key) is RFC 3339: \(t)")
            XCTAssertTrue(t.hasSuffix("Z"), "\(key) is UTC: \(t)")
        }
        XCTAssertEqual(bad[path: "failures"]?.numberValue?.text, "1")
        XCTAssertNil(bad[path: "last_success"], "never succeeded: absent")
        let error = bad[path: "last_error"]?.stringValue ?? ""
        XCTAssertTrue(error.contains("500"), error)
        XCTAssertEqual(rows[2][path: "emitted"]?.numberValue?.text, "0")

        // Without the failing source, and with its state: healthy.
        let healthy = writeConfig(dir, sources: [source("good", server.url("/good"))])
        XCTAssertEqual(try BinaryRunner.run(["status", "-c", healthy]).status, 0)
    }

    func testASourceWithNothingNewForLongerThanExpectNewWithinIsStale() throws {
        let api = API()
        let server = try LoopbackServer { api.respond($0) }
        let dir = TempDir()
        defer { server.stop(); dir.remove() }
        // The same source, expected to deliver within an hour (fresh) or within 3 s (stale soon).
        let hour = writeConfig(dir, sources: [source("good", server.url("/good"), extra: #","expect_new_within":"1h""#)])
        let soon = dir.write("soon.json", #"{"state":{"path":"state.sqlite"},"sources":[\#(source("good", server.url("/good"), extra: #","expect_new_within":"3s""#))],"sinks":[{"type":"jsonl","path":"out/items.jsonl"}]}"#)
        XCTAssertEqual(try BinaryRunner.run(["run", "-c", hour]).status, 0)
        let fresh = try BinaryRunner.run(["status", "-c", hour, "--json"])
        XCTAssertEqual(fresh.status, 0, "it just delivered: \(fresh.stdout)")
        XCTAssertEqual(try jsonLines(fresh.stdout).first?[path: "stale"], .bool(false))
        let firstNew = try XCTUnwrap(try jsonLines(fresh.stdout).first?[path: "last_new"]?.stringValue)
        // The second run delivers nothing new; once 3 s have passed, the source is stale.
        XCTAssertEqual(try BinaryRunner.run(["run", "-c", soon]).status, 0)
        var stale: BinaryRunner.Result?
        for _ in 0..<100 {
            let r = try BinaryRunner.run(["status", "-c", soon, "--json"])
            if r.status == 1 { stale = r; break }
            usleep(100_000)
        }
        let r = try XCTUnwrap(stale, "never became stale")
        let row = try XCTUnwrap(try jsonLines(r.stdout).first)
        XCTAssertEqual(row[path: "stale"], .bool(true))
        XCTAssertEqual(row[path: "failures"]?.numberValue?.text, "0", "stale, not failing")
        XCTAssertEqual(row[path: "last_new"]?.stringValue, firstNew, "nothing new since the first run")
        let text = try BinaryRunner.run(["status", "-c", soon])
        XCTAssertEqual(text.status, 1)
        XCTAssertTrue(text.stdout.split(separator: "\n").last?.contains(" stale ") ?? false, text.stdout)
        XCTAssertEqual(try BinaryRunner.run(["status", "-c", hour]).status, 0, "within the hour it is not stale")
        // A new item ends it: last_new moves to the run that delivered it.
        api.grow()
        XCTAssertEqual(try BinaryRunner.run(["run", "-c", soon]).status, 0)
        let after = try XCTUnwrap(try jsonLines(try BinaryRunner.run(["status", "-c", soon, "--json"]).stdout).first)
        let lastNew = try XCTUnwrap(after[path: "last_new"]?.stringValue)
        XCTAssertGreaterThan(Timestamp.parseRFC3339(lastNew)?.seconds ?? 0, Timestamp.parseRFC3339(firstNew)?.seconds ?? .infinity)
        XCTAssertEqual(after[path: "emitted"]?.numberValue?.text, "3")
        // And a bad value is a config error with its key path.
        let bad = writeConfig(dir, sources: [source("good", server.url("/good"), extra: #","expect_new_within":"soon""#)])
        let check = try BinaryRunner.run(["check", "-c", bad])
        XCTAssertEqual(check.status, 2)
        XCTAssertTrue(check.stderr.contains(#"sources[0] ("good").expect_new_within"#), check.stderr)
    }

    // MARK: logs

    /// Every stderr line of a JSON-logging run is one JSON object that Python's json reads, with
    /// an RFC 3339 UTC `time`, a `level`, a `msg`, and the summary as records.
    func testJSONLogsAreOneObjectPerLineAndCarryTheSummary() throws {
        let api = API()
        let server = try LoopbackServer { api.respond($0) }
        let dir = TempDir()
        defer { server.stop(); dir.remove() }
        let cfg = writeConfig(dir, sources: [source("good", server.url("/good")), source("bad", server.url("/bad"))])
        let r = try BinaryRunner.run(["run", "-c", cfg, "--log-format", "json"])
        XCTAssertEqual(r.status, 1, r.stderr)
        let check = try Shell.run(["/usr/bin/python3", "-c", #"""
        import datetime, json, sys
        out = []
        for line in sys.stdin.read().splitlines():
            rec = json.loads(line)
            assert isinstance(rec, dict), line
            t = rec["time"]
            assert t.endswith("Z"), t
            parsed = datetime.datetime.fromisoformat(t.replace("Z", "+00:00"))
            assert parsed.utcoffset() == datetime.timedelta(0), t
            assert abs((datetime.datetime.now(datetime.timezone.utc) - parsed).total_seconds()) < 300, t
            assert rec["level"] in ("debug", "info", "warn", "error"), rec
            assert isinstance(rec["msg"], str), rec
            out.append(rec)
        print(json.dumps(out))
        """#], stdin: r.stderr)
        XCTAssertEqual(check.status, 0, "python json: \(check.stderr)\n\(r.stderr)")
        let records = try XCTUnwrap(try JSONParser.parse(check.stdout).arrayValue)
        let good = try XCTUnwrap(records.first { $0[path: "source"]?.stringValue == "good" && $0[path: "status"] != nil }, r.stderr)
        XCTAssertEqual(good[path: "level"]?.stringValue, "info")
        XCTAssertEqual(good[path: "status"]?.stringValue, "ok")
        XCTAssertEqual(good[path: "fetched"]?.numberValue?.text, "2")
        XCTAssertEqual(good[path: "new"]?.numberValue?.text, "2")
        XCTAssertNotNil(good[path: "seconds"]?.numberValue)
        let bad = try XCTUnwrap(records.first { $0[path: "source"]?.stringValue == "bad" && $0[path: "status"] != nil }, r.stderr)
        XCTAssertEqual(bad[path: "level"]?.stringValue, "warn")
        XCTAssertEqual(bad[path: "status"]?.stringValue, "failed")
        XCTAssertTrue(bad[path: "error"]?.stringValue?.contains("500") ?? false, r.stderr)
        let total = try XCTUnwrap(records.last)
        XCTAssertEqual(total[path: "msg"]?.stringValue, "total")
        XCTAssertEqual(total[path: "sources"]?.numberValue?.text, "2")
        XCTAssertEqual(total[path: "failed"]?.numberValue?.text, "1")
        XCTAssertEqual(total[path: "new"]?.numberValue?.text, "2")

        // --log-level error: only errors, so nothing here.
        let quiet = try BinaryRunner.run(["run", "-c", cfg, "--log-format", "json", "--log-level", "error"])
        XCTAssertEqual(quiet.status, 1)
        XCTAssertEqual(quiet.stderr, "", quiet.stderr)
    }

    /// Text logs: warnings carry the local time with its offset (TZ), the summary table stays a table.
    func testTextLogLinesCarryTheLocalTime() throws {
        let api = API()
        let server = try LoopbackServer { api.respond($0) }
        let dir = TempDir()
        defer { server.stop(); dir.remove() }
        let cfg = writeConfig(dir, sources: [source("bad", server.url("/bad"))])
        let r = try BinaryRunner.run(["run", "-c", cfg], env: ["TZ": "XST-5:30"])
        XCTAssertEqual(r.status, 1)
        let warning = try XCTUnwrap(r.stderr.split(separator: "\n").first { $0.contains("warning: bad: started failing") }, r.stderr)
        let stamp = warning.prefix { $0 != " " }
        XCTAssertTrue(LogLines.isTime(stamp), String(warning))
        XCTAssertTrue(stamp.hasSuffix("+05:30"), "local time with the zone's offset: \(warning)")
        XCTAssertNotNil(Timestamp.parseRFC3339(String(stamp)), String(stamp))
        XCTAssertTrue(r.stderr.contains("\nbad   json  failed: "), "the summary table has no times: \(r.stderr)")
    }

    /// `--verbose`: a line per HTTP request, in the log's format: method, URL (secrets
    /// redacted), status, bytes, time, the page of a paginated source, and a 304 answered from
    /// the state's stored body. Without it, none.
    func testVerboseLogsEachRequest() throws {
        let secret = "SEKRET4711"
        let server = try LoopbackServer { req in
            if req.path.hasPrefix("/pages") {
                let page = req.path.hasSuffix("page=2") ? 2 : 1
                let next = page == 1 ? #","next":"/pages?api_key=\#(secret)&page=2""# : ""
                return .text(#"{"items":[{"id":"p\#(page)","title":"page \#(page)"}]\#(next)}"#)
            }
            if req.header("If-None-Match") == "\"v1\"" { return LoopbackResponse(status: 304, headers: [("ETag", "\"v1\"")], body: []) }
            var r = LoopbackResponse.text(#"{"items":[{"id":"e1","title":"etag"}]}"#)
            r.headers.append(("ETag", "\"v1\""))
            return r
        }
        let dir = TempDir()
        defer { server.stop(); dir.remove() }
        let cfg = writeConfig(dir, sources: [source("paged", server.url("/pages?api_key=\(secret)"), extra: #","pagination":{"next_url":"next"}"#),
                                             source("cached", server.url("/etag"))])
        let quiet = try BinaryRunner.run(["run", "-c", cfg])
        XCTAssertEqual(quiet.status, 0, quiet.stderr)
        XCTAssertFalse(quiet.stderr.contains(" GET "), "no request lines without --verbose: \(quiet.stderr)")

        let r = try BinaryRunner.run(["run", "-c", cfg, "--verbose"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertFalse(r.stderr.contains(secret), r.stderr)
        let lines = r.stderr.split(separator: "\n").map(String.init)
        func line(_ part: String) -> String? { lines.first { $0.contains(part) } }
        let base = server.baseURL
        let page1 = try XCTUnwrap(line("paged: GET \(base)/pages?api_key=*** 200 "), r.stderr)
        XCTAssertTrue(LogLines.isTime(page1.prefix { $0 != " " }), page1)
        XCTAssertNotNil(page1.range(of: #" 200 \d+ bytes \d+\.\d{3} s page 1$"#, options: .regularExpression), page1)
        let page2 = try XCTUnwrap(line("paged: GET \(base)/pages?api_key=***&page=2 200 "), r.stderr)
        XCTAssertTrue(page2.hasSuffix(" page 2"), page2)
        let cached = try XCTUnwrap(line("cached: GET \(base)/etag 304 not modified (cached body) "), r.stderr)
        XCTAssertNotNil(cached.range(of: #" 304 not modified \(cached body\) \d+ bytes \d+\.\d{3} s$"#, options: .regularExpression), cached)
        XCTAssertFalse(cached.contains(" 0 bytes"), "the stored body's size: \(cached)")

        // The same as JSON records, with fields.
        let j = try BinaryRunner.run(["run", "-c", cfg, "--verbose", "--log-format", "json"])
        XCTAssertEqual(j.status, 0, j.stderr)
        XCTAssertFalse(j.stderr.contains(secret), j.stderr)
        let records = try jsonLines(j.stderr).filter { $0[path: "method"] != nil }
        XCTAssertEqual(records.count, 3, j.stderr)
        let p2 = try XCTUnwrap(records.first { $0[path: "page"]?.numberValue?.text == "2" }, j.stderr)
        XCTAssertEqual(p2[path: "level"]?.stringValue, "debug")
        XCTAssertEqual(p2[path: "source"]?.stringValue, "paged")
        XCTAssertEqual(p2[path: "url"]?.stringValue, "\(base)/pages?api_key=***&page=2")
        XCTAssertEqual(p2[path: "status"]?.numberValue?.text, "200")
        let c = try XCTUnwrap(records.first { $0[path: "source"]?.stringValue == "cached" }, j.stderr)
        XCTAssertEqual(c[path: "status"]?.numberValue?.text, "304")
        XCTAssertEqual(c[path: "not_modified"], .bool(true))
        XCTAssertNil(c[path: "page"], "a source that does not page has no page")
    }

    // MARK: metrics

    static let metricNames = [
        "tributary_source_fetched_items_total", "tributary_source_new_items_total", "tributary_source_failures_total",
        "tributary_source_up", "tributary_source_last_success_timestamp_seconds", "tributary_source_duration_seconds",
        "tributary_http_requests_total", "tributary_sink_written_items_total", "tributary_sink_failures_total",
        "tributary_source_stale", "tributary_source_last_new_timestamp_seconds",
    ]

    func testMetricsFileIsPrometheusTextWithCountersThatGrowAcrossRuns() throws {
        let api = API()
        let server = try LoopbackServer { api.respond($0) }
        let dir = TempDir()
        defer { server.stop(); dir.remove() }
        let sinks = #"[{"type":"jsonl","path":"out/items.jsonl"},{"type":"jsonl","name":"few","path":"out/few.jsonl","filter":{"include":[{"field":"title","equals":"item 1"}]}}]"#
        let cfg = writeConfig(dir, sources: [source("good", server.url("/good"), extra: #","expect_new_within":"1h""#),
                                             source("bad", server.url("/bad"), extra: #","expect_new_within":"1s""#)], sinks: sinks)
        let metrics = dir.path + "/textfile/tributary.prom"
        XCTAssertEqual(try BinaryRunner.run(["run", "-c", cfg, "--metrics-file", metrics]).status, 1)
        let first = try PrometheusReader.read(metrics)
        let names = Set(first.samples.map(\.name))
        for n in Self.metricNames { XCTAssertTrue(names.contains(n), "\(n) in \(names.sorted())") }
        XCTAssertEqual(first.family("tributary_source_fetched_items")?.type, "counter")
        XCTAssertEqual(first.family("tributary_source_up")?.type, "gauge")
        let good = ["source": "good", "type": "json"], bad = ["source": "bad", "type": "json"]
        XCTAssertEqual(first.value("tributary_source_fetched_items_total", good), 2)
        XCTAssertEqual(first.value("tributary_source_new_items_total", good), 2)
        XCTAssertEqual(first.value("tributary_source_up", good), 1)
        XCTAssertEqual(first.value("tributary_source_up", bad), 0)
        XCTAssertEqual(first.value("tributary_source_failures_total", bad), 1)
        XCTAssertNil(first.value("tributary_source_last_success_timestamp_seconds", bad), "never succeeded: no sample")
        let lastSuccess = try XCTUnwrap(first.value("tributary_source_last_success_timestamp_seconds", good))
        XCTAssertLessThan(abs(lastSuccess - Date().timeIntervalSince1970), 300)
        XCTAssertNotNil(first.value("tributary_source_duration_seconds", good))
        XCTAssertEqual(first.value("tributary_http_requests_total", ["status": "200"]), 1)
        XCTAssertEqual(first.value("tributary_http_requests_total", ["status": "500"]), 1)
        XCTAssertEqual(first.value("tributary_sink_written_items_total", ["sink": "jsonl"]), 2)
        XCTAssertEqual(first.value("tributary_sink_written_items_total", ["sink": "few"]), 1, "its filter let one through")
        XCTAssertEqual(first.value("tributary_sink_failures_total", ["sink": "jsonl"]), 0)
        XCTAssertEqual(first.family("tributary_source_stale")?.type, "gauge")
        XCTAssertEqual(first.value("tributary_source_stale", good), 0, "a new item just now")
        XCTAssertEqual(first.value("tributary_source_stale", bad), 0, "first recorded just now")
        let firstNew = try XCTUnwrap(first.value("tributary_source_last_new_timestamp_seconds", good))
        XCTAssertLessThan(abs(firstNew - Date().timeIntervalSince1970), 300)
        XCTAssertNil(first.value("tributary_source_last_new_timestamp_seconds", bad), "nothing new yet: no sample")

        // The counters live in the state: a second run adds to them (rate() across cron runs).
        api.grow()
        let again = try BinaryRunner.run(["run", "-c", cfg, "--metrics-file", metrics])
        XCTAssertEqual(again.status, 1)
        let second = try PrometheusReader.read(metrics)
        XCTAssertEqual(second.value("tributary_source_fetched_items_total", good), 5)
        XCTAssertEqual(second.value("tributary_source_new_items_total", good), 3)
        XCTAssertEqual(second.value("tributary_source_failures_total", bad), 2)
        XCTAssertEqual(second.value("tributary_http_requests_total", ["status": "500"]), 2)
        XCTAssertEqual(second.value("tributary_sink_written_items_total", ["sink": "jsonl"]), 3)
        let secondNew = try XCTUnwrap(second.value("tributary_source_last_new_timestamp_seconds", good))
        XCTAssertGreaterThanOrEqual(secondNew, firstNew, "moved with the new item")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/textfile")
        XCTAssertEqual(leftovers, ["tributary.prom"], "replaced atomically, no temp file left")

        // metrics.file in the config does the same, relative to the config file. `good` has had
        // nothing new for over a second now (the API did not grow): stale, as `status` says too.
        usleep(1_100_000)
        let viaConfig = writeConfig(dir, sources: [source("good", server.url("/good"), extra: #","expect_new_within":"1s""#)], top: #""metrics":{"file":"m/t.prom"},"#)
        XCTAssertEqual(try BinaryRunner.run(["run", "-c", viaConfig]).status, 0)
        let third = try PrometheusReader.read(dir.path + "/m/t.prom")
        XCTAssertEqual(third.value("tributary_source_up", good), 1)
        XCTAssertEqual(third.value("tributary_source_stale", good), 1, "up, but nothing new for longer than expect_new_within")
        XCTAssertEqual(third.value("tributary_source_last_new_timestamp_seconds", good), secondNew, "a run with nothing new keeps the time")
        let status = try BinaryRunner.run(["status", "-c", viaConfig, "--json"])
        XCTAssertEqual(status.status, 1, status.stdout + status.stderr)
        XCTAssertEqual(try jsonLines(status.stdout).first?[path: "stale"]?.boolValue, true, status.stdout)
    }

    func testWatchServesMetricsAndHealthz() throws {
        let api = API()
        let server = try LoopbackServer { api.respond($0) }
        let dir = TempDir()
        defer { server.stop(); dir.remove() }
        let cfg = writeConfig(dir, sources: [source("good", server.url("/good"), extra: #","interval":"1s""#), source("bad", server.url("/bad"))],
                              top: #""metrics":{"listen":"127.0.0.1:0"},"#)
        let p = try BinaryRunner.start(["watch", "-c", cfg, "--log-format", "json"], stdoutPath: dir.path + "/o", stderrPath: dir.path + "/e")
        defer { if p.isRunning { p.terminate(); p.waitUntilExit() } }
        var url: String?
        for _ in 0..<200 where url == nil {
            for rec in (dir.read("e") ?? "").split(separator: "\n").compactMap({ try? JSONParser.parse(String($0)) }) {
                if let u = rec[path: "url"]?.stringValue { url = u }
            }
            if url == nil { usleep(50_000) }
        }
        let base = try XCTUnwrap(url, dir.read("e") ?? "")
        XCTAssertTrue(base.hasPrefix("http://127.0.0.1:"), base)
        let health = try Shell.run(["/usr/bin/python3", "-c", "import urllib.request,sys; r=urllib.request.urlopen(sys.argv[1]); print(r.status); print(r.read().decode())", base + "/healthz"])
        XCTAssertEqual(health.stdout, "200\nok\n", health.stderr)
        // Wait until both sources have run and been counted.
        var exposition: PrometheusReader.Exposition?
        for _ in 0..<100 {
            let m = try PrometheusReader.read(base + "/metrics")
            if m.value("tributary_source_new_items_total", ["source": "good", "type": "json"]) == 2,
               m.value("tributary_source_failures_total", ["source": "bad", "type": "json"]) ?? 0 >= 1 {
                exposition = m
                break
            }
            usleep(100_000)
        }
        let m = try XCTUnwrap(exposition, "the endpoint never showed both runs")
        let names = Set(m.samples.map(\.name))
        for n in Self.metricNames { XCTAssertTrue(names.contains(n), "\(n) in \(names.sorted())") }
        XCTAssertEqual(m.value("tributary_source_up", ["source": "good", "type": "json"]), 1)
        XCTAssertEqual(m.value("tributary_source_up", ["source": "bad", "type": "json"]), 0)
        // status reads the state beside the running watch (which holds its lock).
        let status = try BinaryRunner.run(["status", "-c", cfg, "--json"])
        XCTAssertEqual(status.status, 1, "bad is failing: \(status.stdout)\(status.stderr)")
        let rows = try jsonLines(status.stdout)
        XCTAssertEqual(rows.first?[path: "emitted"]?.numberValue?.text, "2", status.stdout)
        XCTAssertEqual(rows.last?[path: "failures"]?.numberValue?.text.isEmpty, false)
        XCTAssertNotNil(rows.last?[path: "last_error"]?.stringValue, status.stdout)
        // A new item appears on the next run of `good` (interval 1s).
        api.grow()
        var grown = false
        for _ in 0..<100 where !grown {
            grown = try PrometheusReader.read(base + "/metrics").value("tributary_source_new_items_total", ["source": "good", "type": "json"]) == 3
            if !grown { usleep(100_000) }
        }
        XCTAssertTrue(grown, "the counter followed the next batch")
        let missing = try Shell.run(["/usr/bin/python3", "-c", "import urllib.request,urllib.error,sys\ntry: urllib.request.urlopen(sys.argv[1])\nexcept urllib.error.HTTPError as e: print(e.code)", base + "/nope"])
        XCTAssertEqual(missing.stdout, "404\n")
        p.terminate()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 143, dir.read("e") ?? "")
        let closed = try Shell.run(["/usr/bin/python3", "-c", "import urllib.request,sys\ntry: urllib.request.urlopen(sys.argv[1], timeout=5)\nexcept OSError: print('refused')", base + "/healthz"])
        XCTAssertEqual(closed.stdout, "refused\n", "the endpoint ends with watch")
    }

    func testAMetricsListenAddressThatIsNotAnAddressIsAConfigError() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = writeConfig(dir, sources: [source("good", "http://127.0.0.1:9/")], top: #""metrics":{"listen":"localhost:9464"},"#)
        let r = try BinaryRunner.run(["check", "-c", cfg])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("metrics.listen"), r.stderr)
    }

    // MARK: progress line

    /// On a terminal (a pty for both stdout and stderr), with items going to stdout: every line
    /// the terminal shows is either an item or a log/summary line, never the progress text with
    /// an item after it; and the progress line was drawn.
    func testTheProgressLineNeverSharesATerminalLineWithItems() throws {
        let api = API()
        let server = try LoopbackServer { api.respond($0) }
        let dir = TempDir()
        defer { server.stop(); dir.remove() }
        let cfg = writeConfig(dir, sources: [
            source("a", server.url("/good?delay=0")),
            source("b", server.url("/good?delay=0.4")),
            source("c", server.url("/good?delay=0.8")),
            source("d", server.url("/bad")),
        ], sinks: #"[{"type":"jsonl","path":"-"}]"#)
        let script = #"""
        import json, os, pty, sys
        pid, fd = pty.fork()
        if pid == 0:
            os.execv(sys.argv[1], sys.argv[1:])
        raw = b""
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            raw += chunk
        _, status = os.waitpid(pid, 0)
        # What a terminal shows: \r returns to column 0, ESC[K erases to the end of the line.
        text = raw.decode("utf-8").replace("\r\n", "\n")
        lines, line, col = [], [], 0
        i = 0
        while i < len(text):
            ch = text[i]
            if text.startswith("\x1b[K", i):
                del line[col:]; i += 3; continue
            if ch == "\n":
                lines.append("".join(line)); line, col = [], 0
            elif ch == "\r":
                col = 0
            else:
                if col < len(line): line[col] = ch
                else: line.append(ch)
                col += 1
            i += 1
        if line: lines.append("".join(line))
        print(json.dumps({"status": os.waitstatus_to_exitcode(status), "lines": lines, "drawn": "sources]" in text}))
        """#
        let r = try Shell.run(["/usr/bin/python3", "-c", script, BinaryRunner.binary, "run", "-c", cfg, "--no-state"], env: ["TERM": "xterm"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let out = try JSONParser.parse(r.stdout)
        XCTAssertEqual(out[path: "status"]?.numberValue?.text, "1", r.stdout)
        XCTAssertEqual(out[path: "drawn"], .bool(true), "the progress line was shown: \(r.stdout)")
        let lines = (out[path: "lines"]?.arrayValue ?? []).compactMap(\.stringValue)
        var items = 0
        for line in lines where line.contains(#""id":""#) {
            XCTAssertTrue(line.hasPrefix(#"{"id":""#), "an item starts its line: \(line)")
            XCTAssertNotNil(try? JSONParser.parse(line), "a whole item on its line: \(line)")
            items += 1
        }
        XCTAssertEqual(items, 6, lines.joined(separator: "\n"))
        XCTAssertFalse(lines.contains { $0.contains("sources]") }, "the progress line is gone at the end: \(lines)")
        XCTAssertTrue(lines.contains { $0.hasPrefix("total: 4 sources, 1 failed") }, lines.joined(separator: "\n"))
    }
}
