import Foundation
import XCTest
import TributaryTestSupport

/// What the binary loads at start: libcurl only for a run that uses the network, libcrypto only for a
/// digest and libxml2 only for an RSS or Atom document (none for `--version` or `check`), and `--version` names the libcurl the
/// dynamic loader would pick.
/// (How long a start takes is measured by `bench/run.sh startup`, not here.)
final class StartupTests: XCTestCase {
    /// Libraries the dynamic loader opened, from its own trace (LD_DEBUG=files).
    func loadedLibraries(_ args: [String]) throws -> String {
        let r = try BinaryRunner.run(args, cwd: BinaryRunner.packageRoot, env: ["LD_DEBUG": "files"])
        XCTAssertEqual(r.status, 0, "\(args): \(r.stderr)")
        XCTAssertTrue(r.stderr.contains("file=libc.so.6"), "the trace is there: \(r.stderr.prefix(500))")
        return r.stderr
    }

    func testVersionAndCheckLoadNeitherLibcurlNorLibcrypto() throws {
        for args in [["--version"], ["check", "-c", "Sources-config/demo.json"]] {
            let trace = try loadedLibraries(args)
            XCTAssertFalse(trace.contains("libcurl.so.4"), "\(args) loaded libcurl")
            XCTAssertFalse(trace.contains("libcrypto.so.3"), "\(args) loaded libcrypto")
            XCTAssertFalse(trace.contains("libxml2.so.2"), "\(args) loaded libxml2")
        }
    }

    /// libxml2 (and the ICU it brings) is opened by the first RSS or Atom document, not by a
    /// run whose feeds are all JSON Feeds.
    func testLibxml2IsLoadedOnlyForAnXMLFeed() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let json = dir.write("feed.json", #"{"version":"https://jsonfeed.org/version/1.1","title":"J","items":[{"id":"1","title":"one"}]}"#)
        let rss = dir.write("feed.xml", #"<?xml version="1.0"?><rss version="2.0"><channel><title>R</title><item><guid>1</guid><title>one</title></item></channel></rss>"#)
        for (file, loads) in [(json, false), (rss, true)] {
            let cfg = dir.write("tributary.json", #"{"sources":[{"name":"f","type":"feed","url":"file://\#(file)"}]}"#)
            let r = try BinaryRunner.run(["run", "-c", cfg, "--no-state", "--jsonl"], cwd: dir.path, env: ["LD_DEBUG": "files"])
            XCTAssertEqual(r.status, 0, r.stderr.suffix(2000).description)
            XCTAssertTrue(r.stdout.contains(#""title":"one""#), r.stdout)
            XCTAssertEqual(r.stderr.contains("file=libxml2.so.2"), loads, "\(file): libxml2 loaded: \(!loads)")
        }
    }

    /// A run loads libcurl for its first request: recordings, named by `--replay` or by the
    /// config's `http.replay`, need no network, and a run that replays them never loads it.
    func testARunLoadsLibcurlOnlyWhenItUsesTheNetwork() throws {
        let server = try LoopbackServer { _ in .text(#"[{"id":1,"title":"live"}]"#) }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let source = #"{"name":"a","type":"json","url":"\#(server.baseURL)/x","fields":{"id":"id","title":"title"}}"#
        let cfg = dir.write("tributary.json", #"{"sources":[\#(source)]}"#)
        let replaying = dir.write("replaying.json", #"{"http":{"replay":"rec"},"sources":[\#(source)]}"#)
        let runs: [(args: [String], loads: Bool)] = [
            (["run", "-c", cfg, "--no-state", "--jsonl", "--record", dir.path + "/rec"], true),
            (["run", "-c", cfg, "--no-state", "--jsonl", "--replay", dir.path + "/rec"], false),
            (["run", "-c", replaying, "--no-state", "--jsonl"], false),
            (["run", "-c", replaying, "--no-state", "--jsonl", "--record", dir.path + "/rec2"], true),
        ]
        for run in runs {
            let r = try BinaryRunner.run(run.args, cwd: dir.path, env: ["LD_DEBUG": "files"])
            XCTAssertEqual(r.status, 0, "\(run.args): \(r.stderr.suffix(2000))")
            XCTAssertTrue(r.stdout.contains(#""title":"live""#), "\(run.args): \(r.stdout)")
            XCTAssertTrue(r.stderr.contains("file=libc.so.6"), "the trace is there: \(r.stderr.prefix(500))")
            XCTAssertEqual(r.stderr.contains("file=libcurl.so.4"), run.loads, "\(run.args): libcurl loaded: \(!run.loads)")
        }
        XCTAssertEqual(server.requests.count, 2, "the two recording runs fetched; the replays did not")
    }

    func testVersionNamesTheLibcurlTheLoaderWouldOpen() throws {
        let dir = TempDir()
        defer { dir.remove() }
        // Not a real library: --version only reads it, and nothing else may load it.
        _ = dir.write("libcurl.so.4", "not an ELF file\0libcurl/99.1.2-test\0")
        let r = try BinaryRunner.run(["--version"], env: ["LD_LIBRARY_PATH": dir.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("libcurl 99.1.2-test"), r.stdout)
        let plain = try BinaryRunner.run(["--version"])
        XCTAssertTrue(plain.stdout.contains("libcurl 7.") || plain.stdout.contains("libcurl 8."), plain.stdout)
        XCTAssertFalse(plain.stdout.contains("not found"), plain.stdout)
    }

    /// With libcurl hidden (a private mount namespace binds /dev/null over it: root only, and
    /// skipped where namespaces are not allowed), a run that needs HTTP fails its source with a
    /// message naming libcurl.so.4 instead of crashing, and --version falls back to the headers.
    func testWithoutLibcurlARunFailsReadablyAndVersionFallsBack() throws {
        let real = URL(fileURLWithPath: "/lib/x86_64-linux-gnu/libcurl.so.4").resolvingSymlinksInPath().path
        guard getuid() == 0, FileManager.default.fileExists(atPath: real),
              (try? Shell.run(["unshare", "-m", "true"]))?.status == 0 else {
            throw XCTSkip("needs root, unshare -m and \(real)")
        }
        let dir = TempDir()
        defer { dir.remove() }
        // Port 9 on the loopback is never reached: the request fails before curl exists.
        let cfg = dir.write("tributary.json", #"{"sources":[{"name":"a","type":"json","url":"http://127.0.0.1:9/x","fields":{"id":"id","title":"title"}}]}"#)
        let script = "mount --bind /dev/null \(real) || exit 99; \"$0\" --version; \"$0\" run -c \"$1\" --no-state --jsonl"
        let r = try Shell.run(["unshare", "-m", "sh", "-c", script, BinaryRunner.binary, cfg], env: ["XDG_STATE_HOME": dir.path + "/state"])
        XCTAssertNotEqual(r.status, 99, "mount failed: \(r.stderr)")
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stdout.contains("(build headers; libcurl.so.4 not found)"), r.stdout)
        XCTAssertTrue(r.stderr.contains("failed: GET http://127.0.0.1:9/x: HTTP needs libcurl (libcurl.so.4, Debian package libcurl4), which could not be loaded: "), r.stderr)
        XCTAssertFalse(r.stderr.contains("crashed") || r.stderr.contains("Fatal error"), r.stderr)
    }
}
