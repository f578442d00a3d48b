import Foundation
import XCTest
import TributaryCore
import TributaryTestSupport

/// Several `watch` workers (the release binary) on one PostgreSQL state (Docs/scale-out.md):
/// each due source is run by one worker per interval, every item is emitted once between them,
/// a worker killed with SIGKILL has its sources taken over once its leases run out, and a
/// PostgreSQL restart is waited out. The feeds are served by a loopback server; the items are
/// read back from each worker's jsonl file, with the real `psql` from the postgres sink's table,
/// and with nats-py from the JetStream stream the workers' nats sinks share (a real
/// `nats-server -js`). Short intervals and leases keep the wall time small.
final class ScaleOutTests: XCTestCase {
    /// Source `s<n>` serves the items `s<n>-1` ... `s<n>-<epoch>` and `shared-1` ...
    /// `shared-<epoch>` (the same ids in every source: claimed by one worker only). Every
    /// request is logged with the worker (User-Agent) and the time.
    final class Feeds: @unchecked Sendable {
        // Why `@unchecked Sendable`: every field is read and written under `lock`.
        private let lock = NSLock()
        private var epoch = 1
        private var log: [(source: Int, worker: String, time: Double, epoch: Int)] = []
        var delay = 0.0

        func setEpoch(_ e: Int) { lock.withLock { epoch = e } }
        var requests: [(source: Int, worker: String, time: Double, epoch: Int)] { lock.withLock { log } }

