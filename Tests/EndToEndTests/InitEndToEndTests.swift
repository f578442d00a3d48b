import Foundation
import XCTest
import TributaryCore
import TributaryTestSupport

/// `tributary init [FILE]`: a commented starter config that `check` accepts; an existing file
/// is left as it is unless --force; `-` or no FILE is stdout.
final class InitEndToEndTests: XCTestCase {
    func testInitWritesAStarterConfigThatCheckAcceptsAndRefusesToOverwrite() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let file = dir.path + "/conf/tributary.json"
        let r = try BinaryRunner.run(["init", file], cwd: dir.path)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "")
        let written = try String(contentsOfFile: file, encoding: .utf8)
        // Strict JSON, commented with $comment keys, with the four parts.
        let doc = try JSONParser.parse(written)
        XCTAssertNotNil(doc[path: "$comment"]?.stringValue)
        XCTAssertEqual(doc[path: "sources[0].type"]?.stringValue, "feed")
        XCTAssertEqual(doc[path: "sources[1].type"]?.stringValue, "json")
        XCTAssertEqual(doc[path: "sinks[0].type"]?.stringValue, "jsonl")
        XCTAssertEqual(doc[path: "state.path"]?.stringValue, "state.sqlite")
        for key in ["sources[0].$comment", "sources[1].$comment", "sinks[0].$comment", "state.$comment"] {
            XCTAssertNotNil(doc[path: try KeyPath(parsing: key)]?.stringValue, key)
        }
        let check = try BinaryRunner.run(["check", "-c", file], cwd: dir.path)
        XCTAssertEqual(check.status, 0, check.stderr)
        XCTAssertTrue(check.stderr.contains("ok: 2 sources (2 enabled), 1 sink"), check.stderr)

        // An existing file is refused, untouched; --force replaces it.
        try "{}".write(toFile: file, atomically: true, encoding: .utf8)
        let again = try BinaryRunner.run(["init", file], cwd: dir.path)
        XCTAssertEqual(again.status, 2)
        XCTAssertEqual(again.stderr, "tributary: init: \(file) exists; it was left as it is (--force overwrites it)\n")
        XCTAssertEqual(try String(contentsOfFile: file, encoding: .utf8), "{}")
        let forced = try BinaryRunner.run(["init", "--force", file], cwd: dir.path)
        XCTAssertEqual(forced.status, 0, forced.stderr)
        XCTAssertEqual(try String(contentsOfFile: file, encoding: .utf8), written)

        // No FILE, or -, is stdout; nothing is written in the folder.
        let stdout = try BinaryRunner.run(["init"], cwd: dir.path)
        XCTAssertEqual(stdout.status, 0, stdout.stderr)
        XCTAssertEqual(stdout.stdout, written)
        XCTAssertEqual(try BinaryRunner.run(["init", "-"], cwd: dir.path).stdout, written)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted(), ["conf"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path + "/conf"), ["tributary.json"])
    }
}
