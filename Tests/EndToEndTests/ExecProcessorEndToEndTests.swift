import Foundation
import XCTest
import TributaryCore
import TributaryTestSupport

/// The `exec` processor through the real binary (Docs/processors/exec.md): small Python
/// programs get each item of a loopback `json` source as a line and answer it; every way a
/// program can misbehave skips only what it must, never hangs the run, and leaves no process.
final class ExecProcessorEndToEndTests: XCTestCase {
    /// `count` items `{"id": n, "title": "Item n"}` at `/items`, for a `json` source.
    static func body(_ count: Int) -> String {
        #"{"items":["# + (1...count).map { #"{"id":\#($0),"title":"Item \#($0)","summary":"Post \#($0). More text."}"# }.joined(separator: ",") + "]}"
    }

    static func source(_ name: String, url: String, command: [String], timeout: String = "20s", env: [String: String] = [:]) -> [String: Any] {
        var exec: [String: Any] = ["type": "exec", "command": command, "timeout": timeout]
        if !env.isEmpty { exec["env"] = env }
        return ["name": name, "type": "json", "url": url, "items": "items",
                "fields": ["id": "id", "title": "title", "summary": "summary"], "process": [exec]]
    }

    /// A config of `sources` with a state file and one `jsonl` sink (out/items.jsonl), in `dir`.
    func config(_ dir: TempDir, _ sources: [[String: Any]]) -> String {
        let doc: [String: Any] = ["state": ["path": "state.sqlite"], "sources": sources, "sinks": [["type": "jsonl", "path": "out/items.jsonl"]]]
        let data = try! JSONSerialization.data(withJSONObject: doc, options: [.sortedKeys])
        return dir.write("tributary.json", String(decoding: data, as: UTF8.self))
    }

    /// A Python program in `dir`, run by its absolute path (its command line names the test
    /// folder, which `ProcessProbe` looks for). Every start appends a line to `runs`; `note()`
    /// appends the calling process's pid to `pids`; `items()` yields the items read from stdin,
    /// `answer(x)` writes one line (a JSON value, or a string as it is) and flushes.
    func program(_ dir: TempDir, _ name: String, _ code: String) -> [String] {
        let prelude = """
        import json, os, sys, time
        os.chdir(os.path.dirname(os.path.abspath(__file__)))
        with open('runs', 'a') as f: f.write('run\\n')
        def note(pid=None):
            with open('pids', 'a') as f: f.write('%d\\n' % (pid or os.getpid()))
        def items():
            while True:
                line = sys.stdin.readline()
                if not line: return
                with open('seen', 'a') as f: f.write(line)
                yield json.loads(line)
        def answer(x):
            sys.stdout.write((x if isinstance(x, str) else json.dumps(x)) + '\\n')
            sys.stdout.flush()
        def number(item): return int(item['id'].split(':')[1])

        """
        let path = dir.write(name, prelude + code + "\n")
        return ["python3", path]
    }

    func delivered(_ dir: TempDir) -> [JSONValue] {
        (dir.read("out/items.jsonl") ?? "").split(separator: "\n").compactMap { try? JSONParser.parse(String($0)) }
    }

    func ids(_ dir: TempDir) -> [String] { delivered(dir).compactMap { $0[path: "id"]?.stringValue } }

    func runs(_ dir: TempDir) -> Int { (dir.read("runs") ?? "").split(separator: "\n").count }

    func assertNoSurvivors(_ dir: TempDir, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(ProcessProbe.survivors(pidFile: dir.path + "/pids", marker: dir.path), [], "processes of the test left behind", file: file, line: line)
    }

    func occurrences(of needle: String, in text: String) -> Int { text.components(separatedBy: needle).count - 1 }

