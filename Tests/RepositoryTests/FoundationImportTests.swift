import Foundation
import XCTest
import TributaryTestSupport

/// The binary links FoundationEssentials, not Foundation proper: NSString, CoreFoundation and
/// ICU cost every start about 180 page faults of relocations (Docs/PERFORMANCE.md, "Start-up").
/// In Swift, one `import Foundation` anywhere in a module makes Foundation's String extensions
/// (`range(of:)`, `replacingOccurrences`, ...) what every file of the module calls, so the rule
/// is per module, and the binary itself is checked too.
final class FoundationImportTests: XCTestCase {
    static let binaryModules = ["Sources/TributaryCore", "Sources/TributaryPlugins", "Sources/TributaryJQ", "Sources/TributaryCLI", "Sources/tributary"]

    func testNoModuleOfTheBinaryImportsFoundation() throws {
        let root = BinaryRunner.packageRoot
        var found: [String] = []
        var files = 0
        for dir in Self.binaryModules {
            guard let walker = FileManager.default.enumerator(atPath: root + "/" + dir) else { continue }
            for case let rel as String in walker where rel.hasSuffix(".swift") {
                let text = try String(contentsOfFile: root + "/" + dir + "/" + rel, encoding: .utf8)
                files += 1
                for line in text.split(separator: "\n") where line.hasPrefix("import ") || line.hasPrefix("@_exported import ") || line.hasPrefix("@preconcurrency import ") {
                    let module = line.split(separator: " ").last.map(String.init) ?? ""
                    if ["Foundation", "FoundationNetworking", "FoundationXML", "CoreFoundation"].contains(module) { found.append("\(dir)/\(rel): \(line)") }
                }
            }
        }
        XCTAssertGreaterThan(files, 100, "the scan found the binary's Swift files")
        XCTAssertEqual(found, [], "use FoundationEssentials (and Glibc, Dispatch) instead")
    }

    func testTheBuiltBinaryHasNoCoreFoundation() throws {
        let binary = BinaryRunner.binary
        guard FileManager.default.isExecutableFile(atPath: binary) else { throw XCTSkip("no binary at \(binary)") }
        let nm = Process()
        nm.executableURL = URL(fileURLWithPath: "/usr/bin/nm")
        nm.arguments = ["--defined-only", binary]
        let pipe = Pipe()
        nm.standardOutput = pipe
        nm.standardError = FileHandle.nullDevice
        try nm.run()
        let out = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        nm.waitUntilExit()
        guard nm.terminationStatus == 0, out.contains("tributary_main") else { throw XCTSkip("nm cannot read \(binary)") }
        let linked = out.split(separator: "\n").compactMap { line -> String? in
            guard let name = line.split(separator: " ").last else { return nil }
            return name == "__CFInitialize" || name.hasPrefix("$s10Foundation8NSStringC") || name.hasPrefix("ucol_open") ? String(name) : nil
        }
        XCTAssertEqual(linked, [], "\(binary) links Foundation proper (CoreFoundation, NSString or ICU)")
    }
}
