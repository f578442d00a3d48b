import Foundation
import TributaryCore
import TributaryTestSupport
import XCTest

/// `run --dry-run` (the one-off look): state is read to decide what is new, the items that
/// would be emitted go to stdout as JSON Lines, and nothing is written anywhere: every file of
/// the tree (state included) has the same bytes and the same modification time afterwards, and
/// no file or folder appears.
final class DryRunEndToEndTests: XCTestCase {
    /// Every file and folder under `root`: path -> (kind, size, mtime in ns, SHA-256 of its bytes).
    static func snapshot(_ root: String) throws -> [String: String] {
        var out: [String: String] = [:]
        let fm = FileManager.default
        guard let walker = fm.enumerator(atPath: root) else { return out }
        while let rel = walker.nextObject() as? String {
            let path = root + "/" + rel
            var st = stat()
            XCTAssertEqual(lstat(path, &st), 0, path)
            let mtime = Int(st.st_mtim.tv_sec) * 1_000_000_000 + Int(st.st_mtim.tv_nsec)
            if (st.st_mode & S_IFMT) == S_IFDIR {
                out[rel] = "dir \(mtime)"
            } else {
                let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
                out[rel] = "file \(st.st_size) \(mtime) \(Digest.hex(Digest.sha256(bytes)))"
            }
        }
        return out
    }

    static func page(_ ids: ClosedRange<Int>) -> String {
        "{\"items\":[" + ids.map { #"{"id":\#($0),"title":"Item \#($0)","link":"https://e.org/\#($0)"}"# }.joined(separator: ",") + "]}"
    }

    func testADryRunAfterARunPrintsOnlyWhatIsNewAndChangesNoByte() throws {
        let served = Locked(1...3)
        let server = try LoopbackServer { _ in .text(DryRunEndToEndTests.page(served.withLock { $0 })) }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let source = #"{"name":"a","type":"json","url":"\#(server.baseURL)/a","items":"items","fields":{"id":"id","title":"title","url":"link"}}"#
        let sinks = #"[{"type":"jsonl","path":"out/items.jsonl"},{"type":"rss","path":"out/feed.xml","title":"t","link":"https://e.org/"},{"type":"atom","path":"out/feed.atom","title":"t","link":"https://e.org/"}]"#
        let cfg = dir.write("tributary.json", #"{"state":{"path":"state/state.sqlite"},"sources":[\#(source)],"sinks":\#(sinks)}"#)

        let first = try BinaryRunner.run(["run", "-c", cfg], cwd: dir.path)
        XCTAssertEqual(first.status, 0, first.stderr)
        served.withLock { $0 = 1...5 }
        let before = try Self.snapshot(dir.path)
        XCTAssertNotNil(before["state/state.sqlite"])

        let dry = try BinaryRunner.run(["run", "-c", cfg, "--dry-run"], cwd: dir.path)
        XCTAssertEqual(dry.status, 0, dry.stderr)
        let ids = dry.stdoutLines.compactMap { try? JSONNode(JSONParser.parse($0))["id"].string() }
        XCTAssertEqual(ids.count, 2, dry.stdout)
        XCTAssertTrue(ids.allSatisfy { $0.hasSuffix(":4") || $0.hasSuffix(":5") }, "only the two new items: \(ids)")
        XCTAssertTrue(dry.stderr.contains("total: 1 source, 0 failed, 5 fetched, 2 new"), dry.stderr)
        XCTAssertTrue(dry.stderr.contains("dry run"), dry.stderr)
        XCTAssertEqual(try Self.snapshot(dir.path), before, "a dry run writes nothing")

        // The same dry run again sees the same: it recorded nothing.
        let again = try BinaryRunner.run(["run", "-c", cfg, "--dry-run"], cwd: dir.path)
        XCTAssertEqual(again.stdoutLines.count, 2, again.stderr)
        XCTAssertEqual(try Self.snapshot(dir.path), before)

        // --all prints everything fetched, still writing nothing.
        let all = try BinaryRunner.run(["run", "-c", cfg, "--dry-run", "--all"], cwd: dir.path)
        XCTAssertEqual(all.stdoutLines.count, 5, all.stderr)
        XCTAssertEqual(try Self.snapshot(dir.path), before)

        // The real run then emits exactly what the dry run showed.
        let real = try BinaryRunner.run(["run", "-c", cfg, "--jsonl"], cwd: dir.path)
        XCTAssertEqual(real.status, 0, real.stderr)
        XCTAssertEqual(real.stdoutLines.compactMap { try? JSONNode(JSONParser.parse($0))["id"].string() }, ids)
    }

    func testADryRunWithoutAStateFileCreatesNothing() throws {
        let server = try LoopbackServer { _ in .text(DryRunEndToEndTests.page(1...3)) }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let source = #"{"name":"a","type":"json","url":"\#(server.baseURL)/a","items":"items","fields":{"id":"id","title":"title","url":"link"}}"#
        let cfg = dir.write("tributary.json", #"{"state":{"path":"state/state.sqlite"},"sources":[\#(source)],"sinks":[{"type":"jsonl","path":"out/items.jsonl"},{"type":"jsonfeed","path":"out/feed.json","title":"t","link":"https://e.org/"}]}"#)
        let before = try Self.snapshot(dir.path)
        let dry = try BinaryRunner.run(["run", "-c", cfg, "--dry-run"], cwd: dir.path)
        XCTAssertEqual(dry.status, 0, dry.stderr)
        XCTAssertEqual(dry.stdoutLines.count, 3, "every item is new without state")
        XCTAssertEqual(try Self.snapshot(dir.path), before, "no state folder, no out folder, no file")
    }

    func testTheDemoAsADryRunWritesNothing() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let copy = dir.path + "/Sources-config"
        try FileManager.default.copyItem(atPath: BinaryRunner.packageRoot + "/Sources-config", toPath: copy)
        let offline = ["http_proxy": "http://127.0.0.1:1", "https_proxy": "http://127.0.0.1:1"]
        let first = try BinaryRunner.run(["run", "-c", copy + "/demo.json", "--quiet"], env: offline)
        XCTAssertEqual(first.status, 0, first.stderr)
        let before = try Self.snapshot(dir.path)
        let dry = try BinaryRunner.run(["run", "-c", copy + "/demo.json", "--dry-run", "--all"], env: offline)
        XCTAssertEqual(dry.status, 0, dry.stderr)
        XCTAssertEqual(dry.stdoutLines.count, first.stdoutLines.count, "--all: what the first run emitted, again")
        XCTAssertEqual(try Self.snapshot(dir.path), before, "every sink type and the state untouched")
    }

    func testDryRunAndRecordCannotBeCombined() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = dir.write("tributary.json", #"{"sources":[{"name":"a","type":"json","url":"http://127.0.0.1:1/","items":"items","fields":{"id":"id","title":"t"}}]}"#)
        let r = try BinaryRunner.run(["run", "-c", cfg, "--dry-run", "--record", dir.path + "/rec"])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("--dry-run") && r.stderr.contains("--record"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.path + "/rec"))
    }
}
