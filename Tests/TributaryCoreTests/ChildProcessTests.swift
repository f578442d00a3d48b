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
import TributaryTestSupport

/// Child processes (TributaryPluginKit/Process), in process: stderr line splitting, /proc parsing, and
/// ChildProcess in a test process, which does not claim all its children (so a child the test
/// harness started must never be touched).
final class ChildProcessTests: XCTestCase {
    func lines(_ chunks: [String], cap: Int = 8, limit: Int = 100) -> (logged: [String], state: StderrLines) {
        var s = StderrLines(lineCap: cap, lineLimit: limit)
        var out: [String] = []
        for c in chunks { s.feed(Array(c.utf8)) { out.append($0) } }
        s.finish { out.append($0) }
        return (out, s)
    }

    func testLinesAcrossReadsBlankLinesAndCarriageReturns() {
        let r = lines(["ab", "c\nd", "e\r\n\n\r\n", "tail"])
        XCTAssertEqual(r.logged, ["abc", "de", "tail"])
        XCTAssertEqual(r.state.last, "tail")
        XCTAssertEqual(r.state.dropped, 0)
    }

    func testLongLinesAreCutWithTheirLength() {
        let r = lines(["0123456789", "abcdef\nshort\n", String(repeating: "z", count: 100)])
        XCTAssertEqual(r.logged, ["01234567... [line of 16 bytes cut to 8]", "short", "zzzzzzzz... [line of 100 bytes cut to 8]"])
    }

    func testACutNeverSplitsACharacter() {
        // "aé€" is 1 + 2 + 3 bytes: a cut at 4 bytes keeps "aé", at 3 keeps "aé", at 2 keeps "a".
        for (cap, kept) in [(4, "aé"), (3, "aé"), (2, "a"), (6, "aé€")] {
            let r = lines(["aé€x\n"], cap: cap)
            XCTAssertEqual(r.logged, [kept + "... [line of 7 bytes cut to \(cap)]"], "cap \(cap)")
        }
        XCTAssertEqual(StderrLines.wholeCharacters(ArraySlice([0x61, 0xF0, 0x9F, 0x98])), [0x61])
        XCTAssertEqual(StderrLines.wholeCharacters(ArraySlice([0x61, 0xF0, 0x9F, 0x98, 0x80])), [0x61, 0xF0, 0x9F, 0x98, 0x80])
        XCTAssertEqual(StderrLines.wholeCharacters(ArraySlice([0x80, 0x80])), [0x80, 0x80], "stray continuation bytes are left to the decoder")
    }

    func testAtMostLineLimitLinesAreLoggedAndTheRestCounted() {
        let r = lines([(1...10).map { "l\($0)\n" }.joined()], limit: 3)
        XCTAssertEqual(r.logged, ["l1", "l2", "l3"])
        XCTAssertEqual(r.state.dropped, 7)
        XCTAssertEqual(r.state.droppedBytes, 2 * 6 + 3)
        XCTAssertEqual(r.state.last, "l10", "the last line is kept for the failure message even when not logged")
    }

    func testHundredMebibytesWithoutANewlineInOnePass() {
        var s = StderrLines()
        let chunk = [UInt8](repeating: 0x78, count: 1 << 20)
        var out: [String] = []
        let start = Date()
        for _ in 0..<100 { s.feed(chunk) { out.append($0) } }
        s.finish { out.append($0) }
        XCTAssertLessThan(Date().timeIntervalSince(start), 30, "linear, not quadratic")
        XCTAssertEqual(out, [String(repeating: "x", count: 4096) + "... [line of 104857600 bytes cut to 4096]"])
    }

    func testProcStatParsesNamesWithSpacesAndParentheses() throws {
        let text = "4242 (we (ird) name) S 17 4242 99 34816 4242 4194560 137 0 0 0 1 2 0 0 20 0 1 0 987654 1000 200"
        XCTAssertEqual(ProcStat.parse(Array(text.utf8)), ProcStat(pid: 4242, state: UInt8(ascii: "S"), ppid: 17, pgrp: 4242, session: 99, startTime: 987654))
        XCTAssertNil(ProcStat.parse(Array("4242 (x) S 1 2".utf8)))
        let me = try XCTUnwrap(ProcFS.stat(getpid()))
        XCTAssertEqual(me.ppid, getppid())
        XCTAssertTrue(ProcFS.all().contains { $0.pid == getpid() && $0.startTime == me.startTime })
    }

    func python(_ dir: TempDir, _ code: String) -> [String] {
        let path = dir.write("p.py", """
        import json, os, sys, time
        PIDS = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'pids')
        def note():
            with open(PIDS, 'a') as f: f.write('%d\\n' % os.getpid())

        """ + code + "\n")
        return ["python3", path]
    }

