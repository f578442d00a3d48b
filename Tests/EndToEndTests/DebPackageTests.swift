import Foundation
import XCTest
import TributaryCore
import TributaryTestSupport

/// The Debian package of the binary under test (`make package-deb`, what `make deb` runs after
/// building): its control fields, where its files go, and that the packaged demo runs.
final class DebPackageTests: XCTestCase {
    /// The libraries the code opens with dlopen, as it declares them (each `LibraryLoader`'s
    /// `soname: "..."`, the declaration the Makefile's DLOPEN_SONAMES reads too). Seven: a
    /// declaration that changed its form and left them unseen must fail here, not drop them
    /// from Depends.
    static func dlopenedLibraries() throws -> [String] {
        let r = try Shell.run(["sh", "-c", "grep -rhoE 'soname: \"[^\"]+\"' Sources | sed 's/soname: \"//; s/\"$//' | sort -u"], cwd: Packaging.root)
        XCTAssertEqual(r.status, 0, r.stderr)
        let found = r.stdoutLines.filter { !$0.isEmpty }
        XCTAssertEqual(found, ["libcrypto.so.3", "libcurl.so.4", "libjq.so.1", "libnats.so.3.4", "libpcre2-8.so.0", "libpq.so.5", "libxml2.so.2"])
        return found
    }

    /// Package names of the libraries the binary links (NEEDED) and of those it opens with
    /// dlopen, each looked up where the dynamic linker finds it (`ldconfig -p`) and then in
    /// dpkg's database (`dpkg -S`).
    func packagesOfNeededLibraries() throws -> Set<String> {
        let elf = try Shell.run(["readelf", "-d", BinaryRunner.binary])
        XCTAssertEqual(elf.status, 0, elf.stderr)
        let linked = elf.stdoutLines.filter { $0.contains("(NEEDED)") }.compactMap { $0.split(separator: "[").last?.split(separator: "]").first.map(String.init) }
        let needed = linked + (try Self.dlopenedLibraries())
        let cache = try Shell.run(["ldconfig", "-p"])
        var packages = Set<String>()
        for lib in needed {
            let path = try XCTUnwrap(cache.stdoutLines.first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(lib + " ") && $0.contains("x86-64") }?.components(separatedBy: " => ").last, lib)
            let real = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
            var owner: String?
            for candidate in [path, real, "/usr" + path, "/usr" + real] {
                let s = try Shell.run(["dpkg", "-S", candidate])
                if s.status == 0, let first = s.stdoutLines.first?.split(separator: ":").first { owner = String(first); break }
            }
            packages.insert(try XCTUnwrap(owner, "no package owns \(lib) (\(path))"))
        }
        return packages
    }

    func testDebPackageHoldsTheBinaryDocsExamplesAndUnitsAndDependsOnItsLibraries() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let r = try Packaging.make(["package-deb", "DEB_DIR=" + dir.path, "DEB_BUILD=" + dir.path + "/build", "DEB_COMPRESSION=none"])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        let arch = try Shell.run(["dpkg", "--print-architecture"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let deb = dir.path + "/tributary_\(Tributary.version)_\(arch).deb"
        XCTAssertTrue(FileManager.default.fileExists(atPath: deb), "no \(deb): \(r.stdout)")

        // control: version from the code, Depends = the packages of the NEEDED libraries.
        let control = try Shell.run(["dpkg-deb", "-f", deb, "Package", "Version", "Architecture", "Depends"])
        XCTAssertEqual(control.status, 0, control.stderr)
        var fields: [String: String] = [:]
        for line in control.stdoutLines {
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        XCTAssertEqual(fields["Package"], "tributary")
        XCTAssertEqual(fields["Version"], Tributary.version)
        XCTAssertEqual(fields["Architecture"], arch)
        let depends = try XCTUnwrap(fields["Depends"])
        let dependsNames = Set(depends.components(separatedBy: ", ").map { $0.components(separatedBy: " ").first ?? $0 })
        XCTAssertEqual(dependsNames, try packagesOfNeededLibraries(), depends)
        XCTAssertTrue(dependsNames.isSuperset(of: ["libc6", "libcurl4", "libsqlite3-0", "libssl3"]), depends)
        XCTAssertFalse(depends.contains("swift"), depends)

        // Every entry belongs to root.
        let listing = try Shell.run(["dpkg-deb", "-c", deb])
        XCTAssertEqual(listing.status, 0, listing.stderr)
        for line in listing.stdoutLines { XCTAssertTrue(line.contains(" root/root "), line) }

        // The files, where Debian puts them.
        let x = dir.path + "/x"
        let extract = try Shell.run(["dpkg-deb", "-x", deb, x])
        XCTAssertEqual(extract.status, 0, extract.stderr)
        let doc = "usr/share/doc/tributary/"
        var expected = Set(["usr/bin/tributary", doc + "README.md", doc + "copyright", "usr/share/man/man1/tributary.1.gz",
                            "usr/share/bash-completion/completions/tributary", "usr/share/zsh/vendor-completions/_tributary",
                            "usr/share/fish/vendor_completions.d/tributary.fish"])
        expected.formUnion(Packaging.files(Packaging.root + "/Docs").map { doc + "Docs/" + $0 })
        expected.formUnion(Packaging.exampleFiles.map { doc + "examples/" + $0 })
        expected.formUnion(Packaging.units.map { "lib/systemd/system/" + $0 })
        XCTAssertEqual(Packaging.files(x), expected)
        XCTAssertTrue(FileManager.default.contentsEqual(atPath: x + "/usr/bin/tributary", andPath: BinaryRunner.binary), "the packaged binary is the one tested")
        for u in Packaging.units {
            XCTAssertEqual(try String(contentsOfFile: x + "/lib/systemd/system/" + u, encoding: .utf8), try Packaging.unit(u, bindir: "/usr/bin"), u)
        }
        let copyright = try XCTUnwrap(dir.read("x/" + doc + "copyright"))
        XCTAssertTrue(copyright.hasPrefix(try String(contentsOfFile: Packaging.root + "/Sources-config/debian/copyright", encoding: .utf8)))
        XCTAssertTrue(copyright.contains("Runtime Library Exception to the Apache 2.0 License"), "the toolchain's LICENSE.txt is appended")

        // The packaged demo runs from the package's examples folder and writes nothing there.
        let run = try Shell.run([x + "/usr/bin/tributary", "run", "-c", x + "/" + doc + "examples/demo.json", "--no-state", "--jsonl"], cwd: dir.path, timeout: 120)
        try Demo.checkRun(run, "packaged demo")
        XCTAssertEqual(Packaging.files(x), expected, "the demo wrote into the package's tree")
    }
}
