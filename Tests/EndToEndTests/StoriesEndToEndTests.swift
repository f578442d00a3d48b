import Foundation
import XCTest
import TributaryCore
import TributaryTestSupport

/// The `stories` stage through the release binary, against three outlets' RSS feeds on
/// 127.0.0.1: a wire's report, a portal's copy (tracking parameters, the outlet's name on the
/// title), a mobile copy (`m.` + `/amp`, `BREAKING:`) and another desk's light edit, beside
/// look-alikes that are other stories (another number, another team). `action: drop` through
/// JSON Lines on stdout and a webhook, `action: tag` through the `stdout` sink's text and a
/// `jsonl` file; two runs on one SQLite state; `test NAME`; `status` and the metrics file.
final class StoriesEndToEndTests: XCTestCase {
    static func rss(_ title: String, _ items: [(guid: String, title: String, link: String)]) -> String {
        let entries = items.map { i in
            "<item><title>\(i.title)</title><link>\(i.link)</link><guid isPermaLink=\"false\">\(i.guid)</guid><pubDate>Thu, 03 Dec 2026 09:00:00 +0000</pubDate></item>"
        }
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?><rss version=\"2.0\"><channel><title>\(title)</title>\(entries.joined())</channel></rss>"
    }

    static let wire = rss("Meridian Wire", [
        ("w1", "Central bank raises rates to 4% as inflation lingers", "https://www.meridianwire.com/business/central-bank-raises-rates-to-4-idQH0812/"),
        ("w2", "Lakers beat Celtics 105-96 to take 3-2 series lead", "https://www.meridianwire.com/sport/lakers-beat-celtics-105-96-idQH0813/"),
    ])
    static let portal = rss("Portal", [
        ("p1", "Central bank raises rates to 4% as inflation lingers - Meridian Wire",
         "https://www.meridianwire.com/business/central-bank-raises-rates-to-4-idQH0812/?utm_source=rss&amp;utm_medium=feed&amp;fbclid=x1"),
        ("p2", "Central bank cuts rates to 3.75% as inflation eases", "https://portal.example/markets/central-bank-cuts-rates-to-3-75"),
    ])
    static let mobile = rss("Mobile", [
        ("m1", "BREAKING: Central bank raises rates to 4% as inflation lingers", "http://m.meridianwire.com/business/central-bank-raises-rates-to-4-idQH0812/amp"),
        ("m2", "Lakers beat Warriors 99-95 to even series at 2-2", "https://m.meridianwire.com/sport/lakers-beat-warriors-99-95-idQH0901/amp"),
    ])
    /// Two copies of one story in one feed.
    static let twice = rss("Twice", [
        ("t1", "Central bank raises rates to 4% as inflation lingers", "https://www.meridianwire.com/business/central-bank-raises-rates-to-4-idQH0812/"),
        ("t2", "UPDATE: Central bank raises rates to 4% as inflation lingers", "https://www.meridianwire.com/business/central-bank-raises-rates-to-4-idQH0812/#comments"),
    ])
    /// Run 2: another desk's light edit of the wire's report, and one new story.
    static let ledger = rss("Daily Ledger", [
        ("l1", "Central Bank Raises Interest Rates to 4% as Inflation Lingers | The Daily Ledger", "https://www.dailyledger.com/business/article_2e17.html"),
        ("l2", "City council approves new cycle lanes on Main Street", "https://www.dailyledger.com/local/article_2e18.html"),
    ])

    func feeds() throws -> LoopbackServer {
        try LoopbackServer { req in
            switch req.path {
            case "/wire": return .text(Self.wire, contentType: "application/rss+xml")
            case "/portal": return .text(Self.portal, contentType: "application/rss+xml")
            case "/mobile": return .text(Self.mobile, contentType: "application/rss+xml")
            case "/ledger": return .text(Self.ledger, contentType: "application/rss+xml")
            case "/twice": return .text(Self.twice, contentType: "application/rss+xml")
            default: return .text("not here", status: 404, contentType: "text/plain")
            }
        }
    }