    func testATimeoutEndsTheRunAndKillsASetsidChildHoldingStdoutButNothingElse() async throws {
        let dir = TempDir()
        defer { dir.remove() }
        // A child of the test process itself, started before: never the exec source's to kill.
        let bystander = Process()
        bystander.executableURL = URL(fileURLWithPath: "/bin/sleep")
        bystander.arguments = ["30"]
        try bystander.run()
        defer { bystander.terminate() }
        let cmd = python(dir, """
        note()
        if os.fork() == 0:
            os.setsid()
            note()
            time.sleep(60)
        print('{"id":"a:1","title":"t"}', flush=True)
        time.sleep(60)
        """)
        let start = Date()
        let outcome = try await ChildProcess(command: cmd, environment: [], directory: dir.path, timeout: 1, maxOutput: 1 << 20).run { _ in }
        XCTAssertLessThan(Date().timeIntervalSince(start), 15)
        XCTAssertEqual(outcome.ending, .timedOut)
        XCTAssertEqual(outcome.signal, SIGKILL)
        XCTAssertEqual(String(decoding: outcome.stdout, as: UTF8.self), "{\"id\":\"a:1\",\"title\":\"t\"}\n")
        XCTAssertEqual(outcome.othersKilled, 1)
        XCTAssertEqual(ProcessProbe.survivors(pidFile: dir.path + "/pids", marker: dir.path), [])
        XCTAssertTrue(bystander.isRunning, "a process the exec source did not start is left alone")
    }

    func testCancellingTheTaskEndsTheRunAtOnce() async throws {
        let dir = TempDir()
        defer { dir.remove() }
        let cmd = python(dir, """
        note()
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                note()
                time.sleep(60)
            os._exit(0)
        time.sleep(60)
        """)
        let child = ChildProcess(command: cmd, environment: [], directory: dir.path, timeout: 60, maxOutput: 1 << 20)
        let task = Task { try await child.run { _ in } }
        let ready = Date().addingTimeInterval(20)
        while ProcessProbe.pids(inFile: dir.path + "/pids").count < 2 && Date() < ready { try await Task.sleep(nanoseconds: 20_000_000) }
        let start = Date()
        task.cancel()
        let outcome = try await task.value
        XCTAssertLessThan(Date().timeIntervalSince(start), 10)
        XCTAssertEqual(outcome.ending, .cancelled)
        XCTAssertEqual(ProcessProbe.survivors(pidFile: dir.path + "/pids", marker: dir.path), [])
    }

    func testAProgramThatExitsWithItsOutputClosedEndsAtOnceAndIsReaped() async throws {
        let dir = TempDir()
        defer { dir.remove() }
        for code in [0, 3] {
            let outcome = try await ChildProcess(command: ["/bin/sh", "-c", "echo out; echo err >&2; exit \(code)"], environment: [], directory: dir.path, timeout: 20, maxOutput: 1 << 20).run { _ in }
            XCTAssertEqual(outcome.ending, .exited)
            XCTAssertEqual(outcome.exitCode, Int32(code))
            XCTAssertEqual(outcome.stdout, Array("out\n".utf8))
            XCTAssertEqual(outcome.stderr.last, "err")
            XCTAssertEqual(outcome.othersKilled, 0)
        }
        let killed = try await ChildProcess(command: ["/bin/sh", "-c", "kill -SEGV $$"], environment: [], directory: dir.path, timeout: 20, maxOutput: 1 << 20).run { _ in }
        XCTAssertEqual(killed.signal, SIGSEGV)
        XCTAssertNil(killed.exitCode)
    }

    func testAfterTheProgramExitsItsPipesAreReadForTheLingerThenTheirHolderIsKilled() async throws {
        let dir = TempDir()
        defer { dir.remove() }
        let cmd = python(dir, """
        note()
        if os.fork() == 0:
            note()
            os.close(2)
            time.sleep(0.2)
            print('late', flush=True)
            time.sleep(60)
        print('early', flush=True)
        """)
        let start = Date()
        let outcome = try await ChildProcess(command: cmd, environment: [], directory: dir.path, timeout: 30, maxOutput: 1 << 20).run { _ in }
        XCTAssertLessThan(Date().timeIntervalSince(start), 15)
        XCTAssertEqual(outcome.ending, .lingered)
        XCTAssertEqual(outcome.heldOpen, ["stdout"])
        XCTAssertEqual(outcome.exitCode, 0)
        XCTAssertEqual(String(decoding: outcome.stdout, as: UTF8.self), "early\nlate\n")
        XCTAssertEqual(outcome.othersKilled, 1)
        XCTAssertEqual(ProcessProbe.survivors(pidFile: dir.path + "/pids", marker: dir.path), [])
    }

