import Foundation
import XCTest
import TributaryTestSupport

/// What the binary loads at start: libcurl only when a request is made and libcrypto only
/// for a digest (neither for `--version` or `check`), and `--version` names the libcurl the
/// dynamic loader would pick.
/// (How long a start takes is measured by bench/startup.sh, not here.)
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
        }
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
}
