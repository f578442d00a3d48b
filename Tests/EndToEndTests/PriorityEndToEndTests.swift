import Foundation
import XCTest
import TributaryTestSupport

/// A run started with a nice value (`nice -n 7`, a unit's `Nice=`) keeps it: every thread
/// Tributary starts, and every program it runs, runs at that value. libdispatch raises its own
/// threads' priority (nice -2, where it may: as root), and threads started from them inherited
/// it, so a run meant to stay in the background ran above every ordinary process.
final class PriorityEndToEndTests: XCTestCase {
    func testThreadsAndProgramsKeepTheNiceValueTheRunWasStartedWith() throws {
        let dir = TempDir()
        defer { dir.remove() }
        // The program reports its own nice value and those of Tributary's threads (its parent's).
        _ = dir.write("report.py", """
        import json, os
        parent = os.getppid()
        threads = []
        for tid in sorted(os.listdir('/proc/%d/task' % parent)):
            try:
                comm = open('/proc/%d/task/%s/comm' % (parent, tid)).read().strip()
                nice = int(open('/proc/%d/task/%s/stat' % (parent, tid)).read().rsplit(')', 1)[1].split()[16])
            except OSError:
                continue
            if comm.startswith('tributary-'):
                threads.append('%s=%d' % (comm, nice))
        print(json.dumps({'id': 'nice', 'title': str(os.nice(0)), 'data': {'threads': threads}}))
        """)
        let cfg = dir.write("tributary.json", #"""
        {"sources":[{"name":"report","type":"exec","command":["python3","report.py"]}],
         "sinks":[{"type":"jsonl","path":"out.jsonl"}]}
        """#)
        let r = try Shell.run(["nice", "-n", "7", BinaryRunner.binary, "run", "-c", cfg], cwd: dir.path, env: ["XDG_STATE_HOME": dir.path + "/state"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let line = try XCTUnwrap(dir.read("out.jsonl")?.split(separator: "\n").first, r.stderr)
        let item = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        XCTAssertEqual(item["title"] as? String, "7", "the program's nice value: \(line)")
        let threads = try XCTUnwrap((item["data"] as? [String: Any])?["threads"] as? [String], "\(line)")
        XCTAssertTrue(threads.contains { $0.hasPrefix("tributary-w") }, "the worker threads are there: \(threads)")
        XCTAssertTrue(threads.contains { $0.hasPrefix("tributary-deliv") }, "the delivery thread is there: \(threads)")
        for t in threads { XCTAssertTrue(t.hasSuffix("=7"), "\(t) in \(threads)") }
    }
}
