import Foundation
import XCTest
import TributaryCore
import TributaryTestSupport

/// The test shell (TributaryTestSupport's `Shell`, `Tool`, `ChildInput`) on a machine that lacks
/// what a test needs: a child that leaves without reading its stdin fails (or passes) its own
/// test and never ends the test process with SIGPIPE, and a program that is not installed is
/// named, with its package.
final class TestShellTests: XCTestCase {
    /// 4 MiB for a child that exits at once: far more than a pipe holds, so the write meets a
    /// pipe without a reader. Before, SIGPIPE ended the whole test bundle here.
    func testAChildThatExitsWithoutReadingItsStdinDoesNotEndTheTests() throws {
        let big = String(repeating: "x", count: 4 << 20)
        for _ in 0..<5 {
            let r = try Shell.run(["sh", "-c", "exit 3"], stdin: big, timeout: 30)
            XCTAssertEqual(r.status, 3)
        }
        // A child that closes its stdin and goes on: its own exit status decides.
        let closes = try Shell.run(["sh", "-c", "exec 0<&-; sleep 0.2; echo done"], stdin: big, timeout: 30)
        XCTAssertEqual(closes.status, 0)
        XCTAssertEqual(closes.stdout, "done\n")
        // A child that reads everything still gets everything.
        let reads = try Shell.run(["wc", "-c"], stdin: big, timeout: 30)
        XCTAssertEqual(reads.stdout.trimmingCharacters(in: .whitespacesAndNewlines), String(4 << 20))
    }

    /// `ChildInput.write` reports what the child never got, and leaves SIGPIPE's disposition and
    /// this thread's signal mask as they were: a child started after it gets what one started
    /// before it got. (Whether that is SIG_DFL depends on what the test process loaded before:
    /// libnats, for one, ignores SIGPIPE process-wide when it starts.)
    func testChildInputLeavesSignalsAsTheyWere() throws {
        func childSignals() throws -> [String] {
            try Shell.run(["sh", "-c", "grep -E '^Sig(Ign|Blk):' /proc/self/status"]).stdoutLines
        }
        let childBefore = try childSignals()
        XCTAssertEqual(childBefore.count, 2)
        var before = sigset_t()
        pthread_sigmask(SIG_SETMASK, nil, &before)
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        close(fds[0])
        let unwritten = ChildInput.write([UInt8](repeating: 1, count: 1000), to: fds[1])
        XCTAssertEqual(unwritten, 1000, "no reader: nothing written")
        var after = sigset_t()
        pthread_sigmask(SIG_SETMASK, nil, &after)
        XCTAssertEqual(sigismember(&before, SIGPIPE), sigismember(&after, SIGPIPE))
        var pending = sigset_t()
        sigpending(&pending)
        XCTAssertEqual(sigismember(&pending, SIGPIPE), 0, "no SIGPIPE left pending")
        XCTAssertEqual(try childSignals(), childBefore, "a child started after the write gets the signals one started before got")
    }

    /// A program that is not there fails with its own name and its Debian package, before
    /// anything runs (before, `env` said "No such file or directory" with exit 127, and a
    /// script calling it failed with whatever it made of that).
    func testAMissingProgramIsNamed() throws {
        let name = "tributary-no-such-tool-\(getpid())"
        XCTAssertThrowsError(try Shell.run([name, "--version"])) { error in
            XCTAssertTrue("\(error)".contains("`\(name)`, which is not installed or not in PATH"), "\(error)")
        }
        XCTAssertThrowsError(try Shell.run(["sqlite3", "--version"], env: ["PATH": "/nonexistent"])) { error in
            XCTAssertEqual("\(error)", "the test needs `sqlite3`, which is not installed or not in PATH (Debian package sqlite3; `make test-tools` installs it)")
        }
        XCTAssertThrowsError(try Tool.require(all: ["sh", name, "tributary-other-\(getpid())"])) { error in
            XCTAssertTrue("\(error)".contains("not installed: \(name) (Debian package \(name)), tributary-other-"), "\(error)")
        }
        XCTAssertThrowsError(try Shell.run([BinaryRunner.packageRoot + "/.build/test-tools/nowhere/bin/python3", "-V"])) { error in
            XCTAssertEqual("\(error)", "the test needs \(BinaryRunner.packageRoot)/.build/test-tools/nowhere/bin/python3, which is not there or not executable (the test tools' venv: `make test-tools` makes it)")
        }
        XCTAssertNoThrow(try Tool.require(all: ["sh", "cat"]))
        XCTAssertEqual(Tool.find("sh", path: "/nonexistent:/bin"), "/bin/sh")
    }

    /// Every program the tests run is in the Makefile's packages (TOOL_PACKAGES, APT_PACKAGES)
    /// or in every Debian system (Essential), so `make test` on a fresh machine installs it.
    func testEveryToolsPackageIsInstalledByTheMakefile() throws {
        let makefile = try String(contentsOfFile: BinaryRunner.packageRoot + "/Makefile", encoding: .utf8)
        func packages(_ variable: String) -> Set<String> {
            guard let line = makefile.split(separator: "\n").first(where: { $0.hasPrefix(variable + " := ") }) else { return [] }
            return Set(line.dropFirst(variable.count + 4).split(separator: " ").map(String.init))
        }
        let installed = packages("TOOL_PACKAGES").union(packages("APT_PACKAGES"))
        // Essential in Debian 12 (in every system, debootstrap's minbase too), or the toolchain's
        // own dependencies, which README asks for before `make`.
        let everywhere: Set<String> = ["bash", "coreutils", "dpkg", "libc-bin", "gzip", "util-linux", "bsdutils", "git", "make"]
        for (tool, package) in Tool.packages.sorted(by: { $0.key < $1.key }) {
            XCTAssertTrue(installed.contains(package) || everywhere.contains(package), "\(tool) comes from \(package), which the Makefile does not install")
        }
    }
}
