import Foundation
import XCTest
import TributaryCore
import TributaryTestSupport

/// Issue 19's config-side findings, through the release binary: an OPML list's `${VAR}` never
/// filled in (1), config folder entries never skipped silently (8), `export opml` without
/// secrets (9), URLs that cannot work refused (15), the arguments read as the C runtime hands
/// them over, under a preloaded library too (16), and `--no-state` saying what it writes (21).
final class HostileRoundTwoConfigTests: XCTestCase {
    static let secret = "s3cr3t-value-from-the-environment"

    // MARK: 1. import opml and ${VAR}

    /// A shared list with `${SOME_SECRET}` in an xmlUrl, a title, a folder and an htmlUrl: the
    /// imported config fetches the literal text, the secret (set in the environment of `run`)
    /// reaches neither the server nor any output, and an unset `${...}` in a title is no error.
    func testAnImportedListIsNeverFilledInFromTheEnvironment() throws {
        let server = try LoopbackServer { req in
            req.path.hasPrefix("/gone") ? .text("no", status: 404, contentType: "text/plain")
                : .text(#"<?xml version="1.0"?><rss version="2.0"><channel><title>T</title><item><guid>one</guid><title>Hello</title></item></channel></rss>"#, contentType: "application/rss+xml")
        }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let list = dir.write("shared.opml", """
        <?xml version="1.0" encoding="UTF-8"?>
        <opml version="2.0"><head><title>shared ${SOME_SECRET}</title></head><body>
          <outline text="Folder ${SOME_SECRET}">
            <outline type="rss" text="Leak ${SOME_SECRET} ${TRIBUTARY_TEST_UNSET_TITLE}" xmlUrl="\(server.baseURL)/feed?x=${SOME_SECRET}" htmlUrl="https://site.example.org/${SOME_SECRET}"/>
          </outline>
          <outline type="rss" text="Gone" xmlUrl="\(server.baseURL)/gone?y=$${SOME_SECRET}&amp;z=$$${SOME_SECRET}"/>
        </body></opml>
        """)
        let env = ["SOME_SECRET": Self.secret]
        let imported = try BinaryRunner.run(["import", "opml", list], env: env)
        XCTAssertEqual(imported.status, 0, imported.stderr)
        let config = dir.write("tributary.json", imported.stdout)

        for environment in [[:], env] {
            let check = try BinaryRunner.run(["check", "-c", config], env: environment)
            XCTAssertEqual(check.status, 0, "an unset ${...} in an imported title is text, not a variable: \(check.stderr)")
            XCTAssertTrue(check.stderr.contains("ok: 2 sources (2 enabled)"), check.stderr)
        }

        let r = try BinaryRunner.run(["run", "-c", config, "--jsonl", "--no-state"], env: env)
        XCTAssertEqual(r.status, 1, "the 404 fails, the feed delivers: \(r.stderr)")
        let paths = server.requests.map { $0.path.removingPercentEncoding ?? $0.path }
        XCTAssertTrue(paths.contains("/feed?x=${SOME_SECRET}"), "the literal text is fetched: \(paths)")
        XCTAssertTrue(paths.contains("/gone?y=$${SOME_SECRET}&z=$$${SOME_SECRET}"), "every $ kept as the list wrote it: \(paths)")
        for p in paths { XCTAssertFalse(p.contains(Self.secret), p) }
        for output in [r.stdout, r.stderr, imported.stdout, imported.stderr] { XCTAssertFalse(output.contains(Self.secret), output) }
        XCTAssertTrue(r.stderr.contains("/gone?y=$${SOME_SECRET}&z=$$${SOME_SECRET}: HTTP 404"), "the failure line shows the literal text: \(r.stderr)")
        let item = try XCTUnwrap(r.stdoutLines.first.flatMap { try? JSONParser.parse(Array($0.utf8)).objectValue }, r.stdout)
        XCTAssertEqual(item["tags"], .array([.string("Folder ${SOME_SECRET}")]))

        // And back out: `export opml` writes the texts as they were in the list.
        let exported = try BinaryRunner.run(["export", "opml", "-c", config], env: env)
        XCTAssertEqual(exported.status, 0, exported.stderr)
        XCTAssertTrue(exported.stdout.contains(#"xmlUrl="\#(server.baseURL)/feed?x=${SOME_SECRET}""#), exported.stdout)
        XCTAssertTrue(exported.stdout.contains(#"title="Leak ${SOME_SECRET} ${TRIBUTARY_TEST_UNSET_TITLE}""#), exported.stdout)
        XCTAssertFalse(exported.stdout.contains(Self.secret), exported.stdout)
    }

    // MARK: 8. -c DIR

    /// A dangling link, a loop of links, a FIFO and a folder named `*.json` are each a config
    /// error naming the entry (exit 2), never skipped; the FIFO is not waited on.
    func testAConfigFolderNamesEveryEntryItCannotRead() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let conf = dir.path + "/conf.d"
        _ = dir.write("conf.d/10-base.json", #"{"sources":[{"name":"a","type":"feed","url":"https://e.org/a.xml"}]}"#)
        XCTAssertEqual(symlink(dir.path + "/missing.json", conf + "/20-dangling.json"), 0)
        XCTAssertEqual(symlink("30-loop.json", conf + "/30-loop.json"), 0)
        XCTAssertEqual(mkfifo(conf + "/40-fifo.json", 0o644), 0)
        XCTAssertEqual(mkdir(conf + "/50-folder.json", 0o755), 0)
        _ = dir.write("conf.d/.60-hidden.json", "{ an editor's backup: left out }")

        let started = Date()
        let r = try BinaryRunner.run(["check", "-c", conf], timeout: 20)
        XCTAssertLessThan(Date().timeIntervalSince(started), 10, "the FIFO is not waited on")
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertEqual(r.stderr.split(separator: "\n").map(String.init), [
            "\(conf)/20-dangling.json: cannot read this *.json file of the config folder: a symbolic link to nothing (No such file or directory)",
            "\(conf)/30-loop.json: cannot read this *.json file of the config folder: a loop of symbolic links (Too many levels of symbolic links)",
            "\(conf)/40-fifo.json: cannot read this *.json file of the config folder: a FIFO (named pipe), not a regular file",
            "\(conf)/50-folder.json: cannot read this *.json file of the config folder: a folder, not a regular file",
            "tributary: 4 config errors; nothing was fetched",
        ])
        let run = try BinaryRunner.run(["run", "-c", conf, "--dry-run"], timeout: 20)
        XCTAssertEqual(run.status, 2, "nothing is fetched with a config that lost a file: \(run.stderr)")
    }

    /// A file name that is not UTF-8 is opened by its bytes and shown with `\xNN`.
    func testANameThatIsNotUTF8IsReadByItsBytes() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let conf = dir.path + "/conf.d"
        _ = dir.write("conf.d/10-base.json", #"{"sources":[{"name":"a","type":"feed","url":"https://e.org/a.xml"}]}"#)
        func writeRaw(_ name: [UInt8], _ text: String) {
            let path = Array((conf + "/").utf8) + name
            let fd = open(path.map { CChar(bitPattern: $0) } + [0], O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            XCTAssertGreaterThanOrEqual(fd, 0)
            _ = Array(text.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            close(fd)
        }
        writeRaw(Array("20-caf".utf8) + [0xE9] + Array(".json".utf8), #"{"sources":[{"name":"latin1","type":"feed","url":"https://e.org/b.xml"}]}"#)
        let ok = try BinaryRunner.run(["check", "-c", conf])
        XCTAssertEqual(ok.status, 0, ok.stderr)
        XCTAssertEqual(ok.stderr, "\(conf): ok: 2 files, 2 sources (2 enabled), 1 sink\n")

        writeRaw(Array("30-bad".utf8) + [0xFF, 0x0A] + Array(".json".utf8), #"{"sources":[{"name":"x","type":"feed"}]}"#)
        let bad = try BinaryRunner.run(["check", "-c", conf])
        XCTAssertEqual(bad.status, 2, bad.stderr)
        XCTAssertEqual(bad.stderr, "\(conf)/30-bad\\xFF\\x0A.json: sources[0] (\"x\"): needs \"url\" or \"urls\"\n")
    }

    // MARK: 9. export opml

    /// `export opml` writes `${VAR}` as written, leaves out a URL's user and password and the
    /// secret query parameters (from the environment or written literally), and says so.
    func testExportWritesNoSecret() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let config = dir.write("tributary.json", #"""
        {"sources":[
          {"name":"private","type":"feed","url":"https://reader:hunter2-password@feeds.example.org/p.xml?token=${FEED_TOKEN}&api_key=literal-api-key-123&page=2",
           "site_url":"https://feeds.example.org/?key=${FEED_TOKEN}&lang=en","title":"Private ${FEED_TITLE:-feed}","tags":["t"]},
          {"name":"hosted","type":"feed","urls":["https://${FEED_HOST}/feed.xml","https://plain.example.org/rss"]}
        ]}
        """#)
        let env = ["FEED_TOKEN": "token-from-the-environment-456", "FEED_HOST": "host-from-the-environment.example.org", "FEED_TITLE": "Title From Env"]
        let r = try BinaryRunner.run(["export", "opml", "-c", config], env: env)
        XCTAssertEqual(r.status, 0, r.stderr)
        for secret in ["hunter2-password", "token-from-the-environment-456", "literal-api-key-123", "reader:"] {
            XCTAssertFalse(r.stdout.contains(secret), "\(secret) in \(r.stdout)")
            XCTAssertFalse(r.stderr.contains(secret), "\(secret) in \(r.stderr)")
        }
        XCTAssertFalse(r.stdout.contains("host-from-the-environment"), "a reference is written as written: \(r.stdout)")
        XCTAssertTrue(r.stdout.contains(#"xmlUrl="https://feeds.example.org/p.xml?page=2""#), r.stdout)
        XCTAssertTrue(r.stdout.contains(#"htmlUrl="https://feeds.example.org/?lang=en""#), r.stdout)
        XCTAssertTrue(r.stdout.contains(#"title="Private ${FEED_TITLE:-feed}""#), r.stdout)
        XCTAssertTrue(r.stdout.contains(#"xmlUrl="https://${FEED_HOST}/feed.xml""#), r.stdout)
        XCTAssertTrue(r.stdout.contains(#"xmlUrl="https://plain.example.org/rss""#), r.stdout)
        XCTAssertEqual(r.stderr, #"warning: \#(config): source "private": left out the user and password in the URL, the query parameter "token", the query parameter "api_key", the query parameter "key" of site_url: credentials are not exported (give them to the feed reader yourself)"# + "\n")
    }

    // MARK: 15. URLs that cannot work

    /// `check` refuses URLs that cannot work, naming the key path; `import opml` skips such an
    /// outline with a warning naming it, and what it imports passes `check`.
    func testURLsThatCannotWorkAreRefused() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let config = dir.write("tributary.json", #"""
        {"sources":[
          {"name":"newline","type":"json","url":"http://127.0.0.1:8080/items\n?x=1","items":"items","fields":{"id":"id"}},
          {"name":"port","type":"feed","urls":["http://127.0.0.1:8080/ok","http://127.0.0.1:99999/f"]},
          {"name":"space","type":"json","url":"http://127.0.0.1:8080/a b","items":"items","fields":{"id":"id"}},
          {"name":"nohost","type":"channels","url":"http://:8080/channels.json"}
        ]}
        """#)
        let check = try BinaryRunner.run(["check", "-c", config])
        XCTAssertEqual(check.status, 2, check.stderr)
        XCTAssertEqual(check.stderr.split(separator: "\n").map(String.init), [
            #"\#(config): sources[0] ("newline").url: "http://127.0.0.1:8080/items\n?x=1" holds a line break (byte 28); a URL cannot hold white space or control characters (percent-encode them: %0A)"#,
            #"\#(config): sources[1] ("port").urls[1]: "http://127.0.0.1:99999/f": port 99999 is not a port (a number from 1 to 65535)"#,
            #"\#(config): sources[2] ("space").url: "http://127.0.0.1:8080/a b" holds a space (byte 24); a URL cannot hold white space or control characters (percent-encode them: %20)"#,
            #"\#(config): sources[3] ("nohost").url: "http://:8080/channels.json" has no host"#,
            "tributary: 4 config errors; nothing was fetched",
        ])

        let list = dir.write("list.opml", """
        <?xml version="1.0" encoding="UTF-8"?>
        <opml version="2.0"><head><title>t</title></head><body>
          <outline type="rss" text="Broken line" xmlUrl="https://e.org/feed&#10;X-Injected: 1"/>
          <outline type="rss" text="Big port" xmlUrl="https://e.org:99999/feed"/>
          <outline type="rss" xmlUrl="https://e.org/a&#9;b"/>
          <outline type="rss" text="Fine" xmlUrl="https://e.org/fine.xml"/>
        </body></opml>
        """)
        let imported = try BinaryRunner.run(["import", "opml", list])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertEqual(imported.stderr.split(separator: "\n").map(String.init), [
            #"warning: \#(list): skipped "Broken line": xmlUrl: "https://e.org/feed\nX-Injected: 1" holds a line break (byte 19); a URL cannot hold white space or control characters (percent-encode them: %0A)"#,
            #"warning: \#(list): skipped "Big port": xmlUrl: "https://e.org:99999/feed": port 99999 is not a port (a number from 1 to 65535)"#,
            #"warning: \#(list): skipped "https://e.org/a\tb": xmlUrl: "https://e.org/a\tb" holds a tab (byte 16); a URL cannot hold white space or control characters (percent-encode them: %09)"#,
        ])
        let sources = try XCTUnwrap(JSONParser.parse(Array(imported.stdout.utf8)).objectValue?["sources"]?.arrayValue)
        XCTAssertEqual(sources.compactMap { $0.objectValue?["url"]?.stringValue }, ["https://e.org/fine.xml"])
        let again = try BinaryRunner.run(["check", "-c", dir.write("imported.json", imported.stdout)])
        XCTAssertEqual(again.status, 0, again.stderr)
    }

    // MARK: 16. arguments under LD_PRELOAD, and no command

    /// A C compiler for the preload library: the toolchain's clang (always there beside
    /// `swift`), else the system's.
    func compiler() throws -> String {
        var dirs = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        dirs += ["/opt/swift/usr/bin", "/usr/bin"]
        for dir in dirs {
            for name in ["clang", "cc", "gcc"] where FileManager.default.isExecutableFile(atPath: dir + "/" + name) { return dir + "/" + name }
        }
        throw XCTSkip("no C compiler (clang, cc, gcc) on PATH to build the preload library")
    }

    func checkArgumentsSurvive(preload: String, env: [String: String] = [:]) throws {
        let dir = TempDir()
        defer { dir.remove() }
        var environment = env
        environment["LD_PRELOAD"] = preload
        let version = try BinaryRunner.run(["--version"], env: environment)
        XCTAssertEqual(version.status, 0, version.stderr)
        XCTAssertTrue(version.stdout.hasPrefix("tributary "), version.stdout)
        XCTAssertTrue(version.stdout.contains("(commit "), "the version, not the help: \(version.stdout)")
        let config = dir.write("t.json", #"{"sources":[{"name":"a","type":"feed","url":"https://e.org/a.xml"}]}"#)
        let check = try BinaryRunner.run(["check", "-c", config], env: environment)
        XCTAssertEqual(check.status, 0, check.stderr)
        XCTAssertEqual(check.stderr, "\(config): ok: 1 source (1 enabled), 1 sink\n")
        XCTAssertEqual(check.stdout, "")
        let unknown = try BinaryRunner.run(["watch", "--no-such-flag"], env: environment)
        XCTAssertEqual(unknown.status, 2, "a command under the preload is that command: \(unknown.stderr)")
        XCTAssertTrue(unknown.stderr.contains("unknown option --no-such-flag for `tributary watch`"), unknown.stderr)
    }

    /// The sanitizer the binary under test was built with, as the sanitizer passes say (they
    /// set its options), or nil for the release binary.
    var sanitizer: String? {
        let env = ProcessInfo.processInfo.environment
        return env["TSAN_OPTIONS"] != nil ? "ThreadSanitizer" : env["ASAN_OPTIONS"] != nil ? "AddressSanitizer" : nil
    }

    /// A preloaded library whose constructor calls setenv (as libfaketime's does) moves
    /// `environ` off the initial stack, where the Swift runtime looks for argv.
    func testArgumentsSurviveAPreloadThatMovesTheEnvironment() throws {
        if sanitizer == "AddressSanitizer" { throw XCTSkip("AddressSanitizer wants its runtime first among the preloaded libraries") }
        let dir = TempDir()
        defer { dir.remove() }
        let source = dir.write("moves_environ.c", """
        #include <stdlib.h>
        __attribute__((constructor)) static void moves_environ(void) { setenv("TRIBUTARY_TEST_PRELOAD", "1", 1); }
        """)
        let library = dir.path + "/moves_environ.so"
        let cc = try Shell.run([try compiler(), "-shared", "-fPIC", "-o", library, source])
        XCTAssertEqual(cc.status, 0, cc.stderr)
        try checkArgumentsSurvive(preload: library)
    }

    /// The same under the real libfaketime (Debian's `faketime` package), as the probe ran it.
    func testArgumentsSurviveLibfaketime() throws {
        if let sanitizer {
            // Both replace clock_gettime: under ThreadSanitizer libfaketime recurses into it
            // ("Unexpected recursive calls to clock_gettime()") and the binary hangs.
            throw XCTSkip("\(sanitizer) build: libfaketime and the sanitizer's runtime both intercept the clock; the self-built preload test covers this build")
        }
        let library = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"
        guard FileManager.default.fileExists(atPath: library) else {
            throw XCTSkip("\(library) is not installed (apt-get install faketime); the self-built preload test covers the same path")
        }
        try checkArgumentsSurvive(preload: library, env: ["FAKETIME": "@2024-01-01 00:00:00"])
    }

    /// A bare `tributary` is a usage error: the help on stderr, exit 2, nothing on stdout.
    func testNoCommandIsAUsageError() throws {
        let r = try BinaryRunner.run([])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertEqual(r.stdout, "")
        XCTAssertTrue(r.stderr.contains("Usage:\n  tributary run"), r.stderr)
        XCTAssertTrue(r.stderr.hasSuffix("tributary: no command given; see `tributary --help`\n"), r.stderr)
        let help = try BinaryRunner.run(["--help"])
        XCTAssertEqual(help.status, 0, "asking for help is still a success")
    }

    // MARK: 21. --no-state

    /// `--no-state`'s help says what it writes and points to `--dry-run`, and scheduling.md's
    /// one-off look is `--dry-run`, not `--no-state` (which appends duplicate jsonl lines).
    func testNoStateSaysWhatItWrites() throws {
        let help = try BinaryRunner.run(["help", "run"])
        XCTAssertEqual(help.status, 0, help.stderr)
        let lines = help.stdout.components(separatedBy: "\n")
        let start = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("  --no-state") }, help.stdout)
        var words = lines[start].split(separator: " ").map(String.init)
        for line in lines[(start + 1)...] {
            if line.hasPrefix("  -") || line.allSatisfy({ $0 == " " }) { break }
            words += line.split(separator: " ").map(String.init)
        }
        let text = words.joined(separator: " ")
        for phrase in ["every fetched item goes to the sinks again on each run", "duplicate lines", "--dry-run is the look that writes nothing"] {
            XCTAssertTrue(text.contains(phrase), "\(phrase): \(text)")
        }
        let man = try BinaryRunner.run(["help", "--man"]).stdout.replacingOccurrences(of: "\\-", with: "-")
        XCTAssertTrue(man.contains("duplicate lines"), "the man page comes from the same declaration")

        let scheduling = try String(contentsOfFile: BinaryRunner.packageRoot + "/Docs/scheduling.md", encoding: .utf8)
        let oneOff = try XCTUnwrap(scheduling.range(of: "For a one-off look")).upperBound
        let paragraph = String(scheduling[oneOff...].prefix(300))
        XCTAssertTrue(paragraph.hasPrefix(", use `tributary run --dry-run`"), paragraph)

        // What the help says: two runs without state write the same items twice.
        let server = try LoopbackServer { _ in .text(#"{"items":[{"id":"1"},{"id":"2"}]}"#) }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let config = dir.write("t.json", #"{"sources":[{"name":"s","type":"json","url":"\#(server.baseURL)/x","items":"items","fields":{"id":"id"}}],"sinks":[{"type":"jsonl","path":"out.jsonl"}]}"#)
        for _ in 0..<2 { XCTAssertEqual(try BinaryRunner.run(["run", "-c", config, "--no-state", "--quiet"]).status, 0) }
        XCTAssertEqual(dir.read("out.jsonl")?.split(separator: "\n").count, 4)
        let dry = try BinaryRunner.run(["run", "-c", config, "--dry-run", "--quiet"])
        XCTAssertEqual(dry.status, 0, dry.stderr)
        XCTAssertEqual(dry.stdoutLines.count, 2)
        XCTAssertEqual(dir.read("out.jsonl")?.split(separator: "\n").count, 4, "--dry-run writes nothing")
    }
}
