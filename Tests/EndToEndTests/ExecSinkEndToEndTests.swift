import Foundation
import XCTest
import TributaryCore
import TributaryTestSupport

/// The `exec` sink through the real binary, with small Python programs: what they get on stdin,
/// and that every failure is exit 3 with the state left for the next run.
final class ExecSinkEndToEndTests: XCTestCase {
    /// A local file of `count` items, read by a `json` source.
    func items(_ dir: TempDir, _ count: Int) -> String {
        let list = (1...count).map { #"{"id":"\#($0)","title":"Item \#($0) — ünï \"q\"","link":"https://e.org/\#($0)"}"# }
        return "file://" + dir.write("items.json", #"{"items":[\#(list.joined(separator: ","))]}"#)
    }

    func config(_ dir: TempDir, _ name: String, count: Int = 3, sink: String) -> String {
        dir.write(name, #"""
        {"sources":[{"name":"demo","type":"json","url":"\#(items(dir, count))","items":"items","fields":{"id":"id","title":"title","url":"link"}}],
         "sinks":[\#(sink)]}
        """#)
    }

    /// A Python program in `dir`; `note()` appends its pid to `pids` (for `ProcessProbe`), and
    /// every run appends a line to `runs`.
    func program(_ dir: TempDir, _ name: String, _ code: String) {
        let prelude = """
        import os, sys, time
        def note():
            with open('pids', 'a') as f: f.write('%d\\n' % os.getpid())
        with open('runs', 'a') as f: f.write('run\\n')

        """
        _ = dir.write(name, prelude + code + "\n")
    }

    func testItemsArriveOnStdinAsJSONLinesOnce() throws {
        let dir = TempDir()
        defer { dir.remove() }
        program(dir, "deliver.py", "open('delivered.jsonl', 'ab').write(sys.stdin.buffer.read())\nprint('stdout is not ours')")
        let cfg = config(dir, "t.json", sink: #"{"type":"exec","command":["python3","deliver.py"],"timeout":"20s"}"#)
        let state = dir.path + "/state.sqlite"
        let look = try BinaryRunner.run(["run", "-c", cfg, "--state", state, "--dry-run"])
        XCTAssertEqual(look.status, 0, look.stderr)
        XCTAssertNil(dir.read("runs"), "a dry run opens no sink: the program is not run")
        let r = try BinaryRunner.run(["run", "-c", cfg, "--state", state])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "", "the program's stdout never reaches ours")
        let lines = try XCTUnwrap(dir.read("delivered.jsonl")).split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(lines.count, 4, "three lines, each ending in a newline")
        let schema = try SchemaValidator.itemSchema()
        for line in lines.dropLast() { XCTAssertEqual(schema.validate(line: String(line)), [], String(line)) }
        XCTAssertEqual(lines.dropLast().compactMap { try? JSONParser.parse(String($0))[path: "id"] }, (1...3).map { .string("demo:\($0)") })
        let again = try BinaryRunner.run(["run", "-c", cfg, "--state", state])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(dir.read("runs"), "run\n", "nothing new: the program is not run again, nothing delivered twice")
    }

    func testAFailingProgramExits3WithItsMessageAndTheStateIsNotAdvanced() throws {
        let dir = TempDir()
        defer { dir.remove() }
        program(dir, "fail.py", "sys.stdin.read()\nprint('connecting...', file=sys.stderr)\nprint('archive unreachable (key=TOPSECRET-ARCHIVE-9)', file=sys.stderr)\nsys.exit(1)")
        program(dir, "deliver.py", "open('delivered.jsonl', 'ab').write(sys.stdin.buffer.read())")
        let state = dir.path + "/state.sqlite"
        let failing = config(dir, "fail.json", sink: #"{"type":"exec","command":["python3","fail.py"]}"#)
        let r = try BinaryRunner.run(["run", "-c", failing, "--state", state])
        XCTAssertEqual(r.status, 3, r.stderr)
        XCTAssertTrue(r.stderr.contains("tributary: sink failed: exec sink: command python3: exited with status 1, expected 0 (last stderr line: archive unreachable (key=***)); 3 items not written"), r.stderr)
        XCTAssertTrue(r.stderr.contains("demo  json  stopped: sink failed"), r.stderr)
        let delivering = config(dir, "deliver.json", sink: #"{"type":"exec","command":["python3","deliver.py"]}"#)
        let next = try BinaryRunner.run(["run", "-c", delivering, "--state", state])
        XCTAssertEqual(next.status, 0, next.stderr)
        XCTAssertEqual(dir.read("delivered.jsonl")?.split(separator: "\n").count, 3, "the failed batch is handed over again")
    }

    func testAProgramPastItsTimeoutIsKilledWithItsChildren() throws {
        let dir = TempDir()
        defer { dir.remove() }
        program(dir, "slow.py", "note()\nif os.fork() == 0:\n    note()\n    time.sleep(60)\nprint('still working', file=sys.stderr, flush=True)\ntime.sleep(60)")
        let cfg = config(dir, "t.json", sink: #"{"type":"exec","command":["python3","\#(dir.path)/slow.py"],"timeout":"2s"}"#)
        let start = Date()
        let r = try BinaryRunner.run(["run", "-c", cfg, "--state", dir.path + "/state.sqlite"])
        XCTAssertEqual(r.status, 3, r.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(start), 15)
        XCTAssertTrue(r.stderr.contains("exec sink: command python3: timed out after 2s and was killed (last stderr line: still working)"), r.stderr)
        XCTAssertEqual(ProcessProbe.survivors(pidFile: dir.path + "/pids", marker: dir.path), [], "the program and its child are gone")
    }

    func testAProgramThatNeverReadsItsStdinDoesNotHangTheRun() throws {
        let dir = TempDir()
        defer { dir.remove() }
        program(dir, "ignore.py", "sys.exit(int(sys.argv[1]))")
        let state = dir.path + "/state.sqlite"
        // 3,000 items are about 400 KB: far more than a pipe holds, so the writes meet EPIPE.
        let start = Date()
        let failing = try BinaryRunner.run(["run", "-c", config(dir, "f.json", count: 3000, sink: #"{"type":"exec","command":["python3","ignore.py","5"]}"#), "--state", state])
        XCTAssertEqual(failing.status, 3, failing.stderr)
        XCTAssertTrue(failing.stderr.contains("exec sink: command python3: exited with status 5, expected 0"), failing.stderr)
        let ignoring = try BinaryRunner.run(["run", "-c", config(dir, "i.json", count: 3000, sink: #"{"type":"exec","command":["python3","ignore.py","0"]}"#), "--state", state])
        XCTAssertEqual(ignoring.status, 0, ignoring.stderr)
        XCTAssertTrue(ignoring.stderr.contains("warning: sink: exec sink: command python3: exited 0 before reading all of its input ("), ignoring.stderr)
        XCTAssertTrue(ignoring.stderr.contains("3000 fetched  3000 new"), ignoring.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(start), 15)
    }

    func testCheckRefusesAMissingOrNonExecutableProgram() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let plain = dir.write("deliver.sh", "#!/bin/sh\ncat > /dev/null\n")
        chmod(plain, 0o644)
        let r = try BinaryRunner.run(["check", "-c", config(dir, "t.json", sink: #"{"type":"exec","command":["./deliver.sh"]},{"type":"exec","command":["no-such-deliverer"]}"#)])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("t.json: sinks[0].command: cannot run ./deliver.sh (\(dir.path)/./deliver.sh) is not executable"), r.stderr)
        XCTAssertTrue(r.stderr.contains("t.json: sinks[1].command: cannot run no-such-deliverer was not found in PATH"), r.stderr)
        chmod(plain, 0o755)
        let ok = try BinaryRunner.run(["check", "-c", config(dir, "t.json", sink: #"{"type":"exec","command":["./deliver.sh"]}"#)])
        XCTAssertEqual(ok.status, 0, ok.stderr)
    }

    /// Sources-config/examples/exec-sink.json, copied with the recordings: its program appends
    /// one Markdown line per post, once, and a program that cannot write fails the run with its
    /// message and hands the posts over again.
    func testTheExampleConfigAppendsAReadingList() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let root = BinaryRunner.packageRoot + "/Sources-config"
        for folder in ["examples", "recordings"] { try FileManager.default.copyItem(atPath: root + "/" + folder, toPath: dir.path + "/" + folder) }
        let cfg = dir.path + "/examples/exec-sink.json"
        // A folder where the list should be: the program cannot append, says why, exits 1.
        try FileManager.default.createDirectory(atPath: dir.path + "/examples/out/reading-list.md", withIntermediateDirectories: true)
        let failed = try BinaryRunner.run(["run", "-c", cfg])
        XCTAssertEqual(failed.status, 3, failed.stderr)
        XCTAssertTrue(failed.stderr.contains("exec sink: command python3: exited with status 1, expected 0 (last stderr line: cannot append to out/reading-list.md: Is a directory)"), failed.stderr)
        try FileManager.default.removeItem(atPath: dir.path + "/examples/out/reading-list.md")
        let r = try BinaryRunner.run(["run", "-c", cfg])
        XCTAssertEqual(r.status, 0, r.stderr)
        let again = try BinaryRunner.run(["run", "-c", cfg])
        XCTAssertEqual(again.status, 0, again.stderr)
        let list = try XCTUnwrap(dir.read("examples/out/reading-list.md")).split(separator: "\n")
        XCTAssertEqual(list.count, 6, "every post once, none lost to the failed run")
        XCTAssertTrue(list.contains("- 2026-11-28 [Swift 6.3 Released](https://swift.example.org/blog/swift-6.3-released/) (swift-blog)"), "\(list)")
    }

    /// Two SIGINTs while the program runs: it and its child are killed at once, the run exits
    /// 130 and nothing is recorded.
    func testSIGINTKillsARunningProgramAndLeavesTheBatchUnrecorded() throws {
        let dir = TempDir()
        defer { dir.remove() }
        program(dir, "slow.py", "note()\nif os.fork() == 0:\n    note()\n    time.sleep(60)\nsys.stdin.read()\nopen('started', 'w').close()\ntime.sleep(60)")
        program(dir, "deliver.py", "open('delivered.jsonl', 'ab').write(sys.stdin.buffer.read())")
        let state = dir.path + "/state.sqlite"
        let p = try BinaryRunner.start(["run", "-c", config(dir, "slow.json", sink: #"{"type":"exec","command":["python3","\#(dir.path)/slow.py"],"timeout":"60s"}"#), "--state", state],
                                       stdoutPath: dir.path + "/out", stderrPath: dir.path + "/err")
        var waited = 0.0
        while !FileManager.default.fileExists(atPath: dir.path + "/started") && waited < 20 { usleep(20_000); waited += 0.02 }
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.path + "/started"), "the program did not start")
        let start = Date()
        kill(p.processIdentifier, SIGINT)
        usleep(100_000)
        kill(p.processIdentifier, SIGINT)
        while p.isRunning && Date().timeIntervalSince(start) < 15 { usleep(20_000) }
        if p.isRunning { kill(p.processIdentifier, SIGKILL); XCTFail("did not stop") }
        p.waitUntilExit()
        let err = dir.read("err") ?? ""
        XCTAssertEqual(p.terminationStatus, 130, err)
        // Under 10 s: a ThreadSanitizer binary beside the rest of CI has taken 6 s to stop a run
        // (the webhook sink's twin of this test); the program's 60 s are what must not be waited.
        XCTAssertLessThan(Date().timeIntervalSince(start), 10, "the program's 60 s are not waited for")
        XCTAssertTrue(err.contains("exec sink: command python3: interrupted and killed; 3 items not written"), err)
        XCTAssertEqual(ProcessProbe.survivors(pidFile: dir.path + "/pids", marker: dir.path), [], "the program and its child are gone")
        let next = try BinaryRunner.run(["run", "-c", config(dir, "deliver.json", sink: #"{"type":"exec","command":["python3","deliver.py"]}"#), "--state", state])
        XCTAssertEqual(next.status, 0, next.stderr)
        XCTAssertEqual(dir.read("delivered.jsonl")?.split(separator: "\n").count, 3, "the interrupted batch is handed over again")
    }
}