    /// The sources, every item of their first run emitted. Which copy of a story comes first
    /// is the order the sources finish in: the tests hold whichever does.
    func config(_ dir: TempDir, _ server: LoopbackServer, feeds: [String], stories: String, sinks: String = "[]", file: String = "tributary.json") -> String {
        let sources = feeds.map { #"{"name":"\#($0)","type":"feed","url":"\#(server.url("/" + $0))","first_run":"all"}"# }
        return dir.write(file, #"{"sources":[\#(sources.joined(separator: ","))],"stories":\#(stories),"sinks":\#(sinks)}"#)
    }

    /// The items of JSON Lines, each valid against Docs/item.schema.json.
    func items(_ lines: [String]) throws -> [(id: String, title: String, story: String?)] {
        let schema = try SchemaValidator.itemSchema()
        return try lines.map { line in
            XCTAssertEqual(schema.validate(line: line), [], line)
            let o = try XCTUnwrap(JSONParser.parse(Array(line.utf8)).objectValue, line)
            return (o["id"]?.stringValue ?? "", o["title"]?.stringValue ?? "", o["story"]?.stringValue)
        }
    }

    func testDropEmitsEachStoryOnceAcrossSourcesAndRunsAndCountsTheCopies() throws {
        let server = try feeds()
        let dir = TempDir()
        defer { server.stop(); dir.remove() }
        let state = dir.path + "/state.db"
        let cfg = config(dir, server, feeds: ["wire", "portal", "mobile"], stories: #"{"action":"drop"}"#)
        let r = try BinaryRunner.run(["run", "-c", cfg, "--jsonl", "--state", state, "--metrics-file", dir.path + "/m.prom"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let first = try items(r.stdoutLines)
        let ids = first.map { $0.id.replacingOccurrences(of: "feed:127.0.0.1:", with: "") }
        XCTAssertEqual(ids.filter { ["w1", "p1", "m1"].contains($0) }.count, 1, "one copy of the rate rise: \(r.stdout)")
        XCTAssertEqual(ids.filter { !["w1", "p1", "m1"].contains($0) }.sorted(), ["m2", "p2", "w2"], r.stdout)
        XCTAssertEqual(Set(first.compactMap(\.story)).count, 4, "every emitted item has its own story: \(first)")
        XCTAssertTrue(first.allSatisfy { $0.story?.range(of: "^story:[0-9a-f]{16}$", options: .regularExpression) != nil }, r.stdout)
        XCTAssertTrue(r.stderr.contains("2 duplicates"), "the summary counts the copies kept back: \(r.stderr)")
        let m = try PrometheusReader.read(dir.path + "/m.prom")
        let counted = ["wire", "portal", "mobile"].map { m.value("tributary_story_duplicates_total", ["source": $0]) ?? -1 }
        XCTAssertEqual(counted.reduce(0, +), 2, "\(counted)")
        XCTAssertEqual(counted.filter { $0 == 0 }.count, 1, "the source whose copy came first kept none back: \(counted)")

        // Run 2 on the same state, with the ledger: its light edit is the wire's story, kept back.
        let cfg2 = config(dir, server, feeds: ["wire", "portal", "mobile", "ledger"], stories: #"{"action":"drop"}"#, file: "two.json")
        let r2 = try BinaryRunner.run(["run", "-c", cfg2, "--jsonl", "--state", state])
        XCTAssertEqual(r2.status, 0, r2.stderr)
        XCTAssertEqual(try items(r2.stdoutLines).map(\.title), ["City council approves new cycle lanes on Main Street"], r2.stdout)

        let status = try BinaryRunner.run(["status", "-c", cfg2, "--state", state, "--json"])
        XCTAssertEqual(status.status, 0, status.stderr)
        var duplicates: [String: Int] = [:]
        for line in status.stdoutLines {
            let o = try XCTUnwrap(JSONParser.parse(Array(line.utf8)).objectValue, line)
            duplicates[o["name"]?.stringValue ?? "?"] = o["duplicates"]?.numberValue?.int64.map { Int($0) }
        }
        XCTAssertEqual(duplicates["ledger"], 1, status.stdout)
        XCTAssertEqual(duplicates.values.reduce(0, +), 3, status.stdout)
        let table = try BinaryRunner.run(["status", "-c", cfg2, "--state", state])
        XCTAssertTrue(table.stdout.contains("DUPLICATES"), table.stdout)
    }

    func testTagGivesARunTwoCopyTheStoryOfItsRunOneFirstThroughTheStdoutSinkAndAFile() throws {
        let server = try feeds()
        let dir = TempDir()
        defer { server.stop(); dir.remove() }
        let state = dir.path + "/state.db"
        let sinks = #"[{"type":"stdout"},{"type":"jsonl","path":"out/items.jsonl"}]"#
        let cfg = config(dir, server, feeds: ["wire", "portal", "mobile"], stories: #"{"action":"tag"}"#, sinks: sinks)
        let r = try BinaryRunner.run(["run", "-c", cfg, "--state", state])
        XCTAssertEqual(r.status, 0, r.stderr)
        let cfg2 = config(dir, server, feeds: ["ledger"], stories: #"{"action":"tag"}"#, sinks: sinks, file: "two.json")
        let r2 = try BinaryRunner.run(["run", "-c", cfg2, "--state", state])
        XCTAssertEqual(r2.status, 0, r2.stderr)
        let lines = try String(contentsOfFile: dir.path + "/out/items.jsonl", encoding: .utf8).split(separator: "\n").map(String.init)
        let all = try items(lines)
        XCTAssertEqual(all.count, 8, "tag emits every copy: \(lines)")
        let story = Dictionary(uniqueKeysWithValues: all.map { ($0.id.replacingOccurrences(of: "feed:127.0.0.1:", with: ""), $0.story ?? "-") })
        XCTAssertEqual(story["p1"], story["w1"])
        XCTAssertEqual(story["m1"], story["w1"])
        XCTAssertEqual(story["l1"], story["w1"], "run 2's copy has the story of run 1's first")
        for other in ["w2", "p2", "m2", "l2"] { XCTAssertNotEqual(story[other], story["w1"], other) }
        XCTAssertEqual(Set([story["w2"], story["p2"], story["m2"], story["l2"]]).count, 4, "look-alikes are stories of their own: \(story)")
        // The stdout sink's text lines carry the story too.
        let w1 = try XCTUnwrap(story["w1"])
        XCTAssertEqual(r.stdoutLines.filter { $0.contains(w1) }.count, 3, r.stdout)
        XCTAssertEqual(r2.stdoutLines.filter { $0.contains(w1) }.count, 1, r2.stdout)
    }

    func testDropThroughAWebhookSendsOnlyEachStorysFirst() throws {
        let server = try feeds()
        let received = Locked<[String]>([])
        let hook = try LoopbackServer { req in
            let body = String(decoding: req.body, as: UTF8.self)
            received.withLock { $0 += body.split(separator: "\n").map(String.init) }
            return LoopbackResponse(status: 200)
        }
        let dir = TempDir()
        defer { server.stop(); hook.stop(); dir.remove() }
        let sinks = #"[{"type":"webhook","url":"\#(hook.url("/hook"))"}]"#
        let cfg = config(dir, server, feeds: ["wire", "portal", "mobile", "ledger"], stories: #"{"action":"drop"}"#, sinks: sinks)
        let r = try BinaryRunner.run(["run", "-c", cfg, "--state", dir.path + "/state.db"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let got = try items(received.withLock { $0 })
        let ids = got.map { $0.id.replacingOccurrences(of: "feed:127.0.0.1:", with: "") }
        XCTAssertEqual(ids.filter { ["w1", "p1", "m1", "l1"].contains($0) }.count, 1, "one copy of the rate rise: \(ids)")
        XCTAssertEqual(ids.filter { !["w1", "p1", "m1", "l1"].contains($0) }.sorted(), ["l2", "m2", "p2", "w2"])
        XCTAssertEqual(Set(got.compactMap(\.story)).count, 5)
    }

    func testTestShowsTheStoryOfEachItemAndADryRunChangesNoStory() throws {
        let server = try feeds()
        let dir = TempDir()
        defer { server.stop(); dir.remove() }
        // A source with two copies of one story in it: `test` shows each item, with its story
        // (under `drop` too: it shows what the source gives, nothing kept back).
        let both = config(dir, server, feeds: ["twice"], stories: #"{"action":"drop"}"#, file: "twice.json")
        let t = try BinaryRunner.run(["test", "twice", "-c", both])
        XCTAssertEqual(t.status, 0, t.stderr)
        let shown = try items(t.stdoutLines)
        XCTAssertEqual(shown.count, 2, t.stdout)
        XCTAssertEqual(Set(shown.compactMap(\.story)).count, 1, t.stdout)

        let state = dir.path + "/state.db"
        let cfg = config(dir, server, feeds: ["wire"], stories: #"{"action":"drop"}"#)
        XCTAssertEqual(try BinaryRunner.run(["run", "-c", cfg, "--jsonl", "--state", state]).status, 0)
        let cfg2 = config(dir, server, feeds: ["portal", "mobile"], stories: #"{"action":"tag"}"#, file: "two.json")
        let dry = try BinaryRunner.run(["run", "-c", cfg2, "--state", state, "--dry-run"])
        XCTAssertEqual(dry.status, 0, dry.stderr)
        let dryItems = try items(dry.stdoutLines)
        XCTAssertEqual(dryItems.count, 4, dry.stdout)
        // The dry run found the stories in the state and wrote none: a real run finds the same.
        let real = try BinaryRunner.run(["run", "-c", cfg2, "--state", state, "--jsonl"])
        let realItems = try items(real.stdoutLines)
        XCTAssertEqual(realItems.map(\.id).sorted(), dryItems.map(\.id).sorted())
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: realItems.map { ($0.id, $0.story ?? "") }),
                       Dictionary(uniqueKeysWithValues: dryItems.map { ($0.id, $0.story ?? "") }))
    }

    /// Two workers sharing a PostgreSQL state run at the same moment, each over its own outlets,
    /// which carry copies of the same 20 new stories (each outlet its own links and its own
    /// title decoration): under `tag` the two copies of a story get one story, under `drop`
    /// each story is emitted once between them, and the copies are counted.
    func testTwoWorkersSharingAPostgreSQLStateGiveCopiesOneStory() throws {
        let pg = try PostgresServer.shared()
        let cities = ["Leeds", "York", "Bath", "Hull", "Derby"]
        @Sendable func feed(_ outlet: String, _ part: Int) -> String {
            Self.rss(outlet, (0..<4).map { j in
                let k = part * 4 + j
                let title = "Council approves plan \(k * 7 + 3) for the new harbour bridge in \(cities[k % 5])"
                return ("\(outlet)-\(k)", outlet == "a" ? title + " - Outlet A" : "UPDATE: " + title, "https://\(outlet).example/news/\(k)-harbour")
            })
        }
        let server = try LoopbackServer { req in
            // /a/2: outlet a's third feed. A little wait, so the two workers' batches overlap.
            let parts = req.path.split(separator: "/")
            guard parts.count == 2, let part = Int(parts[1]) else { return .text("no", status: 404, contentType: "text/plain") }
            usleep(UInt32.random(in: 0...100_000))
            return .text(feed(String(parts[0]), part), contentType: "application/rss+xml")
        }
        let dir = TempDir()
        defer { server.stop(); dir.remove() }
        for action in ["tag", "drop"] {
            let schema = "s_" + UUID().uuidString.prefix(8).lowercased()
            func config(_ outlet: String) -> String {
                let sources = (0..<5).map { #"{"name":"\#(outlet)\#($0)","type":"feed","url":"\#(server.url("/\(outlet)/\($0)"))"}"# }
                return dir.write("\(outlet)-\(action).json", #"{"state":{"url":"\#(pg.url())","schema":"\#(schema)"},"stories":{"action":"\#(action)"},"sources":[\#(sources.joined(separator: ","))],"sinks":[{"type":"jsonl","path":"out/\#(outlet)-\#(action).jsonl"}]}"#)
            }
            let workers = try ["a", "b"].map { o in
                try BinaryRunner.start(["run", "-c", config(o), "--worker", "w" + o], stdoutPath: dir.path + "/\(o).out", stderrPath: dir.path + "/\(o).err")
            }
            for w in workers {
                let end = Date().addingTimeInterval(60)
                while w.isRunning && Date() < end { usleep(20_000) }
                XCTAssertFalse(w.isRunning)
                w.waitUntilExit()
                XCTAssertEqual(w.terminationStatus, 0, (dir.read("a.err") ?? "") + (dir.read("b.err") ?? ""))
            }
            let lines = ["a", "b"].flatMap { o in (dir.read("out/\(o)-\(action).jsonl") ?? "").split(separator: "\n").map(String.init) }
            let got = try items(lines)
            var story: [String: String] = [:]
            for i in got { story[i.id.replacingOccurrences(of: "feed:127.0.0.1:", with: "")] = i.story }
            if action == "tag" {
                XCTAssertEqual(got.count, 40, lines.joined(separator: "\n"))
                for k in 0..<20 {
                    XCTAssertNotNil(story["a-\(k)"])
                    XCTAssertEqual(story["a-\(k)"], story["b-\(k)"], "story \(k): two copies, two stories")
                }
                XCTAssertEqual(Set(story.values).count, 20)
            } else {
                XCTAssertEqual(got.count, 20, "each story once between the two workers: \(story.keys.sorted())")
                for k in 0..<20 { XCTAssertEqual([story["a-\(k)"], story["b-\(k)"]].compactMap { $0 }.count, 1, "story \(k)") }
                let counted = try pg.psql("SELECT coalesce(sum(value), 0) FROM \(schema).counters WHERE name = 'story_duplicates'")
                XCTAssertEqual(counted.trimmingCharacters(in: .whitespacesAndNewlines), "20")
            }
        }
    }
}
