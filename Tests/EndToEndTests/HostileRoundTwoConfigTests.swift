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
}