        func respond(_ req: LoopbackRequest) -> LoopbackResponse {
            let n = Int(req.path.dropFirst(2)) ?? -1
            let e = lock.withLock { () -> Int in
                log.append((n, req.header("User-Agent") ?? "?", Date().timeIntervalSince1970, epoch))
                return epoch
            }
            let items = (1...e).flatMap { k in [#"{"id":"s\#(n)-\#(k)","title":"item \#(k) of s\#(n)"}"#, #"{"id":"shared-\#(k)","title":"shared \#(k)"}"#] }
            var r = LoopbackResponse.text(#"{"items":[\#(items.joined(separator: ","))]}"#)
            r.delay = delay
            return r
        }

        /// Sources fetched at least once since the epoch became `e`.
        func fetched(inEpoch e: Int) -> Set<Int> { Set(requests.filter { $0.epoch >= e }.map(\.source)) }
    }

    struct Cluster {
        let feeds = Feeds()
        let http: LoopbackServer
        let pg: PostgresServer
        let nats: NATSServer
        let dir = TempDir()
        let schema = "t_" + UUID().uuidString.prefix(8).lowercased()
        let sources: Int
        var workers: [String: Process] = [:]

        init(sources: Int) throws {
            let feeds = self.feeds
            http = try LoopbackServer { feeds.respond($0) }
            pg = try PostgresServer.shared()
            nats = try NATSServer()
            self.sources = sources
        }

        /// The config of worker `name`: every source, the shared state, its own jsonl file, the
        /// shared postgres sink table and the shared JetStream stream `ITEMS`.
        func config(_ name: String, interval: String, lease: String, concurrency: Int = 32) -> String {
            let list = (0..<sources).map { #"{"name":"s\#($0)","type":"json","url":"\#(http.baseURL)/s\#($0)","items":"items","id_prefix":"x","retries":0,"fields":{"id":"id","title":"title"}}"# }
            return dir.write(name + ".json", #"""
            {"defaults":{"interval":"\#(interval)","jitter":"0s","timeout":"10s"},"http":{"user_agent":"\#(name)","per_host":\#(min(32, concurrency)),"concurrency":\#(concurrency)},
             "state":{"url":"\#(pg.url())","schema":"\#(schema)","lease":"\#(lease)"},
             "sources":[\#(list.joined(separator: ","))],
             "sinks":[{"type":"jsonl","path":"out/\#(name).jsonl"},{"type":"postgres","url":"\#(pg.url())","table":"\#(schema).items"},
                         {"type":"nats","url":"\#(nats.url)","stream":"ITEMS"}]}
            """#)
        }

        mutating func start(_ names: [String], interval: String, lease: String) throws {
            for name in names {
                workers[name] = try BinaryRunner.start(["watch", "-c", config(name, interval: interval, lease: lease), "--worker", name],
                                                       stdoutPath: dir.path + "/\(name).out", stderrPath: dir.path + "/\(name).err")
            }
            // Each has its state open (connected, tables migrated) and is watching: a server
            // stopped before that would be a start-up failure (exit 2), not an outage.
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline && !names.allSatisfy({ stderr($0).contains(" watching ") || workers[$0]?.isRunning == false }) { usleep(20_000) }
            for name in names { XCTAssertTrue(stderr(name).contains(" watching "), "\(name) started: \(stderr(name).suffix(1500))") }
        }

        /// SIGTERM to every worker still running; each must stop cleanly (143) within 20 s.
        func stopAll() {
            for (_, p) in workers where p.isRunning { kill(p.processIdentifier, SIGTERM) }
            for (name, p) in workers {
                let start = Date()
                while p.isRunning && Date().timeIntervalSince(start) < 20 { usleep(20_000) }
                if p.isRunning { kill(p.processIdentifier, SIGKILL); XCTFail("\(name) did not stop on SIGTERM") }
                p.waitUntilExit()
            }
        }

        func stderr(_ name: String) -> String { dir.read(name + ".err") ?? "" }

        /// Every id in the jsonl files, with repetitions.
        func jsonlIDs() -> [String] {
            workers.keys.flatMap { name in
                (dir.read("out/\(name).jsonl") ?? "").split(separator: "\n").compactMap { (try? JSONParser.parse(String($0)))?[path: "id"]?.stringValue }
            }
        }

        /// The postgres sink's ids, read with the real psql.
        func tableIDs() throws -> [String] {
            try pg.psql("SELECT id FROM \(schema).items ORDER BY id").split(separator: "\n").map(String.init)
        }

        /// The `Nats-Msg-Id` of every message in the stream, read with nats-py.
        func streamIDs() throws -> [String] {
            try XCTUnwrap(NATSReader.read(nats.url, stream: "ITEMS"), "the nats sinks created the stream").messages.map { $0.id ?? "?" }
        }

        /// Waits (bounded) until every source was fetched in epoch `e` or later.
        func waitForAllFetched(inEpoch e: Int, timeout: Double = 40) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                if feeds.fetched(inEpoch: e).count == sources { return true }
                usleep(50_000)
            }
            return false
        }

        /// The ids every source serves in epoch `e`.
        func expectedIDs(epochs e: Int) -> Set<String> {
            Set((0..<sources).flatMap { n in (1...e).map { "x:s\(n)-\($0)" } } + (1...e).map { "x:shared-\($0)" })
        }

        func remove() {
            for (_, p) in workers where p.isRunning { kill(p.processIdentifier, SIGKILL); p.waitUntilExit() }
            http.stop()
            nats.remove()
            _ = try? pg.psql("DROP SCHEMA IF EXISTS \(schema) CASCADE")
            dir.remove()
        }
    }

    /// Three workers, 300 sources every 2 s (leases of 10 s): no source is fetched twice within one interval,
    /// each item is emitted exactly once between the workers (jsonl files and the table), and
    /// the work is shared.
    func testThreeWorkersShareTheSourcesAndEmitEachItemOnce() throws {
        var c = try Cluster(sources: 300)
        defer { c.remove() }
        // A lease of 10 s: only a worker whose renewals stall that long loses a source (under a
        // ThreadSanitizer build on a loaded machine, 2 s was not always enough).
        try c.start(["w1", "w2", "w3"], interval: "2s", lease: "10s")
        XCTAssertTrue(c.waitForAllFetched(inEpoch: 1), "every source fetched: \(c.stderr("w1").suffix(2000))")
        for e in 2...3 {
            c.feeds.setEpoch(e)
            XCTAssertTrue(c.waitForAllFetched(inEpoch: e), "every source fetched again in epoch \(e)")
        }
        usleep(300_000)  // the last batches commit
        c.stopAll()
        for name in ["w1", "w2", "w3"] {
            XCTAssertEqual(c.workers[name]?.terminationStatus, 143, c.stderr(name).suffix(2000).description)
            XCTAssertFalse(c.stderr(name).contains(c.pg.password), "the password is never shown")
            XCTAssertTrue(c.stderr(name).contains("state: postgres://tributary:***@127.0.0.1:\(c.pg.port)/postgres (schema \(c.schema)), worker \(name)"), c.stderr(name).prefix(500).description)
        }
        // One worker per source per interval: two fetches of a source are at least most of an interval apart.
        let bySource = Dictionary(grouping: c.feeds.requests, by: \.source)
        var tooClose: [String] = []
        for (n, reqs) in bySource {
            let times = reqs.sorted { $0.time < $1.time }
            for (a, b) in zip(times, times.dropFirst()) where b.time - a.time < 1.5 {
                tooClose.append("s\(n): \(a.worker) then \(b.worker) \(String(format: "%.2f", b.time - a.time)) s apart")
            }
        }
        XCTAssertEqual(tooClose, [], "fetched twice in one interval: \(tooClose.prefix(5))")
        let workersSeen = Set(c.feeds.requests.map(\.worker))
        XCTAssertEqual(workersSeen, ["w1", "w2", "w3"], "every worker ran sources")
        let expected = c.expectedIDs(epochs: 3)
        let jsonl = c.jsonlIDs()
        XCTAssertEqual(Set(jsonl), expected, "union of emitted ids == served ids")
        XCTAssertEqual(jsonl.count, expected.count, "no id twice in the jsonl files")
        let table = try c.tableIDs()
        XCTAssertEqual(table.count, expected.count)
        XCTAssertEqual(Set(table), expected, "the postgres sink holds every id once")
        let stream = try c.streamIDs()
        XCTAssertEqual(stream.count, expected.count, "no id twice in the JetStream stream")
        XCTAssertEqual(Set(stream), expected, "the stream holds every id")
    }

    /// A worker killed with SIGKILL while its sources run: the others take them over once the
    /// 2 s leases run out; nothing is lost, and the table holds each id once. The victim is the
    /// worker whose fetch came first (one worker may lease every due source at once).
    func testAKilledWorkersSourcesAreTakenOverWithinTheLease() throws {
        var c = try Cluster(sources: 60)
        defer { c.remove() }
        c.feeds.delay = 1.0  // every fetch takes 1 s: the kill lands in the middle of some
        try c.start(["w1", "w2", "w3"], interval: "1h", lease: "2s")
        let deadline = Date().addingTimeInterval(30)
        while c.feeds.requests.isEmpty && Date() < deadline { usleep(20_000) }
        let victim = try XCTUnwrap(c.feeds.requests.first?.worker, "no source was fetched")
        usleep(300_000)
        let killedAt = Date().timeIntervalSince1970
        kill(c.workers[victim]!.processIdentifier, SIGKILL)
        c.workers[victim]!.waitUntilExit()
        let startedByVictim = Set(c.feeds.requests.filter { $0.worker == victim }.map(\.source))
        XCTAssertFalse(startedByVictim.isEmpty)
        let survivors = ["w1", "w2", "w3"].filter { $0 != victim }
        // Every source ends with a successful run recorded, whoever ran it.
        var recorded = 0
        let until = Date().addingTimeInterval(40)
        while Date() < until {
            recorded = Int(try c.pg.psql("SELECT count(*) FROM \(c.schema).sources WHERE last_success IS NOT NULL").trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
            if recorded == c.sources { break }
            usleep(200_000)
        }
        XCTAssertEqual(recorded, c.sources, "every source ran to the end: \(c.stderr(survivors[0]).suffix(1500))")
        c.stopAll()
        // The sources the victim was running when it died and had not recorded were fetched
        // again by another worker, within the lease (2 s) plus the time to notice.
        let after = c.feeds.requests.filter { $0.worker != victim && $0.time > killedAt }
        let takenOver = Set(after.map(\.source)).intersection(startedByVictim)
        XCTAssertFalse(takenOver.isEmpty, "some of \(victim)'s sources were taken over")
        for n in takenOver {
            let first = after.filter { $0.source == n }.map(\.time).min()!
            XCTAssertLessThan(first - killedAt, 2 + 2.5, "s\(n) taken over \(first - killedAt) s after the kill")
        }
        for name in survivors { XCTAssertEqual(c.workers[name]?.terminationStatus, 143, c.stderr(name).suffix(1500).description) }
        let expected = c.expectedIDs(epochs: 1)
        XCTAssertEqual(Set(c.jsonlIDs()), expected, "nothing lost (a jsonl file may show an id twice)")
        let table = try c.tableIDs()
        XCTAssertEqual(table.count, expected.count, "the dedup sink shows each id once")
        XCTAssertEqual(Set(table), expected)
        // A batch the victim published but never recorded is published again by the worker
        // that took the source over, with the same Nats-Msg-Id: JetStream stores it once.
        let stream = try c.streamIDs()
        XCTAssertEqual(stream.count, expected.count, "the stream stores each id once")
        XCTAssertEqual(Set(stream), expected)
    }

    /// A `run` leases every source before it starts and keeps all those leases until each
    /// source's run ends, also for sources still waiting for a slot: 130 sources, one transfer
    /// at a time (0.1 s each; 64 sources run at once, the others start as those end), a 1 s
    /// lease. A second worker's `run`, started when the last sources have waited three lease
    /// periods, gets none of the sources the first has not fetched yet (`skipped: leased by w1`).
    func testARunKeepsTheLeasesOfSourcesWaitingForASlot() throws {
        var c = try Cluster(sources: 130)
        defer { c.remove() }
        c.feeds.delay = 0.1
        let w1 = try BinaryRunner.start(["run", "-c", c.config("w1", interval: "1h", lease: "1s", concurrency: 1), "--worker", "w1"],
                                        stdoutPath: c.dir.path + "/w1.out", stderrPath: c.dir.path + "/w1.err")
        c.workers["w1"] = w1
        let deadline = Date().addingTimeInterval(30)
        while c.feeds.requests.isEmpty && w1.isRunning && Date() < deadline { usleep(20_000) }
        let first = try XCTUnwrap(c.feeds.requests.first?.time, "w1 fetched nothing: \(c.stderr("w1").suffix(1500))")
        // Three lease periods after w1 leased them: unrenewed, every lease would have run out.
        while Date().timeIntervalSince1970 < first + 3 { usleep(20_000) }
        let requestedByW1 = Set(c.feeds.requests.filter { $0.worker == "w1" }.map(\.source))
        XCTAssertLessThan(requestedByW1.count, 60, "some of w1's sources have not started yet")
        let w2 = try BinaryRunner.run(["run", "-c", c.config("w2", interval: "1h", lease: "1s", concurrency: 1), "--worker", "w2"])
        XCTAssertEqual(w2.status, 0, w2.stderr)
        XCTAssertTrue(w2.stderr.contains("skipped: leased by w1"), w2.stderr)
        // w2 may run a source w1 has finished (its lease released), never one before w1 did.
        let requests = c.feeds.requests
        let firstByW1 = Dictionary(requests.filter { $0.worker == "w1" }.map { ($0.source, $0.time) }, uniquingKeysWith: min)
        let takenByW2 = requests.filter { r in r.worker == "w2" && (firstByW1[r.source].map { $0 > r.time } ?? true) }.map(\.source)
        XCTAssertEqual(takenByW2, [], "w2 ran sources w1 had leased and not fetched yet: \(takenByW2.sorted())")
        let end = Date().addingTimeInterval(60)
        while w1.isRunning && Date() < end { usleep(50_000) }
        XCTAssertFalse(w1.isRunning, "w1 ended")
        w1.waitUntilExit()
        XCTAssertEqual(w1.terminationStatus, 0, c.stderr("w1").suffix(1500).description)
        XCTAssertFalse(c.stderr("w1").contains("lease lost"), c.stderr("w1").suffix(1500).description)
        XCTAssertEqual(Set(c.feeds.requests.filter { $0.worker == "w1" }.map(\.source)).count, 130, "w1 ran every source")
    }

    /// PostgreSQL stopped and started again while two workers watch: they say so, keep running,
    /// and afterwards every item is emitted, once.
    func testWorkersWaitOutAPostgreSQLRestart() throws {
        var c = try Cluster(sources: 30)
        defer { c.remove() }
        try c.start(["w1", "w2"], interval: "1s", lease: "2s")
        XCTAssertTrue(c.waitForAllFetched(inEpoch: 1))
        try c.pg.stopServer(mode: "fast")
        c.feeds.setEpoch(2)
        usleep(2_500_000)
        try c.pg.start()
        XCTAssertTrue(c.waitForAllFetched(inEpoch: 2))
        c.feeds.setEpoch(3)
        let restarted = Date().timeIntervalSince1970
        // Every source fetched twice more after the restart: what failed during the outage is
        // fetched again and delivered.
        let deadline = Date().addingTimeInterval(40)
        while Date() < deadline {
            let counts = Dictionary(grouping: c.feeds.requests.filter { $0.time > restarted }, by: \.source).mapValues(\.count)
            if counts.count == c.sources && counts.values.allSatisfy({ $0 >= 2 }) { break }
            usleep(100_000)
        }
        usleep(500_000)
        c.stopAll()
        let logs = c.stderr("w1") + c.stderr("w2")
        XCTAssertTrue(logs.contains("cannot reach the state") || logs.contains("state unavailable"), "the outage is reported: \(logs.suffix(3000))")
        XCTAssertFalse(logs.contains(c.pg.password))
        for name in ["w1", "w2"] { XCTAssertEqual(c.workers[name]?.terminationStatus, 143, "\(name) kept running: \(c.stderr(name).suffix(1500))") }
        let expected = c.expectedIDs(epochs: 3)
        XCTAssertEqual(Set(c.jsonlIDs()), expected, "nothing lost")
        let table = try c.tableIDs()
        XCTAssertEqual(table.count, expected.count, "each id once in the table")
        XCTAssertEqual(Set(table), expected)
        let stream = try c.streamIDs()
        XCTAssertEqual(stream.count, expected.count, "each id once in the stream")
        XCTAssertEqual(Set(stream), expected)
    }

    /// The recipe of Docs/scale-out.md as written: Sources-config/scale-out/run.sh starts its own
    /// PostgreSQL (postgres.sh), a feed server and three workers, and checks its own results
    /// (every item once in the table, no id in two jsonl files). Small, to keep the suite's time.
    func testTheScaleOutRecipeRuns() throws {
        // The programs run.sh and postgres.sh call: a missing one fails here, by its name.
        try Tool.require(all: ["bash", "curl", "psql", "nats-server", "python3"])
        let r = try Shell.run(["bash", BinaryRunner.packageRoot + "/Sources-config/scale-out/run.sh"],
                              env: ["TRIBUTARY_BIN": BinaryRunner.binary, "SOURCES": "45", "WORKERS": "3"], timeout: 240)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("items: 92 served, 92 in the postgres table, 92 in the JetStream stream, 92 lines (92 ids) in the jsonl files"), r.stderr)
        XCTAssertTrue(r.stderr.contains("ok: every item once between 3 workers"), r.stderr)
        XCTAssertFalse(r.stderr.contains("pw-"), "the password is not shown")
    }

    /// The example config of the postgres sink, against the real server: its items in the
    /// table, read with psql; a second run emits nothing (the state is in the same database).
    func testThePostgresExampleConfigRuns() throws {
        let pg = try PostgresServer.shared()
        let database = try pg.createDatabase("example")
        let dir = TempDir()
        defer { dir.remove() }
        let config = BinaryRunner.packageRoot + "/Sources-config/examples/postgres.json"
        let env = ["TRIBUTARY_DB_URL": pg.url(database: database)]
        let first = try BinaryRunner.run(["run", "-c", config], cwd: dir.path, env: env)
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertTrue(first.stderr.contains("total: 2 sources, 0 failed, 6 fetched, 6 new"), first.stderr)
        let rows = try pg.psql("SELECT source || ' ' || title FROM feeds.items ORDER BY id", database: database).split(separator: "\n")
        XCTAssertEqual(rows.count, 6, rows.description)
        XCTAssertEqual(Set(rows.map { $0.split(separator: " ")[0] }), ["server-notes", "swift-blog"])
        let second = try BinaryRunner.run(["run", "-c", config], cwd: dir.path, env: env)
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertTrue(second.stderr.contains("6 fetched, 0 new"), second.stderr)
        XCTAssertEqual(try pg.psql("SELECT count(*) FROM tributary.emitted", database: database).trimmingCharacters(in: .whitespacesAndNewlines), "6")
    }
    /// `--dry-run` reads a state file only: with a PostgreSQL state it refuses (exit 2, before
    /// any connection), and `--state FILE` makes it a dry run on that file.
    func testDryRunRefusesAPostgreSQLState() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let config = dir.write("c.json", #"{"state":{"url":"postgres://u:secret-pw@127.0.0.1:1/db"},"sources":[{"name":"a","type":"json","url":"file:///nonexistent.json","fields":{"title":"t"}}]}"#)
        let r = try BinaryRunner.run(["run", "--dry-run", "-c", config])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("--dry-run reads a state file only"), r.stderr)
        XCTAssertFalse(r.stderr.contains("secret-pw"))
        let file = try BinaryRunner.run(["run", "--dry-run", "-c", config, "--state", dir.path + "/s.sqlite"])
        XCTAssertFalse(file.stderr.contains("--dry-run reads a state file only"), file.stderr)
        XCTAssertFalse(file.stderr.contains("PostgreSQL"), file.stderr)
    }
}
