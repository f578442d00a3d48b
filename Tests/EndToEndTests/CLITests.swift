import Foundation
import XCTest
import TributaryCore
import TributaryTestSupport

/// The real binary's command-line contract: help, version, usage errors, config errors.
final class CLITests: XCTestCase {
    func testHelpAndVersionGoToStdout() throws {
        for args in [["--help"], ["-h"], ["help"], ["help", "run"], ["run", "--help"]] {
            let r = try BinaryRunner.run(args)
            XCTAssertEqual(r.status, 0, "\(args)")
            XCTAssertTrue(r.stdout.contains("tributary"), "\(args)")
            XCTAssertEqual(r.stderr, "", "\(args)")
        }
        for args in [["--version"], ["-V"]] {
            let v = try BinaryRunner.run(args)
            XCTAssertEqual(v.status, 0, "\(args)")
            XCTAssertTrue(v.stdout.hasPrefix("tributary \(Tributary.version) "), v.stdout)
            XCTAssertEqual(v.stderr, "", "\(args)")
        }
    }

    /// `--version`: the program's version and commit, then the versions of the libcurl and
    /// SQLite it runs with, which are the system's (what their pkg-config files say).
    func testVersionNamesTheCommitAndTheLibraries() throws {
        let v = try BinaryRunner.run(["--version"])
        XCTAssertEqual(v.status, 0, v.stderr)
        let lines = v.stdoutLines
        XCTAssertEqual(lines.count, 3, v.stdout)
        guard lines.count == 3 else { return }
        let first = try XCTUnwrap(lines[0].wholeMatch(of: /tributary (\S+) \(commit (\S+)\)/), lines[0])
        XCTAssertEqual(String(first.1), Tributary.version)
        let commit = String(first.2)
        if let expected = ProcessInfo.processInfo.environment["TRIBUTARY_EXPECT_COMMIT"], !expected.isEmpty {
            // make test: the commit make wrote into the build (HEAD, -dirty with changes).
            XCTAssertEqual(commit, expected)
        } else {
            XCTAssertNotNil(commit.wholeMatch(of: /unknown|[0-9a-f]{7,40}(-dirty)?/), commit)
        }
        for (line, name, module) in [(lines[1], "libcurl", "libcurl"), (lines[2], "SQLite", "sqlite3")] {
            let system = try Shell.run(["pkg-config", "--modversion", module])
            XCTAssertEqual(system.status, 0, system.stderr)
            XCTAssertEqual(line, "\(name) \(system.stdout.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
    }

    func testUsageErrorsExit2OnStderr() throws {
        let cases: [([String], String)] = [
            (["rn"], #"unknown command "rn" (did you mean "run"?)"#),
            (["run", "--jsnl"], "unknown option --jsnl for `tributary run` (did you mean --jsonl?)"),
            (["run", "-c"], "option -c needs a value"),
            (["run", "--only="], "option --only needs a non-empty value"),
            (["run", "--jsonl=yes"], "option --jsonl takes no value"),
            (["run", "--record", "a", "--replay", "b"], "--record and --replay cannot be used together"),
            (["test"], "`tributary test` needs exactly one source NAME"),
            (["completion", "tcsh"], "`tributary completion` needs one of: bash, zsh, fish"),
            (["run", "--frobnicate"], "unknown option --frobnicate for `tributary run`"),
            (["check", "extra"], #"unexpected argument "extra""#),
            (["help", "nope"], #"no help for unknown command "nope""#),
        ]
        for (args, message) in cases {
            let r = try BinaryRunner.run(args)
            XCTAssertEqual(r.status, 2, "\(args)")
            XCTAssertEqual(r.stdout, "", "\(args)")
            XCTAssertTrue(r.stderr.contains(message), "\(args): \(r.stderr)")
        }
    }

    func testMissingConfigSaysWhereItLooked() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let r = try BinaryRunner.run(["run"], cwd: dir.path, env: ["XDG_CONFIG_HOME": dir.path + "/xdg"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("./tributary.json"), r.stderr)
        XCTAssertTrue(r.stderr.contains(dir.path + "/xdg/tributary/config.json"), r.stderr)
    }

    func testConfigLookupUsesTheWorkingDirectoryFirst() throws {
        let dir = TempDir()
        defer { dir.remove() }
        _ = dir.write("tributary.json", #"{"sources":[]}"#)
        let r = try BinaryRunner.run(["check"], cwd: dir.path)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("ok: 0 sources"), r.stderr)
    }

    func testSourcesListsEveryTypeWithOptions() throws {
        let r = try BinaryRunner.run(["sources"])
        XCTAssertEqual(r.status, 0)
        for needle in ["json:", "stdout:", "jsonl:", "rss:", "nats:", "items (key path) [default: the document itself]", "max_items (integer) [default: 100]", "next_token (key path)"] {
            XCTAssertTrue(r.stdout.contains(needle), needle)
        }
    }

    func testRecordOverridesTheConfigsReplay() throws {
        let server = try LoopbackServer { _ in .text(#"[{"id":1,"title":"live"}]"#) }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        try FileManager.default.createDirectory(atPath: dir.path + "/rec", withIntermediateDirectories: true)
        let cfg = dir.write("tributary.json", #"{"http":{"replay":"rec"},"sources":[{"name":"a","type":"json","url":"\#(server.baseURL)/x?key=K1","fields":{"id":"id","title":"title"}}]}"#)
        let replayed = try BinaryRunner.run(["run", "-c", cfg, "--no-state"])
        XCTAssertEqual(replayed.status, 1, "the config replays, and nothing is recorded yet")
        XCTAssertTrue(replayed.stderr.contains("no recording for GET \(server.baseURL)/x?key=***"), replayed.stderr)
        let recorded = try BinaryRunner.run(["run", "-c", cfg, "--no-state", "--record", dir.path + "/rec"])
        XCTAssertEqual(recorded.status, 0, recorded.stderr)
        XCTAssertEqual(server.requestCount, 1)
        let again = try BinaryRunner.run(["run", "-c", cfg, "--no-state", "--jsonl"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stdout.contains(#""title":"live""#))
        XCTAssertEqual(server.requestCount, 1, "replayed from what --record saved")
    }

    func testEveryExampleConfigRunsOfflineAndEmitsValidItems() throws {
        let dir = BinaryRunner.packageRoot + "/Sources-config/examples"
        let configs = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".json") }.sorted()
        XCTAssertGreaterThanOrEqual(configs.count, 10)
        let schema = try SchemaValidator.itemSchema()
        for name in configs {
            let r = try BinaryRunner.run(["run", "--no-state", "--jsonl", "-c", dir + "/" + name])
            XCTAssertEqual(r.status, 0, "\(name): \(r.stderr)")
            XCTAssertFalse(r.stdoutLines.isEmpty, name)
            for line in r.stdoutLines { XCTAssertEqual(schema.validate(line: line), [], "\(name): \(line)") }
        }
    }
}
