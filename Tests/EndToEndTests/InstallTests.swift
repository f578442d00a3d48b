import Foundation
import XCTest
import TributaryCore
import TributaryTestSupport

/// What `make install` and `make package-deb` are run with and checked against.
enum Packaging {
    static let root = BinaryRunner.packageRoot

    /// `make -C <package root> RELEASE_BIN=<binary under test> args...`, with no make flags
    /// inherited from a `make test` that runs this.
    static func make(_ args: [String]) throws -> BinaryRunner.Result {
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: BinaryRunner.binary), "no binary at \(BinaryRunner.binary)")
        return try Shell.run(["make", "--no-print-directory", "-C", root, "RELEASE_BIN=" + BinaryRunner.binary] + args,
                             env: ["MAKEFLAGS": "", "MFLAGS": "", "MAKELEVEL": ""], timeout: 300)
    }

    /// Regular files under `dir`, relative to it.
    static func files(_ dir: String) -> Set<String> {
        var found = Set<String>()
        guard let walker = FileManager.default.enumerator(atPath: dir) else { return found }
        while let f = walker.nextObject() as? String {
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: dir + "/" + f, isDirectory: &isDir), !isDir.boolValue { found.insert(f) }
        }
        return found
    }

    /// What the examples folder holds: Sources-config's demo, schema, recordings, examples and
    /// Prometheus alerting rules.
    static var exampleFiles: Set<String> {
        files(root + "/Sources-config").filter { f in
            f == "demo.json" || f == "tributary.schema.json"
                || (f.hasPrefix("recordings/") || f.hasPrefix("examples/") || f.hasPrefix("prometheus/")) && !f.hasSuffix(".pyc")
        }
    }

    static let units = ["tributary.service", "tributary.timer", "tributary-watch.service"]

    /// Sources-config/systemd/NAME with the binary's folder filled in.
    static func unit(_ name: String, bindir: String) throws -> String {
        try String(contentsOfFile: root + "/Sources-config/systemd/" + name, encoding: .utf8).replacingOccurrences(of: "@BINDIR@", with: bindir)
    }

    /// The man page and completion scripts under a prefix (`zsh`: the zsh folder below it).
    static func generated(prefix: String, zsh: String) -> [String] {
        [prefix + "/share/man/man1/tributary.1", prefix + "/share/bash-completion/completions/tributary",
         prefix + "/" + zsh + "/_tributary", prefix + "/share/fish/vendor_completions.d/tributary.fish"]
    }

    static func mode(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }
}

/// `make install` and `make uninstall`, given the binary under test, into a scratch DESTDIR:
/// what lands where, and that the installed demo runs from where it was put.
final class InstallTests: XCTestCase {
    func testMakeInstallPutsEachFileUnderThePrefixAndUninstallRemovesThem() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let dest = dir.path + "/dest"

        // Default PREFIX (/usr/local).
        var r = try Packaging.make(["install", "DESTDIR=" + dest])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        let doc = "usr/local/share/doc/tributary/examples/"
        var expected = Set(["usr/local/bin/tributary"] + Packaging.units.map { "usr/local/lib/systemd/system/" + $0 })
        expected.formUnion(Packaging.generated(prefix: "usr/local", zsh: "share/zsh/site-functions"))
        expected.formUnion(Packaging.exampleFiles.map { doc + $0 })
        XCTAssertEqual(Packaging.files(dest), expected)
        XCTAssertTrue(FileManager.default.contentsEqual(atPath: dest + "/usr/local/bin/tributary", andPath: BinaryRunner.binary), "the installed binary is the one tested")
        XCTAssertEqual(Packaging.mode(dest + "/usr/local/bin/tributary"), 0o755)
        XCTAssertEqual(Packaging.mode(dest + "/" + doc + "examples/exec-plugin/releases.py"), 0o755)
        XCTAssertEqual(Packaging.mode(dest + "/" + doc + "examples/summarise.py"), 0o755, "a plugin folder's example program keeps its executable bit")
        XCTAssertEqual(Packaging.mode(dest + "/" + doc + "demo.json"), 0o644)
        for u in Packaging.units {
            let installed = try String(contentsOfFile: dest + "/usr/local/lib/systemd/system/" + u, encoding: .utf8)
            XCTAssertEqual(installed, try Packaging.unit(u, bindir: "/usr/local/bin"), u)
            XCTAssertFalse(installed.contains("@"), u)
        }
        XCTAssertTrue(try Packaging.unit("tributary.service", bindir: "/usr/local/bin").contains("ExecStart=/usr/local/bin/tributary run "))

        // The installed demo finds its recordings and its exec plugin, and writes nothing.
        let run = try Shell.run([dest + "/usr/local/bin/tributary", "run", "-c", dest + "/" + doc + "demo.json", "--no-state", "--jsonl"], cwd: dir.path, timeout: 120)
        try Demo.checkRun(run, "installed demo")
        XCTAssertEqual(Packaging.files(dest), expected, "the demo wrote into the installed tree")

        // The man page and completions are the binary's own.
        XCTAssertEqual(dir.read("dest/usr/local/share/man/man1/tributary.1"), try BinaryRunner.run(["help", "--man"]).stdout)
        XCTAssertEqual(dir.read("dest/usr/local/share/bash-completion/completions/tributary"), try BinaryRunner.run(["completion", "bash"]).stdout)

        // Another PREFIX.
        r = try Packaging.make(["install", "DESTDIR=" + dest, "PREFIX=/opt/trib"])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(dir.read("dest/opt/trib/share/man/man1/tributary.1")?.hasPrefix(".TH TRIBUTARY 1") == true)
        XCTAssertEqual(dir.read("dest/opt/trib/lib/systemd/system/tributary-watch.service"), try Packaging.unit("tributary-watch.service", bindir: "/opt/trib/bin"))
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: dest + "/opt/trib/bin/tributary"))

        for prefix in ["/usr/local", "/opt/trib"] {
            r = try Packaging.make(["uninstall", "DESTDIR=" + dest, "PREFIX=" + prefix])
            XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        }
        XCTAssertEqual(Packaging.files(dest), [], "uninstall leaves no file behind")
    }
}
