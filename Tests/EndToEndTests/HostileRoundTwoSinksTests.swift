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

    // MARK: webhooks

    /// A local file of items `1...count`, item `huge` with a title of 20,000 characters.
    func items(_ dir: TempDir, _ count: Int, huge: Int? = nil) -> String {
        let list = (1...count).map { n in
            #"{"id":"\#(n)","title":"\#(n == huge ? String(repeating: "y", count: 20_000) : "Item \(n)")","link":"https://e.org/\#(n)"}"#
        }
        return "file://" + dir.write("items.json", #"{"items":[\#(list.joined(separator: ","))]}"#)
    }

    func webhookConfig(_ dir: TempDir, source: String, sink: String) -> String {
        dir.write("tributary.json", #"""
            {"state":{"path":"state.sqlite"},
             "sources":[{"name":"demo","type":"json","url":"\#(source)","items":"items","fields":{"id":"id","title":"title","url":"link"}}],
             "sinks":[\#(sink)]}
            """#)
    }

    // MARK: finding 2: a webhook's 413

    func testAWebhook413SplitsTheBatchAndRejectsOnlyTheItemTooLarge() throws {
        let limit = 4096
        let server = try LoopbackServer { req in LoopbackResponse(status: req.body.count > limit ? 413 : 200) }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = webhookConfig(dir, source: items(dir, 12, huge: 7), sink: #"{"type":"webhook","url":"\#(server.url("/hook"))"}"#)
        let metrics = dir.path + "/metrics.prom"

        let r = try BinaryRunner.run(["run", "-c", cfg, "--metrics-file", metrics])
        XCTAssertEqual(r.status, 0, r.stderr)
        let shown = server.baseURL + "/***"
        XCTAssertTrue(r.stderr.contains("webhook: POST \(shown): HTTP 413 for 12 items (a body of "), r.stderr)
        XCTAssertTrue(r.stderr.contains("sending them again as two requests of 6 and 6"), r.stderr)
        XCTAssertTrue(r.stderr.contains("warning: demo: sink webhook rejected item demo:7: webhook: POST \(shown): HTTP 413 for this item alone"), r.stderr)
        XCTAssertTrue(r.stderr.contains("total: 1 source, 0 failed, 12 fetched, 12 new, 1 rejected, "), r.stderr)
        // What the receiver accepted: every other item, once.
        let accepted = server.requests.filter { $0.body.count <= limit }.flatMap { req in
            req.bodyText.split(separator: "\n").compactMap { line -> String? in
                guard case .string(let id)? = try? JSONParser.parse(String(line))[path: "id"] else { return nil }
                return id
            }
        }
        XCTAssertEqual(accepted.sorted(), (1...12).filter { $0 != 7 }.map { "demo:\($0)" }.sorted())
        XCTAssertEqual(Set(accepted).count, accepted.count, "no item delivered twice: \(accepted)")
        let text = try String(contentsOfFile: metrics, encoding: .utf8)
        XCTAssertTrue(text.contains("tributary_sink_rejected_items_total{sink=\"webhook\"} 1\n"), text)
        XCTAssertTrue(text.contains("tributary_sink_written_items_total{sink=\"webhook\"} 11\n"), text)

        let requests = server.requestCount
        let again = try BinaryRunner.run(["run", "-c", cfg])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stderr.contains("12 fetched  0 new"), again.stderr)
        XCTAssertEqual(server.requestCount, requests, "the rejected item is not sent again")
    }

    // MARK: finding 6: a token in the webhook URL's path

    func testAWebhookURLWithATokenInItsPathIsNeverShown() throws {
        let token = "tokEN-5f2a9c81d0b7e34a"
        let path = "/services/T0001/B0002/\(token)"
        let server = try LoopbackServer { req in
            LoopbackResponse(status: 503, body: Array("no route for POST \(req.path)".utf8))
        }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = webhookConfig(dir, source: items(dir, 2), sink: #"{"type":"webhook","url":"\#(server.url(path))","retries":1,"timeout":"2s"}"#)
        let metrics = dir.path + "/metrics.prom"
        let shown = server.baseURL + "/***"

        let check = try BinaryRunner.run(["check", "-c", cfg])
        XCTAssertEqual(check.status, 0, check.stderr)
        let r = try BinaryRunner.run(["run", "-c", cfg, "--metrics-file", metrics])
        XCTAssertEqual(r.status, 3, r.stderr)
        XCTAssertEqual(server.requestCount, 2)
        XCTAssertTrue(r.stderr.contains("webhook: POST \(shown): attempt 1 of 2: HTTP 503; retrying"), r.stderr)
        XCTAssertTrue(r.stderr.contains("tributary: sink failed: webhook: POST \(shown): HTTP 503 Service Unavailable: no route for POST ***, expected a 2xx answer, after 2 attempts"),
                      r.stderr)
        let json = try BinaryRunner.run(["run", "-c", cfg, "--log-format", "json"])
        XCTAssertEqual(json.status, 3, json.stderr)
        let status = try BinaryRunner.run(["status", "-c", cfg])
        let statusJSON = try BinaryRunner.run(["status", "-c", cfg, "--json"])
        let dump = try Shell.run(["sqlite3", dir.path + "/state.sqlite", ".dump"])
        let outputs: [(String, String)] = [
            ("check", check.stdout + check.stderr), ("run", r.stdout + r.stderr), ("run --log-format json", json.stdout + json.stderr),
            ("status", status.stdout + status.stderr), ("status --json", statusJSON.stdout + statusJSON.stderr),
            ("metrics", (try? String(contentsOfFile: metrics, encoding: .utf8)) ?? ""), ("state", dump.stdout),
        ]
        for (what, text) in outputs {
            XCTAssertFalse(text.contains(token), "\(what) shows the token:\n\(text)")
            XCTAssertFalse(text.contains("/services/T0001"), "\(what) shows the path:\n\(text)")
        }
        XCTAssertTrue(server.requests.allSatisfy { $0.path == path }, "the real URL is what is POSTed to")
    }

    // MARK: finding 7: a 2xx with a huge or endless body

    func testAWebhook2xxWithAHugeOrEndlessOrStalledBodyIsDeliveredOnce() throws {
        let answers: [(String, LoopbackResponse)] = [
            ("a 20 MiB body", LoopbackResponse(status: 200, body: Array(repeating: UInt8(ascii: "z"), count: 20 << 20))),
            ("an endless body", LoopbackResponse(status: 200, endlessChunks: 8192)),
            ("a body that stalls", LoopbackResponse(status: 200, headers: [("Content-Length", "100000")], body: Array(repeating: UInt8(ascii: "z"), count: 100_000),
                                                    stallAfter: 100)),
        ]
        for (what, answer) in answers {
            let server = try LoopbackServer { _ in answer }
            defer { server.stop() }
            let dir = TempDir()
            defer { dir.remove() }
            let cfg = webhookConfig(dir, source: items(dir, 3), sink: #"{"type":"webhook","url":"\#(server.url("/hook"))","timeout":"5s","retries":2}"#)
            let start = Date()
            let r = try BinaryRunner.run(["run", "-c", cfg])
            XCTAssertEqual(r.status, 0, "\(what): \(r.stderr)")
            XCTAssertLessThan(Date().timeIntervalSince(start), 15, "\(what): the status line decides, the body is not waited for")
            XCTAssertEqual(server.requestCount, 1, "\(what): sent once: \(r.stderr)")
            XCTAssertFalse(r.stderr.contains("retrying"), "\(what): \(r.stderr)")
            let again = try BinaryRunner.run(["run", "-c", cfg])
            XCTAssertEqual(again.status, 0, "\(what): \(again.stderr)")
            XCTAssertTrue(again.stderr.contains("3 fetched  0 new"), "\(what): \(again.stderr)")
            XCTAssertEqual(server.requestCount, 1, "\(what): nothing is sent again")
        }
    }

    // MARK: finding 14: jsonl on a full disk

    func testAJSONLBatchThatFillsTheDiskIsCutBackAndWrittenOnceByTheNextRun() throws {
        let calls = Locked(0)
        let long = String(repeating: "w", count: 1000)
        let web = try LoopbackServer { _ in
            let n = calls.withLock { c -> Int in
                defer { c += 1 }
                return c
            }
            let count = n == 0 ? 5 : 105
            return .text("{\"items\":[" + (0..<count).map { #"{"id":\#($0),"title":"\#($0 < 5 ? "Item \($0)" : long)"}"# }.joined(separator: ",") + "]}")
        }
        defer { web.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let mnt = dir.path + "/mnt"
        try FileManager.default.createDirectory(atPath: mnt, withIntermediateDirectories: true)
        let cfg = dir.write("tributary.json", #"""
            {"state":{"path":"\#(dir.path)/state.sqlite"},"sources":[\#(source("s", web.baseURL + "/x"))],
             "sinks":[{"type":"jsonl","path":"\#(mnt)/items.jsonl"}]}
            """#)
        // Everything on the small file system happens in one mount namespace: five lines fit;
        // then the file system is filled but for 16 KiB, and 100 lines of 1 KiB do not; then
        // room is made and the next run writes them.
        let script = #"""
            mount -t tmpfs -o size=256k tmpfs "$MNT" || exit 97
            step() { "$BIN" run -c "$CFG" >"$OUT/$1.out" 2>"$OUT/$1.err"; echo $? >"$OUT/$1.rc"; cp "$MNT/items.jsonl" "$OUT/$1.jsonl"; }
            step r1
            cat /dev/zero >"$MNT/filler" 2>/dev/null
            truncate -s -16K "$MNT/filler"
            step r2
            rm "$MNT/filler"
            step r3
            """#
        let r = try Shell.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script],
                              env: ["MNT": mnt, "BIN": BinaryRunner.binary, "CFG": cfg, "OUT": dir.path, "XDG_STATE_HOME": dir.path + "/xdg"], timeout: 120)
        if r.status == 97 || (r.status != 0 && r.stderr.hasPrefix("unshare:")) {
            throw XCTSkip("this process may not create a mount namespace or mount a tmpfs: \(r.stderr)")
        }
        XCTAssertEqual(r.status, 0, r.stderr)
        func read(_ name: String) -> String { dir.read(name) ?? "" }
        func ids(_ name: String) -> [String] {
            read(name).split(separator: "\n").compactMap { line -> String? in
                guard case .string(let id)? = try? JSONParser.parse(String(line))[path: "id"] else { return nil }
                return id
            }
        }
        XCTAssertEqual(read("r1.rc"), "0\n", read("r1.err"))
        XCTAssertEqual(ids("r1.jsonl"), (0..<5).map { "s:\($0)" })
        XCTAssertEqual(read("r2.rc"), "3\n", read("r2.err"))
        XCTAssertTrue(read("r2.err").contains("No space left on device"), read("r2.err"))
        XCTAssertTrue(read("r2.err").contains("the file was cut back to its"), read("r2.err"))
        XCTAssertEqual(read("r2.jsonl"), read("r1.jsonl"), "the failed batch left no line and no part of one")
        XCTAssertEqual(read("r3.rc"), "0\n", read("r3.err"))
        XCTAssertFalse(read("r3.err").contains("partial last line"), read("r3.err"))
        XCTAssertEqual(ids("r3.jsonl"), (0..<105).map { "s:\($0)" }, "each item exactly once")
    }

    // MARK: finding 20: Atom entries need a link or content; feeds name their own URL

    func feedServer() throws -> LoopbackServer {
        try LoopbackServer { _ in
            .text(#"{"items":[{"id":1,"title":"Linked","link":"https://e.org/1"},{"id":2,"title":"Only a title"},{"id":3,"title":"Summed up","summary":"The summary & more"}]}"#)
        }
    }

    func feedConfig(_ dir: TempDir, _ web: LoopbackServer, sinks: String) -> String {
        dir.write("tributary.json", #"""
            {"state":{"path":"state.sqlite"},
             "sources":[{"name":"w","type":"json","url":"\#(web.baseURL)/x","items":"items","fields":{"id":"id","title":"title","url":"link","summary":"summary"}}],
             "sinks":\#(sinks)}
            """#)
    }

    func testAtomEntriesWithoutALinkHaveContent() throws {
        let web = try feedServer()
        defer { web.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = feedConfig(dir, web, sinks: #"[{"type":"atom","path":"out/feed.atom","link":"https://example.org/"}]"#)
        let r = try BinaryRunner.run(["run", "-c", cfg])
        XCTAssertEqual(r.status, 0, r.stderr)
        let atom = try FeedReader.read(dir.path + "/out/feed.atom")
        XCTAssertEqual(atom.bozo, 0, atom.bozoException)
        XCTAssertEqual(atom.version, "atom10")
        XCTAssertEqual(atom.entries.count, 3)
        for e in atom.entries {
            XCTAssertTrue(e.link != nil || e.content != nil, "RFC 4287 4.1.1: entry \(e.id) has neither a link nor content")
        }
        let byID = Dictionary(uniqueKeysWithValues: atom.entries.map { ($0.id, $0) })
        XCTAssertEqual(byID["w:1"]?.link, "https://e.org/1")
        XCTAssertNil(byID["w:1"]?.content, "an entry with a link needs no content")
        XCTAssertEqual(byID["w:2"]?.content, "Only a title")
        XCTAssertEqual(byID["w:3"]?.content, "The summary & more")
        XCTAssertEqual(byID["w:3"]?.summary, "The summary & more")
        XCTAssertNil(atom.selfLink, "no self_url, no rel=\"self\" link")

        // The file reads back into the same window: a run without state keeps every entry once,
        // and the content does not turn into a summary.
        let look = try BinaryRunner.run(["run", "-c", cfg, "--no-state", "--all"])
        XCTAssertEqual(look.status, 0, look.stderr)
        let text = dir.read("out/feed.atom") ?? ""
        XCTAssertEqual(text.components(separatedBy: "<entry>").count - 1, 3, text)
        XCTAssertEqual(text.components(separatedBy: "<summary>").count - 1, 1, text)
        XCTAssertEqual(text.components(separatedBy: #"<content type="text">"#).count - 1, 2, text)
    }

    func testFeedsNameTheirOwnURLWhenGiven() throws {
        let web = try feedServer()
        defer { web.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = feedConfig(dir, web, sinks: #"""
            [{"type":"atom","path":"out/feed.atom","link":"https://example.org/","self_url":"https://example.org/feed.atom"},
             {"type":"rss","path":"out/feed.xml","link":"https://example.org/","self_url":"https://example.org/feed.xml"},
             {"type":"jsonfeed","path":"out/feed.json","link":"https://example.org/","self_url":"https://example.org/feed.json"}]
            """#)
        let r = try BinaryRunner.run(["run", "-c", cfg])
        XCTAssertEqual(r.status, 0, r.stderr)
        for (file, json, expected) in [("feed.atom", false, "atom10"), ("feed.xml", false, "rss20"), ("feed.json", true, "json11")] {
            let feed = try FeedReader.read(dir.path + "/out/" + file, json: json)
            XCTAssertEqual(feed.bozo, 0, "\(file): \(feed.bozoException)")
            XCTAssertEqual(feed.version, expected, file)
            XCTAssertEqual(feed.selfLink, "https://example.org/" + file, file)
            XCTAssertEqual(feed.link, "https://example.org/", "\(file): the alternate link stays the site")
            XCTAssertEqual(feed.entries.count, 3, file)
        }
        // Read back without state, each file keeps its entries once.
        let look = try BinaryRunner.run(["run", "-c", cfg, "--no-state", "--all"])
        XCTAssertEqual(look.status, 0, look.stderr)
        XCTAssertEqual(try FeedReader.read(dir.path + "/out/feed.xml").entries.map(\.id).sorted(), ["w:1", "w:2", "w:3"])
    }
}