    // MARK: input on stdin

    func testInputIsFedWholeAndEndsWithEndOfFile() async throws {
        let dir = TempDir()
        defer { dir.remove() }
        let input = Array((0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })  // 3 MiB: many pipe buffers
        let cmd = python(dir, "open('got', 'wb').write(sys.stdin.buffer.read())")
        let outcome = try await ChildProcess(command: cmd, environment: [], directory: dir.path, timeout: 30, maxOutput: 1 << 20, input: input).run { _ in }
        XCTAssertEqual(outcome.exitCode, 0)
        XCTAssertEqual(outcome.inputUnwritten, 0)
        XCTAssertEqual(FileManager.default.contents(atPath: dir.path + "/got").map { Array($0) }, input)
    }

    func testAProgramThatDoesNotReadItsInputNeverHoldsTheRun() async throws {
        let dir = TempDir()
        defer { dir.remove() }
        let big = [UInt8](repeating: 0x41, count: 4 << 20)
        // Exits at once without reading: the rest is never written, and no SIGPIPE ends this process.
        let quick = try await ChildProcess(command: ["/bin/sh", "-c", "exit 0"], environment: [], directory: dir.path, timeout: 30, maxOutput: 1 << 20, input: big).run { _ in }
        XCTAssertEqual(quick.exitCode, 0)
        XCTAssertGreaterThan(quick.inputUnwritten, 0)
        // Closes its stdin and goes on: the write fails with EPIPE, the program's exit decides.
        let closes = try await ChildProcess(command: python(dir, "os.close(0)\ntime.sleep(0.3)\nsys.exit(4)"), environment: [], directory: dir.path,
                                            timeout: 30, maxOutput: 1 << 20, input: big).run { _ in }
        XCTAssertEqual(closes.exitCode, 4)
        XCTAssertGreaterThan(closes.inputUnwritten, 0)
        // Never reads and never exits: the timeout ends it.
        let start = Date()
        let stuck = try await ChildProcess(command: python(dir, "time.sleep(60)"), environment: [], directory: dir.path, timeout: 1, maxOutput: 1 << 20, input: big).run { _ in }
        XCTAssertEqual(stuck.ending, .timedOut)
        XCTAssertLessThan(Date().timeIntervalSince(start), 10)
    }

    func testStdoutCanBeDroppedWhateverItsSize() async throws {
        let dir = TempDir()
        defer { dir.remove() }
        let outcome = try await ChildProcess(command: python(dir, "sys.stdout.buffer.write(b'x' * (8 << 20))\nprint('bye', file=sys.stderr)"),
                                             environment: [], directory: dir.path, timeout: 30, maxOutput: 1024, keepsStdout: false).run { _ in }
        XCTAssertEqual(outcome.ending, .exited)
        XCTAssertEqual(outcome.exitCode, 0)
        XCTAssertEqual(outcome.stdout, [])
        XCTAssertEqual(outcome.stderr.last, "bye")
    }

    func testProgramLookupFindsWhatWouldStart() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let script = dir.write("run.sh", "#!/bin/sh\n")
        chmod(script, 0o755)
        let plain = dir.write("plain.txt", "x")
        chmod(plain, 0o644)
        XCTAssertNil(ProgramLookup.problem("./run.sh", directory: dir.path))
        XCTAssertNil(ProgramLookup.problem(script, directory: "/"))
        XCTAssertNil(ProgramLookup.problem("sh", directory: dir.path))
        XCTAssertNil(ProgramLookup.problem("run.sh", directory: dir.path, path: "/nowhere:."), "a relative PATH entry is relative to the folder")
        XCTAssertEqual(ProgramLookup.problem("./missing", directory: dir.path), "./missing (\(dir.path)/./missing) does not exist")
        XCTAssertEqual(ProgramLookup.problem("./plain.txt", directory: dir.path), "./plain.txt (\(dir.path)/./plain.txt) is not executable (chmod +x, or run it through its interpreter)")
        XCTAssertEqual(ProgramLookup.problem(dir.path, directory: "/"), "\(dir.path) is a folder, not a program")
        XCTAssertEqual(ProgramLookup.problem("no-such-program-x", directory: dir.path, path: "/bin:/usr/bin"), "no-such-program-x was not found in PATH (/bin:/usr/bin)")
        XCTAssertEqual(ProgramLookup.problem("plain.txt", directory: dir.path, path: dir.path), "\(dir.path)/plain.txt is not executable (chmod +x, or run it through its interpreter)")
    }
}
