import Foundation
import XCTest
import TributaryCore
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

    /// A config from source objects, JSON-encoded here so any argument reaches the file intact.
    func config(_ dir: TempDir, sources: [[String: Any]]) -> String {
        let doc: [String: Any] = ["sources": sources, "sinks": [["type": "stdout", "format": "jsonl"]]]
        let data = try! JSONSerialization.data(withJSONObject: doc, options: [.sortedKeys])
        return dir.write("tributary.json", String(decoding: data, as: UTF8.self))
    }

    /// A Python test program in `dir`, run by its absolute path (so its command line names the
    /// test folder, which `ProcessProbe` looks for). `note()` appends the calling process's pid to
    /// `pids`; `item(n)` prints one item line.
    func python(_ dir: TempDir, _ name: String, _ code: String) -> [String] {
        let prelude = """
        import json, os, signal, sys, time
        PIDS = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'pids')
        def note():
            with open(PIDS, 'a') as f: f.write('%d\\n' % os.getpid())
        def item(n, title='t'):
            os.write(1, (json.dumps({'id': 'a:%s' % n, 'title': title}) + '\\n').encode())

        """
        let path = dir.write(name, prelude + code + "\n")
        return ["python3", path]
    }

    /// Fails the test for every process listed in `dir/pids` that is still alive or unreaped.
    func assertNoSurvivors(_ dir: TempDir, file: StaticString = #filePath, line: UInt = #line) {
        let left = ProcessProbe.survivors(pidFile: dir.path + "/pids", marker: dir.path)
        XCTAssertEqual(left, [], "processes of the test left behind", file: file, line: line)
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
        // The program and a child it forked note their pids; both command lines name the test's
        // folder, so the check never sees another suite's processes (CI runs the TSan pass beside
        // make test, and a listing of every `sleep` once matched the other suite's run).
        let cmd = python(dir, "p.py", """
        note()
        if os.fork() == 0:
            note()
            time.sleep(37)
            os._exit(0)
        item(1, 'early')
        time.sleep(38)
        """)
        let start = Date()
        let r = try BinaryRunner.run(["run", "-c", config(dir, sources: [["name": "p", "type": "exec", "command": cmd, "timeout": "2s"]])])
        XCTAssertLessThan(Date().timeIntervalSince(start), 7)
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("timed out after 2s and was killed"), r.stderr)
        XCTAssertEqual(r.stdoutLines.count, 1, "what was printed before the timeout is kept")
        XCTAssertEqual(ProcessProbe.pids(inFile: dir.path + "/pids").count, 2, "the program and its child both started")
        assertNoSurvivors(dir)
    }

    func testMissingProgramAndBadConfig() throws {
        let dir = TempDir()
        defer { dir.remove() }
        // A missing program is found before anything runs, with its key path (exit 2).
        let r = try BinaryRunner.run(["run", "-c", config(dir, #"{"name":"p","type":"exec","command":["./does-not-exist"]}"#)])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains(#"sources[0] ("p").command[0]: program "./does-not-exist" (\#(dir.path)/does-not-exist) does not exist"#), r.stderr)
        XCTAssertTrue(r.stderr.contains("problem found before fetching; nothing was fetched"), r.stderr)
        let bad = try BinaryRunner.run(["check", "-c", config(dir, #"{"name":"p","type":"exec","command":[],"kind":"Bad"}"#)])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains(#"sources[0] ("p").command: needs at least the program to run"#), bad.stderr)
        XCTAssertTrue(bad.stderr.contains(#"sources[0] ("p").kind: "Bad" must match"#), bad.stderr)
        let noShell = try BinaryRunner.run(["check", "-c", config(dir, #"{"name":"p","type":"exec","command":"echo hi; rm -rf /"}"#)])
        XCTAssertEqual(noShell.status, 2, "command must be an array: no shell string")
    }

    func testArgumentsReachTheProgramLiterallyWithoutAShell() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let weird = #"a; echo $HOME `id` * | touch pwned && 'q' "d" \ $(touch pwned2) > f"#
        let cmd = python(dir, "p.py", "item(1, sys.argv[1]); item(2, sys.argv[2])")
        let r = try BinaryRunner.run(["run", "-c", config(dir, sources: [["name": "p", "type": "exec", "command": cmd + [weird, "*"]]])])
        XCTAssertEqual(r.status, 0, r.stderr)
        let titles = r.stdoutLines.compactMap { try? JSONNode(JSONParser.parse($0))["title"].string() }
        XCTAssertEqual(titles, [weird, "*"])
        for f in ["pwned", "pwned2", "f"] { XCTAssertNil(dir.read(f), "no shell ran: \(f) must not exist") }
    }

    func testOneGigabyteOfStdoutIsCappedAndDrained() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let cmd = python(dir, "p.py", """
        note()
        chunk = (json.dumps({'id': 'a:x', 'title': 'x' * 1000}) + '\\n').encode() * 1000
        for _ in range(1000): os.write(1, chunk)
        """)
        let start = Date()
        let r = try BinaryRunner.run(["run", "-c", config(dir, sources: [["name": "p", "type": "exec", "command": cmd, "timeout": "2m"]])], timeout: 120)
        XCTAssertLessThan(Date().timeIntervalSince(start), 60, "the program is stopped at the cap, not read to its end")
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("p     exec  failed: command python3: printed more than 64 MiB on stdout"), r.stderr)
        XCTAssertEqual(r.stdout, "")
        assertNoSurvivors(dir)
    }

    func testWorkingDirectoryEnvironmentAndSignalDispositions() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let cmd = python(dir, "p.py", """
        print(json.dumps({'id': 'a:1', 'title': os.getcwd(), 'data': {'home': os.environ.get('HOME'), 'extra': os.environ.get('EXTRA'), 'inherited': os.environ.get('FROM_TEST'), 'stdin': os.read(0, 10).decode()}}))
        """)
        // Tributary ignores SIGPIPE and handles SIGINT and SIGTERM itself; the program must get
        // the defaults back and an empty signal mask. grep, exec'ed by the shell, logs its own.
        let cfg = config(dir, sources: [
            ["name": "p", "type": "exec", "command": cmd, "env": ["EXTRA": "yes", "HOME": "/nowhere"]],
            ["name": "s", "type": "exec", "command": ["/bin/sh", "-c", "exec grep -E '^Sig(Ign|Blk):' /proc/self/status >&2"]],
        ])
        let r = try BinaryRunner.run(["run", "-c", cfg], cwd: "/", env: ["FROM_TEST": "inherited", "HOME": "/root"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let items = r.stdoutLines.compactMap { try? JSONNode(JSONParser.parse($0)) }
        let p = items.first { (try? $0["source"].string()) == "p" }
        let realDir = URL(fileURLWithPath: dir.path).resolvingSymlinksInPath().path
        XCTAssertEqual(try p?["title"].string(), realDir, "the program runs in the config file's folder")
        XCTAssertEqual(try p?["data.home"].string(), "/nowhere", "env overrides an inherited variable")
        XCTAssertEqual(try p?["data.extra"].string(), "yes")
        XCTAssertEqual(try p?["data.inherited"].string(), "inherited", "the rest of the environment is passed on")
        XCTAssertEqual(try p?["data.stdin"].string(), "", "stdin is /dev/null")
        func mask(_ name: String) -> UInt64? {
            guard let line = LogLines.text(r.stderr).first(where: { $0.hasPrefix("s: \(name):") }) else { return nil }
            return UInt64(line.split(separator: "\t").last ?? "", radix: 16)
        }
        XCTAssertEqual(mask("SigBlk"), 0, r.stderr)
        let ignored = try XCTUnwrap(mask("SigIgn"), r.stderr)
        for sig in [SIGPIPE, SIGINT, SIGTERM] { XCTAssertEqual(ignored & (1 << UInt64(sig - 1)), 0, "signal \(sig) ignored in the program: \(r.stderr)") }
    }

    func testHundredMebibytesOfStderrWithoutANewlineAreReadInBoundedMemory() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let cmd = python(dir, "p.py", """
        note()
        item(1)
        chunk = b'x' * (1 << 20)
        for _ in range(100): os.write(2, chunk)
        """)
        let start = Date()
        let r = try BinaryRunner.run(["run", "-c", config(dir, sources: [["name": "p", "type": "exec", "command": cmd, "timeout": "20s"]])], timeout: 120)
        let seconds = Date().timeIntervalSince(start)
        XCTAssertEqual(r.status, 0, String(r.stderr.suffix(2000)))
        XCTAssertEqual(r.stdoutLines.count, 1, "the item is delivered")
        XCTAssertLessThan(r.stderr.utf8.count, 16 << 10, "one cut line is logged, not 100 MiB")
        XCTAssertTrue(r.stderr.contains("p: " + String(repeating: "x", count: 4096) + "... [line of 104857600 bytes cut to 4096]\n"), String(r.stderr.prefix(300)))
        XCTAssertTrue(r.stderr.contains("p     exec  ok  1 fetched"), String(r.stderr.suffix(500)))
        XCTAssertLessThan(seconds, 20, "read at pipe speed, well within the timeout")
        assertNoSurvivors(dir)
    }

    func testStderrLinesAreCappedPerRunAndInTheFailureMessage() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let cmd = python(dir, "p.py", """
        for i in range(5000): os.write(2, b'line %d\\n' % i)
        os.write(2, 'é'.encode() * 10000 + b'\\n')
        sys.exit(3)
        """)
        let r = try BinaryRunner.run(["run", "-c", config(dir, sources: [["name": "p", "type": "exec", "command": cmd]])])
        XCTAssertEqual(r.status, 1, r.stderr)
        let logged = LogLines.text(r.stderr).filter { $0.hasPrefix("p: line ") }
        XCTAssertEqual(logged.count, 1000, "a run logs at most 1000 stderr lines")
        XCTAssertEqual(logged.last, "p: line 999")
        XCTAssertTrue(r.stderr.contains("warning: p: stderr: 4001 more lines (56000 bytes) not logged; a run logs at most 1000 lines"), String(r.stderr.suffix(1500)))
        let failure = try XCTUnwrap(r.stderr.split(separator: "\n").first { $0.hasPrefix("p     exec  failed:") }, r.stderr)
        XCTAssertTrue(failure.hasPrefix("p     exec  failed: command python3: exited with status 3 (last stderr line: " + String(repeating: "é", count: 300) + "...)"), String(failure))
        XCTAssertLessThan(failure.count, 500)
    }

    /// A program whose child leaves the process group with setsid and sleeps holding stdout.
    static let setsidChild = """
    note()
    if os.fork() == 0:
        os.setsid()
        note()
        time.sleep(60)
        os._exit(0)
    item(1)
    time.sleep(60)
    """

    func testTheTimeoutEndsARunWhoseSetsidChildHoldsStdout() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let cmd = python(dir, "p.py", Self.setsidChild)
        let start = Date()
        let r = try BinaryRunner.run(["run", "-c", config(dir, sources: [["name": "p", "type": "exec", "command": cmd, "timeout": "2s"]])], timeout: 30)
        XCTAssertLessThan(Date().timeIntervalSince(start), 20, "the timeout (2 s) ends the run")
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("p     exec  failed: command python3: timed out after 2s and was killed  1 fetched"), r.stderr)
        XCTAssertEqual(r.stdoutLines.count, 1, "what was printed before the timeout is kept")
        XCTAssertEqual(ProcessProbe.pids(inFile: dir.path + "/pids").count, 2)
        assertNoSurvivors(dir)
    }

    func testTheTimeoutEndsARunWhoseDoubleForkedDaemonHoldsStdout() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let cmd = python(dir, "p.py", """
        note()
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                note()
                time.sleep(60)
            os._exit(0)
        item(1)
        time.sleep(60)
        """)
        let start = Date()
        let r = try BinaryRunner.run(["run", "-c", config(dir, sources: [["name": "p", "type": "exec", "command": cmd, "timeout": "2s"]])], timeout: 30)
        XCTAssertLessThan(Date().timeIntervalSince(start), 20, "the timeout (2 s) ends the run")
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("timed out after 2s and was killed"), r.stderr)
        XCTAssertEqual(ProcessProbe.pids(inFile: dir.path + "/pids").count, 2)
        assertNoSurvivors(dir)
    }

    func testADetachedDaemonIsKilledWhenTheProgramEnds() throws {
        // Double fork, setsid, stdio on /dev/null, and an empty environment: nothing ties it to
        // the program any more but having been orphaned to Tributary.
        let dir = TempDir()
        defer { dir.remove() }
        let cmd = python(dir, "p.py", """
        if len(sys.argv) > 1:
            time.sleep(60)
            sys.exit(0)
        note()
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                note()
                fd = os.open('/dev/null', os.O_RDWR)
                for i in (0, 1, 2): os.dup2(fd, i)
                os.execve(sys.executable, [sys.executable, os.path.abspath(__file__), 'daemon'], {})
            os._exit(0)
        item(1)
        """)
        let r = try BinaryRunner.run(["run", "-c", config(dir, sources: [["name": "p", "type": "exec", "command": cmd, "timeout": "20s"]])], timeout: 60)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdoutLines.count, 1)
        XCTAssertEqual(ProcessProbe.pids(inFile: dir.path + "/pids").count, 2)
        assertNoSurvivors(dir)
    }

    func testSIGTERMAndSIGINTEndARunWhoseDescendantsHoldStdout() throws {
        for (signals, code) in [([SIGTERM], Int32(143)), ([SIGINT, SIGINT], Int32(130))] {
            let dir = TempDir()
            defer { dir.remove() }
            let cmd = python(dir, "p.py", Self.setsidChild)
            let cfg = config(dir, sources: [["name": "p", "type": "exec", "command": cmd, "timeout": "60s"]])
            let p = try BinaryRunner.start(["run", "-c", cfg], stdoutPath: dir.path + "/out", stderrPath: dir.path + "/err")
            let ready = Date().addingTimeInterval(20)
            while ProcessProbe.pids(inFile: dir.path + "/pids").count < 2 && Date() < ready { usleep(20_000) }
            let start = Date()
            for sig in signals {
                kill(p.processIdentifier, sig)
                usleep(100_000)
            }
            while p.isRunning && Date().timeIntervalSince(start) < 30 { usleep(50_000) }
            if p.isRunning {
                kill(p.processIdentifier, SIGKILL)
                XCTFail("\(signals): tributary did not stop")
            }
            p.waitUntilExit()
            let err = dir.read("err") ?? ""
            XCTAssertEqual(p.terminationStatus, code, err)
            XCTAssertLessThan(Date().timeIntervalSince(start), 20, "within the grace period (5 s)")
            XCTAssertTrue(err.contains("p     exec  stopped: interrupted  1 fetched"), err)
            XCTAssertEqual(dir.read("out")?.split(separator: "\n").count, 1, "the item printed before the signal is delivered")
            assertNoSurvivors(dir)
        }
    }

    func testProgramsRunningAtOnceEachLoseOnlyTheirOwnProcesses() throws {
        // a exits at once, leaving a daemon (setsid, double fork, stdio on /dev/null); b's child
        // looks at that daemon while b still runs, then prints b's only item.
        let dir = TempDir()
        defer { dir.remove() }
        let a = python(dir, "a.py", """
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                note()
                with open(PIDS + '.daemon', 'w') as f: f.write(str(os.getpid()))
                fd = os.open('/dev/null', os.O_RDWR)
                for i in (0, 1, 2): os.dup2(fd, i)
                time.sleep(60)
            os._exit(0)
        item('a')
        """)
        let b = python(dir, "b.py", """
        note()
        child = os.fork()
        if child == 0:
            note()
            for _ in range(400):
                if os.path.exists(PIDS + '.daemon') and open(PIDS + '.daemon').read(): break
                time.sleep(0.05)
            daemon = int(open(PIDS + '.daemon').read())
            time.sleep(2)
            try: state = open('/proc/%d/stat' % daemon).read().rsplit(')', 1)[1].split()[0]
            except OSError: state = 'gone'
            item('b', 'daemon of a: ' + state)
            os._exit(0)
        os.waitpid(child, 0)
        """)
        let r = try BinaryRunner.run(["run", "-c", config(dir, sources: [
            ["name": "a", "type": "exec", "command": a],
            ["name": "b", "type": "exec", "command": b],
        ])], timeout: 60)
        XCTAssertEqual(r.status, 0, r.stderr)
        let titles = r.stdoutLines.compactMap { try? JSONNode(JSONParser.parse($0))["title"].string() }.sorted()
        XCTAssertEqual(titles, ["daemon of a: gone", "t"], "a's daemon is killed when a ends, b's child is left to finish")
        XCTAssertEqual(ProcessProbe.pids(inFile: dir.path + "/pids").count, 3)
        assertNoSurvivors(dir)
    }

    func testAProgramThatExitedIsOkWhenSomethingItStartedHoldsItsOutput() throws {
        // p: a child in its group keeps stdout and stderr open, and prints one more item during
        // the linger; q: the same after setsid; r: a child that closed its stdio stays behind.
        let dir = TempDir()
        defer { dir.remove() }
        let p = python(dir, "p.py", """
        note()
        if os.fork() == 0:
            note()
            time.sleep(0.3)
            item(2)
            time.sleep(60)
        item(1)
        """)
        let q = python(dir, "q.py", """
        note()
        if os.fork() == 0:
            os.setsid()
            note()
            time.sleep(60)
        item(3)
        """)
        let r = python(dir, "r.py", """
        note()
        if os.fork() == 0:
            note()
            fd = os.open('/dev/null', os.O_RDWR)
            for i in (0, 1, 2): os.dup2(fd, i)
            time.sleep(60)
        item(4)
        """)
        let start = Date()
        let run = try BinaryRunner.run(["run", "-c", config(dir, sources: [
            ["name": "p", "type": "exec", "command": p, "timeout": "20s"],
            ["name": "q", "type": "exec", "command": q, "timeout": "20s"],
            ["name": "r", "type": "exec", "command": r, "timeout": "20s"],
        ])], timeout: 60)
        XCTAssertLessThan(Date().timeIntervalSince(start), 15, "the program's exit ends the run after a 1 s linger, not the 20 s timeout")
        XCTAssertEqual(run.status, 0, run.stderr)
        for line in ["p     exec  ok  2 fetched", "q     exec  ok  1 fetched", "r     exec  ok  1 fetched",
                     "warning: p: a background process held stdout and stderr open after the program exited and was killed after 1s (1 process killed)",
                     "warning: q: a background process held stdout and stderr open after the program exited and was killed after 1s (1 process killed)",
                     "warning: r: 1 process still running after the program exited was killed"] {
            XCTAssertTrue(run.stderr.contains(line), "\(line)\n\(run.stderr)")
        }
        XCTAssertEqual(run.stdoutLines.count, 4, "the item printed during the linger is kept")
        XCTAssertEqual(ProcessProbe.pids(inFile: dir.path + "/pids").count, 6)
        assertNoSurvivors(dir)
    }

    func testAProgramKilledByASignalSaysWhich() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let r = try BinaryRunner.run(["run", "-c", config(dir, sources: [
            ["name": "segv", "type": "exec", "command": ["/bin/sh", "-c", "echo '{\"id\":\"a:1\",\"title\":\"t\"}'; kill -SEGV $$"]],
            ["name": "term", "type": "exec", "command": ["/bin/sh", "-c", "kill $$"]],
        ])])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("segv  exec  failed: command /bin/sh: killed by signal 11 (SIGSEGV)  1 fetched"), r.stderr)
        XCTAssertTrue(r.stderr.contains("term  exec  failed: command /bin/sh: killed by signal 15 (SIGTERM)  0 fetched"), r.stderr)
        XCTAssertEqual(r.stdoutLines.count, 1, "items printed before are delivered")
    }
}
