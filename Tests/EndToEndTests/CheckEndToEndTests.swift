import Foundation
import XCTest
import TributaryTestSupport

/// `check` catches what `run` would trip on (each with its key path, exit 2), and `run` stops on
/// the same things before it fetches anything; config folders (`-c DIR`); unset variables in
/// sources the command does not run.
final class CheckEndToEndTests: XCTestCase {
    /// A server that counts requests: none must arrive when a run stops before fetching.
    func server() throws -> LoopbackServer {
        try LoopbackServer { _ in .text(#"<rss version="2.0"><channel><item><guid>1</guid><title>t</title></item></channel></rss>"#, contentType: "application/rss+xml") }
    }

    func testDurationsThatCannotWork() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = dir.write("tributary.json", #"""
        {"defaults":{"timeout":0},
         "sources":[{"name":"a","type":"feed","url":"https://e.org/f","timeout":"0s","interval":"0s"},
                    {"name":"b","type":"feed","url":"https://e.org/g","interval":"500ms"}]}
        """#)
        let r = try BinaryRunner.run(["check", "-c", cfg])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertEqual(r.stderr, """
        \(cfg): (top level).defaults.timeout: must be at least 1ms, found 0s
        \(cfg): sources[0] ("a").timeout: must be at least 1ms, found 0s
        \(cfg): sources[0] ("a").interval: must be at least 1s (or "auto"), found 0s
        \(cfg): sources[1] ("b").interval: must be at least 1s (or "auto"), found 500ms
        tributary: 4 config errors; nothing was fetched

        """)
        let run = try BinaryRunner.run(["run", "-c", cfg])
        XCTAssertEqual(run.status, 2)
        XCTAssertEqual(run.stderr, r.stderr, "run stops on the same errors")
    }

    func testProgramsAndFoldersAreCheckedAndRunStopsBeforeFetching() throws {
        let s = try server()
        defer { s.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        _ = dir.write("noexec.py", "print(1)\n")
        chmod(dir.path + "/noexec.py", 0o644)
        _ = dir.write("in-the-way", "a file, not a folder\n")
        let cfg = dir.write("tributary.json", #"""
        {"state":{"path":"/proc/nope/state.sqlite"},
         "sources":[
          {"name":"web","type":"feed","url":"\#(s.baseURL)/f"},
          {"name":"missing","type":"exec","command":["tributary-no-such-program","x"]},
          {"name":"noexec","type":"exec","command":["./noexec.py"]},
          {"name":"off","type":"exec","command":["./also-missing.py"],"enabled":false}
         ],
         "sinks":[{"type":"jsonl","path":"/proc/nope/items.jsonl"},{"type":"rss","path":"/proc/feed.xml"},{"type":"jsonl","path":"in-the-way/x.jsonl"},
                  {"type":"atom","path":"/proc/nope/feed.atom"},{"type":"jsonfeed","path":"out/feed.json"},{"type":"jsonl","path":"/proc/nope/%Y/%m/items.jsonl"},
                  {"type":"jsonl","path":"archive/%Y/items.jsonl"}]}
        """#)
        let r = try BinaryRunner.run(["check", "-c", cfg], env: ["PATH": "/usr/bin:/bin"])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertEqual(r.stderr, """
        \(cfg): state.path: cannot create folder /proc/nope (No such file or directory)
        \(cfg): sources[1] ("missing").command[0]: program "tributary-no-such-program" not found in PATH (PATH=/usr/bin:/bin)
        \(cfg): sources[2] ("noexec").command[0]: program "./noexec.py" (\(dir.path)/noexec.py) is not executable (chmod +x)
        \(cfg): sinks[0].path: cannot create folder /proc/nope (No such file or directory)
        \(cfg): sinks[1].path: cannot write in folder /proc (No such file or directory)
        \(cfg): sinks[2].path: cannot create folder \(dir.path)/in-the-way: a file of that name is in the way
        \(cfg): sinks[3].path: cannot create folder /proc/nope (No such file or directory)
        \(cfg): sinks[5].path: cannot create folder /proc/nope (No such file or directory)
        tributary: 8 problems a run would stop on; nothing was fetched

        """, "every problem once, with its key path; the disabled source's program is not checked")
        for left in ["/in-the-way/x.jsonl", "/out", "/archive"] { XCTAssertFalse(FileManager.default.fileExists(atPath: dir.path + left), "\(left): check creates nothing") }

        let run = try BinaryRunner.run(["run", "-c", cfg], env: ["PATH": "/usr/bin:/bin"])
        XCTAssertEqual(run.status, 2, run.stderr)
        XCTAssertTrue(run.stderr.contains("\(cfg): sinks[1].path: cannot write in folder /proc"), run.stderr)
        XCTAssertTrue(run.stderr.hasSuffix("tributary: 8 problems found before fetching; nothing was fetched\n"), run.stderr)
        XCTAssertEqual(s.requests.count, 0, "nothing was fetched")

        // `run --only web` needs only that source's checks, the sinks and the state file.
        let only = try BinaryRunner.run(["run", "-c", cfg, "--only", "web", "--no-state"], env: ["PATH": "/usr/bin:/bin"])
        XCTAssertEqual(only.status, 2, only.stderr)
        XCTAssertFalse(only.stderr.contains("command[0]"), only.stderr)
        XCTAssertFalse(only.stderr.contains("state.path"), "--no-state opens no state file: \(only.stderr)")
        XCTAssertTrue(only.stderr.contains("5 problems found before fetching"), only.stderr)
        XCTAssertEqual(s.requests.count, 0)

        // Fixed, it runs.
        _ = dir.write("tributary.json", #"""
        {"state":{"path":"state/state.sqlite"},"sources":[{"name":"web","type":"feed","url":"\#(s.baseURL)/f"}],
         "sinks":[{"type":"jsonl","path":"out/items.jsonl"}]}
        """#)
        let ok = try BinaryRunner.run(["check", "-c", cfg])
        XCTAssertEqual(ok.status, 0, ok.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.path + "/out"), "check leaves nothing behind")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.path + "/state"))
        let ran = try BinaryRunner.run(["run", "-c", cfg])
        XCTAssertEqual(ran.status, 0, ran.stderr)
        XCTAssertEqual(dir.read("out/items.jsonl")?.split(separator: "\n").count, 1)
    }

    func testConfigFolders() throws {
        let dir = TempDir()
        defer { dir.remove() }
        _ = dir.write("conf.d/10-base.json", #"{"http":{"concurrency":4},"sources":[{"name":"a","type":"feed","url":"https://e.org/a"}],"sinks":[{"type":"jsonl","path":"out/a.jsonl"}]}"#)
        _ = dir.write("conf.d/20-more.json", #"{"sources":[{"name":"b","type":"feed","url":"https://e.org/b","enabled":false}]}"#)
        _ = dir.write("conf.d/notes.txt", "not read")
        let folder = dir.path + "/conf.d"
        let ok = try BinaryRunner.run(["check", "-c", folder])
        XCTAssertEqual(ok.status, 0, ok.stderr)
        XCTAssertEqual(ok.stderr, "\(folder): ok: 2 files, 2 sources (1 enabled), 1 sink\n")
        let exported = try BinaryRunner.run(["export", "opml", "-c", folder])
        XCTAssertTrue(exported.stdout.contains(#"xmlUrl="https://e.org/a""#) && exported.stdout.contains(#"xmlUrl="https://e.org/b""#), exported.stdout)

        _ = dir.write("conf.d/30-dup.json", #"{"http":{"concurrency":8},"sources":[{"name":"a","type":"feed","url":"https://e.org/c"}]}"#)
        let dup = try BinaryRunner.run(["check", "-c", folder])
        XCTAssertEqual(dup.status, 2)
        XCTAssertTrue(dup.stderr.contains(#"\#(folder)/30-dup.json: (top level): "http" is already set in \#(folder)/10-base.json"#), dup.stderr)
        XCTAssertTrue(dup.stderr.contains(#"\#(folder)/30-dup.json: sources[0] ("a").name: "a" is already used by \#(folder)/10-base.json: sources[0]"#), dup.stderr)
    }

    /// An unset variable stops only the sources the command runs.
    func testUnsetVariablesStopOnlyTheSourcesThatRun() throws {
        let s = try server()
        defer { s.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = dir.write("tributary.json", #"""
        {"sources":[
          {"name":"ok","type":"feed","url":"\#(s.baseURL)/ok"},
          {"name":"keyed","type":"feed","url":"\#(s.baseURL)/k?key=${TRIBUTARY_TEST_UNSET_KEY}"},
          {"name":"off","type":"feed","url":"\#(s.baseURL)/${TRIBUTARY_TEST_UNSET_PATH}","enabled":false}
        ]}
        """#)
        let check = try BinaryRunner.run(["check", "-c", cfg])
        XCTAssertEqual(check.status, 2)
        XCTAssertTrue(check.stderr.contains(#"\#(cfg): sources[1].url: environment variable TRIBUTARY_TEST_UNSET_KEY is not set"#), check.stderr)
        XCTAssertFalse(check.stderr.contains("TRIBUTARY_TEST_UNSET_PATH is not set (write"), "a disabled source's variable is no error: \(check.stderr)")
        let only = try BinaryRunner.run(["run", "-c", cfg, "--only", "ok", "--no-state", "--jsonl"])
        XCTAssertEqual(only.status, 0, only.stderr)
        XCTAssertEqual(only.stdoutLines.count, 1)
        let test = try BinaryRunner.run(["test", "ok", "-c", cfg])
        XCTAssertEqual(test.status, 0, test.stderr)
        let testKeyed = try BinaryRunner.run(["test", "keyed", "-c", cfg])
        XCTAssertEqual(testKeyed.status, 2)
        XCTAssertTrue(testKeyed.stderr.contains("TRIBUTARY_TEST_UNSET_KEY is not set"), testKeyed.stderr)
        XCTAssertEqual(s.requests.map(\.path), ["/ok", "/ok"])
    }
}
