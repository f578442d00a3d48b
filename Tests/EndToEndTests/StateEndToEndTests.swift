import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import XCTest
import TributaryCore
import TributaryTestSupport

/// Scheduled-run guarantees through the real binary and a real state: nothing emitted twice,
/// nothing lost, validators, first_run, emit_updates, locking, backoff, quotas, retention. Every
/// test runs once per state backend (`StateUnderTest.backends`: a SQLite file, a PostgreSQL
/// schema on a real server the suite starts), so both keep the same promises.
final class StateEndToEndTests: XCTestCase {
    /// A mutable API: the handler serves whatever `items` holds now.
    final class API: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [(Int, String, String)] = []  // id, title, published
        var etag: String?
        var status = 200
        func set(_ list: [(Int, String, String)]) { lock.lock(); items = list; lock.unlock() }
        func body() -> String {
            lock.lock(); defer { lock.unlock() }
            return "{\"items\":[" + items.map { #"{"id":\#($0.0),"title":"\#($0.1)","published":"\#($0.2)"}"# }.joined(separator: ",") + "]}"
        }
        func respond(_ req: LoopbackRequest) -> LoopbackResponse {
            lock.lock(); let tag = etag; let st = status; lock.unlock()
            if st != 200 { return .text(#"{"error":"down"}"#, status: st) }
            if let tag, req.header("If-None-Match") == tag { return LoopbackResponse(status: 304, headers: [("ETag", tag)]) }
            var r = LoopbackResponse.text(body())
            if let tag { r.headers.append(("ETag", tag)) }
            return r
        }
    }

    /// Runs `body` once per state backend, each with its own folder (removed afterwards).
    func eachBackend(lease: String? = nil, _ body: (StateUnderTest) throws -> Void) throws {
        for backend in StateUnderTest.backends {
            print("state backend: \(backend.rawValue)")
            let dir = TempDir()
            defer { dir.remove() }
            try body(try StateUnderTest(backend, dir: dir, lease: lease))
        }
    }

    func setUpRun(_ state: StateUnderTest, sourceExtra: String = "", sinks: String = #"[{"type":"jsonl","path":"out/items.jsonl"}]"#, top: String = "") throws -> (LoopbackServer, API, TempDir, String) {
        let api = API()
        let server = try LoopbackServer { api.respond($0) }
        let dir = state.dir
        let cfg = dir.write("tributary.json", #"""
        {\#(top)"state":\#(state.json()),"sources":[{"name":"api","type":"json","url":"\#(server.baseURL)/items","items":"items","retries":0,
          "fields":{"id":"id","title":"title","published":"published"}\#(sourceExtra)}],"sinks":\#(sinks)}
        """#)
        return (server, api, dir, cfg)
    }

    func lines(_ dir: TempDir) -> [String] { (dir.read("out/items.jsonl") ?? "").split(separator: "\n").map(String.init) }

    func ids(_ dir: TempDir) -> [String] {
        lines(dir).compactMap { (try? JSONParser.parse($0))?[path: "id"]?.stringValue }
    }

    static let t1 = "2026-11-01T10:00:00Z", t2 = "2026-11-02T10:00:00Z", t3 = "2026-11-03T10:00:00Z"

    func testSecondRunEmitsNothingAndNewItemsOnlyOnce() throws {
        try eachBackend { state in
            let (server, api, dir, cfg) = try setUpRun(state)
            defer { server.stop() }
            api.set([(1, "one", Self.t1), (2, "two", Self.t2)])
            let first = try BinaryRunner.run(["run", "-c", cfg])
            XCTAssertEqual(first.status, 0, first.stderr)
            XCTAssertEqual(ids(dir), ["api:1", "api:2"])
            let second = try BinaryRunner.run(["run", "-c", cfg])
            XCTAssertEqual(second.status, 0)
            XCTAssertEqual(ids(dir).count, 2, "nothing emitted twice")
            XCTAssertTrue(second.stderr.contains("ok  2 fetched  0 new"), second.stderr)
            api.set([(3, "three", Self.t3), (1, "one", Self.t1), (2, "two", Self.t2)])
            _ = try BinaryRunner.run(["run", "-c", cfg])
            XCTAssertEqual(ids(dir), ["api:1", "api:2", "api:3"])
            let all = try BinaryRunner.run(["run", "-c", cfg, "--all", "--jsonl"])
            XCTAssertEqual(all.stdoutLines.count, 3, "--all emits everything fetched")
            let none = try BinaryRunner.run(["run", "-c", cfg, "--no-state", "--jsonl"])
            XCTAssertEqual(none.stdoutLines.count, 3, "--no-state: every item is new")
            let elsewhere = try BinaryRunner.run(["run", "-c", cfg, "--state", dir.path + "/other.sqlite", "--jsonl"])
            XCTAssertEqual(elsewhere.stdoutLines.count, 3, "--state FILE uses another state")
            XCTAssertEqual(try BinaryRunner.run(["run", "-c", cfg, "--jsonl"]).stdoutLines.count, 0)
        }
    }

    func testFirstRunNoneAndNewest() throws {
        try eachBackend { state in
            for (policy, expected) in [(#""none""#, [String]()), ("2", ["api:2", "api:3"])] {
                let state = try state.fresh()  // each case on an empty state
                let (server, api, dir, cfg) = try setUpRun(state, sourceExtra: #","first_run":\#(policy)"#)
                defer { server.stop(); dir.remove() }
                api.set([(1, "one", Self.t1), (2, "two", Self.t2), (3, "three", Self.t3)])
                let r = try BinaryRunner.run(["run", "-c", cfg])
                XCTAssertEqual(r.status, 0, r.stderr)
                XCTAssertEqual(ids(dir), expected, policy)
                api.set([(4, "four", Self.t3), (1, "one", Self.t1), (2, "two", Self.t2), (3, "three", Self.t3)])
                _ = try BinaryRunner.run(["run", "-c", cfg])
                XCTAssertEqual(ids(dir), expected + ["api:4"], "after the first run only new items: \(policy)")
            }
        }
    }

    func testEmitUpdates() throws {
        try eachBackend { state in
            for emitUpdates in [false, true] {
                let state = try state.fresh()  // each case on an empty state
                let (server, api, dir, cfg) = try setUpRun(state, sourceExtra: #","emit_updates":\#(emitUpdates)"#)
                defer { server.stop(); dir.remove() }
                api.set([(1, "one", Self.t1)])
                _ = try BinaryRunner.run(["run", "-c", cfg])
                api.set([(1, "one, renamed", Self.t1)])
                _ = try BinaryRunner.run(["run", "-c", cfg])
                let out = lines(dir)
                if emitUpdates {
                    XCTAssertEqual(out.count, 2)
                    XCTAssertTrue(out[1].contains(#""title":"one, renamed""#) && out[1].contains(#""data":{"updated":true}"#), out[1])
                } else {
                    XCTAssertEqual(out.count, 1, "a changed item is not re-emitted by default")
                }
                _ = try BinaryRunner.run(["run", "-c", cfg])
                XCTAssertEqual(lines(dir).count, emitUpdates ? 2 : 1, "an update is emitted once")
            }
        }
    }

    func testConditionalGETSendsValidatorsAndReportsNotModified() throws {
        try eachBackend { state in
            let (server, api, dir, cfg) = try setUpRun(state)
            defer { server.stop() }
            api.set([(1, "one", Self.t1)])
            api.etag = "\"v1\""
            let first = try BinaryRunner.run(["run", "-c", cfg])
            XCTAssertEqual(first.status, 0, first.stderr)
            XCTAssertNil(server.requests[0].header("If-None-Match"))
            let second = try BinaryRunner.run(["run", "-c", cfg])
            XCTAssertEqual(second.status, 0, second.stderr)
            XCTAssertEqual(server.requests[1].header("If-None-Match"), "\"v1\"", "the stored validator is sent")
            XCTAssertTrue(second.stderr.contains("json  not modified  1 fetched  0 new"), second.stderr)
            api.set([(1, "one", Self.t1), (2, "two", Self.t2)])
            api.etag = "\"v2\""
            let third = try BinaryRunner.run(["run", "-c", cfg])
            XCTAssertTrue(third.stderr.contains("json  ok  2 fetched  1 new"), third.stderr)
            XCTAssertEqual(ids(dir), ["api:1", "api:2"])
        }
    }

    func testValidatorsAreNotKeptWhenTheSinkFailed() throws {
        try eachBackend { state in
            let (server, api, dir, _) = try setUpRun(state)
            defer { server.stop() }
            api.set([(1, "one", Self.t1)])
            api.etag = "\"v1\""
            let bad = dir.write("bad.json", #"{"state":\#(state.json()),"sources":[{"name":"api","type":"json","url":"\#(server.baseURL)/items","items":"items","fields":{"id":"id","title":"title"}}],"sinks":[{"type":"jsonl","path":"/dev/full"}]}"#)
            let failed = try BinaryRunner.run(["run", "-c", bad])
            XCTAssertEqual(failed.status, 3, failed.stderr)
            let good = dir.write("good.json", #"{"state":\#(state.json()),"sources":[{"name":"api","type":"json","url":"\#(server.baseURL)/items","items":"items","fields":{"id":"id","title":"title"}}],"sinks":[{"type":"jsonl","path":"out/items.jsonl"}]}"#)
            let retry = try BinaryRunner.run(["run", "-c", good])
            XCTAssertEqual(retry.status, 0, retry.stderr)
            XCTAssertNil(server.requests.last?.header("If-None-Match"), "no validator was stored for an undelivered response")
            XCTAssertEqual(ids(dir), ["api:1"], "the item the failed sink could not write is emitted by the next run")
        }
    }

    func testKill9AtRandomPointsLosesNothingAndLeavesNoPartialLine() throws {
        try eachBackend(lease: "1s") { state in
            let api = API()
            api.set((0..<400).map { ($0, "item \($0) " + String(repeating: "x", count: 200), Self.t1) })
            let server = try LoopbackServer { req in
                // Several pages, each a slice of the items, so runs are in different phases when killed.
                let page = Int(req.path.split(separator: "p").last ?? "0") ?? 0
                let slice = (page * 50..<(page * 50 + 50)).map { #"{"id":\#($0),"title":"item \#($0) \#(String(repeating: "x", count: 200))"}"# }
                return LoopbackResponse(status: 200, headers: [("Content-Type", "application/json")], body: Array(("{\"items\":[" + slice.joined(separator: ",") + "]}").utf8), delay: Double(page % 3) * 0.01)
            }
            defer { server.stop() }
            let dir = state.dir
            let sources = (0..<8).map { #"{"name":"s\#($0)","type":"json","url":"\#(server.baseURL)/p\#($0)","items":"items","fields":{"id":"id","title":"title"}}"# }
            let cfg = dir.write("tributary.json", #"{"state":\#(state.json()),"sources":[\#(sources.joined(separator: ","))],"sinks":[{"type":"jsonl","path":"out/items.jsonl"},{"type":"rss","path":"out/feed.xml"}]}"#)
            // Kill points spread over the time a whole run takes with this binary (a sanitizer build
            // is several times slower than the release build), timed on a scratch copy of the config.
            let probe = try state.fresh()
            defer { probe.dir.remove() }
            let probeConfig = probe.dir.write("tributary.json", try String(contentsOfFile: cfg, encoding: .utf8).replacingOccurrences(of: state.json(), with: probe.json()))
            let started = Date()
            XCTAssertEqual(try BinaryRunner.run(["run", "-c", probeConfig, "--all", "--quiet"]).status, 0)
            let full = max(0.05, Date().timeIntervalSince(started))
            var generator = SystemRandomNumberGenerator()
            // 20 kills over the probe's time; then, while no killed run has written anything (a
            // busy machine runs them slower than the probe: with the PostgreSQL state, whose runs
            // write late, all 20 once died before their first line), up to 20 more, later.
            var killedRuns = 0
            for round in 0..<40 where round < 20 || killedRuns == 0 {
                let p = try BinaryRunner.start(["run", "-c", cfg, "--all"], stdoutPath: dir.path + "/o\(round)", stderrPath: dir.path + "/e\(round)")
                let at = round < 20 ? Double.random(in: 0.1...1.0, using: &generator) : Double.random(in: 0.5...3.0, using: &generator)
                usleep(UInt32(at * full * 1e6))
                kill(p.processIdentifier, SIGKILL)
                p.waitUntilExit()
                killedRuns = (dir.read("out/items.jsonl") ?? "").split(separator: "\n").count
            }
            // Some kills must have landed after output was written, or the test proves nothing.
            XCTAssertGreaterThan(killedRuns, 0, "no killed run got as far as writing")
            // A normal run afterwards completes what was not recorded (once the killed runs'
            // leases have run out).
            state.waitForLeasesToExpire()
            let final = try BinaryRunner.run(["run", "-c", cfg])
            XCTAssertEqual(final.status, 0, final.stderr)
            let text = dir.read("out/items.jsonl") ?? ""
            XCTAssertTrue(text.isEmpty || text.hasSuffix("\n"))
            var union = Set<String>()
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) where !line.isEmpty {
                guard let v = try? JSONParser.parse(String(line)), let id = v[path: "id"]?.stringValue else {
                    XCTFail("partial or invalid line: \(line.prefix(80))")
                    continue
                }
                union.insert(id)
            }
            let expected = Set((0..<400).map { "s\($0 / 50):\($0)" })
            XCTAssertEqual(union.intersection(expected).count, 400, "missing: \(expected.subtracting(union).sorted().prefix(5))")
            XCTAssertTrue(XMLParser(data: Data((dir.read("out/feed.xml") ?? "").utf8)).parse(), "feed.xml is always whole")
        }
    }

    func testTwoRunsNeverInterleave() throws {
        try eachBackend(lease: "1s") { state in
            let server = try LoopbackServer { _ in LoopbackResponse(status: 200, headers: [("Content-Type", "application/json")], body: Array(#"{"items":[{"id":1,"title":"t"}]}"#.utf8), delay: 3) }
            defer { server.stop() }
            let dir = state.dir
            let cfg = dir.write("tributary.json", #"{"state":\#(state.json(#","lock_timeout":"1s""#)),"sources":[{"name":"a","type":"json","url":"\#(server.baseURL)/x","items":"items","fields":{"id":"id","title":"title"}}]}"#)
            let first = try BinaryRunner.start(["run", "-c", cfg], stdoutPath: dir.path + "/o1", stderrPath: dir.path + "/e1")
            var waited = 0
            while server.requestCount == 0 && waited < 100 { usleep(50_000); waited += 1 }
            let second = try BinaryRunner.run(["run", "-c", cfg])
            if state.isShared {
                // No run lock: the source the first run holds is skipped, which is not a failure.
                XCTAssertEqual(second.status, 0, second.stderr)
                XCTAssertTrue(second.stderr.contains("a     json  skipped: leased by \(Leases.defaultWorker.split(separator: ":")[0]):\(first.processIdentifier)"), second.stderr)
            } else {
                XCTAssertEqual(second.status, 2)
                XCTAssertTrue(second.stderr.contains("is in use by another tributary run (pid \(first.processIdentifier))"), second.stderr)
            }
            XCTAssertEqual(server.requestCount, 1, "the second run fetched nothing")
            first.waitUntilExit()
            XCTAssertEqual(first.terminationStatus, 0)
            let third = try BinaryRunner.run(["run", "-c", cfg])
            XCTAssertEqual(third.status, 0, "the lock (or lease) is free again: \(third.stderr)")
            XCTAssertTrue(third.stderr.contains("a     json  ok  1 fetched  0 new"), third.stderr)
        }
    }

    /// A run waiting for the lock ends at once on SIGTERM/SIGINT (130/143), not when the holder
    /// finishes: systemd gives a stopping unit only TimeoutStopSec before SIGKILL.
    func testASignalEndsTheWaitForTheLock() throws {
        try eachBackend { state in
            guard !state.isShared else { return }  // a shared state has no run lock to wait for
            let server = try LoopbackServer { _ in LoopbackResponse(status: 200, headers: [("Content-Type", "application/json")], body: Array(#"{"items":[{"id":1,"title":"t"}]}"#.utf8), delay: 8) }
            defer { server.stop() }
            let dir = state.dir
            let cfg = dir.write("tributary.json", #"{"state":\#(state.json(#","lock_timeout":"60s""#)),"sources":[{"name":"a","type":"json","url":"\#(server.baseURL)/x","items":"items","fields":{"id":"id","title":"title"}}]}"#)
            let holder = try BinaryRunner.start(["run", "-c", cfg], stdoutPath: dir.path + "/o1", stderrPath: dir.path + "/e1")
            defer { kill(holder.processIdentifier, SIGKILL); holder.waitUntilExit() }
            var waited = 0
            while server.requestCount == 0 && waited < 200 { usleep(50_000); waited += 1 }
            for (sig, code) in [(SIGTERM, Int32(143)), (SIGINT, Int32(130))] {
                let waiter = try BinaryRunner.start(["run", "-c", cfg], stdoutPath: dir.path + "/o\(sig)", stderrPath: dir.path + "/e\(sig)")
                usleep(500_000)  // it is now waiting for the lock
                let sent = Date()
                kill(waiter.processIdentifier, sig)
                waiter.waitUntilExit()
                XCTAssertEqual(waiter.terminationStatus, code, dir.read("e\(sig)") ?? "")
                XCTAssertLessThan(Date().timeIntervalSince(sent), 3, "ended on the signal, not when the holder finished")
                XCTAssertTrue((dir.read("e\(sig)") ?? "").contains("stopped while waiting for the state file"), dir.read("e\(sig)") ?? "")
            }
            XCTAssertEqual(server.requestCount, 1, "the waiting runs fetched nothing")
        }
    }

    func testBackoffRecoveryAndRespectSchedule() throws {
        try eachBackend { state in
            let (server, api, dir, cfg) = try setUpRun(state, sourceExtra: #","interval":"1h""#)
            defer { server.stop() }
            api.set([(1, "one", Self.t1)])
            api.status = 503
            let failing = try BinaryRunner.run(["run", "-c", cfg])
            XCTAssertEqual(failing.status, 1)
            XCTAssertTrue(failing.stderr.contains("warning: api: started failing; next try at "), failing.stderr)
            do {
                // Opened and closed here: the store holds the run lock while it lives.
                let store = try state.open()
                defer { store.close() }
                let afterOne = try XCTUnwrap(try store.sourceStates(["api"])["api"])
                XCTAssertEqual(afterOne.failures, 1)
                let delay = (afterOne.nextDue ?? 0) - (afterOne.lastRun ?? 0)
                XCTAssertTrue(delay > 2 * 3600 - 400 && delay < 2 * 3600 + 400, "1h x 2^1 with 10% jitter: \(delay)")
            }
            let skipped = try BinaryRunner.run(["run", "-c", cfg, "--respect-schedule"])
            XCTAssertEqual(skipped.status, 0)
            XCTAssertTrue(skipped.stderr.contains("skipped: not due until"), skipped.stderr)
            XCTAssertEqual(server.requestCount, 1, "not due: nothing fetched")
            _ = try BinaryRunner.run(["run", "-c", cfg])
            api.status = 200
            let recovered = try BinaryRunner.run(["run", "-c", cfg])
            XCTAssertEqual(recovered.status, 0, recovered.stderr)
            XCTAssertTrue(recovered.stderr.contains("warning: api: recovered after 2 failed runs"), recovered.stderr)
            XCTAssertEqual(ids(dir), ["api:1"])
        }
    }

    func testQuotaSkipsTheSourceUntilTheWindowResets() throws {
        try eachBackend { state in
            let (server, api, _, cfg) = try setUpRun(state, sourceExtra: #","quota":{"requests":2,"per":"1d"}"#)
            defer { server.stop() }
            api.set([(1, "one", Self.t1)])
            for _ in 0..<2 { XCTAssertEqual(try BinaryRunner.run(["run", "-c", cfg]).status, 0) }
            let third = try BinaryRunner.run(["run", "-c", cfg])
            XCTAssertEqual(third.status, 0)
            XCTAssertTrue(third.stderr.contains("json  skipped: quota of 2 requests per 1d used up until "), third.stderr)
            XCTAssertEqual(server.requestCount, 2)
            // The skip moves the source's next due time to the window's end, so `watch` waits for it.
            let store = try state.open()
            defer { store.close() }
            let due = try XCTUnwrap(try store.sourceStates(["api"])["api"]?.nextDue)
            XCTAssertEqual(due, Timestamp.now().seconds + 86400, accuracy: 120)
        }
    }

    func testRSSWindowKeepsOldItemsAcrossRunsAndRetention() throws {
        try eachBackend { state in
            let (server, api, dir, cfg) = try setUpRun(state, sinks: #"[{"type":"rss","path":"out/feed.xml","max_items":3}]"#)
            defer { server.stop() }
            api.set([(1, "from 2014", "2014-11-21T08:47:00Z"), (2, "from 2015", "2015-01-01T00:00:00Z")])
            XCTAssertEqual(try BinaryRunner.run(["run", "-c", cfg]).status, 0)
            let firstFile = dir.read("out/feed.xml") ?? ""
            XCTAssertEqual(try BinaryRunner.run(["run", "-c", cfg]).status, 0)
            XCTAssertEqual(dir.read("out/feed.xml"), firstFile, "nothing new: the file is left as it is")
            api.set([(3, "new", Self.t3), (4, "newer", "2026-11-04T10:00:00Z")])
            XCTAssertEqual(try BinaryRunner.run(["run", "-c", cfg]).status, 0)
            let xml = dir.read("out/feed.xml") ?? ""
            for title in ["newer", "new", "from 2015"] { XCTAssertTrue(xml.contains("<title>\(title)</title>"), "\(title) in\n\(xml)") }
            XCTAssertFalse(xml.contains("from 2014"), "the oldest falls out at max_items 3")
            XCTAssertTrue(XMLParser(data: Data(xml.utf8)).parse())
        }
    }

    func testAnotherSourcesViewOfTheSameIdIsNotAnUpdate() throws {
        try eachBackend { state in
            let server = try LoopbackServer { req in
                .text(req.path == "/a" ? #"{"items":[{"id":"v1","title":"Title from the search"}]}"# : #"{"items":[{"id":"v1","title":"Title from the feed"}]}"#)
            }
            defer { server.stop() }
            let dir = state.dir
            let src = { (name: String, path: String) in
                #"{"name":"\#(name)","type":"json","url":"\#(server.baseURL)\#(path)","items":"items","id_prefix":"same","emit_updates":true,"fields":{"id":"id","title":"title"}}"#
            }
            let cfg = dir.write("tributary.json", #"{"state":\#(state.json()),"sources":[\#(src("a", "/a")),\#(src("b", "/b"))],"sinks":[{"type":"jsonl","path":"out/items.jsonl"}]}"#)
            for only in ["a", "b", "a", "b"] {
                XCTAssertEqual(try BinaryRunner.run(["run", "-c", cfg, "--only", only]).status, 0)
            }
            XCTAssertEqual(lines(dir).count, 1, "one item, emitted once, whichever source saw it: \(lines(dir))")
        }
    }

    func testRetentionPrunesOldIdsAndRemovedSources() throws {
        try eachBackend { state in
            let now = Timestamp.now().seconds
            do {
                let store = try state.open()
                defer { store.close() }
                let tx = try store.begin()
                _ = try tx.claim([EmittedID(id: "a:old", source: "gone", hash: "h")], now: now - 40 * 86400)
                _ = try tx.claim([EmittedID(id: "a:new", source: "kept", hash: "h")], now: now - 86400)
                try tx.recordRun(RunRecord(source: "gone", type: "json", success: true, error: nil, nextDue: now, now: now - 40 * 86400))
                try tx.recordRun(RunRecord(source: "kept", type: "json", success: true, error: nil, nextDue: now, now: now - 40 * 86400))
                try tx.commit()
                try store.touchConfigured(["kept"], now: now)
                XCTAssertEqual(try store.prune(retention: 30 * 86400, now: now), 2)
                XCTAssertEqual(try store.sourceStates(["gone", "kept"]).keys.sorted(), ["kept"])
                let check = try store.begin()
                XCTAssertEqual(try check.claim([EmittedID(id: "a:old", source: "x", hash: "h"), EmittedID(id: "a:new", source: "x", hash: "h")], now: now), [nil, KnownID(source: "kept", hash: "h")])
                check.rollback()
            }
        }
    }

    func testWatchRunsOnIntervalsAndStopsCleanlyOnSIGTERM() throws {
        try eachBackend { state in
            let (server, api, dir, cfg) = try setUpRun(state, sourceExtra: #","interval":"1s""#, top: #""defaults":{"jitter":"0s"},"#)
            defer { server.stop() }
            api.set([(1, "one", Self.t1)])
            let p = try BinaryRunner.start(["watch", "-c", cfg], stdoutPath: dir.path + "/o", stderrPath: dir.path + "/e")
            var waited = 0
            while server.requestCount < 3 && waited < 100 { usleep(50_000); waited += 1 }
            XCTAssertGreaterThanOrEqual(server.requestCount, 3, "runs again every interval")
            api.set([(2, "two", Self.t2), (1, "one", Self.t1)])
            let before = server.requestCount
            while server.requestCount < before + 2 && waited < 200 { usleep(50_000); waited += 1 }
            XCTAssertEqual(ids(dir), ["api:1", "api:2"], "each item once, the sink written after each batch")
            kill(p.processIdentifier, SIGTERM)
            let start = Date()
            while p.isRunning && Date().timeIntervalSince(start) < 15 { usleep(50_000) }
            if p.isRunning { kill(p.processIdentifier, SIGKILL); XCTFail("watch did not stop") }
            p.waitUntilExit()
            XCTAssertEqual(p.terminationStatus, 143, dir.read("e") ?? "")
            XCTAssertTrue((dir.read("e") ?? "").contains("stopped by SIGTERM"), dir.read("e") ?? "")
            let after = try BinaryRunner.run(["run", "-c", cfg])
            XCTAssertTrue(after.stderr.contains("0 new"), "state was committed by watch: \(after.stderr)")
        }
    }
}
