import Foundation
import XCTest
@testable import TributaryCore
@testable import TributaryBase
@testable import TributaryJSON
@testable import TributaryOptions
@testable import TributaryHTTP
@testable import TributaryState
@testable import TributaryPostgres
@testable import TributaryPluginKit
import TributaryTestSupport

/// `FileAccess`: whether a file can be written or a program started, found by trying, with
/// nothing left behind.
final class FileAccessTests: XCTestCase {
    func testOutputFolders() throws {
        let dir = TempDir()
        defer { dir.remove() }
        XCTAssertNil(FileAccess.outputProblem(dir.path + "/a/b/c/out.jsonl", replaced: false))
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.path + "/a"), "the probe folder is removed")
        XCTAssertNil(FileAccess.outputProblem(dir.path + "/out.xml", replaced: true))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), [], "the probe file is removed")
        XCTAssertEqual(FileAccess.outputProblem("/proc/nope/items.jsonl", replaced: false), "cannot create folder /proc/nope (No such file or directory)")
        XCTAssertEqual(FileAccess.outputProblem("/proc/items.jsonl", replaced: true), "cannot write in folder /proc (No such file or directory)")
        XCTAssertNil(FileAccess.outputProblem("/dev/null", replaced: false), "not a regular file: written as it is")
        _ = dir.write("file", "x")
        XCTAssertEqual(FileAccess.outputProblem(dir.path + "/file/out.xml", replaced: true), "cannot create folder \(dir.path)/file: a file of that name is in the way")
        XCTAssertEqual(FileAccess.outputProblem(dir.path + "/file/deeper/out.xml", replaced: true), "cannot create folder \(dir.path)/file/deeper: \(dir.path)/file is a file")
        XCTAssertEqual(FileAccess.outputProblem(dir.path, replaced: true), "\(dir.path) is a folder, expected a file")
        XCTAssertNil(FileAccess.outputProblem(dir.path + "/file", replaced: false))
    }

    func testPrograms() {
        let dir = TempDir()
        defer { dir.remove() }
        _ = dir.write("bin/tool", "#!/bin/sh\n")
        _ = dir.write("plain", "#!/bin/sh\n")
        chmod(dir.path + "/bin/tool", 0o755)
        XCTAssertNil(FileAccess.programProblem("sh", directory: dir.path, searchPath: "/usr/bin:/bin"))
        XCTAssertNil(FileAccess.programProblem("tool", directory: dir.path, searchPath: "/nope:bin"), "a relative PATH entry is relative to the program's folder")
        XCTAssertNil(FileAccess.programProblem("./bin/tool", directory: dir.path, searchPath: nil))
        XCTAssertNil(FileAccess.programProblem(dir.path + "/bin/tool", directory: "/", searchPath: nil))
        XCTAssertEqual(FileAccess.programProblem("tool", directory: dir.path, searchPath: "/nope"), "program \"tool\" not found in PATH (PATH=/nope)")
        XCTAssertEqual(FileAccess.programProblem("no-such-tool", directory: dir.path, searchPath: nil), "program \"no-such-tool\" not found in PATH (PATH unset: /bin:/usr/bin)")
        XCTAssertEqual(FileAccess.programProblem("plain", directory: dir.path, searchPath: dir.path), "program \"plain\" is not executable: \(dir.path)/plain (PATH=\(dir.path))")
        XCTAssertEqual(FileAccess.programProblem("./plain", directory: dir.path, searchPath: nil), "program \"./plain\" (\(dir.path)/plain) is not executable (chmod +x)")
        XCTAssertEqual(FileAccess.programProblem("./gone.sh", directory: dir.path, searchPath: nil), "program \"./gone.sh\" (\(dir.path)/gone.sh) does not exist")
        XCTAssertEqual(FileAccess.programProblem("./bin", directory: dir.path, searchPath: nil), "program \"./bin\" (\(dir.path)/bin) is a folder")
    }

    func testParent() {
        XCTAssertEqual(FileAccess.parent(of: "a/b"), "a")
        XCTAssertEqual(FileAccess.parent(of: "/a"), "/")
        XCTAssertEqual(FileAccess.parent(of: "b"), ".")
        XCTAssertEqual(FileAccess.parent(of: "a/b/"), "a")
    }
}
