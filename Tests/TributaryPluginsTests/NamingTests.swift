import Foundation
import TributaryCore
import TributaryPlugins
import TributaryTestSupport
import XCTest

/// One naming rule: a type's name, its folder, its doc page, its example config and its
/// recordings' prefix are the same word, and the folder holds them all: its code, its page
/// (`README.md`, naming the Docs/ page `make generate` copies it to), its example config and its
/// recordings (`recordings/`). The folder is the type in UpperCamelCase without its separators
/// (`open-meteo` -> `OpenMeteo/`, `youtube.search` -> `YouTubeSearch/`); the one class that
/// cannot follow it is `WebFeedSource` in `Feed/`, since `FeedSource` is the protocol.
final class NamingTests: XCTestCase {
    let root = BinaryRunner.packageRoot

    static func folderWord(_ type: String) -> String { type.filter { $0 != "-" && $0 != "." }.lowercased() }

    func entries(_ path: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: root + "/" + path)) ?? []
    }

    /// The folder of `type` under `group`, with its page naming `Docs/<kind>/<type>.md`.
    func assertFolder(_ group: String, _ kind: String, _ type: String, example: Bool) {
        let name = entries("Sources/TributaryPlugins/\(group)").first { $0.lowercased() == Self.folderWord(type) }
        guard let name else { return XCTFail("\(type): no folder Sources/TributaryPlugins/\(group)/<\(type) in UpperCamelCase>") }
        let folder = "Sources/TributaryPlugins/\(group)/\(name)"
        let page = (try? String(contentsOfFile: "\(root)/\(folder)/README.md", encoding: .utf8)) ?? ""
        XCTAssertTrue(page.hasPrefix("<!-- page: Docs/\(kind)/\(type).md "), "\(type): \(folder)/README.md must start with <!-- page: Docs/\(kind)/\(type).md ... -->")
        if example { XCTAssertTrue(entries(folder).contains("\(type).json"), "\(type): no \(folder)/\(type).json (its example config)") }
    }

    func testEverySourceTypeHasItsFolderDocPageAndExampleUnderItsName() {
        for d in BuiltinRegistry.standard.sources { assertFolder("Sources", "sources", d.type, example: true) }
    }

    func testEverySinkTypeHasItsFolderAndDocPageUnderItsName() {
        for d in BuiltinRegistry.standard.sinks { assertFolder("Sinks", "sinks", d.type, example: false) }
    }

    func testEveryProcessorTypeHasItsFolderAndDocPageUnderItsName() {
        for d in BuiltinRegistry.standard.processors { assertFolder("Processors", "processors", d.type, example: false) }
    }

    /// A recording lives in the folder of the source type whose requests it answers.
    func testEveryRecordingIsInItsSourcesFolder() {
        for d in BuiltinRegistry.standard.sources {
            guard let name = entries("Sources/TributaryPlugins/Sources").first(where: { $0.lowercased() == Self.folderWord(d.type) }) else { continue }
            for r in entries("Sources/TributaryPlugins/Sources/\(name)/recordings") {
                XCTAssertTrue(r.hasPrefix(d.type + "-"), "Sources/TributaryPlugins/Sources/\(name)/recordings/\(r) does not start with \(d.type)-")
            }
        }
    }

    /// `<type>-<what>.json`: a recording says which source or processor type's requests it
    /// answers (`fulltext-...`: a page the fulltext processor reads).
    func testEveryRecordingIsNamedAfterTheSourceTypeItAnswers() {
        let types = (BuiltinRegistry.standard.sources.map(\.type) + BuiltinRegistry.standard.processors.map(\.type)).sorted { $0.count > $1.count }
        let recordings = entries("Sources-config/recordings").filter { $0.hasSuffix(".json") }
        XCTAssertFalse(recordings.isEmpty)
        for name in recordings {
            XCTAssertNotNil(types.first { name.hasPrefix($0 + "-") }, "Sources-config/recordings/\(name) does not start with a source type and '-' (\(types.joined(separator: ", ")))")
        }
    }
}
