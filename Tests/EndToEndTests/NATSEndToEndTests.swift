import Foundation
import XCTest
import TributaryCore
import TributaryTestSupport

/// The `nats` sink on the release binary against a real nats-server with JetStream
/// (`NATSServer`) and a loopback HTTP source, read back with nats-py (`NATSReader`).
final class NATSEndToEndTests: XCTestCase {
    struct Failure: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    static func page(_ from: Int, _ count: Int) -> String {
        "{\"items\":[" + (from..<(from + count)).map { #"{"id":\#($0),"title":"Item \#($0)"}"# }.joined(separator: ",") + "]}"
    }

    func source(_ name: String, _ url: String, extra: String = "") -> String {
        #"{"name":"\#(name)","type":"json","url":"\#(url)","items":"items","fields":{"id":"id","title":"title"}\#(extra)}"#
    }

    /// A config of `sources` and one nats sink with the given options (JSON members).
    func config(_ dir: TempDir, sources: [String], sink: String) -> String {
        dir.write("tributary.json", #"{"sources":[\#(sources.joined(separator: ","))],"sinks":[{"type":"nats",\#(sink)}],"state":{"path":"state.sqlite"}}"#)
    }

    func testItemsArriveOnceEachWithTheirIDsAndRepublishingIsDeduplicated() throws {
        let nats = try NATSServer()
        defer { nats.remove() }
        let web = try LoopbackServer { _ in .text(Self.page(0, 5)) }
        defer { web.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = config(dir, sources: [source("news", web.baseURL + "/a")], sink: #""url":"\#(nats.url)","stream":"ITEMS""#)

        let first = try BinaryRunner.run(["run", "-c", cfg])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(first.stdout, "", "a nats sink writes nothing to stdout")
        let stream = try XCTUnwrap(NATSReader.read(nats.url, stream: "ITEMS"), "the sink creates the stream")
        XCTAssertEqual(stream.subjects, ["tributary.items.>"])
        XCTAssertEqual(stream.duplicateWindow, 120)
        XCTAssertEqual(stream.messages.map(\.id), (0..<5).map { "news:\($0)" })
        XCTAssertEqual(Set(stream.messages.map(\.subject)), ["tributary.items.entry"])
        let schema = try SchemaValidator.itemSchema()
        for m in stream.messages {
            XCTAssertEqual(schema.validate(line: m.data), [], m.data)
            XCTAssertTrue(m.data.hasPrefix(#"{"id":"\#(m.id ?? "")","source":"news","type":"json","kind":"entry","title":"#), m.data)
            XCTAssertFalse(m.data.hasSuffix("\n"))
        }

        // --all publishes the same ids again: JetStream's duplicate window drops every one.
        let again = try BinaryRunner.run(["run", "-c", cfg, "--all"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stderr.contains("5 fetched  5 new"), again.stderr)
        XCTAssertEqual(try NATSReader.count(nats.url, stream: "ITEMS")?.count, 5)

        // Without --all nothing is new; a new item upstream is the only one published.
        let quiet = try BinaryRunner.run(["run", "-c", cfg])
        XCTAssertEqual(quiet.status, 0, quiet.stderr)
        XCTAssertTrue(quiet.stderr.contains("5 fetched  0 new"), quiet.stderr)
        XCTAssertEqual(try NATSReader.count(nats.url, stream: "ITEMS")?.count, 5)
    }

    func testSubjectTemplateAndTheStreamsDuplicateWindow() throws {
        let nats = try NATSServer()
        defer { nats.remove() }
        let web = try LoopbackServer { req in .text(Self.page(req.path == "/a" ? 0 : 10, 2)) }
        defer { web.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = config(dir, sources: [source("my.feed", web.baseURL + "/a", extra: #","kind":"video""#), source("other", web.baseURL + "/b")],
                         sink: #""url":"\#(nats.url)","stream":"T","subject":"tributary.items.{source}.{type}.{kind}","duplicate_window":"5s""#)
        let r = try BinaryRunner.run(["run", "-c", cfg])
        XCTAssertEqual(r.status, 0, r.stderr)
        let stream = try XCTUnwrap(NATSReader.read(nats.url, stream: "T"))
        XCTAssertEqual(stream.duplicateWindow, 5)
        var subjects: [String: String] = [:]
        for m in stream.messages { subjects[m.id ?? "?"] = m.subject }
        XCTAssertEqual(subjects, [
            "my.feed:0": "tributary.items.my_feed.json.video", "my.feed:1": "tributary.items.my_feed.json.video",
            "other:10": "tributary.items.other.json.entry", "other:11": "tributary.items.other.json.entry",
        ])
    }

    func testNoStreamCapturingTheSubjectIsASinkFailureAndTheNextRunDelivers() throws {
        let nats = try NATSServer()
        defer { nats.remove() }
        let web = try LoopbackServer { _ in .text(Self.page(0, 3)) }
        defer { web.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = config(dir, sources: [source("news", web.baseURL + "/a")], sink: #""url":"\#(nats.url)""#)

        let failed = try BinaryRunner.run(["run", "-c", cfg])
        XCTAssertEqual(failed.status, 3, failed.stderr)
        XCTAssertTrue(failed.stderr.contains("tributary: sink failed: nats: \(nats.url): no stream captures subject tributary.items.entry"), failed.stderr)
        XCTAssertTrue(failed.stderr.contains(#"set "stream""#), failed.stderr)

        // State was not advanced: once a stream captures the subject, the same items go out.
        try NATSReader.addStream(nats.url, name: "MINE", subjects: ["tributary.items.*"])
        let ok = try BinaryRunner.run(["run", "-c", cfg])
        XCTAssertEqual(ok.status, 0, ok.stderr)
        XCTAssertTrue(ok.stderr.contains("3 fetched  3 new"), ok.stderr)
        XCTAssertEqual(try NATSReader.read(nats.url, stream: "MINE")?.messages.map(\.id), ["news:0", "news:1", "news:2"])
    }

    func testAServerRestartedBetweenRunsKeepsDeduplicating() throws {
        let nats = try NATSServer()
        defer { nats.remove() }
        let web = try LoopbackServer { _ in .text(Self.page(0, 3)) }
        defer { web.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = config(dir, sources: [source("news", web.baseURL + "/a")], sink: #""url":"\#(nats.url)","stream":"ITEMS""#)
        XCTAssertEqual(try BinaryRunner.run(["run", "-c", cfg]).status, 0)
        nats.kill()
        try nats.start()
        let again = try BinaryRunner.run(["run", "-c", cfg, "--all"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(try NATSReader.read(nats.url, stream: "ITEMS")?.messages.map(\.id), ["news:0", "news:1", "news:2"])
    }

    /// Source `a` (/a) answers at once, `b` (/b) once the semaphore has been signalled (or after 2 min).
    func twoBatchServer() throws -> (LoopbackServer, DispatchSemaphore) {
        let gate = DispatchSemaphore(value: 0)
        let web = try LoopbackServer { req in
            if req.path == "/a" { return .text(Self.page(0, 3)) }
            if gate.wait(timeout: .now() + 120) == .success { gate.signal() }  // once open, it stays open
            return .text(Self.page(10, 3))
        }
        return (web, gate)
    }

    /// Runs sources `a` and `b` of `twoBatchServer`; returns the running binary once `a`'s
    /// batch is acknowledged and `b`'s request waits for its gate.
    func startTwoBatchRun(_ dir: TempDir, _ nats: NATSServer, _ web: LoopbackServer, timeout: String = "10s") throws -> Process {
        // b's request waits at the gate: no HTTP timeout while the test works on the server.
        let cfg = config(dir, sources: [source("a", web.baseURL + "/a"), source("b", web.baseURL + "/b", extra: #","timeout":"2m""#)],
                         sink: #""url":"\#(nats.url)","stream":"ITEMS","timeout":"\#(timeout)""#)
        let p = try BinaryRunner.start(["run", "-c", cfg, "-v"], stdoutPath: dir.path + "/out", stderrPath: dir.path + "/err")
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if web.requests.contains(where: { $0.path == "/b" }), hasFinished("a", dir) { return p }
            usleep(50_000)
        }
        p.terminate()
        throw Failure(message: "the first batch did not arrive: \(dir.read("err") ?? "")")
    }

    /// Whether the run (started with -v) logged `source` as finished: its batch was
    /// acknowledged and recorded. The stream's count alone is not enough before a pause: the
    /// server stores a message before its acknowledgement leaves, so a server paused right
    /// after a count can hold the acknowledgements back, and the batch then times out.
    func hasFinished(_ source: String, _ dir: TempDir) -> Bool {
        (dir.read("err") ?? "").split(separator: "\n").contains { $0.contains(" \(source): ok, ") }
    }

    func wait(_ p: Process, _ dir: TempDir) -> (Int32, String) {
        let deadline = Date().addingTimeInterval(60)
        while p.isRunning && Date() < deadline { usleep(20_000) }
        if p.isRunning { p.terminate() }
        p.waitUntilExit()
        return (p.terminationStatus, dir.read("err") ?? "")
    }

    func testAServerKilledAndRestartedBetweenTwoBatchesOfARun() throws {
        let nats = try NATSServer()
        defer { nats.remove() }
        let (web, gate) = try twoBatchServer()
        defer {
            gate.signal()
            web.stop()
        }
        let dir = TempDir()
        defer { dir.remove() }
        let p = try startTwoBatchRun(dir, nats, web)
        nats.kill()
        try nats.start()
        gate.signal()
        let (status, stderr) = wait(p, dir)
        XCTAssertEqual(status, 0, stderr)
        XCTAssertEqual(try NATSReader.read(nats.url, stream: "ITEMS")?.messages.map(\.id), ["a:0", "a:1", "a:2", "b:10", "b:11", "b:12"])
    }

    func testAcknowledgementsLostWithAServerArePublishedAgainAfterItComesBack() throws {
        let nats = try NATSServer()
        defer { nats.remove() }
        let (web, gate) = try twoBatchServer()
        defer {
            gate.signal()
            web.stop()
        }
        let dir = TempDir()
        defer { dir.remove() }
        let p = try startTwoBatchRun(dir, nats, web)
        // b's batch is published to a server that reads nothing and then dies: no
        // acknowledgement ever comes for it from that server.
        nats.pause()
        gate.signal()
        try awaitUnread(nats, dir)
        nats.kill()
        try nats.start()
        let (status, stderr) = wait(p, dir)
        XCTAssertEqual(status, 0, stderr)
        XCTAssertEqual(try NATSReader.read(nats.url, stream: "ITEMS")?.messages.map(\.id), ["a:0", "a:1", "a:2", "b:10", "b:11", "b:12"])
    }

    /// Waits (bounded) until a paused server holds bytes a client sent that it has not read.
    func awaitUnread(_ nats: NATSServer, _ dir: TempDir) throws {
        let deadline = Date().addingTimeInterval(30)
        while nats.unreadBytes() == 0 {
            guard Date() < deadline else { throw Failure(message: "nothing reached the paused server: \(dir.read("err") ?? "") port \(nats.port) \(NATSServer.tcpTable().split(separator: "\n").filter { $0.contains(String(format: ":%04X", nats.port)) }.joined(separator: "\n"))") }
            usleep(20_000)
        }
    }

    /// The server stopped and started again (same store) in the middle of a run whose sources
    /// answer one at a time when the test lets them: the batch published to the paused server,
    /// whose acknowledgements never came, is published again after the reconnect (JetStream
    /// drops whatever of it the old server had stored), batches fetched while the server was
    /// down go out once it is back, and the stream holds every served id exactly once.
    func testAServerStoppedAndRestartedMidRunLosesAndDuplicatesNothing() throws {
        let nats = try NATSServer()
        defer { nats.remove() }
        let sources = 6, perSource = 25
        let gates = (0..<sources).map { _ in DispatchSemaphore(value: 0) }
        let served = Locked<[String]>([])
        let web = try LoopbackServer { req in
            guard let i = Int(req.path.dropFirst(2)), gates.indices.contains(i) else { return .text("", status: 404) }
            guard gates[i].wait(timeout: .now() + 120) == .success else { return .text("", status: 503) }
            served.withLock { $0 += (0..<perSource).map { "s\(i):\(i * 100 + $0)" } }
            return .text(Self.page(i * 100, perSource))
        }
        defer {
            gates.forEach { $0.signal() }
            web.stop()
        }
        let dir = TempDir()
        defer { dir.remove() }
        // Requests wait at their gates: no HTTP timeout while the test works on the server.
        let cfg = config(dir, sources: (0..<sources).map { source("s\($0)", web.baseURL + "/s\($0)", extra: #","timeout":"2m""#) }, sink: #""url":"\#(nats.url)","stream":"ITEMS""#)
        let p = try BinaryRunner.start(["run", "-c", cfg, "-v"], stdoutPath: dir.path + "/out", stderrPath: dir.path + "/err")
        defer { if p.isRunning { p.terminate() } }
        func count() -> Int { (try? NATSReader.count(nats.url, stream: "ITEMS")?.count) ?? -1 }

        gates[0].signal()
        let deadline = Date().addingTimeInterval(60)
        while !hasFinished("s0", dir) && Date() < deadline { usleep(50_000) }
        XCTAssertEqual(count(), perSource, dir.read("err") ?? "")
        // s1's batch reaches a server that reads nothing; then it is stopped (SIGTERM) and s2
        // is fetched while nothing listens.
        nats.pause()
        gates[1].signal()
        try awaitUnread(nats, dir)
        nats.stop()
        gates[2].signal()
        while served.withLock({ $0.count }) < 3 * perSource && Date() < deadline { usleep(20_000) }
        try nats.start()
        gates[3...].forEach { $0.signal() }

        let (status, stderr) = wait(p, dir)
        XCTAssertEqual(status, 0, stderr)
        XCTAssertTrue(stderr.contains("\(sources * perSource) new"), stderr)
        let ids = try XCTUnwrap(NATSReader.read(nats.url, stream: "ITEMS")).messages.compactMap(\.id)
        XCTAssertEqual(ids.count, sources * perSource, "every served id once: \(ids)")
        XCTAssertEqual(Set(ids), Set(served.withLock { $0 }))
    }

    /// `watch` keeps its connection across rounds, and a server restart between them: libnats
    /// reconnects and the next round's new items are published.
    func testWatchPublishesEachRoundAndOutlivesAServerRestart() throws {
        let nats = try NATSServer()
        defer { nats.remove() }
        let more = Locked(false)
        let web = try LoopbackServer { _ in .text(Self.page(0, more.withLock { $0 } ? 5 : 3)) }
        defer { web.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = dir.write("tributary.json", #"{"defaults":{"jitter":"0s"},"sources":[\#(source("w", web.baseURL + "/a", extra: #","interval":"1s""#))],"sinks":[{"type":"nats","url":"\#(nats.url)","stream":"ITEMS"}],"state":{"path":"state.sqlite"}}"#)
        let p = try BinaryRunner.start(["watch", "-c", cfg], stdoutPath: dir.path + "/out", stderrPath: dir.path + "/err")
        defer { if p.isRunning { p.terminate() } }
        func count() -> Int { (try? NATSReader.count(nats.url, stream: "ITEMS")?.count) ?? -1 }
        let deadline = Date().addingTimeInterval(60)
        while count() != 3 && Date() < deadline { usleep(100_000) }
        XCTAssertEqual(count(), 3, dir.read("err") ?? "")
        nats.kill()
        try nats.start()
        more.withLock { $0 = true }
        while count() != 5 && Date() < deadline { usleep(100_000) }
        kill(p.processIdentifier, SIGTERM)
        let (status, stderr) = wait(p, dir)
        XCTAssertEqual(status, 143, stderr)
        XCTAssertEqual(try NATSReader.read(nats.url, stream: "ITEMS")?.messages.map(\.id), (0..<5).map { "w:\($0)" })
    }

    func testNoAcknowledgementWithinTheTimeoutIsASinkFailure() throws {
        let nats = try NATSServer()
        defer { nats.remove() }
        let (web, gate) = try twoBatchServer()
        defer {
            gate.signal()
            web.stop()
        }
        let dir = TempDir()
        defer { dir.remove() }
        let p = try startTwoBatchRun(dir, nats, web, timeout: "1s")
        nats.pause()
        gate.signal()
        let (status, stderr) = wait(p, dir)
        nats.resume()
        XCTAssertEqual(status, 3, stderr)
        XCTAssertTrue(stderr.contains("nats: \(nats.url): no acknowledgement from JetStream within 1s: 3 of 3 messages not acknowledged"), stderr)
        // b's items were not recorded: the next run publishes them (a's are not new).
        let cfg = dir.path + "/tributary.json"
        let next = try BinaryRunner.run(["run", "-c", cfg])
        XCTAssertEqual(next.status, 0, next.stderr)
        let lines = next.stderr.split(separator: "\n")
        XCTAssertTrue(lines.contains { $0.hasPrefix("a ") && $0.contains("3 fetched  0 new") }, next.stderr)
        XCTAssertTrue(lines.contains { $0.hasPrefix("b ") && $0.contains("3 fetched  3 new") }, next.stderr)
        XCTAssertEqual(try NATSReader.count(nats.url, stream: "ITEMS")?.count, 6)
    }

    func testCredentialsAreUsedAndNeverShown() throws {
        let nats = try NATSServer(user: "bob", password: "s3cret-pw")
        defer { nats.remove() }
        let web = try LoopbackServer { _ in .text(Self.page(0, 2)) }
        defer { web.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let good = config(dir, sources: [source("news", web.baseURL + "/a")], sink: #""url":"nats://bob:s3cret-pw@127.0.0.1:\#(nats.port)","stream":"ITEMS""#)
        let ok = try BinaryRunner.run(["run", "-c", good])
        XCTAssertEqual(ok.status, 0, ok.stderr)

        let wrong = config(dir, sources: [source("news", web.baseURL + "/a")], sink: #""url":"nats://bob:wrong-pw@127.0.0.1:\#(nats.port)","stream":"ITEMS""#)
        let refused = try BinaryRunner.run(["run", "-c", wrong, "--all"])
        XCTAssertEqual(refused.status, 3, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("nats: cannot connect to nats://***@127.0.0.1:\(nats.port): "), refused.stderr)
        XCTAssertTrue(refused.stderr.lowercased().contains("authorization"), refused.stderr)
        XCTAssertFalse(refused.stderr.contains("wrong-pw"), refused.stderr)

        let down = try NATSServer.freePort()
        let nobody = config(dir, sources: [source("news", web.baseURL + "/a")], sink: #""url":"nats://bob:s3cret-pw@127.0.0.1:\#(down)""#)
        let requestsBefore = web.requestCount
        let unreachable = try BinaryRunner.run(["run", "-c", nobody])
        XCTAssertEqual(unreachable.status, 3, unreachable.stderr)
        XCTAssertTrue(unreachable.stderr.contains("tributary: sink failed: nats: cannot connect to nats://***@127.0.0.1:\(down): "), unreachable.stderr)
        XCTAssertFalse(unreachable.stderr.contains("s3cret-pw"), unreachable.stderr)
        XCTAssertEqual(web.requestCount, requestsBefore, "the sink connects before any source is fetched")
    }

    func testTheExampleConfigPublishesWhatItFetches() throws {
        let nats = try NATSServer()
        defer { nats.remove() }
        let example = BinaryRunner.packageRoot + "/Sources-config/examples/nats.json"
        let expected = try BinaryRunner.run(["run", "-c", example, "--no-state", "--jsonl"])
        XCTAssertEqual(expected.status, 0, expected.stderr)
        let r = try BinaryRunner.run(["run", "-c", example, "--no-state"], env: ["NATS_URL": nats.url])
        XCTAssertEqual(r.status, 0, r.stderr)
        let stream = try XCTUnwrap(NATSReader.read(nats.url, stream: "TRIBUTARY"))
        XCTAssertGreaterThan(stream.count, 0)
        // The two sources run concurrently: their batches may come in either order.
        let ids = expected.stdoutLines.map { String($0.dropFirst(#"{"id":""#.count).prefix { $0 != "\"" }) }
        XCTAssertEqual(stream.messages.compactMap(\.id).sorted(), ids.sorted())
        XCTAssertEqual(Set(ids).count, ids.count)
        XCTAssertEqual(Set(stream.messages.map(\.subject)), ["tributary.items.video", "tributary.items.post"])
    }

    /// libnats is opened when a nats sink connects: never by `--version`, `check` or a run
    /// without one (start-up stays what it was).
    func testOnlyARunWithANatsSinkLoadsLibnats() throws {
        let nats = try NATSServer()
        defer { nats.remove() }
        let example = BinaryRunner.packageRoot + "/Sources-config/examples/nats.json"
        for args in [["--version"], ["check", "-c", example], ["run", "-c", example, "--no-state", "--jsonl"]] {
            let r = try BinaryRunner.run(args, env: ["LD_DEBUG": "files", "NATS_URL": nats.url])
            XCTAssertEqual(r.status, 0, "\(args): \(r.stderr.suffix(2000))")
            XCTAssertTrue(r.stderr.contains("file=libc.so.6"), "the loader's trace is there")
            XCTAssertFalse(r.stderr.contains("libnats"), "\(args) loaded libnats")
        }
        let r = try BinaryRunner.run(["run", "-c", example, "--no-state", "--quiet"], env: ["LD_DEBUG": "files", "NATS_URL": nats.url])
        XCTAssertEqual(r.status, 0, r.stderr.suffix(2000).description)
        XCTAssertTrue(r.stderr.contains("file=libnats.so.3.4 [0];  dynamically loaded by"), "a run with a nats sink opens libnats with dlopen")
    }

    /// With libnats hidden (/dev/null bound over it in a private mount namespace: root only,
    /// skipped where namespaces are not allowed), the sink fails readably before any fetch.
    func testWithoutLibnatsTheSinkFailsNamingTheLibrary() throws {
        let real = URL(fileURLWithPath: "/usr/lib/x86_64-linux-gnu/libnats.so.3.4").resolvingSymlinksInPath().path
        guard getuid() == 0, FileManager.default.fileExists(atPath: real), (try? Shell.run(["unshare", "-m", "true"]))?.status == 0 else {
            throw XCTSkip("needs root, unshare -m and \(real)")
        }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = config(dir, sources: [source("news", "http://127.0.0.1:9/x")], sink: #""url":"nats://127.0.0.1:9""#)
        let script = "mount --bind /dev/null \(real) || exit 99; \"$0\" run -c \"$1\""
        let r = try Shell.run(["unshare", "-m", "sh", "-c", script, BinaryRunner.binary, cfg])
        XCTAssertNotEqual(r.status, 99, "mount failed: \(r.stderr)")
        XCTAssertEqual(r.status, 3, r.stderr)
        XCTAssertTrue(r.stderr.contains("tributary: sink failed: nats: the nats sink needs the NATS C client (libnats.so.3.4, Debian package libnats3.4), which could not be loaded: "), r.stderr)
        XCTAssertFalse(r.stderr.contains("crashed") || r.stderr.contains("Fatal error"), r.stderr)
    }

    /// 10,000 items in one batch: every one stored, and the rate printed (PERFORMANCE.md).
    func testTenThousandItems() throws {
        let nats = try NATSServer()
        defer { nats.remove() }
        let body = Self.page(0, 10_000)
        let web = try LoopbackServer { _ in .text(body) }
        defer { web.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = config(dir, sources: [source("bulk", web.baseURL + "/a")], sink: #""url":"\#(nats.url)","stream":"BULK""#)
        let start = Date()
        let r = try BinaryRunner.run(["run", "-c", cfg, "--no-state"])
        let seconds = Date().timeIntervalSince(start)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try NATSReader.count(nats.url, stream: "BULK")?.count, 10_000)
        print("nats sink: 10000 items in one run in \(String(format: "%.2f", seconds)) s (whole run, \(Int(10_000 / seconds)) items/s)")
    }
}
