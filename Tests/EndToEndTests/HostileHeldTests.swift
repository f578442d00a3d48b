import Foundation
import XCTest
import TributaryCore
import TributaryTestSupport

/// What a probe of the release binary found to hold against hostile input, kept as tests so it
/// stays so: bounded pagination, no file:// through a next page, a full disk, broken state
/// files, thousands of stalled sources on SIGTERM, concurrent runs on one state file.
final class HostileHeldTests: XCTestCase {
    func source(_ url: String, extra: String = "") -> String {
        #"{"name":"s","type":"json","url":"\#(url)","items":"items","fields":{"id":"id","title":"title"}\#(extra)}"#
    }

    func testEndlessAndCyclicPaginationIsBounded() throws {
        let server = try LoopbackServer { req in
            let n = Int(req.path.split(separator: "/").last ?? "0") ?? 0
            // /cycle/N points back to /cycle/0 after two pages; /endless/N always to N+1.
            let next = req.path.hasPrefix("/cycle") ? "/cycle/\((n + 1) % 2)" : "/endless/\(n + 1)"
            return .text(#"{"items":[{"id":"\#(req.path)","title":"p"}],"next":"\#(next)"}"#)
        }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let endless = dir.write("e.json", #"{"sources":[\#(source(server.baseURL + "/endless/0", extra: #","pagination":{"next_url":"next","max_pages":25}"#))]}"#)
        let r = try BinaryRunner.run(["run", "-c", endless, "--no-state", "--jsonl"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdoutLines.count, 25, "max_pages")
        let cyclic = dir.write("c.json", #"{"sources":[\#(source(server.baseURL + "/cycle/0", extra: #","pagination":{"next_url":"next","max_pages":1000}"#))]}"#)
        let c = try BinaryRunner.run(["run", "-c", cyclic, "--no-state", "--jsonl"])
        XCTAssertEqual(c.status, 0, c.stderr)
        XCTAssertEqual(c.stdoutLines.count, 2, "a URL already fetched ends the chain")
    }

    func testANextPageCannotReadLocalFiles() throws {
        let server = try LoopbackServer { _ in .text(#"{"items":[{"id":"1","title":"one"}],"next":"file:///etc/passwd"}"#) }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = dir.write("t.json", #"{"sources":[\#(source(server.baseURL + "/p", extra: #","pagination":{"next_url":"next"}"#))]}"#)
        let r = try BinaryRunner.run(["run", "-c", cfg, "--no-state", "--jsonl"])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(r.stdoutLines.count, 1, "the first page's item is delivered")
        XCTAssertTrue(r.stderr.contains("protocol not allowed"), r.stderr)
        XCTAssertFalse(r.stdout.contains("root:") || r.stderr.contains("root:"))
    }

    func testAFullDiskIsASinkFailureAndNothingIsRecorded() throws {
        let server = try LoopbackServer { _ in .text(#"{"items":[{"id":"1","title":"one"}]}"#) }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let full = dir.write("full.json", #"{"state":{"path":"state.sqlite"},"sources":[\#(source(server.baseURL + "/x"))],"sinks":[{"type":"jsonl","path":"/dev/full"}]}"#)
        let r = try BinaryRunner.run(["run", "-c", full])
        XCTAssertEqual(r.status, 3, r.stderr)
        XCTAssertTrue(r.stderr.contains("No space left on device"), r.stderr)
        let ok = dir.write("ok.json", #"{"state":{"path":"state.sqlite"},"sources":[\#(source(server.baseURL + "/x"))],"sinks":[{"type":"jsonl","path":"out.jsonl"}]}"#)
        let next = try BinaryRunner.run(["run", "-c", ok])
        XCTAssertEqual(next.status, 0, next.stderr)
        XCTAssertTrue(next.stderr.contains("1 fetched  1 new"), "nothing was recorded by the failed run: \(next.stderr)")
    }

    func testBrokenStateFilesExitWithAClearMessage() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let cases: [(String, () -> Void, String)] = [
            ("garbage", { _ = dir.write("garbage.sqlite", String(repeating: "not a database ", count: 300)) }, "file is not a database"),
            ("truncated", {
                _ = dir.write("truncated.sqlite", "")
                let src = dir.path + "/good-for-truncation"
                _ = try? BinaryRunner.run(["run", "-c", dir.write("mk.json", #"{"sources":[]}"#), "--state", src])
                if let data = FileManager.default.contents(atPath: src) { _ = FileManager.default.createFile(atPath: dir.path + "/truncated.sqlite", contents: data.prefix(1000)) }
            }, "database disk image is malformed"),
            ("directory", { try? FileManager.default.createDirectory(atPath: dir.path + "/directory.sqlite", withIntermediateDirectories: true) }, "directory.sqlite is a folder, expected a file"),
        ]
        for (name, make, expected) in cases {
            make()
            let cfg = dir.write("c.json", #"{"sources":[{"name":"s","type":"json","url":"http://127.0.0.1:9/x","fields":{"id":"id"}}]}"#)
            let r = try BinaryRunner.run(["run", "-c", cfg, "--state", dir.path + "/\(name).sqlite"])
            XCTAssertEqual(r.status, 2, "\(name): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(expected), "\(name): \(r.stderr)")
            XCTAssertFalse(r.stderr.contains("Fatal error"), r.stderr)
        }
        // Zero bytes is a new, empty state.
        _ = dir.write("empty.sqlite", "")
        let cfg = dir.write("e.json", #"{"sources":[]}"#)
        XCTAssertEqual(try BinaryRunner.run(["run", "-c", cfg, "--state", dir.path + "/empty.sqlite"]).status, 0)
        // Read-only: a clear message, exit 2.
        let ro = dir.path + "/ro"
        try FileManager.default.createDirectory(atPath: ro, withIntermediateDirectories: true)
        XCTAssertEqual(try BinaryRunner.run(["run", "-c", cfg, "--state", ro + "/state.sqlite"]).status, 0)
        chmod(ro + "/state.sqlite", 0o444)
        chmod(ro, 0o555)
        defer { chmod(ro, 0o755) }
        if getuid() != 0 {  // root writes anyway
            let r = try BinaryRunner.run(["run", "-c", cfg, "--state", ro + "/state.sqlite"])
            XCTAssertEqual(r.status, 2, r.stderr)
            XCTAssertTrue(r.stderr.contains("readonly") || r.stderr.contains("Permission denied"), r.stderr)
        }
    }

    func testThousandsOfStalledSourcesEndSoonAfterSIGTERM() throws {
        let server = try LoopbackServer { _ in LoopbackResponse(status: 200, headers: [("Content-Type", "application/json"), ("Content-Length", "1000")], body: Array(repeating: 0x20, count: 1000), stallAfter: 1) }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let sources = (0..<2000).map { #"{"name":"s\#($0)","type":"json","url":"\#(server.baseURL)/\#($0)","fields":{"id":"id"},"timeout":"10m"}"# }
        let cfg = dir.write("t.json", #"{"http":{"concurrency":200,"per_host":200},"sources":[\#(sources.joined(separator: ","))]}"#)
        let p = try BinaryRunner.start(["run", "-c", cfg, "--no-state"], stdoutPath: dir.path + "/o", stderrPath: dir.path + "/e")
        var waited = 0
        while server.requestCount < 200 && waited < 400 { usleep(50_000); waited += 1 }
        XCTAssertGreaterThanOrEqual(server.requestCount, 200, "the transfers are in flight")
        let sent = Date()
        kill(p.processIdentifier, SIGTERM)
        p.waitUntilExit()
        let took = Date().timeIntervalSince(sent)
        XCTAssertEqual(p.terminationStatus, 143, dir.read("e") ?? "")
        XCTAssertLessThan(took, 15, "the 5 s grace period, then cancellation")
        XCTAssertFalse((dir.read("e") ?? "").contains("Fatal error"))
    }

    func testTenConcurrentRunsTakeTurns() throws {
        let server = try LoopbackServer { req in
            LoopbackResponse(status: 200, headers: [("Content-Type", "application/json")], body: Array(#"{"items":[{"id":"1","title":"one"},{"id":"2","title":"two"}]}"#.utf8), delay: 0.05)
        }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = dir.write("t.json", #"{"state":{"path":"state.sqlite","lock_timeout":"60s"},"sources":[\#(source(server.baseURL + "/x"))],"sinks":[{"type":"jsonl","path":"out.jsonl"}]}"#)
        let runs = try (0..<10).map { i in try BinaryRunner.start(["run", "-c", cfg], stdoutPath: dir.path + "/o\(i)", stderrPath: dir.path + "/e\(i)") }
        for p in runs { p.waitUntilExit() }
        for (i, p) in runs.enumerated() { XCTAssertEqual(p.terminationStatus, 0, dir.read("e\(i)") ?? "") }
        let lines = (dir.read("out.jsonl") ?? "").split(separator: "\n")
        XCTAssertEqual(lines.count, 2, "each item once, whatever the order the runs took")
        let emitted = (0..<10).filter { (dir.read("e\($0)") ?? "").contains("2 fetched  2 new") }
        XCTAssertEqual(emitted.count, 1, "exactly one run emitted; the others found both ids in state")
    }
}
