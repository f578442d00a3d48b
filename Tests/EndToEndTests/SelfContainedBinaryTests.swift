import Foundation
import XCTest
import TributaryCore
import TributaryTestSupport

/// The Swift toolchain the tests were built with, and how to hide it from a child process.
enum Toolchain {
    /// The folder that holds the toolchain's `usr/`: `which swift` is `<folder>/usr/bin/swift`
    /// (a link to `swift-driver` in the same folder). `/opt/swift` if swift is not in PATH.
    static let folder: String = {
        if let r = try? Shell.run(["sh", "-c", "command -v swift"]), r.status == 0 {
            let swift = URL(fileURLWithPath: r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)).resolvingSymlinksInPath()
            let usr = swift.deletingLastPathComponent().deletingLastPathComponent()
            if usr.lastPathComponent == "usr" { return usr.deletingLastPathComponent().path }
        }
        return "/opt/swift"
    }()

    /// Runs `argv` in a private mount namespace with an empty tmpfs over the toolchain folder,
    /// after checking that `swift` is really gone there. Skips the test, saying why, when the
    /// machine does not let this process hide the toolchain (`skipReason`).
    static func runHidden(_ argv: [String], cwd: String? = nil, timeout: Double = 60) throws -> BinaryRunner.Result {
        guard folder != "/" && folder != "/usr" else {
            throw CannotHide(description: "the toolchain is installed in \(folder), which cannot be hidden")
        }
        let script = #"""
            mount -t tmpfs none "$TOOLCHAIN" || exit 97
            if [ -e "$TOOLCHAIN/usr/bin/swift" ]; then echo "hide-toolchain: $TOOLCHAIN/usr/bin/swift is still there" >&2; exit 98; fi
            exec "$@"
            """#
        let r = try Shell.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script, "hide-toolchain"] + argv,
                              cwd: cwd, env: ["TOOLCHAIN": folder], timeout: timeout)
        if let why = skipReason(status: r.status, stderr: r.stderr) { throw XCTSkip(why) }
        return r
    }

    /// Why the toolchain cannot be hidden here, from what `runHidden`'s `unshare` or `mount`
    /// said, or nil when they worked (the status and stderr are then the program's own). Any
    /// failure of `unshare` itself counts: no permission to create a mount namespace (a
    /// container without CAP_SYS_ADMIN), or a mount propagation it cannot change (a chroot
    /// whose `/` is not a mount point: "cannot change root filesystem propagation: Invalid
    /// argument"); so does a tmpfs that cannot be mounted over the folder (exit 97).
    static func skipReason(status: Int32, stderr: String) -> String? {
        guard status != 0 else { return nil }
        let said = stderr.trimmingCharacters(in: .whitespacesAndNewlines)
        if said.hasPrefix("unshare:") {
            return "the toolchain cannot be hidden: unshare cannot make a private mount namespace here (\(said))"
        }
        if status == 97 {
            return "the toolchain cannot be hidden: a tmpfs cannot be mounted over \(folder) here (\(said))"
        }
        return nil
    }
}

struct CannotHide: Error, CustomStringConvertible {
    let description: String
}

/// Sources-config/demo.json: one source of every type, answered from recordings.
enum Demo {
    static let config = BinaryRunner.packageRoot + "/Sources-config/demo.json"
    /// What `tributary run -c demo.json --no-state --jsonl` emits (11 sources, 38 items
    /// fetched, one video found by two sources, one post filtered out).
    static let itemCount = 36

    /// Checks a `--no-state --jsonl` run of a demo: exit 0, every source ok, `itemCount`
    /// schema-valid items with distinct ids.
    static func checkRun(_ r: BinaryRunner.Result, _ what: String, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(r.status, 0, "\(what): \(r.stderr)", file: file, line: line)
        XCTAssertTrue(r.stderr.contains("total: 11 sources, 0 failed"), "\(what): \(r.stderr)", file: file, line: line)
        XCTAssertEqual(r.stdoutLines.count, itemCount, "\(what): \(r.stderr)", file: file, line: line)
        let schema = try SchemaValidator.itemSchema()
        var ids = Set<String>()
        for l in r.stdoutLines {
            XCTAssertEqual(schema.validate(line: l), [], l, file: file, line: line)
            let object = try JSONSerialization.jsonObject(with: Data(l.utf8)) as? [String: Any]
            if let id = object?["id"] as? String { ids.insert(id) }
        }
        XCTAssertEqual(ids.count, itemCount, "\(what): ids are distinct", file: file, line: line)
    }
}

/// The binary under test (the release build under `make test`) runs on a machine without the
/// Swift toolchain: it loads no Swift library from the toolchain and finds none through its
/// RUNPATH, and it works with the toolchain's folder hidden.
final class SelfContainedBinaryTests: XCTestCase {
    /// `readelf -d` lines of one tag, the value between the brackets.
    func dynamicEntries(_ tag: String) throws -> [String] {
        let r = try Shell.run(["readelf", "-d", BinaryRunner.binary])
        XCTAssertEqual(r.status, 0, r.stderr)
        return r.stdoutLines.filter { $0.contains("(\(tag))") }.compactMap { line in
            guard let open = line.firstIndex(of: "["), let close = line.lastIndex(of: "]") else { return nil }
            return String(line[line.index(after: open)..<close])
        }
    }

    func testNoNeededLibraryComesFromTheToolchainAndNoRunpathPointsIntoIt() throws {
        let needed = try dynamicEntries("NEEDED")
        // SQLite is linked; libcurl, libcrypto, PCRE2, libxml2 and libpq are opened with dlopen on first use.
        XCTAssertTrue(needed.contains("libsqlite3.so.0"), "NEEDED: \(needed)")
        XCTAssertFalse(needed.contains("libcurl.so.4"), "libcurl is opened on first use, not linked: NEEDED: \(needed)")
        XCTAssertFalse(needed.contains("libxml2.so.2"), "libxml2 is opened on the first XML feed, not linked: NEEDED: \(needed)")
        XCTAssertFalse(needed.contains { $0.hasPrefix("libicu") }, "no ICU (libxml2's dependency) at start: NEEDED: \(needed)")
        XCTAssertFalse(needed.contains { $0.hasPrefix("libpq.so") }, "libpq is opened on first connection, not linked: NEEDED: \(needed)")
        let toolchainLibs = Set((try? FileManager.default.contentsOfDirectory(atPath: Toolchain.folder + "/usr/lib/swift/linux")) ?? [])
            .filter { $0.hasSuffix(".so") || $0.contains(".so.") }
        XCTAssertTrue(toolchainLibs.contains("libswiftCore.so"), "no Swift libraries found in \(Toolchain.folder)/usr/lib/swift/linux")
        for lib in needed {
            XCTAssertFalse(lib.hasPrefix("libswift") || lib.hasPrefix("libFoundation") || lib.hasPrefix("lib_Foundation"), "\(BinaryRunner.binary) needs \(lib)")
            XCTAssertFalse(toolchainLibs.contains(lib), "\(BinaryRunner.binary) needs \(lib), which the toolchain provides")
        }
        let paths = try (dynamicEntries("RUNPATH") + dynamicEntries("RPATH")).flatMap { $0.split(separator: ":").map(String.init) }
        for path in paths {
            let resolved = URL(fileURLWithPath: path).standardizedFileURL.path
            XCTAssertFalse(resolved == Toolchain.folder || resolved.hasPrefix(Toolchain.folder + "/"), "RUNPATH entry \(path) points into the toolchain")
        }
    }

    /// Where the toolchain cannot be hidden, the tests that need it skip and say why, whatever
    /// `unshare` said (in a chroot whose `/` is not a mount point it cannot change the
    /// propagation); the hidden program's own failures stay failures.
    func testAMachineThatCannotHideTheToolchainSkipsAndSaysWhy() {
        let chroot = Toolchain.skipReason(status: 1, stderr: "unshare: cannot change root filesystem propagation: Invalid argument\n")
        XCTAssertEqual(chroot, "the toolchain cannot be hidden: unshare cannot make a private mount namespace here (unshare: cannot change root filesystem propagation: Invalid argument)")
        let container = Toolchain.skipReason(status: 1, stderr: "unshare: unshare failed: Operation not permitted\n")
        XCTAssertTrue(container?.contains("Operation not permitted") ?? false, container ?? "no skip")
        let mount = Toolchain.skipReason(status: 97, stderr: "mount: /opt/swift: permission denied.\n")
        XCTAssertTrue(mount?.hasPrefix("the toolchain cannot be hidden: a tmpfs cannot be mounted over ") ?? false, mount ?? "no skip")
        XCTAssertNil(Toolchain.skipReason(status: 0, stderr: ""))
        XCTAssertNil(Toolchain.skipReason(status: 2, stderr: "tributary: unknown command\n"), "the program's own failure is not a skip")
        XCTAssertNil(Toolchain.skipReason(status: 98, stderr: "hide-toolchain: /opt/swift/usr/bin/swift is still there\n"))
    }

    func testVersionRunsWithTheToolchainHidden() throws {
        let r = try Toolchain.runHidden([BinaryRunner.binary, "--version"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stderr, "")
        let lines = r.stdoutLines
        XCTAssertEqual(lines.count, 3, r.stdout)
        XCTAssertTrue(lines.first?.hasPrefix("tributary \(Tributary.version) (commit ") ?? false, r.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("libcurl 7.") || $0.hasPrefix("libcurl 8.") }, r.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("SQLite 3.") }, r.stdout)
    }

    func testTheDemoRunsWithTheToolchainHidden() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let r = try Toolchain.runHidden([BinaryRunner.binary, "run", "-c", Demo.config, "--no-state", "--jsonl"], cwd: dir.path, timeout: 120)
        try Demo.checkRun(r, "demo with the toolchain hidden")
    }
}