    /// An answer replaces the item (fields it drops that the engine owns are kept), an array
    /// makes several items, `null` drops it (counted as filtered, not recorded); one program
    /// serves the whole run, and gets each item as one compact item line.
    func testAnswersTransformMultiplyAndDrop() throws {
        let server = try LoopbackServer { _ in .text(Self.body(4)) }
        let dir = TempDir()
        defer { server.stop(); dir.remove() }
        let command = program(dir, "shape.py", """
        note()
        for item in items():
            n = number(item)
            if n == 1:
                item['title'] = item['title'].upper()
                item['data'] = {'shaped_by': 'shape.py'}
                answer(item)
            elif n == 2:
                answer([dict(item, id=item['id'] + '-a'), dict(item, id=item['id'] + '-b', title='Second half')])
            elif n == 3:
                answer('null')
            else:
                answer({'id': item['id'], 'title': 'Only id and title'})
        """)
        let cfg = config(dir, [Self.source("news", url: server.url("/items"), command: command)])
        let r = try BinaryRunner.run(["run", "-c", cfg])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(ids(dir), ["news:1", "news:2-a", "news:2-b", "news:4"])
        let items = delivered(dir)
        XCTAssertEqual(items.first?[path: "title"]?.stringValue, "ITEM 1")
        XCTAssertEqual(items.first?[path: "data.shaped_by"]?.stringValue, "shape.py")
        XCTAssertEqual(items.dropFirst(2).first?[path: "title"]?.stringValue, "Second half")
        XCTAssertEqual(items.last?[path: "source"]?.stringValue, "news", "source is kept from the input when the answer drops it")
        XCTAssertEqual(items.last?[path: "type"]?.stringValue, "json")
        XCTAssertNotNil(items.last?[path: "fetched"]?.stringValue)
        XCTAssertNil(items.last?[path: "summary"], "a field the answer drops is dropped")
        let schema = try SchemaValidator.itemSchema()
        for item in items { XCTAssertEqual(schema.validate(item), [], "\(item)") }
        // Counted after the processors: four items in, five out (one of them two), one dropped.
        XCTAssertTrue(r.stderr.contains("5 fetched  4 new  1 filtered"), r.stderr)
        XCTAssertEqual(runs(dir), 1, "one program for the source run")
        // What the program got: one compact item line per item, as the contract writes them.
        let seen = (dir.read("seen") ?? "").split(separator: "\n").map(String.init)
        XCTAssertEqual(seen.count, 4)
        for line in seen { XCTAssertEqual(schema.validate(line: line), [], line) }
        XCTAssertEqual(seen.first.flatMap { try? JSONParser.parse($0) }?[path: "id"]?.stringValue, "news:1")
        XCTAssertFalse(seen.contains { $0.contains("\n") || $0.contains(": ") }, "compact lines")
        assertNoSurvivors(dir)

        // The dropped item was not recorded: the program is asked again, the others are not new.
        let again = try BinaryRunner.run(["run", "-c", cfg])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stderr.contains("5 fetched  0 new  1 filtered"), again.stderr)
        XCTAssertEqual(ids(dir).count, 4, "nothing delivered twice")
    }

    /// An answer that is not an item (not JSON, a string, an object breaking the item rules)
    /// skips that item with a warning naming the source, the item and what was wrong; the others
    /// are delivered, the program keeps running, the run exits 0 and the skipped items come
    /// back on the next run.
    func testAnAnswerThatIsNotAnItemSkipsThatItemAndItComesBackNextRun() throws {
        let server = try LoopbackServer { _ in .text(Self.body(5)) }
        let dir = TempDir()
        defer { server.stop(); dir.remove() }
        let command = program(dir, "flaky.py", """
        note()
        fixed = os.path.exists('fixed')
        for item in items():
            n = number(item)
            if fixed or n in (1, 5): answer(item)
            elif n == 2: answer('this is not {json')
            elif n == 3: answer('"a string"')
            else: answer(dict(item, url='/relative/4'))
        """)
        let cfg = config(dir, [Self.source("news", url: server.url("/items"), command: command)])
        let r = try BinaryRunner.run(["run", "-c", cfg])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(ids(dir), ["news:1", "news:5"])
        for needle in ["warning: news: news:2: skipped: exec processor: command python3: its answer is not JSON",
                       "this is not {json",
                       #"news: news:3: skipped: exec processor: command python3: its answer is string "a string", expected an item object, an array of item objects, or null"#,
                       #"news: news:4: skipped: exec processor: command python3: its answer is not an item: url: expected an absolute http(s) URL, found "/relative/4""#,
                       "5 fetched  2 new  3 skipped"] {
            XCTAssertTrue(r.stderr.contains(needle), "\(needle)\n\(r.stderr)")
        }
        XCTAssertEqual(runs(dir), 1, "a wrong answer does not end the program")

        _ = dir.write("fixed", "")
        let next = try BinaryRunner.run(["run", "-c", cfg])
        XCTAssertEqual(next.status, 0, next.stderr)
        XCTAssertEqual(ids(dir), ["news:1", "news:5", "news:2", "news:3", "news:4"], "the skipped items come again, the others do not")
        XCTAssertTrue(next.stderr.contains("5 fetched  3 new"), next.stderr)
        assertNoSurvivors(dir)
    }

    /// No answer within `timeout`: the program and everything it started (its process group)
    /// are ended before the next item, which starts the program again; the item is skipped.
    func testNoAnswerWithinTheTimeoutEndsTheWholeGroupAndTheNextItemRestartsIt() throws {
        let server = try LoopbackServer { _ in .text(Self.body(3)) }
        let dir = TempDir()
        defer { server.stop(); dir.remove() }
        // The first start hangs on item 2 after forking a grandchild; the second start checks,
        // on its first item, whether that grandchild is still there.
        let command = program(dir, "hang.py", """
        note()
        def alive(pid):
            try:
                with open('/proc/%d/stat' % pid) as f: return f.read().rsplit(')', 1)[1].split()[0] != 'Z'
            except OSError:
                return False
        first = not os.path.exists('grandchild')
        for item in items():
            if first and number(item) == 2:
                child = os.fork()
                if child == 0:
                    time.sleep(120)
                    os._exit(0)
                note(child)
                with open('grandchild', 'w') as f: f.write(str(child))
                time.sleep(120)
            if not first and not os.path.exists('checked'):
                pid = int(open('grandchild').read())
                with open('checked', 'w') as f: f.write('alive' if alive(pid) else 'gone')
            answer(item)
        """)
        // 3 s: the timeout also covers the restarted program's start and its first answer (a
        // pyenv `python3` is a shell script; on a loaded machine 1 s was not always enough).
        let cfg = config(dir, [Self.source("news", url: server.url("/items"), command: command, timeout: "3s")])
        let start = Date()
        let r = try BinaryRunner.run(["run", "-c", cfg])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(start), 20)
        XCTAssertEqual(ids(dir), ["news:1", "news:3"])
        XCTAssertTrue(r.stderr.contains("warning: news: news:2: skipped: exec processor: command python3: no answer within 3s (timeout); the program and everything it started were ended (1 more process it started killed)"), r.stderr)
        XCTAssertTrue(r.stderr.contains("3 fetched  2 new  1 skipped"), r.stderr)
        XCTAssertEqual(runs(dir), 2, "the next item started the program again")
        XCTAssertEqual(dir.read("checked"), "gone", "the grandchild was ended with the program, before the next item")
        assertNoSurvivors(dir)
    }

    /// A program that exits mid-run is started again once; when it dies a second time the rest
    /// of that source's items are skipped with one warning. Another source in the same run is
    /// not affected, and the skipped items come again on the next run.
    func testAProgramThatDiesIsRestartedOnceThenTheRestOfItsSourceIsSkippedWithOneWarning() throws {
        let server = try LoopbackServer { _ in .text(Self.body(6)) }
        let dir = TempDir()
        defer { server.stop(); dir.remove() }
        // Each start answers one item and exits on the next, until `fixed` exists.
        let command = program(dir, "dies.py", """
        note()
        steady = sys.argv[1:] == ['steady'] or os.path.exists('fixed')
        answered = 0
        for item in items():
            if not steady and answered == 1:
                print('giving up on %s' % item['id'], file=sys.stderr, flush=True)
                sys.exit(3)
            answered += 1
            answer(item)
        """)
        let cfg = config(dir, [Self.source("news", url: server.url("/items"), command: command),
                               Self.source("other", url: server.url("/items"), command: command + ["steady"])])
        let r = try BinaryRunner.run(["run", "-c", cfg])
        XCTAssertEqual(r.status, 0, r.stderr)
        let all = ids(dir)
        XCTAssertEqual(all.filter { $0.hasPrefix("news:") }, ["news:1", "news:3"])
        XCTAssertEqual(all.filter { $0.hasPrefix("other:") }, (1...6).map { "other:\($0)" }, "the other source is not affected")
        for needle in ["warning: news: news:2: skipped: exec processor: command python3: the program exited before answering (it exited with status 3)",
                       "warning: news: news:4: skipped: exec processor: command python3: the program exited before answering (it exited with status 3)",
                       "warning: news: exec processor: command python3: the program ended again (2 times in this run, started 2 times); the rest of this run's items of the source are skipped (they come again next run)",
                       "news: giving up on news:2", "news: giving up on news:4",
                       "6 fetched  2 new  4 skipped", "6 fetched  6 new"] {
            XCTAssertTrue(r.stderr.contains(needle), "\(needle)\n\(r.stderr)")
        }
        XCTAssertEqual(occurrences(of: "warning: news: ", in: r.stderr), 3, "one warning for the rest, not one per item: \(r.stderr)")
        XCTAssertFalse(r.stderr.contains("news:5"), r.stderr)
        XCTAssertEqual(runs(dir), 3, "news: started twice, other: once")

        _ = dir.write("fixed", "")
        let next = try BinaryRunner.run(["run", "-c", cfg])
        XCTAssertEqual(next.status, 0, next.stderr)
        XCTAssertEqual(ids(dir).filter { $0.hasPrefix("news:") }, ["news:1", "news:3", "news:2", "news:4", "news:5", "news:6"], "the skipped items come again")
        assertNoSurvivors(dir)
    }

    /// A program that closes its stdin and stays up: the write fails (no SIGPIPE ends
    /// Tributary), the item is skipped at once rather than after the timeout. A program that
    /// never reads an item larger than a pipe holds costs its `timeout`, not a hang; one that
    /// closes its stdout and stays up is said to have closed it (not to have exited).
    func testAProgramThatClosesOrStopsReadingItsStdinDoesNotHangTheRun() throws {
        let big = String(repeating: "x", count: 300_000)
        let server = try LoopbackServer { request in
            request.path == "/big" ? .text(#"{"items":[{"id":1,"title":"Big","summary":"\#(big)"},{"id":2,"title":"Small"}]}"#) : .text(Self.body(4))
        }
        let dir = TempDir()
        defer { server.stop(); dir.remove() }
        // Answers its first item only after closing its stdin, so the next write meets a
        // closed pipe; then it sleeps.
        let closing = program(dir, "closes.py", """
        note()
        for item in items():
            os.close(0)
            answer(item)
            time.sleep(120)
        """)
        let deaf = program(dir, "deaf.py", "note()\ntime.sleep(120)")
        // Closes its stdout on its first item and stays up: told apart from a program that exits.
        let mute = program(dir, "mute.py", "note()\nfor item in items():\n    os.close(1)\n    time.sleep(120)")
        let cfg = config(dir, [Self.source("news", url: server.url("/items"), command: closing, timeout: "60s"),
                               Self.source("deaf", url: server.url("/big"), command: deaf, timeout: "1s"),
                               Self.source("mute", url: server.url("/items"), command: mute, timeout: "60s")])
        let start = Date()
        // --verbose: each request is logged, so a run that does not end says whether a source
        // was still fetching; what the programs read and how often they started is kept in the
        // failure (the folder is removed when the test ends).
        let r: BinaryRunner.Result
        do {
            r = try BinaryRunner.run(["run", "-c", cfg, "--verbose"], timeout: 45)
        } catch {
            XCTFail("\(error)\nseen:\n\(dir.read("seen") ?? "")\nruns: \(runs(dir)), pids: \(dir.read("pids") ?? "")")
            throw error
        }
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(start), 30, "neither the closed stdin nor the full pipe waited for long")
        XCTAssertEqual(ids(dir), ["news:1", "news:3"])
        for needle in ["warning: news: news:2: skipped: exec processor: command python3: the program closed its stdin before answering",
                       "warning: news: news:4: skipped: exec processor: command python3: the program closed its stdin before answering",
                       "4 fetched  2 new  2 skipped",
                       "warning: deaf: deaf:1: skipped: exec processor: command python3: no answer within 1s (timeout)",
                       "2 fetched  0 new  2 skipped",
                       "warning: mute: mute:1: skipped: exec processor: command python3: the program closed its stdout before answering (it was killed by signal 9 (SIGKILL))",
                       "warning: mute: mute:2: skipped: exec processor: command python3: the program closed its stdout before answering",
                       "4 fetched  0 new  4 skipped"] {
            XCTAssertTrue(r.stderr.contains(needle), "\(needle)\n\(r.stderr)")
        }
        assertNoSurvivors(dir)
    }

    /// A program that closes its stdin while a process it started still holds it: the next
    /// line is written without EPIPE (a reader is left), and once that process is gone too,
    /// the line nobody read skips the item at once, not after the timeout.
    func testALineLeftUnreadWhenTheLastReaderOfStdinGoesSkipsTheItemAtOnce() throws {
        let server = try LoopbackServer { _ in .text(Self.body(2)) }
        let dir = TempDir()
        defer { server.stop(); dir.remove() }
        let command = program(dir, "helper.py", """
        import subprocess
        note()
        for item in items():
            helper = subprocess.Popen(['sleep', '2'], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            note(helper.pid)
            os.close(0)
            answer(item)
            time.sleep(120)
        """)
        let cfg = config(dir, [Self.source("news", url: server.url("/items"), command: command, timeout: "60s")])
        let start = Date()
        let r = try BinaryRunner.run(["run", "-c", cfg], timeout: 45)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(start), 20, "the unread line was noticed when the helper left, not at the timeout")
        XCTAssertEqual(ids(dir), ["news:1"])
        XCTAssertTrue(r.stderr.contains("warning: news: news:2: skipped: exec processor: command python3: the program closed its stdin before answering"), r.stderr)
        assertNoSurvivors(dir)
    }

    /// The program's stderr lines are logged with the source's name, redacted like every log line.
    func testStderrLinesAreLoggedWithTheSourceName() throws {
        let server = try LoopbackServer { _ in .text(Self.body(2)) }
        let dir = TempDir()
        defer { server.stop(); dir.remove() }
        let command = program(dir, "chatty.py", """
        print('warming up (key=' + os.environ['API_KEY'] + ')', file=sys.stderr, flush=True)
        for item in items():
            print('looking at %s' % item['id'], file=sys.stderr, flush=True)
            answer(item)
        print('bye', file=sys.stderr)
        """)
        let cfg = config(dir, [Self.source("news", url: server.url("/items"), command: command, env: ["API_KEY": "SECRET-KEY-42"])])
        let r = try BinaryRunner.run(["run", "-c", cfg])
        XCTAssertEqual(r.status, 0, r.stderr)
        for needle in ["news: warming up (key=***)", "news: looking at news:1", "news: looking at news:2", "news: bye"] {
            XCTAssertTrue(r.stderr.contains(needle), "\(needle)\n\(r.stderr)")
        }
        XCTAssertFalse(r.stderr.contains("SECRET-KEY-42"), r.stderr)
        XCTAssertEqual(ids(dir), ["news:1", "news:2"])
    }

    /// A program that cannot be started is a config error: `check` and `run` exit 2 naming the
    /// file and the key path, and nothing is fetched.
    func testAMissingProgramIsAConfigError() throws {
        let server = try LoopbackServer { _ in .text(Self.body(2)) }
        let dir = TempDir()
        defer { server.stop(); dir.remove() }
        let cfg = config(dir, [Self.source("news", url: server.url("/items"), command: ["no-such-summariser", "--dry"]),
                               Self.source("local", url: server.url("/items"), command: ["./not-here.py"])])
        let check = try BinaryRunner.run(["check", "-c", cfg])
        XCTAssertEqual(check.status, 2, check.stderr)
        XCTAssertTrue(check.stderr.contains(#"tributary.json: sources[0] ("news").process[0].command: cannot run no-such-summariser was not found in PATH"#), check.stderr)
        XCTAssertTrue(check.stderr.contains(#"tributary.json: sources[1] ("local").process[0].command: cannot run ./not-here.py (\#(dir.path)/./not-here.py) does not exist"#), check.stderr)
        let run = try BinaryRunner.run(["run", "-c", cfg])
        XCTAssertEqual(run.status, 2, run.stderr)
        XCTAssertTrue(run.stderr.contains(#"sources[0] ("news").process[0].command"#), run.stderr)
        XCTAssertEqual(server.requestCount, 0, "nothing fetched")
    }

    /// Sources-config/examples/process-exec.json, copied with the recordings: the summariser in
    /// `--dry` mode gives every post a summary, its first sentence without markup.
    func testTheExampleSummariserInDryMode() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let root = BinaryRunner.packageRoot + "/Sources-config"
        for folder in ["examples", "recordings"] { try FileManager.default.copyItem(atPath: root + "/" + folder, toPath: dir.path + "/" + folder) }
        let r = try BinaryRunner.run(["run", "-c", dir.path + "/examples/process-exec.json", "--no-state", "--jsonl"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("swift-blog  feed  ok  3 fetched  3 new"), r.stderr)
        XCTAssertFalse(r.stderr.contains("skipped") || r.stderr.contains("summarise.py") || r.stderr.contains("exec processor"), r.stderr)
        let items = r.stdoutLines.compactMap { try? JSONParser.parse($0) }
        XCTAssertGreaterThan(items.count, 0, r.stderr)
        XCTAssertEqual(items.count, r.stdoutLines.count)
        let schema = try SchemaValidator.itemSchema()
        for item in items {
            XCTAssertEqual(schema.validate(item), [], "\(item)")
            let summary = try XCTUnwrap(item[path: "summary"]?.stringValue, "\(item)")
            XCTAssertFalse(summary.isEmpty)
            XCTAssertLessThanOrEqual(summary.count, 200)
            XCTAssertFalse(summary.contains("<"), summary)
        }
        XCTAssertEqual(items.map { $0[path: "summary"]?.stringValue ?? "" },
                       ["Swift 6.3 is now available!", "A pitch & a discussion.", "Only a summary, and no title at all, which happens with status-like posts."])
    }

    /// The summariser without `--dry`, against a loopback OpenAI-compatible endpoint: it posts a
    /// chat completion request (the model, a system and a user message with the post), sends the
    /// key, and puts the answer in `summary`; an item the endpoint fails on is delivered
    /// unchanged, with why in the log under the source's name.
    func testTheSummariserAsksAnOpenAICompatibleEndpoint() throws {
        let server = try LoopbackServer { request in
            if request.path == "/items" { return .text(Self.body(3)) }
            guard request.method == "POST", request.path == "/v1/chat/completions",
                  let body = try? JSONParser.parse(request.bodyText),
                  let user = body[path: "messages"]?.arrayValue?.last?[path: "content"]?.stringValue else {
                return .text(#"{"error":"unexpected request"}"#, status: 400)
            }
            let title = user.split(separator: "\n").first.map(String.init) ?? ""
            if title == "Item 2" { return .text(#"{"error":{"message":"model overloaded"}}"#, status: 503) }
            let answer: [String: Any] = ["choices": [["index": 0, "message": ["role": "assistant", "content": "  A short take on \(title).\n"]]]]
            return .text(String(decoding: try! JSONSerialization.data(withJSONObject: answer), as: UTF8.self))
        }
        let dir = TempDir()
        defer { server.stop(); dir.remove() }
        let script = BinaryRunner.packageRoot + "/Sources-config/examples/summarise.py"
        let cfg = config(dir, [Self.source("news", url: server.url("/items"), command: ["python3", script],
                                           env: ["SUMMARY_API_URL": server.url("/v1"), "SUMMARY_MODEL": "tiny-summariser", "SUMMARY_API_KEY": "sk-loopback-123"])])
        let r = try BinaryRunner.run(["run", "-c", cfg], env: ["no_proxy": "*", "NO_PROXY": "*"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let items = delivered(dir)
        XCTAssertEqual(items.compactMap { $0[path: "id"]?.stringValue }, ["news:1", "news:2", "news:3"])
        XCTAssertEqual(items.map { $0[path: "summary"]?.stringValue }, ["A short take on Item 1.", "Post 2. More text.", "A short take on Item 3."],
                       "the answer lands in summary; an item the endpoint failed on is unchanged")
        XCTAssertTrue(r.stderr.contains("news: summarise.py: news:2: left unchanged: \(server.url("/v1/chat/completions")) answered HTTP 503"), r.stderr)
        XCTAssertFalse(r.stderr.contains("sk-loopback-123"), r.stderr)

        let asked = server.requests.filter { $0.path == "/v1/chat/completions" }
        XCTAssertEqual(asked.count, 3)
        for request in asked {
            XCTAssertEqual(request.method, "POST")
            XCTAssertEqual(request.header("Authorization"), "Bearer sk-loopback-123")
            XCTAssertEqual(request.header("Content-Type"), "application/json")
            let body = try JSONParser.parse(request.bodyText)
            XCTAssertEqual(body[path: "model"]?.stringValue, "tiny-summariser")
            let messages = try XCTUnwrap(body[path: "messages"]?.arrayValue)
            XCTAssertEqual(messages.compactMap { $0[path: "role"]?.stringValue }, ["system", "user"])
            XCTAssertTrue(messages.allSatisfy { !($0[path: "content"]?.stringValue ?? "").isEmpty })
        }
        XCTAssertTrue(asked.first.flatMap { try? JSONParser.parse($0.bodyText)[path: "messages"]?.arrayValue?.last?[path: "content"]?.stringValue } == "Item 1\n\nPost 1. More text.")
    }
}
