import Foundation
import XCTest
import TributaryCore
import TributaryTestSupport

/// Issue 19's sink findings, through the release binary against real servers: an item too
/// large for its server (NATS `max_payload`, a webhook's 413) is rejected, counted and recorded
/// while the rest is delivered; a webhook URL with a token in its path is never shown; a 2xx
/// with a huge or endless body is a 2xx; a jsonl batch that fills the disk leaves nothing
/// behind; Atom entries without a link have content, and feeds name their own URL.
final class HostileRoundTwoSinksTests: XCTestCase {
    /// `{"items":[...]}` of ids `ids`, each titled `Item <id>`, but those in `huge`, whose
    /// title is `hugeTitle` characters long.
    static func page(_ ids: [Int], huge: Set<Int> = [], hugeTitle: Int = 6000) -> String {
        "{\"items\":[" + ids.map { id in
            let title = huge.contains(id) ? String(repeating: "x", count: hugeTitle) : "Item \(id)"
            return #"{"id":\#(id),"title":"\#(title)"}"#
        }.joined(separator: ",") + "]}"
    }

    func source(_ name: String, _ url: String, extra: String = "") -> String {
        #"{"name":"\#(name)","type":"json","url":"\#(url)","items":"items","fields":{"id":"id","title":"title"}\#(extra)}"#
    }

    /// The state's counters of `name` by label (sqlite3, a reader that is not ours).
    func counters(_ state: String, _ name: String) throws -> [String: Int] {
        let r = try Shell.run(["sqlite3", state, "SELECT label, value FROM counters WHERE name = '\(name)' ORDER BY label"])
        XCTAssertEqual(r.status, 0, r.stderr)
        var out: [String: Int] = [:]
        for line in r.stdout.split(separator: "\n") {
            let parts = line.split(separator: "|")
            if parts.count == 2, let v = Int(parts[1]) { out[String(parts[0])] = v }
        }
        return out
    }

    /// Waits for the process to end (SIGKILL after `seconds`); its status and stderr.
    func wait(_ p: Process, _ dir: TempDir, seconds: Double = 60) -> (Int32, String) {
        let deadline = Date().addingTimeInterval(seconds)
        while p.isRunning && Date() < deadline { usleep(20_000) }
        if p.isRunning { kill(p.processIdentifier, SIGKILL) }
        p.waitUntilExit()
        return (p.terminationStatus, dir.read("err") ?? "")
    }

    // MARK: finding 2: NATS max_payload

    func testAnItemOverTheNATSMaxPayloadIsRejectedCountedAndTheRestDelivered() throws {
        let nats = try NATSServer(maxPayload: 4096)
        defer { nats.remove() }
        let round = Locked(0)
        let web = try LoopbackServer { _ in
            round.withLock { $0 } == 0 ? .text(Self.page(Array(0..<5), huge: [2])) : .text(Self.page(Array(0..<7), huge: [2, 5]))
        }
        defer { web.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = dir.write("tributary.json", #"""
            {"defaults":{"jitter":"0s"},"state":{"path":"state.sqlite"},"sources":[\#(source("news", web.baseURL + "/a", extra: #","interval":"1s""#))],
             "sinks":[{"type":"nats","url":"\#(nats.url)","stream":"ITEMS"}]}
            """#)
        let metrics = dir.path + "/metrics.prom"

        let first = try BinaryRunner.run(["run", "-c", cfg, "--metrics-file", metrics])
        XCTAssertEqual(first.status, 0, "one oversized item must not fail the batch: \(first.stderr)")
        XCTAssertTrue(first.stderr.contains("warning: news: sink nats rejected item news:2: nats: \(nats.url): its message is "), first.stderr)
        XCTAssertTrue(first.stderr.contains("over the server's max_payload of 4096 bytes; not published; recorded as delivered, so it is not retried"), first.stderr)
        XCTAssertTrue(first.stderr.contains("5 fetched  5 new  1 rejected"), first.stderr)
        XCTAssertTrue(first.stderr.contains("total: 1 source, 0 failed, 5 fetched, 5 new, 1 rejected, "), first.stderr)
        XCTAssertEqual(try NATSReader.read(nats.url, stream: "ITEMS")?.messages.map(\.id), ["news:0", "news:1", "news:3", "news:4"],
                       "every small item of the batch is published")
        let text = try String(contentsOfFile: metrics, encoding: .utf8)
        XCTAssertTrue(text.contains("tributary_sink_rejected_items_total{sink=\"nats\"} 1\n"), text)
        XCTAssertTrue(text.contains("tributary_sink_written_items_total{sink=\"nats\"} 4\n"), text)
        XCTAssertTrue(text.contains("tributary_sink_failures_total{sink=\"nats\"} 0\n"), text)
        XCTAssertEqual(try counters(dir.path + "/state.sqlite", "sink_rejected"), ["nats": 1])

        // Recorded as delivered: the next run does not try it again.
        let second = try BinaryRunner.run(["run", "-c", cfg])
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertTrue(second.stderr.contains("5 fetched  0 new"), second.stderr)
        XCTAssertFalse(second.stderr.contains("rejected"), second.stderr)
        XCTAssertEqual(try NATSReader.count(nats.url, stream: "ITEMS")?.count, 4)

        // `watch` rejects the next oversized item and keeps running.
        round.withLock { $0 = 1 }
        let p = try BinaryRunner.start(["watch", "-c", cfg], stdoutPath: dir.path + "/out", stderrPath: dir.path + "/err")
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        let deadline = Date().addingTimeInterval(60)
        func ids() -> [String] { (try? NATSReader.read(nats.url, stream: "ITEMS")?.messages.compactMap(\.id)) ?? [] }
        while !ids().contains("news:6") && p.isRunning && Date() < deadline { usleep(200_000) }
        usleep(2_500_000)  // more rounds of the 1 s interval
        XCTAssertTrue(p.isRunning, "watch keeps running after a rejected item: \(dir.read("err") ?? "")")
        kill(p.processIdentifier, SIGTERM)
        let (status, stderr) = wait(p, dir)
        XCTAssertEqual(status, 143, stderr)
        XCTAssertTrue(stderr.contains("sink nats rejected item news:5: "), stderr)
        XCTAssertEqual(stderr.components(separatedBy: "rejected item news:5").count - 1, 1, "rejected once, not in every round: \(stderr)")
        XCTAssertEqual(ids(), ["news:0", "news:1", "news:3", "news:4", "news:6"])
        XCTAssertEqual(try counters(dir.path + "/state.sqlite", "sink_rejected"), ["nats": 2])
    }
}
