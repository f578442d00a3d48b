import Foundation
import XCTest
import TributaryCore
import TributaryTestSupport

/// Servers that echo secrets, name other hosts, stall, and replay folders that hold links:
/// credentials go only where the config sends them, no secret survives into any output, and
/// every limit says what it was.
final class HostileServersTests: XCTestCase {
    static let page = #"{"items":[{"id":"1","title":"one"}]}"#

    /// Reads one column of the state database with Python's sqlite3 (the real consumer).
    func stateErrors(_ path: String) throws -> String {
        let r = try Shell.run(["python3", "-c", "import sqlite3,sys; print('\\n'.join(str(r[0]) for r in sqlite3.connect(sys.argv[1]).execute('select last_error from sources')))", path])
        XCTAssertEqual(r.status, 0, r.stderr)
        return r.stdout
    }

    func testANextPageOnAnotherHostGetsNoneOfTheConfiguredHeaders() throws {
        let other = try LoopbackServer { _ in .text(#"{"items":[{"id":"2","title":"two"}]}"#) }
        defer { other.stop() }
        let home = try LoopbackServer { req in
            req.path == "/p1" ? .text(#"{"items":[{"id":"1","title":"one"}],"next":"\#(other.baseURL)/p2"}"#) : .text(#"{"items":[{"id":"3","title":"three"}]}"#)
        }
        defer { home.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        func cfg(trusted: String) -> String {
            dir.write("t.json", #"""
            {"sources":[{"name":"s","type":"json","url":"\#(home.baseURL)/p1","items":"items","fields":{"id":"id","title":"title"},
              "headers":{"Authorization":"Bearer TOPSECRET-TOKEN","X-Api-Key":"TOPSECRET-APIKEY","Cookie":"session=TOPSECRET-COOKIE","Accept":"application/json"},
              "pagination":{"next_url":"next"\#(trusted)}}]}
            """#)
        }
        let r = try BinaryRunner.run(["run", "-c", cfg(trusted: ""), "--no-state", "--jsonl"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdoutLines.count, 2)
        let sent = try XCTUnwrap(other.requests.first)
        for name in ["Authorization", "X-Api-Key", "Cookie"] { XCTAssertNil(sent.header(name), "\(name) went to another host") }
        XCTAssertNotEqual(sent.header("Accept"), "application/json", "no configured header at all (curl's own Accept: */* is fine)")
        XCTAssertEqual(home.requests.first?.header("X-Api-Key"), "TOPSECRET-APIKEY", "the configured host gets them")
        // A host the source trusts gets them.
        let host = other.baseURL.replacingOccurrences(of: "http://", with: "")
        let trusted = try BinaryRunner.run(["run", "-c", cfg(trusted: #","trusted_hosts":["\#(host)"]"#), "--no-state", "--jsonl"])
        XCTAssertEqual(trusted.status, 0, trusted.stderr)
        XCTAssertEqual(other.requests.last?.header("X-Api-Key"), "TOPSECRET-APIKEY")
    }

    /// Many paginated APIs echo the request URL (with the key) in Link or Content-Location.
    func testRecordingsKeepNoKeyFromEchoedHeaders() throws {
        let server = try LoopbackServer { req in
            let echoed = "http://127.0.0.1\(req.path)"
            return LoopbackResponse(status: 200, headers: [("Content-Type", "application/json"), ("Link", "<\(echoed)&pageToken=2>; rel=\"next\""), ("Content-Location", echoed), ("X-Echo", "key was TOPSECRET-YT-KEY")],
                                    body: Array(#"{"kind":"youtube#searchListResponse","items":[],"echo":"TOPSECRET-YT-KEY"}"#.utf8))
        }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = dir.write("t.json", #"{"sources":[{"name":"yt","type":"youtube.search","query":"swift","api_key":"TOPSECRET-YT-KEY","base_url":"\#(server.baseURL)"}]}"#)
        let r = try BinaryRunner.run(["run", "-c", cfg, "--no-state", "--record", dir.path + "/rec"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/rec")
        XCTAssertEqual(files.count, 1)
        let recording = dir.read("rec/" + files[0]) ?? ""
        XCTAssertFalse(recording.contains("TOPSECRET"), recording)
        XCTAssertTrue(recording.contains("key=***"), recording)
        // The recording still replays.
        let replayed = try BinaryRunner.run(["run", "-c", cfg, "--no-state", "--replay", dir.path + "/rec"])
        XCTAssertEqual(replayed.status, 0, replayed.stderr)
    }

    /// An error body that echoes the key must not put it on stderr, in state or in a recording.
    func testEchoedSecretsAreScrubbedFromEveryOutput() throws {
        let server = try LoopbackServer { req in
            if req.path.hasPrefix("/youtube") {
                return .text(#"{"error":{"code":400,"message":"API key not valid: TOPSECRET-YT-KEY","errors":[{"reason":"badRequest"}]}}"#, status: 400)
            }
            return .text(#"{"error":"invalid token","echo":"X-Api-Key was TOPSECRET-HEADER"}"#, status: 403)
        }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = dir.write("t.json", #"""
        {"state":{"path":"state.sqlite"},
         "sources":[{"name":"yt","type":"youtube.search","query":"swift","api_key":"TOPSECRET-YT-KEY","base_url":"\#(server.baseURL)"},
                    {"name":"api","type":"json","url":"\#(server.baseURL)/items","items":"items","fields":{"id":"id"},"headers":{"X-Api-Key":"TOPSECRET-HEADER"}},
                    {"name":"prog","type":"exec","command":["/bin/sh","-c","echo 'auth failed: token=TOPSECRET-STDERR' >&2; exit 3"]}]}
        """#)
        let r = try BinaryRunner.run(["run", "-c", cfg, "--record", dir.path + "/rec", "--verbose"])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertFalse(r.stderr.contains("TOPSECRET"), r.stderr)
        XCTAssertTrue(r.stderr.contains("API key not valid: ***"), r.stderr)
        XCTAssertTrue(r.stderr.contains("token=***"), r.stderr)
        let errors = try stateErrors(dir.path + "/state.sqlite")
        XCTAssertEqual(errors.split(separator: "\n").count, 3, errors)
        XCTAssertFalse(errors.contains("TOPSECRET"), errors)
        for file in try FileManager.default.contentsOfDirectory(atPath: dir.path + "/rec") {
            XCTAssertFalse((dir.read("rec/" + file) ?? "").contains("TOPSECRET"), file)
        }
    }

    /// A body that stops moving is ended by the stall rule, and the message says so.
    func testAStalledBodySaysItStalled() throws {
        let server = try LoopbackServer { _ in
            LoopbackResponse(status: 200, headers: [("Content-Type", "application/json"), ("Content-Length", "100000")], body: Array(repeating: 0x20, count: 100_000), stallAfter: 10)
        }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = dir.write("t.json", #"{"sources":[{"name":"s","type":"json","url":"\#(server.baseURL)/x","fields":{"id":"id"},"timeout":"40s","retries":0}]}"#)
        let started = Date()
        let r = try BinaryRunner.run(["run", "-c", cfg, "--no-state"], timeout: 60)
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("stalled: less than 1 byte/s for 15s"), r.stderr)
        XCTAssertTrue(r.stderr.contains("(the timeout is 40s)"), r.stderr)
        XCTAssertFalse(r.stderr.contains("timed out after 40s"), r.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(started), 35)
    }

    func testAReplayFolderNeverReadsThroughLinksOrShowsContent() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let rec = dir.path + "/rec"
        try FileManager.default.createDirectory(atPath: rec, withIntermediateDirectories: true)
        let cfg = dir.write("t.json", #"{"sources":[{"name":"s","type":"json","url":"http://api.invalid/x","fields":{"id":"id"}}]}"#)
        XCTAssertEqual(symlink("/etc/passwd", rec + "/passwd.json"), 0)
        let linked = try BinaryRunner.run(["run", "-c", cfg, "--no-state", "--replay", rec])
        XCTAssertEqual(linked.status, 2, linked.stderr)
        XCTAssertTrue(linked.stderr.contains("passwd.json is a symbolic link; recordings are read only from regular files"), linked.stderr)
        XCTAssertFalse(linked.stderr.contains("root"), linked.stderr)
        XCTAssertFalse(linked.stderr.contains("'r'"), linked.stderr)
        unlink(rec + "/passwd.json")
        XCTAssertEqual(mkfifo(rec + "/fifo.json", 0o644), 0)
        let fifo = try BinaryRunner.run(["run", "-c", cfg, "--no-state", "--replay", rec], timeout: 20)
        XCTAssertEqual(fifo.status, 2, fifo.stderr)
        XCTAssertTrue(fifo.stderr.contains("fifo.json is not a regular file"), fifo.stderr)
        unlink(rec + "/fifo.json")
        _ = dir.write("rec/garbage.json", "SECRET-CONTENT that is not JSON")
        let garbage = try BinaryRunner.run(["run", "-c", cfg, "--no-state", "--replay", rec])
        XCTAssertEqual(garbage.status, 2, garbage.stderr)
        XCTAssertTrue(garbage.stderr.contains("garbage.json:1:1: not a recording (invalid JSON)"), garbage.stderr)
        XCTAssertFalse(garbage.stderr.contains("SECRET") || garbage.stderr.contains("'S'"), garbage.stderr)
    }
}
