import Foundation
import XCTest
import TributaryTestSupport

/// The layering rules of Docs/architecture.md, read from the sources: each C module is imported
/// by the one Swift module that wraps it, no plugin uses another plugin's folder, and the
/// command line names no plugin type (it finds them in the registry).
final class LayeringTests: XCTestCase {
    static let root = BinaryRunner.packageRoot + "/Sources"

    /// Every Swift file under `dir` (relative to Sources/), with its text.
    static func files(_ dir: String) throws -> [(path: String, text: String)] {
        guard let walker = FileManager.default.enumerator(atPath: root + "/" + dir) else { return [] }
        var out: [(String, String)] = []
        for case let rel as String in walker where rel.hasSuffix(".swift") {
            out.append((dir + "/" + rel, try String(contentsOfFile: root + "/" + dir + "/" + rel, encoding: .utf8)))
        }
        return out
    }

    /// The code of a file without its comments and the contents of its string literals
    /// (help texts name OPML; comments name other plugins' types when they compare).
    static func code(_ text: String) -> String {
        var out: [Substring] = []
        var inBlock = false
        let literal = try! NSRegularExpression(pattern: #""(?:[^"\\]|\\.)*""#)
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let quotes = line.components(separatedBy: "\"\"\"").count - 1
            if inBlock {
                if quotes % 2 == 1 { inBlock = false }
                continue
            }
            if quotes % 2 == 1 { inBlock = true }
            var l = String(line)
            l = literal.stringByReplacingMatches(in: l, range: NSRange(l.startIndex..., in: l), withTemplate: "\"\"")
            if let c = l.range(of: "//") { l = String(l[..<c.lowerBound]) }
            out.append(Substring(l))
        }
        return out.joined(separator: "\n")
    }

    static func imports(_ text: String) -> [String] {
        text.split(separator: "\n").compactMap { line -> String? in
            let words = line.split(separator: " ")
            guard let i = words.firstIndex(of: "import"), words[..<i].allSatisfy({ $0.hasPrefix("@") || ["internal", "package", "public", "private"].contains($0) }),
                  i + 1 < words.count else { return nil }
            return String(words[i + 1])
        }
    }

    func testEachCModuleIsImportedByTheOneModuleThatWrapsIt() throws {
        let wrappers = ["CCrypto": "TributaryBase", "CSystem": "TributaryBase", "CCurl": "TributaryHTTP", "CPostgres": "TributaryPostgres",
                        "CSQLite": "TributaryState", "CPCRE2": "TributaryCore", "CProcess": "TributaryPluginKit", "CXML": "TributaryPluginKit",
                        "CNATS": "TributaryPlugins", "CJQ": "TributaryJQ", "CBuildInfo": "TributaryCLI"]
        let modules = try FileManager.default.contentsOfDirectory(atPath: Self.root).filter { $0.hasPrefix("Tributary") && $0 != "TributaryTestSupport" }
        var importers: [String: Set<String>] = [:]
        var scanned = 0
        for module in modules {
            for file in try Self.files(module) {
                scanned += 1
                for m in Self.imports(file.text) where m.first == "C" && m.dropFirst().first?.isUppercase == true {
                    importers[m, default: []].insert(module)
                }
            }
        }
        XCTAssertGreaterThan(scanned, 150)
        for (c, wrapper) in wrappers { XCTAssertEqual(importers[c], [wrapper], "\(c) is imported by \(importers[c] ?? [])") }
        XCTAssertEqual(Set(importers.keys).subtracting(wrappers.keys), [], "a C module this test does not know: add it with its wrapper")
        // The package manifest gives each C module to its wrapper only (test targets aside).
        let manifest = try String(contentsOfFile: BinaryRunner.packageRoot + "/Package.swift", encoding: .utf8)
        for line in manifest.split(separator: "\n") where line.contains(".target(name: \"Tributary") {
            let name = line.components(separatedBy: "name: \"")[1].prefix { $0 != "\"" }
            for (c, wrapper) in wrappers where line.contains("\"\(c)\"") {
                XCTAssertEqual(String(name), wrapper, "\(name) depends on \(c), which \(wrapper) wraps")
            }
        }
    }

    func testThePlugInsFoldersUseNoOtherPluginsCode() throws {
        // A type declared in one plugin folder and named in another is a plugin using another.
        let folders = try ["Sources", "Sinks", "Processors"].flatMap { kind in
            try FileManager.default.contentsOfDirectory(atPath: Self.root + "/TributaryPlugins/" + kind).map { "TributaryPlugins/\(kind)/\($0)" }
        }
        var declared: [String: String] = [:]
        var texts: [String: String] = [:]
        let declaration = try NSRegularExpression(pattern: #"^(?:public |package |final |private |fileprivate )*(?:struct|class|enum|protocol|actor) ([A-Z][A-Za-z0-9]+)"#, options: .anchorsMatchLines)
        for folder in folders {
            let text = try Self.files(folder).map { Self.code($0.text) }.joined(separator: "\n")
            texts[folder] = text
            for m in declaration.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                let name = (text as NSString).substring(with: m.range(at: 1))
                declared[name] = declared[name] == nil ? folder : "several"
            }
        }
        XCTAssertGreaterThan(declared.count, 40)
        var uses: [String] = []
        for (name, owner) in declared where owner != "several" {
            let word = try NSRegularExpression(pattern: "\\b\(name)\\b")
            for (folder, text) in texts where folder != owner && word.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil {
                uses.append("\(folder) uses \(name) of \(owner)")
            }
        }
        XCTAssertEqual(uses.sorted(), [])
    }

    func testTheCommandLineNamesNoPluginType() throws {
        let plugins = try Self.files("TributaryPlugins").map(\.text).joined(separator: "\n")
        let declaration = try NSRegularExpression(pattern: #"^(?:public |package |final )*(?:struct|class|enum|protocol) ([A-Z][A-Za-z0-9]+)"#, options: .anchorsMatchLines)
        let names = Set(declaration.matches(in: plugins, range: NSRange(plugins.startIndex..., in: plugins)).map { (plugins as NSString).substring(with: $0.range(at: 1)) })
        XCTAssertTrue(names.isSuperset(of: ["JSONLSink", "ExecSource", "WebFeedSource"]), "the scan found the plugins' types")
        var named: [String] = []
        for file in try Self.files("TributaryCLI") {
            let code = Self.code(file.text)
            for name in names.subtracting(["BuiltinRegistry"]) where code.range(of: "\\b\(name)\\b", options: .regularExpression) != nil {
                named.append("\(file.path): \(name)")
            }
        }
        XCTAssertEqual(named.sorted(), [], "the CLI finds plugins in the registry")
    }
}
