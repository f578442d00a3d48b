import Foundation
import XCTest
@testable import TributaryCore
@testable import TributaryBase
@testable import TributaryJSON
@testable import TributaryOptions
@testable import TributaryHTTP
@testable import TributaryState
@testable import TributaryPostgres
@testable import TributaryPluginKit
@testable import TributaryPlugins
import TributaryTestSupport

/// The `exec` sink in process: what the program gets on stdin, and every way it can fail.
final class ExecSinkTests: XCTestCase {
    func item(_ n: Int) -> Item {
        Item(id: "t:\(n)", source: "s", type: "json", kind: "entry", title: "Item \(n) — ünï \"q\"", fetched: Timestamp(seconds: 1_795_946_400))
    }

    /// A Python program in `dir` (run as `python3 <path>`), given `code` after a small prelude.
    func program(_ dir: TempDir, _ name: String, _ code: String) -> [String] {
        ["python3", dir.write(name, "import os, sys, time\n" + code + "\n")]
    }

    func sink(_ command: [String], _ dir: TempDir, timeout: Double = 10, warnings: Locked<[String]>? = nil, interruption: StopFlag = StopFlag()) throws -> ExecSink {
        let s = ExecSink(command: command, directory: dir.path, timeout: timeout)
        try s.open(SinkContext(window: nil, interruption: interruption, warn: { w in warnings?.withLock { $0.append(w) } }))
        return s
    }

    func message(_ body: () throws -> Void) -> String {
        do { try body() } catch { return (error as? SinkError)?.message ?? "\(error)" }
        XCTFail("expected a sink failure")
        return ""
    }

    func testTheProgramGetsTheBatchAsJSONLinesInItsFolder() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let s = try sink(program(dir, "deliver.py", "open('got.jsonl', 'ab').write(sys.stdin.buffer.read())\nprint('stdout is dropped')"), dir)
        let items = (1...3).map(item)
        try s.write(items)
        try s.write([item(4)])
        try s.write([])
        let got = try XCTUnwrap(dir.read("got.jsonl"), "written in the config folder")
        XCTAssertEqual(Array(got.utf8), (items + [item(4)]).flatMap { $0.jsonLine() + [0x0A] }, "one run per batch, exactly the jsonl lines")
    }

    func testAFailingProgramIsASinkFailureWithItsLastStderrLine() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let cmd = program(dir, "fail.py", "sys.stdin.read()\nprint('first', file=sys.stderr)\nprint('cannot reach the archive: token=abcd-secret-1234', file=sys.stderr)\nsys.exit(3)")
        let m = message { try sink(cmd, dir).write([item(1), item(2)]) }
        XCTAssertEqual(m, "exec sink: command python3: exited with status 3, expected 0 (last stderr line: cannot reach the archive: token=***); 2 items not written: the batch is not recorded and is handed over again next run")
        let killed = message { try sink(["/bin/sh", "-c", "kill -SEGV $$"], dir).write([item(1)]) }
        XCTAssertTrue(killed.hasPrefix("exec sink: command /bin/sh: killed by signal 11 (SIGSEGV)"), killed)
    }

    func testATimeoutKillsTheProgramTree() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let cmd = program(dir, "slow.py", """
        print('working...', file=sys.stderr, flush=True)
        if os.fork() == 0:
            os.setsid()
            open('child.pid', 'w').write(str(os.getpid()))
            time.sleep(60)
        time.sleep(60)
        """)
        let start = Date()
        let m = message { try sink(cmd, dir, timeout: 3).write([item(1)]) }
        XCTAssertLessThan(Date().timeIntervalSince(start), 15)
        XCTAssertTrue(m.hasPrefix("exec sink: command python3: timed out after 3s and was killed (last stderr line: working...)"), m)
        let pid = try XCTUnwrap(dir.read("child.pid").flatMap { Int32($0) })
        XCTAssertTrue(kill(pid, 0) != 0, "the setsid child was killed too")
    }

    func testAProgramThatDoesNotReadItsStdinNeitherHangsNorPasses() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let big = (1...2_000).map(item)  // about 250 KB: more than a pipe holds
        let warnings = Locked<[String]>([])
        try sink(["/bin/sh", "-c", "exit 0"], dir, warnings: warnings).write(big)
        XCTAssertEqual(warnings.withLock { $0 }.count, 1)
        XCTAssertTrue(warnings.withLock { $0 }.first?.hasPrefix("exec sink: command /bin/sh: exited 0 before reading all of its input (") == true, "\(warnings.withLock { $0 })")
        let m = message { try sink(["/bin/sh", "-c", "exit 1"], dir).write(big) }
        XCTAssertTrue(m.hasPrefix("exec sink: command /bin/sh: exited with status 1, expected 0"), m)
        let start = Date()
        let stuck = message { try sink(program(dir, "stuck.py", "time.sleep(60)"), dir, timeout: 1).write(big) }
        XCTAssertTrue(stuck.contains("timed out after 1s"), stuck)
        XCTAssertLessThan(Date().timeIntervalSince(start), 10)
    }

    func testAnInterruptionKillsTheProgram() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let flag = StopFlag()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { flag.set() }
        let start = Date()
        let m = message { try sink(program(dir, "wait.py", "time.sleep(60)"), dir, timeout: 60, interruption: flag).write([item(1)]) }
        XCTAssertLessThan(Date().timeIntervalSince(start), 10)
        XCTAssertTrue(m.hasPrefix("exec sink: command python3: interrupted and killed"), m)
    }

    func testCheckFailsForAMissingOrNonExecutableProgram() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let plain = dir.write("plain.py", "print(1)\n")
        chmod(plain, 0o644)
        func errors(_ command: String) -> [String] {
            let text = #"{"sources":[],"sinks":[{"type":"exec","command":\#(command)}]}"#
            do {
                _ = try ConfigLoader.load(bytes: Array(text.utf8), file: "t.json", directory: dir.path, registry: BuiltinRegistry.standard, environment: { _ in nil })
                return []
            } catch {
                return error.messages
            }
        }
        XCTAssertEqual(errors(#"["./nope.sh"]"#), ["t.json: sinks[0].command: cannot run ./nope.sh (\(dir.path)/./nope.sh) does not exist"])
        XCTAssertEqual(errors(#"["./plain.py"]"#), ["t.json: sinks[0].command: cannot run ./plain.py (\(dir.path)/./plain.py) is not executable (chmod +x, or run it through its interpreter)"])
        XCTAssertEqual(errors(#"["no-such-program-tributary"]"#).count, 1)
        XCTAssertTrue(errors(#"["no-such-program-tributary"]"#).first?.contains("cannot run no-such-program-tributary was not found in PATH") == true)
        XCTAssertEqual(errors(#"[]"#), ["t.json: sinks[0].command: needs at least the program to run"])
        XCTAssertEqual(errors(#""python3 plain.py""#).count, 1, "a string is not a command: no shell")
        XCTAssertEqual(errors(#"["python3", "plain.py"]"#), [])
    }
}
