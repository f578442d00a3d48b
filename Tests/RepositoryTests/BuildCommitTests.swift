import Foundation
import TributaryTestSupport
import XCTest

/// The commit `tributary --version` names: Sources/CBuildInfo/build_info.c reads it from the
/// header the Makefile writes, and says "unknown" without it.
final class BuildCommitTests: XCTestCase {
    let root = BinaryRunner.packageRoot

    /// Compiles Sources/CBuildInfo/build_info.c with a main() that prints the commit, in a
    /// scratch folder with `generated/commit.h` holding `header` (nil: no header).
    func commitCompiled(header: String?) throws -> String {
        let dir = TempDir()
        defer { dir.remove() }
        let source = root + "/Sources/CBuildInfo"
        _ = dir.write("build_info.c", try String(contentsOfFile: source + "/build_info.c", encoding: .utf8))
        _ = dir.write("include/CBuildInfo.h", try String(contentsOfFile: source + "/include/CBuildInfo.h", encoding: .utf8))
        _ = dir.write("main.c", "#include <stdio.h>\n#include \"CBuildInfo.h\"\nint main(void) { puts(tributary_build_commit()); return 0; }\n")
        if let header { _ = dir.write("generated/commit.h", header) }
        let cc = try Shell.run(["clang", "-Iinclude", "build_info.c", "main.c", "-o", "commit"], cwd: dir.path)
        XCTAssertEqual(cc.status, 0, cc.stderr)
        let r = try Shell.run([dir.path + "/commit"])
        XCTAssertEqual(r.status, 0)
        return r.stdout.trimmingCharacters(in: .newlines)
    }

    func testTheCommitIsUnknownWithoutTheGeneratedHeader() throws {
        XCTAssertEqual(try commitCompiled(header: nil), "unknown")
        XCTAssertEqual(try commitCompiled(header: "#define TRIBUTARY_COMMIT \"abc1234-dirty\"\n"), "abc1234-dirty")
    }

    /// `make commit-header` in a scratch repository: the short HEAD, `-dirty` with a changed
    /// tracked file, the header left alone (same mtime) when nothing changed, `unknown`
    /// outside a repository.
    func testMakeWritesTheCommitHeaderOnlyWhenTheCommitChanges() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let repo = dir.path + "/repo"
        _ = dir.write("repo/a.txt", "one\n")
        let git = ["git", "-C", repo, "-c", "user.name=test", "-c", "user.email=test@example.invalid"]
        for args in [["init", "-q"], ["add", "a.txt"], ["commit", "-q", "-m", "one"]] {
            let r = try Shell.run(git + args)
            XCTAssertEqual(r.status, 0, r.stderr)
        }
        let head = try Shell.run(git + ["rev-parse", "--short", "HEAD"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let header = "Sources/CBuildInfo/generated/commit.h"
        func make(in folder: String) throws -> String? {
            let r = try Shell.run(["make", "--no-print-directory", "-s", "-f", root + "/Makefile", "-C", folder, "commit-header"],
                                  env: ["MAKEFLAGS": "", "MFLAGS": "", "MAKELEVEL": ""])
            XCTAssertEqual(r.status, 0, r.stderr)
            return FileManager.default.contents(atPath: folder + "/" + header).map { String(decoding: $0, as: UTF8.self) }
        }
        func mtime() -> Date? { (try? FileManager.default.attributesOfItem(atPath: repo + "/" + header))?[.modificationDate] as? Date }

        XCTAssertEqual(try make(in: repo), "#define TRIBUTARY_COMMIT \"\(head)\"\n")
        let written = mtime()
        usleep(20_000)
        XCTAssertEqual(try make(in: repo), "#define TRIBUTARY_COMMIT \"\(head)\"\n")
        XCTAssertEqual(mtime(), written, "an unchanged commit does not rewrite the header")

        _ = dir.write("repo/a.txt", "two\n")
        XCTAssertEqual(try make(in: repo), "#define TRIBUTARY_COMMIT \"\(head)-dirty\"\n")
        XCTAssertNotEqual(mtime(), written)

        let outside = dir.path + "/plain"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        XCTAssertEqual(try make(in: outside), "#define TRIBUTARY_COMMIT \"unknown\"\n")
    }
}
