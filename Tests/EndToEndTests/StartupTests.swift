import Foundation
import XCTest
import TributaryTestSupport

/// What the binary loads at start: libcurl only when a request is made (never for `check`).
/// (How long a start takes is measured by bench/startup.sh, not here.)
final class StartupTests: XCTestCase {
    /// Libraries the dynamic loader opened, from its own trace (LD_DEBUG=files).
    func loadedLibraries(_ args: [String]) throws -> String {
        let r = try BinaryRunner.run(args, cwd: BinaryRunner.packageRoot, env: ["LD_DEBUG": "files"])
        XCTAssertEqual(r.status, 0, "\(args): \(r.stderr)")
        XCTAssertTrue(r.stderr.contains("file=libc.so.6"), "the trace is there: \(r.stderr.prefix(500))")
        return r.stderr
    }

    func testCheckDoesNotLoadLibcurl() throws {
        for args in [["check", "-c", "Sources-config/demo.json"]] {
            let trace = try loadedLibraries(args)
            XCTAssertFalse(trace.contains("libcurl.so.4"), "\(args) loaded libcurl")
        }
    }
}
