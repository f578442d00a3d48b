import Foundation
import XCTest
import TributaryTestSupport

/// The `exec` plugin protocol through the real binary, with small shell plugins.
final class ExecEndToEndTests: XCTestCase {
    func plugin(_ dir: TempDir, _ name: String, _ script: String) {
        let path = dir.write(name, "#!/bin/sh\n" + script)
        chmod(path, 0o755)
    }

    func config(_ dir: TempDir, _ sources: String) -> String {
        dir.write("tributary.json", #"{"sources":[\#(sources)],"sinks":[{"type":"stdout","format":"jsonl"}]}"#)
    }

    func testItemsFilledInAndIdsDerived() throws {
        let dir = TempDir()
        defer { dir.remove() }
        plugin(dir, "p.sh", #"""
        echo "starting with $GREETING" >&2
        printf '%s\n' '{"id":"release:x-1","title":"X 1","url":"https://e.org/x","published":"2026-11-29T12:00:00+02:00","kind":"release","data":{"n":1}}'
        printf '%s\n' ''
        printf '%s\r\n' '{"title":"No id, has url","url":"https://e.org/y"}'
        printf '%s\n' '{"title":"Only a title — Привет"}'
        printf '%s\n' '{"id":42,"title":"numeric id","tags":["a","b"],"geo":{"lat":1.5,"lon":-2}}'
        """#)
        let cfg = config(dir, #"{"name":"p","type":"exec","command":["./p.sh"],"env":{"GREETING":"hello"}}"#)
        let r = try BinaryRunner.run(["run", "-c", cfg])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdoutLines
        XCTAssertEqual(lines.count, 4)
        XCTAssertTrue(lines[0].hasPrefix(#"{"id":"release:x-1","source":"p","type":"exec","kind":"release","title":"X 1","url":"https://e.org/x","published":"2026-11-29T10:00:00Z","fetched":"#), lines[0])
        XCTAssertTrue(lines[1].hasPrefix(#"{"id":"p:https://e.org/y","source":"p","type":"exec","kind":"entry""#), lines[1])
        XCTAssertTrue(lines[2].hasPrefix(#"{"id":"p:t"#), lines[2])
        XCTAssertTrue(lines[3].hasPrefix(#"{"id":"p:42""#), lines[3])
        XCTAssertTrue(r.stderr.contains("p: starting with hello"), r.stderr)
        let schema = try SchemaValidator.itemSchema()
        for l in lines { XCTAssertEqual(schema.validate(line: l), [], l) }
        let again = try BinaryRunner.run(["run", "-c", cfg])
        XCTAssertEqual(again.stdoutLines.map { String($0.prefix(30)) }, lines.map { String($0.prefix(30)) }, "derived ids are stable")
    }

    func testInvalidLinesAreReportedWithLineNumbersAndGoodOnesKept() throws {
        let dir = TempDir()
        defer { dir.remove() }
        plugin(dir, "p.sh", #"""
        echo '{"id":"a:1","title":"good"}'
        echo '{"id":"a:2","title":'
        echo '[1,2]'
        echo '{"id":"a:3","title":"bad url","url":"ftp://x"}'
        echo '{"id":"a:4","title":"good too"}'
        echo '{"id":"a:5","titel":"typo"}'
        """#)
        let r = try BinaryRunner.run(["run", "-c", config(dir, #"{"name":"p","type":"exec","command":["./p.sh"]}"#)])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stdoutLines.count, 2, "valid lines are still delivered")
        for needle in ["4 invalid lines", "stdout line 2: invalid JSON at column", "stdout line 3: (document): expected a JSON object (one item), found array",
                       #"stdout line 4: url: expected an absolute http(s) URL, found "ftp://x""#] {
            XCTAssertTrue(r.stderr.contains(needle), "\(needle)\n\(r.stderr)")
        }
    }

    func testNonZeroExitFailsWithStatusAndLastStderrLine() throws {
        let dir = TempDir()
        defer { dir.remove() }
        plugin(dir, "p.sh", "echo '{\"id\":\"a:1\",\"title\":\"t\"}'\necho 'API said no' >&2\nexit 3\n")
        let r = try BinaryRunner.run(["run", "-c", config(dir, #"{"name":"p","type":"exec","command":["./p.sh"]}"#)])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("p     exec  failed: command ./p.sh: exited with status 3 (last stderr line: API said no)"), r.stderr)
        XCTAssertEqual(r.stdoutLines.count, 1)
    }

    func testTimeoutKillsTheWholeProcessGroup() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let marker = "tributary-exec-test-\(UUID().uuidString.prefix(8))"
        plugin(dir, "p.sh", "sleep 37 &\necho '{\"id\":\"a:1\",\"title\":\"early\"}'\nexec sleep 38 # \(marker)\n")
        let start = Date()
        let r = try BinaryRunner.run(["run", "-c", config(dir, #"{"name":"p","type":"exec","command":["./p.sh","\#(marker)"],"timeout":"1s"}"#)])
        XCTAssertLessThan(Date().timeIntervalSince(start), 6)
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("timed out after 1s and was killed"), r.stderr)
        XCTAssertEqual(r.stdoutLines.count, 1, "what was printed before the timeout is kept")
        usleep(200_000)
        let ps = Process()
        ps.executableURL = URL(fileURLWithPath: "/bin/ps")
        ps.arguments = ["-eo", "pid,stat,args"]
        let pipe = Pipe()
        ps.standardOutput = pipe
        try ps.run()
        let listing = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        ps.waitUntilExit()
        XCTAssertFalse(listing.contains("sleep 37"), "background child left running:\n\(listing)")
        XCTAssertFalse(listing.contains(marker), "plugin left running:\n\(listing)")
    }

    func testMissingProgramAndBadConfig() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let r = try BinaryRunner.run(["run", "-c", config(dir, #"{"name":"p","type":"exec","command":["./does-not-exist"]}"#)])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("cannot start ./does-not-exist: No such file or directory"), r.stderr)
        let bad = try BinaryRunner.run(["check", "-c", config(dir, #"{"name":"p","type":"exec","command":[],"kind":"Bad"}"#)])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains(#"sources[0] ("p").command: needs at least the program to run"#), bad.stderr)
        XCTAssertTrue(bad.stderr.contains(#"sources[0] ("p").kind: "Bad" must match"#), bad.stderr)
        let noShell = try BinaryRunner.run(["check", "-c", config(dir, #"{"name":"p","type":"exec","command":"echo hi; rm -rf /"}"#)])
        XCTAssertEqual(noShell.status, 2, "command must be an array: no shell string")
    }
}
