import Foundation
import XCTest
#if canImport(FoundationXML)
import FoundationXML
#endif
import TributaryCore
import TributaryTestSupport

/// `tributary run` as a user runs it: the real binary against a loopback server.
final class RunTests: XCTestCase {
    /// A JSON API page of `count` items starting at `from`.
    static func page(_ from: Int, _ count: Int) -> String {
        "{\"items\":[" + (from..<(from + count)).map { #"{"id":\#($0),"title":"Item \#($0)","link":"https://e.org/\#($0)"}"# }.joined(separator: ",") + "]}"
    }

    func source(_ name: String, _ url: String, extra: String = "") -> String {
        #"{"name":"\#(name)","type":"json","url":"\#(url)","items":"items","fields":{"id":"id","title":"title","url":"link"}\#(extra)}"#
    }

    func config(_ dir: TempDir, sources: [String], sinks: String = #"[{"type":"stdout","format":"jsonl"}]"#, http: String = "{}") -> String {
        dir.write("tributary.json", #"{"http":\#(http),"sources":[\#(sources.joined(separator: ","))],"sinks":\#(sinks)}"#)
    }

    func testJSONLModeDeliversEveryItemAndASummary() throws {
        let server = try LoopbackServer { req in .text(RunTests.page(req.path == "/a" ? 0 : 100, 3)) }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = config(dir, sources: [source("a", server.baseURL + "/a"), source("b", server.baseURL + "/b")], sinks: #"[{"type":"rss","path":"never.xml"}]"#)
        let r = try BinaryRunner.run(["run", "-c", cfg, "--jsonl"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdoutLines.count, 6)
        let schema = try SchemaValidator.itemSchema()
        for line in r.stdoutLines { XCTAssertEqual(schema.validate(line: line), [], line) }
        XCTAssertNil(dir.read("never.xml"), "--jsonl ignores the configured sinks")
        XCTAssertTrue(r.stderr.contains("json  ok  3 fetched  3 new"), r.stderr)
        XCTAssertTrue(r.stderr.contains("total: 2 sources, 0 failed, 6 fetched, 6 new"), r.stderr)
    }

    func testConfiguredSinksWriteFilesAndReadableText() throws {
        let server = try LoopbackServer { _ in .text(RunTests.page(0, 5)) }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = config(dir, sources: [source("a", server.baseURL + "/a")], sinks: #"""
        [{"type":"stdout"},{"type":"jsonl","path":"out/items.jsonl"},{"type":"rss","path":"out/feed.xml","title":"T","max_items":3}]
        """#)
        let r = try BinaryRunner.run(["run", "-c", cfg, "--quiet"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stderr, "", "--quiet prints no summary")
        XCTAssertEqual(r.stdoutLines.count, 5)
        XCTAssertTrue(r.stdoutLines[0].hasPrefix("entry    "), r.stdout)
        XCTAssertTrue(r.stdoutLines[0].hasSuffix("Item 0  https://e.org/0"), r.stdout)
        XCTAssertEqual(dir.read("out/items.jsonl")?.split(separator: "\n").count, 5)
        let xml = try XCTUnwrap(dir.read("out/feed.xml"))
        XCTAssertEqual(xml.components(separatedBy: "<item>").count - 1, 3)
        XCTAssertTrue(XMLParser(data: Data(xml.utf8)).parse())
    }

    func testOneFailingSourceExit1OthersDelivered() throws {
        let server = try LoopbackServer { req in
            req.path.hasPrefix("/ok") ? .text(RunTests.page(0, 2)) : .text(#"{"message":"Invalid API key"}"#, status: 401)
        }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = config(dir, sources: [source("good", server.baseURL + "/ok"), source("bad", server.baseURL + "/bad?appid=TOPSECRET&q=x")])
        let r = try BinaryRunner.run(["run", "-c", cfg])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stdoutLines.count, 2)
        XCTAssertTrue(r.stderr.contains("bad   json  failed: GET \(server.baseURL)/bad?appid=***&q=x: HTTP 401 Unauthorized: {\"message\":\"Invalid API key\"}"), r.stderr)
        XCTAssertFalse(r.stderr.contains("TOPSECRET"))
        XCTAssertEqual(server.requests.filter { $0.path.hasPrefix("/bad") }.count, 1, "401 is not retried")
    }

    func testConfigErrorsExit2AndNothingIsFetched() throws {
        let server = try LoopbackServer { _ in .text(RunTests.page(0, 1)) }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = dir.write("tributary.json", #"{"sources":[\#(source("a", server.baseURL + "/a")),{"name":"b","type":"json","url":"\#(server.baseURL)/b","fields":{"title":"t"},"retires":1}]}"#)
        for args in [["run", "-c", cfg], ["check", "-c", cfg], ["test", "a", "-c", cfg]] {
            let r = try BinaryRunner.run(args)
            XCTAssertEqual(r.status, 2, "\(args)")
            XCTAssertEqual(r.stdout, "")
            XCTAssertTrue(r.stderr.contains(#"tributary.json: sources[1] ("b"): unknown key "retires" (did you mean "retries"?)"#), r.stderr)
        }
        XCTAssertEqual(server.requestCount, 0, "a config error fetches nothing")
        let syntax = dir.write("bad.json", "{\n  \"sources\": [\n  ]\n  \"sinks\": []\n}")
        let r = try BinaryRunner.run(["run", "-c", syntax])
        XCTAssertEqual(r.status, 2)
        XCTAssertEqual(r.stderr, "\(syntax):4:3: unexpected '\"', expected ',' or '}'\n")
    }

    func testSecretsAreRedactedInEveryError() throws {
        let server = try LoopbackServer { req in
            if req.path.hasPrefix("/slow") { return LoopbackResponse(body: [], delay: 3) }
            if req.path.hasPrefix("/html") { return .text("<html>key=SECRET1</html>", contentType: "text/html") }
            return .text("oops", status: 500)
        }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = config(dir, sources: [
            source("slow", server.baseURL + "/slow?key=SECRET1", extra: #","timeout":"300ms","retries":0"#),
            source("html", server.baseURL + "/html?token=SECRET1"),
            source("err", server.baseURL + "/err?sign=SECRET1&access_token=SECRET1", extra: #","retries":0"#),
            source("refused", "http://127.0.0.1:1/x?password=SECRET1", extra: #","retries":0"#),
        ])
        let record = dir.path + "/rec"
        let r = try BinaryRunner.run(["run", "-c", cfg, "--verbose", "--record", record])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr.components(separatedBy: "json  failed:").count - 1, 4, r.stderr)
        XCTAssertFalse(r.stderr.contains("SECRET1"), r.stderr)
        XCTAssertTrue(r.stderr.contains("timed out"), r.stderr)
        XCTAssertTrue(r.stderr.contains("got an HTML page"), r.stderr)
        for f in (try? FileManager.default.contentsOfDirectory(atPath: record)) ?? [] {
            let text = String(decoding: FileManager.default.contents(atPath: record + "/" + f) ?? Data(), as: UTF8.self)
            XCTAssertFalse(text.contains("SECRET1") && !text.contains("<html>"), "\(f): \(text)")
            XCTAssertFalse(text.contains("key=SECRET1\""), f)
        }
    }

    func testConcurrencyLimitFromTheConfigIsRespected() throws {
        let server = try LoopbackServer { req in LoopbackResponse(status: 200, headers: [("Content-Type", "application/json")], body: Array(RunTests.page(Int(req.path.dropFirst(2)) ?? 0, 1).utf8), delay: 0.15) }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let urls = (0..<24).map { "\"\(server.baseURL)/p\($0 * 10)\"" }.joined(separator: ",")
        let cfg = config(dir, sources: [#"{"name":"many","type":"json","urls":[\#(urls)],"items":"items","fields":{"id":"id","title":"title"}}"#], http: #"{"concurrency":3,"per_host":3}"#)
        let r = try BinaryRunner.run(["run", "-c", cfg, "--jsonl"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdoutLines.count, 24)
        XCTAssertLessThanOrEqual(server.maxConcurrent, 3)
        XCTAssertGreaterThanOrEqual(server.maxConcurrent, 2)
    }

    func testRetryAfterThenSuccessEndToEnd() throws {
        let counter = RequestCounter()
        let server = try LoopbackServer { _ in
            counter.next() == 0 ? LoopbackResponse(status: 503, headers: [("Retry-After", "1")], body: Array("busy".utf8)) : .text(RunTests.page(0, 2))
        }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = config(dir, sources: [source("a", server.baseURL + "/a")])
        let start = Date()
        let r = try BinaryRunner.run(["run", "-c", cfg])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdoutLines.count, 2)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.95)
        XCTAssertEqual(server.requestCount, 2)
    }

    func testClosedStdoutEndsTheRunQuietly() throws {
        let server = try LoopbackServer { req in
            // The slow source is still in flight when the reader leaves, however slow the binary
            // under test is (a sanitizer build): the run stops it instead of waiting.
            req.path == "/slow" ? LoopbackResponse(body: Array(RunTests.page(0, 1).utf8), delay: 10) : .text(RunTests.page(Int(req.path.dropFirst(2)) ?? 0, 2000))
        }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let urls = (0..<10).map { "\"\(server.baseURL)/p\($0 * 10000)\"" }.joined(separator: ",")
        let cfg = config(dir, sources: [#"{"name":"big","type":"json","urls":[\#(urls)],"items":"items","fields":{"id":"id","title":"title"}}"#,
                                        source("slow", server.baseURL + "/slow")])
        let script = "XDG_STATE_HOME='\(dir.path)/state' '\(BinaryRunner.binary)' run --jsonl -c '\(cfg)' 2>'\(dir.path)/err.txt' | head -1; echo \"status=${PIPESTATUS[0]}\""
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/bash")
        p.arguments = ["-c", script]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
        XCTAssertEqual(lines.count, 2, "\(lines)")
        XCTAssertTrue(lines[0].hasPrefix(#"{"id":"big:"#))
        XCTAssertEqual(lines.last, "status=0", "no SIGPIPE death (141), no crash")
        let err = dir.read("err.txt") ?? ""
        XCTAssertFalse(err.contains("Fatal error") || err.contains("Stack dump") || err.contains("Illegal instruction"), err)
        XCTAssertTrue(err.contains("slow  json  stopped: output closed"), err)
        XCTAssertTrue(err.contains("0 failed"), err)
    }

    func testSinkFailureExits3() throws {
        let server = try LoopbackServer { _ in .text(RunTests.page(0, 2)) }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        // A folder that cannot be created is caught before fetching (CheckEndToEndTests); a
        // device that is full can only fail when written.
        let cfg = config(dir, sources: [source("a", server.baseURL + "/a")], sinks: #"[{"type":"jsonl","path":"/dev/full"}]"#)
        let r = try BinaryRunner.run(["run", "-c", cfg])
        XCTAssertEqual(r.status, 3, r.stderr)
        XCTAssertTrue(r.stderr.contains("tributary: sink failed: jsonl: cannot write /dev/full: No space left on device"), r.stderr)
    }

    func testOnlyAndTestCommands() throws {
        let server = try LoopbackServer { req in .text(RunTests.page(req.path == "/a" ? 0 : 100, 2)) }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = config(dir, sources: [source("a", server.baseURL + "/a"), source("b", server.baseURL + "/b", extra: #","enabled":false"#)], sinks: #"[{"type":"jsonl","path":"items.jsonl"}]"#)
        let plain = try BinaryRunner.run(["run", "-c", cfg, "--jsonl"])
        XCTAssertEqual(plain.stdoutLines.count, 2, "disabled sources are skipped")
        let only = try BinaryRunner.run(["run", "-c", cfg, "--jsonl", "--only", "b"])
        XCTAssertEqual(only.stdoutLines.count, 2)
        XCTAssertTrue(only.stdoutLines[0].contains(#""source":"b""#))
        let unknown = try BinaryRunner.run(["run", "-c", cfg, "--only=a,c"])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.stderr.contains(#"no source named "c""#), unknown.stderr)
        let test = try BinaryRunner.run(["test", "b", "-c", cfg])
        XCTAssertEqual(test.status, 0, test.stderr)
        XCTAssertEqual(test.stdoutLines.count, 2)
        XCTAssertNil(dir.read("items.jsonl"), "test writes no sink")
    }

    func testSIGTERMAndSIGINTStopCleanly() throws {
        for (sig, code) in [(SIGTERM, Int32(143)), (SIGINT, Int32(130))] {
            let server = try LoopbackServer { req in
                req.path == "/fast" ? .text(RunTests.page(0, 2)) : LoopbackResponse(body: Array(RunTests.page(50, 1).utf8), delay: 30)
            }
            defer { server.stop() }
            let dir = TempDir()
            defer { dir.remove() }
            let cfg = config(dir, sources: [source("fast", server.baseURL + "/fast"), source("slow", server.baseURL + "/slow", extra: #","timeout":"60s""#)],
                             sinks: #"[{"type":"jsonl","path":"items.jsonl"}]"#)
            let p = try BinaryRunner.start(["run", "-c", cfg], stdoutPath: dir.path + "/out", stderrPath: dir.path + "/err")
            var waited = 0.0
            while server.requestCount < 2 && waited < 10 { usleep(50_000); waited += 0.05 }
            usleep(200_000)
            let start = Date()
            kill(p.processIdentifier, sig)
            while p.isRunning && Date().timeIntervalSince(start) < 15 { usleep(50_000) }
            if p.isRunning { kill(p.processIdentifier, SIGKILL); XCTFail("did not stop") }
            p.waitUntilExit()
            XCTAssertEqual(p.terminationStatus, code, dir.read("err") ?? "")
            XCTAssertLessThan(Date().timeIntervalSince(start), 8, "grace period is 5 s")
            XCTAssertEqual(dir.read("items.jsonl")?.split(separator: "\n").count, 2, "items fetched before the signal are flushed")
            XCTAssertTrue((dir.read("err") ?? "").contains("slow  json  stopped: interrupted"), dir.read("err") ?? "")
        }
    }

    func testDemoRunsOfflineFromRecordings() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let copy = dir.path + "/Sources-config"
        try FileManager.default.copyItem(atPath: BinaryRunner.packageRoot + "/Sources-config", toPath: copy)
        let r = try BinaryRunner.run(["run", "-c", copy + "/demo.json"], env: ["http_proxy": "http://127.0.0.1:1", "https_proxy": "http://127.0.0.1:1"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertGreaterThanOrEqual(r.stdoutLines.count, 10)
        let jsonl = try XCTUnwrap(dir.read("out/items.jsonl"))
        let schema = try SchemaValidator.itemSchema()
        let lines = jsonl.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, r.stdoutLines.count)
        for line in lines { XCTAssertEqual(schema.validate(line: line), [], line) }
        let xml = try XCTUnwrap(dir.read("out/feed.xml"))
        XCTAssertTrue(XMLParser(data: Data(xml.utf8)).parse(), "feed.xml must be well-formed")
        let ids = Set(lines.compactMap { try? JSONNode(JSONParser.parse($0))["id"].string() })
        for file in ["out/feed.xml", "out/feed.atom"] {
            let feed = try FeedReader.read(dir.path + "/" + file)
            XCTAssertEqual(feed.bozo, 0, "\(file): \(feed.bozoException)")
            XCTAssertEqual(Set(feed.entries.map(\.id)), ids, "\(file) holds every item of the run (fewer than max_items)")
        }
        // README's search over the demo's sqlite sink: newest first, items of this run.
        let search = try BinaryRunner.run(["search", "-c", copy + "/demo.json", "swift concurrency", "--json"])
        XCTAssertEqual(search.status, 0, search.stderr)
        let found = search.stdoutLines.compactMap { try? JSONNode(JSONParser.parse($0))["id"].string() }
        XCTAssertGreaterThanOrEqual(found.count, 2, search.stdout)
        XCTAssertTrue(Set(found).isSubset(of: ids), search.stdout)
        XCTAssertEqual(try BinaryRunner.run(["search", "-c", copy + "/demo.json", "zzzunknownword"]).status, 1)
    }

    func testProgressLineOnlyOnATerminal() throws {
        let server = try LoopbackServer { _ in .text(RunTests.page(0, 2)) }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = config(dir, sources: [source("a", server.baseURL + "/a")])
        // `script` gives the run a pseudo-terminal as its stderr.
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        p.arguments = ["-qc", "'\(BinaryRunner.binary)' run --no-state -c '\(cfg)' > /dev/null", dir.path + "/tty.txt"]
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        let tty = dir.read("tty.txt") ?? ""
        XCTAssertTrue(tty.contains("[1/1 sources] 2 items, 0 failed"), tty)
        XCTAssertTrue(tty.contains("\u{1B}[K"), "the line is redrawn in place")
        let piped = try BinaryRunner.run(["run", "--no-state", "-c", cfg])
        XCTAssertFalse(piped.stderr.contains("sources]"), "no progress line when stderr is not a terminal")
    }
}


final class RequestCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func next() -> Int { lock.lock(); defer { lock.unlock() }; let v = n; n += 1; return v }
}
