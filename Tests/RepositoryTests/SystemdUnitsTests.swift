import Foundation
import TributaryTestSupport
import XCTest

/// The systemd units in Sources-config/systemd/: systemd accepts them, and
/// Docs/scheduling.md shows exactly them, as `make install` installs them.
final class SystemdUnitsTests: XCTestCase {
    let root = BinaryRunner.packageRoot
    static let units = ["tributary-watch.service", "tributary.service", "tributary.timer"]

    func unit(_ name: String, bindir: String) throws -> String {
        try String(contentsOfFile: root + "/Sources-config/systemd/" + name, encoding: .utf8).replacingOccurrences(of: "@BINDIR@", with: bindir)
    }

    func testSchedulingDocShowsExactlyTheUnitFilesAsMakeInstallInstallsThem() throws {
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: root + "/Sources-config/systemd").sorted(), Self.units)
        let doc = try String(contentsOfFile: root + "/Docs/scheduling.md", encoding: .utf8)
        for u in Self.units {
            let text = try unit(u, bindir: "/usr/local/bin")
            XCTAssertTrue(doc.contains("`\(u)`:\n\n```ini\n" + text + "```\n"), "Docs/scheduling.md does not show \(u) as it is installed")
        }
        XCTAssertEqual(doc.components(separatedBy: "```ini\n").count - 1, Self.units.count, "Docs/scheduling.md shows other unit files than Sources-config/systemd/")
    }

    func testSystemdAcceptsTheUnits() throws {
        let dir = TempDir()
        defer { dir.remove() }
        // The units as installed next to the binary under test (systemd checks ExecStart).
        try FileManager.default.createDirectory(atPath: dir.path + "/bin", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: dir.path + "/bin/tributary", withDestinationPath: BinaryRunner.binary)
        let paths = try Self.units.map { dir.write($0, try unit($0, bindir: dir.path + "/bin")) }
        let r = try Shell.run(["systemd-analyze", "verify", "--man=no"] + paths)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stderr, "", "systemd-analyze verify")
        // It does complain about a broken unit.
        let broken = dir.write("broken.service", try unit("tributary.service", bindir: dir.path + "/bin").replacingOccurrences(of: "Type=oneshot", with: "Type=oneshoot"))
        let b = try Shell.run(["systemd-analyze", "verify", "--man=no", broken])
        XCTAssertTrue(b.stderr.contains("oneshoot"), b.stderr)
    }
}
