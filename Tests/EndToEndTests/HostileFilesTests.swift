import Foundation
import XCTest
import TributaryCore
import TributaryTestSupport

/// Output files and folders Tributary did not create, or that are not files at all: nothing the
/// user owns is destroyed, and writing to a pipe counts as delivered.
final class HostileFilesTests: XCTestCase {
    static let items = #"{"items":[{"id":"1","title":"one"},{"id":"2","title":"two"}]}"#

    func config(_ dir: TempDir, server: LoopbackServer, sinkPath: String, state: Bool = true) -> String {
        dir.write("t.json", #"""
        {\#(state ? #""state":{"path":"state.sqlite"},"# : "")
         "sources":[{"name":"s","type":"json","url":"\#(server.baseURL)/x","items":"items","fields":{"id":"id","title":"title"}}],
         "sinks":[{"type":"jsonl","path":"\#(sinkPath)"}]}
        """#)
    }

    func testALastLineThatIsNotOursIsKept() throws {
        let server = try LoopbackServer { _ in .text(Self.items) }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        _ = dir.write("notes.jsonl", "first line\nlast line without newline")
        let r = try BinaryRunner.run(["run", "-c", config(dir, server: server, sinkPath: "notes.jsonl")])
        XCTAssertEqual(r.status, 0, r.stderr)
        let text = dir.read("notes.jsonl") ?? ""
        XCTAssertTrue(text.hasPrefix("first line\nlast line without newline\n{\"id\":\"s:1\""), text)
        XCTAssertEqual(text.split(separator: "\n").count, 4)
        XCTAssertTrue(r.stderr.contains("the file did not end with a newline and its last line (25 bytes) is not one of ours; kept it"), r.stderr)
    }

    func testAFileWithoutAnyNewlineIsNotWiped() throws {
        let server = try LoopbackServer { _ in .text(Self.items) }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        _ = dir.write("precious.txt", "no newline anywhere")
        let target = dir.path + "/precious.txt"
        // Through a symlink, as a user may set it up: the rule is the same.
        XCTAssertEqual(symlink(target, dir.path + "/link.jsonl"), 0)
        let r = try BinaryRunner.run(["run", "-c", config(dir, server: server, sinkPath: "link.jsonl")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue((dir.read("precious.txt") ?? "").hasPrefix("no newline anywhere\n{\"id\":"), dir.read("precious.txt") ?? "")
    }

    func testOurOwnCutOffLineIsRemovedWithAWarning() throws {
        let server = try LoopbackServer { _ in .text(Self.items) }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        _ = dir.write("items.jsonl", #"{"id":"old:1","source":"s","type":"json","kind":"entry","title":"kept","fetched":"2026-11-29T10:00:00Z"}"# + "\n" + #"{"id":"s:1","source":"s","ty"#)
        let r = try BinaryRunner.run(["run", "-c", config(dir, server: server, sinkPath: "items.jsonl")])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = (dir.read("items.jsonl") ?? "").split(separator: "\n")
        XCTAssertEqual(lines.count, 3, "the old whole line and the two new ones")
        for line in lines { XCTAssertNoThrow(try JSONParser.parse(String(line)), String(line)) }
        XCTAssertTrue(r.stderr.contains("removed a partial last line (28 bytes) left by an interrupted run"), r.stderr)
    }

    /// A FIFO, /dev/null and a pipe cannot be fsynced (EINVAL): that is no failure, and what
    /// was written is recorded, so the next run does not send it again.
    func testPipesFIFOsAndDevNullAreDelivered() throws {
        let server = try LoopbackServer { _ in .text(Self.items) }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        for target in ["/dev/null", "/dev/stdout"] {
            let cfg = config(dir, server: server, sinkPath: target)
            try? FileManager.default.removeItem(atPath: dir.path + "/state.sqlite")
            let first = try BinaryRunner.run(["run", "-c", cfg])
            XCTAssertEqual(first.status, 0, "\(target): \(first.stderr)")
            if target == "/dev/stdout" { XCTAssertEqual(first.stdoutLines.count, 2, "written to the pipe") }
            let second = try BinaryRunner.run(["run", "-c", cfg])
            XCTAssertEqual(second.status, 0, second.stderr)
            XCTAssertTrue(second.stderr.contains("2 fetched  0 new"), "\(target): recorded as delivered: \(second.stderr)")
        }
        let fifo = dir.path + "/pipe.jsonl"
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/bin/cat")
        reader.arguments = [fifo]
        let out = Pipe()
        reader.standardOutput = out
        try reader.run()
        try? FileManager.default.removeItem(atPath: dir.path + "/state.sqlite")
        let r = try BinaryRunner.run(["run", "-c", config(dir, server: server, sinkPath: "pipe.jsonl")])
        XCTAssertEqual(r.status, 0, r.stderr)
        let got = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        reader.waitUntilExit()
        XCTAssertEqual(got.split(separator: "\n").count, 2, got)
    }
}
