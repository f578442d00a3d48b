import Foundation
import XCTest
import TributaryCore
import TributaryTestSupport

/// Issue 19's findings on the state and on outages, through the release binary against real
/// servers (PostgreSQL from `PostgresServer`, `nats-server -js` from `NATSServer`, feeds from a
/// `LoopbackServer`):
/// - 3: an id of 10 KB is delivered once, on a SQLite and on a PostgreSQL state, through the
///   `postgres` sink; an id over the documented limit is skipped with a warning; a sink table
///   keyed on `id` is converted, or left alone with the long id skipped.
/// - 4: `status` and `status --json` read the configured backend; an unreachable one is exit 2.
/// - 11: a source stranded by a PostgreSQL outage runs again within seconds of its return.
/// - 12: `watch` outlives an 8 s NATS outage and every item arrives once.
final class HostileRoundTwoStateTests: XCTestCase {
    /// `n` random letters and digits.
    static func random(_ n: Int) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        return String((0..<n).map { _ in alphabet.randomElement()! })
    }

    static func source(_ name: String, _ url: String, extra: String = "") -> String {
        #"{"name":"\#(name)","type":"json","url":"\#(url)","items":"items","retries":0,"fields":{"id":"id","title":"title"}\#(extra)}"#
    }

    static func page(_ items: [(id: String, title: String)]) -> String {
        #"{"items":["# + items.map { #"{"id":"\#($0.id)","title":"\#($0.title)"}"# }.joined(separator: ",") + "]}"
    }

    /// The ids of a jsonl file, with repetitions.
    static func ids(_ text: String?) -> [String] {
        (text ?? "").split(separator: "\n").compactMap { (try? JSONParser.parse(String($0)))?[path: "id"]?.stringValue }
    }

    /// The summary line of `source` in a run's stderr.
    static func line(_ stderr: String, _ source: String) -> String {
        stderr.split(separator: "\n").first { $0.hasPrefix(source + " ") }.map(String.init) ?? "(no line for \(source))"
    }

    static func waitUntil(_ timeout: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            usleep(50_000)
        }
        return condition()
    }

    /// Waits for a `watch` to end after SIGTERM (SIGKILL after 20 s); its exit status.
    static func stop(_ p: Process) -> Int32 {
        if p.isRunning { kill(p.processIdentifier, SIGTERM) }
        let deadline = Date().addingTimeInterval(20)
        while p.isRunning && Date() < deadline { usleep(20_000) }
        if p.isRunning { kill(p.processIdentifier, SIGKILL) }
        p.waitUntilExit()
        return p.terminationStatus
    }

    // MARK: 3: long ids

    /// A 10 KB id (over PostgreSQL's btree limit of about 2.7 KB) is delivered once and not
    /// again, on both state backends, to a jsonl file, to the `postgres` sink's table and to an
    /// rss window (kept in the state); an id over `Item.maxIDBytes` is skipped with a warning
    /// naming its source; the other items and the other source are unaffected.
    func testATenKilobyteIDIsDeliveredOnceAndNotAgainOnBothBackends() throws {
        let pg = try PostgresServer.shared()
        for backend in StateUnderTest.backends {
            let dir = TempDir()
            defer { dir.remove() }
            let state = try StateUnderTest(backend, dir: dir)
            defer { _ = try? pg.psql("DROP SCHEMA IF EXISTS \(state.schema) CASCADE"); _ = try? pg.psql("DROP SCHEMA IF EXISTS \(state.schema)_sink CASCADE") }
            let long = Self.random(10_240), tooLong = Self.random(20_000)
            let web = try LoopbackServer { req in
                req.path == "/long"
                    ? .text(Self.page([(long, "long"), (tooLong, "too long"), ("short", "short")]))
                    : .text(Self.page([("o1", "other 1"), ("o2", "other 2")]))
            }
            defer { web.stop() }
            let cfg = dir.write("tributary.json", #"""
            {"state":\#(state.json()),
             "sources":[\#(Self.source("long", web.url("/long"))),\#(Self.source("other", web.url("/other")))],
             "sinks":[{"type":"jsonl","path":"out/items.jsonl"},{"type":"postgres","url":"\#(pg.url())","table":"\#(state.schema)_sink.items"},
                      {"type":"rss","path":"out/feed.xml","title":"t","link":"http://127.0.0.1/"}]}
            """#)
            let first = try BinaryRunner.run(["run", "-c", cfg], cwd: dir.path)
            XCTAssertEqual(first.status, 0, "\(backend): \(first.stderr.suffix(3000))")
            XCTAssertTrue(first.stderr.contains("long: item skipped: its id is 20005 bytes, longer than the 16384 an id may have (id \"long:\(tooLong.prefix(55))"),
                          "\(backend): \(first.stderr.suffix(3000))")
            XCTAssertTrue(Self.line(first.stderr, "long").contains("3 fetched  2 new  1 skipped"), "\(backend): \(first.stderr.suffix(3000))")
            XCTAssertTrue(Self.line(first.stderr, "other").contains("2 fetched  2 new"), "\(backend): \(first.stderr.suffix(3000))")
            let expected = ["long:" + long, "long:short", "other:o1", "other:o2"]
            XCTAssertEqual(Self.ids(dir.read("out/items.jsonl")).sorted(), expected.sorted(), "\(backend)")
            XCTAssertEqual(try pg.psql("SELECT length(id) FROM \(state.schema)_sink.items ORDER BY 1 DESC"), "10245\n10\n8\n8\n", "\(backend)")
            XCTAssertEqual(dir.read("out/feed.xml")?.components(separatedBy: long).count, 2, "\(backend): the long id once in the rss window")
            if backend == .postgres {
                XCTAssertEqual(try pg.psql("SELECT count(*) FROM \(state.schema).emitted WHERE length(id) = 10245 AND id_hash = sha256(convert_to(id, 'UTF8'))"), "1\n")
            }

            let second = try BinaryRunner.run(["run", "-c", cfg], cwd: dir.path)
            XCTAssertEqual(second.status, 0, "\(backend): \(second.stderr.suffix(3000))")
            XCTAssertTrue(Self.line(second.stderr, "long").contains("3 fetched  0 new  1 skipped"), "\(backend): not again: \(second.stderr.suffix(3000))")
            XCTAssertTrue(Self.line(second.stderr, "other").contains("2 fetched  0 new"), "\(backend): \(second.stderr.suffix(3000))")
            XCTAssertEqual(Self.ids(dir.read("out/items.jsonl")).sorted(), expected.sorted(), "\(backend): nothing delivered twice")
            XCTAssertEqual(try pg.psql("SELECT count(*) FROM \(state.schema)_sink.items"), "4\n", "\(backend)")
        }
    }

    /// A `postgres` sink table made keyed on `id` (an earlier release's, or one made by hand)
    /// is converted to the key `id_sha256` when the sink opens, its rows kept; one that cannot
    /// be converted (a foreign key refers to its `id`) is left exactly as it was, and only the
    /// item whose id its index cannot take is skipped, with a warning.
    func testAPostgresSinkTableKeyedOnIDIsConvertedOrLeftAloneSkippingOnlyTheLongID() throws {
        let pg = try PostgresServer.shared()
        let dir = TempDir()
        let schema = "t_" + UUID().uuidString.prefix(8).lowercased()
        defer { dir.remove(); _ = try? pg.psql("DROP SCHEMA IF EXISTS \(schema) CASCADE") }
        let columns = """
            source text NOT NULL, type text NOT NULL, kind text NOT NULL, title text NOT NULL, summary text, url text, image text, author text,
            published timestamptz, fetched timestamptz NOT NULL, tags text[], lat double precision, lon double precision, data jsonb
            """
        _ = try pg.psql("""
            CREATE SCHEMA \(schema);
            CREATE TABLE \(schema).items(id text PRIMARY KEY, \(columns));
            INSERT INTO \(schema).items(id, source, type, kind, title, fetched) VALUES('old:1', 'old', 'json', 'entry', 'kept', now());
            CREATE TABLE \(schema).pinned(id text PRIMARY KEY, \(columns));
            CREATE TABLE \(schema).notes(item text REFERENCES \(schema).pinned(id), note text);
            """)
        let long = Self.random(10_240)
        let web = try LoopbackServer { _ in .text(Self.page([(long, "long"), ("short", "short")])) }
        defer { web.stop() }
        let cfg = dir.write("tributary.json", #"""
        {"state":{"path":"state.sqlite"},"sources":[\#(Self.source("long", web.url("/long")))],
         "sinks":[{"type":"postgres","url":"\#(pg.url())","table":"\#(schema).items"},{"type":"postgres","url":"\#(pg.url())","table":"\#(schema).pinned"}]}
        """#)
        let r = try BinaryRunner.run(["run", "-c", cfg], cwd: dir.path)
        XCTAssertEqual(r.status, 0, r.stderr.suffix(3000).description)
        XCTAssertTrue(r.stderr.contains("postgres: \(schema).items: converted to the key id_sha256 (the SHA-256 of id) so that ids of any length fit: 1 row"), r.stderr)
        XCTAssertTrue(r.stderr.contains("postgres: \(schema).pinned: the table is keyed on id and could not be converted to the key id_sha256 ("), r.stderr)
        XCTAssertTrue(r.stderr.contains("postgres: \(schema).pinned: item \"long:\(long.prefix(55))"), r.stderr)
        XCTAssertTrue(r.stderr.contains("not written: its id is 10245 bytes"), r.stderr)
        XCTAssertFalse(r.stderr.contains(pg.password))
        XCTAssertEqual(try pg.psql("SELECT id FROM \(schema).items WHERE length(id) < 100 ORDER BY id"), "long:short\nold:1\n")
        XCTAssertEqual(try pg.psql("SELECT count(*) FROM \(schema).items WHERE length(id) = 10245 AND id_sha256 = sha256(convert_to(id, 'UTF8'))"), "1\n")
        XCTAssertEqual(try pg.psql("""
            SELECT a.attname FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY(c.conkey)
            WHERE c.conrelid = '\(schema).items'::regclass AND c.contype = 'p'
            """), "id_sha256\n", "the primary key is the hash now")
        XCTAssertEqual(try pg.psql("SELECT id FROM \(schema).pinned"), "long:short\n", "the table that could not be converted got the short id")
        XCTAssertEqual(try pg.psql("SELECT count(*) FROM pg_attribute WHERE attrelid = '\(schema).pinned'::regclass AND attname = 'id_sha256'"), "0\n", "left as it was")
        // The next run writes the same items again (a new state): the converted table upserts.
        let again = try BinaryRunner.run(["run", "-c", cfg, "--no-state"], cwd: dir.path)
        XCTAssertEqual(again.status, 0, again.stderr.suffix(3000).description)
        XCTAssertFalse(again.stderr.contains(": converted to the key"), "converted once: \(again.stderr)")
        XCTAssertTrue(again.stderr.contains("\(schema).pinned: the table is keyed on id and could not be converted"), "said again: \(again.stderr)")
        XCTAssertEqual(try pg.psql("SELECT count(*) FROM \(schema).items"), "3\n")
    }

    // MARK: 4: status

    /// `status` and `status --json` read the state `run` writes, on both backends: nothing
    /// before the first run (and, on PostgreSQL, nothing created by reading), then the good
    /// source ok and the bad one failing (exit 1). `--state FILE` reads that file instead.
    func testStatusAndJSONReadTheConfiguredBackend() throws {
        let pg = try PostgresServer.shared()
        let web = try LoopbackServer { req in req.path == "/bad" ? LoopbackResponse.text("down", status: 500) : .text(Self.page([("1", "one"), ("2", "two")])) }
        defer { web.stop() }
        for backend in StateUnderTest.backends {
            let dir = TempDir()
            defer { dir.remove() }
            let state = try StateUnderTest(backend, dir: dir)
            defer { _ = try? pg.psql("DROP SCHEMA IF EXISTS \(state.schema) CASCADE") }
            let cfg = dir.write("tributary.json", #"""
            {"state":\#(state.json()),"sources":[\#(Self.source("good", web.url("/good"))),\#(Self.source("bad", web.url("/bad")))],
             "sinks":[{"type":"jsonl","path":"out/items.jsonl"}]}
            """#)
            let before = try BinaryRunner.run(["status", "-c", cfg], cwd: dir.path)
            XCTAssertEqual(before.status, 0, "\(backend): \(before.stdout)\(before.stderr)")
            XCTAssertEqual(before.stdout.components(separatedBy: "never run").count - 1, 2, "\(backend): \(before.stdout)")
            if backend == .postgres {
                XCTAssertEqual(try pg.psql("SELECT count(*) FROM pg_namespace WHERE nspname = '\(state.schema)'"), "0\n", "status creates nothing")
            }
            let run = try BinaryRunner.run(["run", "-c", cfg], cwd: dir.path)
            XCTAssertEqual(run.status, 1, "\(backend): \(run.stderr)")
            let text = try BinaryRunner.run(["status", "-c", cfg], cwd: dir.path)
            XCTAssertEqual(text.status, 1, "\(backend): bad is failing: \(text.stdout)\(text.stderr)")
            let lines = text.stdout.split(separator: "\n").map(String.init)
            XCTAssertEqual(lines.count, 3, "\(backend): \(text.stdout)")
            XCTAssertTrue(lines.count == 3 && lines[1].hasPrefix("good ") && lines[1].contains(" ok "), "\(backend): \(text.stdout)")
            XCTAssertTrue(lines.count == 3 && lines[2].hasPrefix("bad ") && lines[2].contains(" failing ") && lines[2].contains("500"), "\(backend): \(text.stdout)")
            let json = try BinaryRunner.run(["status", "-c", cfg, "--json"], cwd: dir.path)
            XCTAssertEqual(json.status, 1, "\(backend): \(json.stdout)\(json.stderr)")
            let rows = json.stdout.split(separator: "\n").compactMap { try? JSONParser.parse(String($0)) }
            XCTAssertEqual(rows.map { $0[path: "name"]?.stringValue }, ["good", "bad"], "\(backend): \(json.stdout)")
            XCTAssertEqual(rows.first?[path: "emitted"]?.numberValue?.text, "2", "\(backend): \(json.stdout)")
            XCTAssertEqual(rows.first?[path: "failures"]?.numberValue?.text, "0", "\(backend): \(json.stdout)")
            XCTAssertNotNil(rows.first?[path: "last_success"], "\(backend): \(json.stdout)")
            XCTAssertEqual(rows.last?[path: "failures"]?.numberValue?.text, "1", "\(backend): \(json.stdout)")
            XCTAssertTrue(rows.last?[path: "last_error"]?.stringValue?.contains("500") ?? false, "\(backend): \(json.stdout)")
            if backend == .postgres {
                // `--state FILE` is the file, not state.url: a file no run wrote says never run.
                let file = try BinaryRunner.run(["status", "-c", cfg, "--state", dir.path + "/none.sqlite"], cwd: dir.path)
                XCTAssertEqual(file.status, 0, file.stdout + file.stderr)
                XCTAssertEqual(file.stdout.components(separatedBy: "never run").count - 1, 2, file.stdout)
            }
        }
    }

    /// A PostgreSQL state `status` cannot reach is exit 2 with the reason and the URL without
    /// its password, as text and as `--json` (nothing on stdout: a health check fails).
    func testStatusOfAnUnreachablePostgreSQLStateIsExitTwo() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let port = try NATSServer.freePort()
        let cfg = dir.write("tributary.json", #"""
        {"state":{"url":"postgres://tributary:hunter2-pw@127.0.0.1:\#(port)/postgres"},"sources":[\#(Self.source("a", "http://127.0.0.1:1/a"))]}
        """#)
        for args in [["status", "-c", cfg], ["status", "-c", cfg, "--json"]] {
            let r = try BinaryRunner.run(args, cwd: dir.path)
            XCTAssertEqual(r.status, 2, "\(args): \(r.stdout)\(r.stderr)")
            XCTAssertEqual(r.stdout, "", "\(args)")
            XCTAssertTrue(r.stderr.contains("tributary: status: cannot read the state: cannot connect to PostgreSQL at postgres://tributary:***@127.0.0.1:\(port)/postgres: "), "\(args): \(r.stderr)")
            XCTAssertFalse(r.stderr.contains("hunter2-pw"), r.stderr)
        }
    }

    // MARK: 11: a state outage

    /// PostgreSQL stops while a source's run is in flight (its answer is slow): the run ends
    /// `stopped: state unavailable`, and its lease (2 min) could not be released. Once the
    /// server is back the source runs again within seconds (its own lease is reused), not when
    /// the lease runs out, and its items are delivered.
    func testASourceStrandedByAStateOutageRunsAgainWithinSecondsOfItsReturn() throws {
        let pg = try PostgresServer()  // its own server: this test stops it
        defer { pg.remove() }
        let requests = Locked<[Double]>([])
        let web = try LoopbackServer { _ in
            let n = requests.withLock { r -> Int in
                r.append(Date().timeIntervalSince1970)
                return r.count
            }
            var response = LoopbackResponse.text(Self.page([("1", "one")]))
            if n == 1 { response.delay = 5 }  // the first answer comes once the server is down
            return response
        }
        defer { web.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = dir.write("tributary.json", #"""
        {"defaults":{"interval":"1h","jitter":"0s"},"state":{"url":"\#(pg.url())"},"sources":[\#(Self.source("slow", web.url("/slow")))],
         "sinks":[{"type":"jsonl","path":"\#(dir.path)/out/items.jsonl"}]}
        """#)
        let p = try BinaryRunner.start(["watch", "-c", cfg, "--worker", "w1"], stdoutPath: dir.path + "/out.txt", stderrPath: dir.path + "/err.txt")
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL); p.waitUntilExit() } }
        func stderr() -> String { dir.read("err.txt") ?? "" }
        XCTAssertTrue(Self.waitUntil(30) { requests.withLock { $0.count } >= 1 }, "the source ran: \(stderr())")
        try pg.stopServer(mode: "fast")
        XCTAssertTrue(Self.waitUntil(30) { stderr().contains("stopped: state unavailable") }, "the run in flight is stopped: \(stderr())")
        try pg.start()
        let back = Date().timeIntervalSince1970
        XCTAssertTrue(Self.waitUntil(45) { requests.withLock { $0.count } >= 2 }, "the stranded source ran again within seconds of the state's return, not after its lease: \(stderr().suffix(3000))")
        let again = requests.withLock { $0.count >= 2 ? $0[1] : .infinity } - back
        XCTAssertLessThan(again, 45, stderr())
        XCTAssertTrue(Self.waitUntil(20) { Self.ids(dir.read("out/items.jsonl")) == ["slow:1"] }, "delivered once: \(dir.read("out/items.jsonl") ?? "")")
        XCTAssertEqual(Self.stop(p), 143, stderr().suffix(3000).description)
        XCTAssertFalse(stderr().contains(pg.password))
        XCTAssertEqual(Self.ids(dir.read("out/items.jsonl")), ["slow:1"])
    }

    // MARK: 12: a sink outage

    /// nats-server is down for 8 s while `watch` runs and new items come: `watch` keeps
    /// running, says the sink failed and when it is written again, and afterwards every item is
    /// in the stream exactly once (the batches that failed came again; JetStream dropped what
    /// it already held by `Nats-Msg-Id`).
    func testWatchOutlivesAnEightSecondNATSOutageAndEveryItemArrivesOnce() throws {
        let nats = try NATSServer()
        defer { nats.remove() }
        let epoch = Locked(1)
        let web = try LoopbackServer { req in
            let name = String(req.path.dropFirst())
            let e = epoch.withLock { $0 }
            return .text(Self.page((1...e).map { ("\(name)-\($0)", "item \($0) of \(name)") }))
        }
        defer { web.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let names = ["a", "b", "c"]
        let cfg = dir.write("tributary.json", #"""
        {"defaults":{"interval":"1s","jitter":"0s"},"state":{"path":"\#(dir.path)/state.sqlite"},
         "sources":[\#(names.map { Self.source($0, web.url("/\($0)")) }.joined(separator: ","))],
         "sinks":[{"type":"nats","url":"\#(nats.url)","stream":"ITEMS","timeout":"2s"}]}
        """#)
        let p = try BinaryRunner.start(["watch", "-c", cfg], stdoutPath: dir.path + "/out.txt", stderrPath: dir.path + "/err.txt")
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL); p.waitUntilExit() } }
        func stderr() -> String { dir.read("err.txt") ?? "" }
        func count() -> Int { (try? NATSReader.count(nats.url, stream: "ITEMS")?.count) ?? -1 }
        XCTAssertTrue(Self.waitUntil(30) { count() == 3 }, "the first round: \(stderr())")
        nats.stop()
        epoch.withLock { $0 = 2 }
        usleep(8_000_000)
        XCTAssertTrue(p.isRunning, "watch outlives the outage: \(stderr().suffix(3000))")
        try nats.start()
        XCTAssertTrue(Self.waitUntil(60) { count() == 6 }, "the items of the outage arrive: \(count()) \(stderr().suffix(3000))")
        usleep(2_000_000)  // a round more: nothing is published twice
        XCTAssertTrue(p.isRunning, "watch kept running: \(stderr().suffix(3000))")
        XCTAssertEqual(Self.stop(p), 143, stderr().suffix(3000).description)
        let log = stderr()
        XCTAssertTrue(log.contains("warning: sink: nats failed (attempt 1), trying again in 1s; the batch is not recorded and comes again: nats: "), log)
        XCTAssertTrue(log.contains("warning: sink: nats: written again after "), log)
        XCTAssertTrue(log.contains("stopped: sink unavailable: nats: "), log)
        let stream = try XCTUnwrap(NATSReader.read(nats.url, stream: "ITEMS"))
        XCTAssertEqual(stream.messages.compactMap(\.id).sorted(), names.flatMap { n in ["\(n):\(n)-1", "\(n):\(n)-2"] }.sorted(), "every item once")
    }
}
