import Foundation
import TributaryCore
import TributaryPlugins
import TributaryTestSupport
import XCTest

/// One naming rule: a type's name, its folder, its doc page, its example config and its
/// recordings' prefix are the same word. The folder is the type in UpperCamelCase without its
/// separators (`open-meteo` -> `OpenMeteo/`, `youtube.search` -> `YouTubeSearch/`); the one
/// class that cannot follow it is `WebFeedSource` in `Feed/`, since `FeedSource` is the protocol.
final class NamingTests: XCTestCase {
    let root = BinaryRunner.packageRoot

    static func folderWord(_ type: String) -> String { type.filter { $0 != "-" && $0 != "." }.lowercased() }

    func entries(_ path: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: root + "/" + path)) ?? []
    }

    func testEverySourceTypeHasItsFolderDocPageAndExampleUnderItsName() {
        let folders = entries("Sources/TributaryPlugins/Sources").map { $0.lowercased() }
        for d in BuiltinRegistry.standard.sources {
            XCTAssertTrue(folders.contains(Self.folderWord(d.type)), "\(d.type): no folder Sources/TributaryPlugins/Sources/<\(d.type) in UpperCamelCase>")
            XCTAssertTrue(FileManager.default.fileExists(atPath: "\(root)/Docs/sources/\(d.type).md"), "\(d.type): no Docs/sources/\(d.type).md")
            XCTAssertTrue(FileManager.default.fileExists(atPath: "\(root)/Sources-config/examples/\(d.type).json"), "\(d.type): no Sources-config/examples/\(d.type).json")
        }
    }

    func testEverySinkTypeHasItsFolderAndDocPageUnderItsName() {
        let folders = entries("Sources/TributaryPlugins/Sinks").map { $0.lowercased() }
        for d in BuiltinRegistry.standard.sinks {
            XCTAssertTrue(folders.contains(Self.folderWord(d.type)), "\(d.type): no folder Sources/TributaryPlugins/Sinks/<\(d.type) in UpperCamelCase>")
            XCTAssertTrue(FileManager.default.fileExists(atPath: "\(root)/Docs/sinks/\(d.type).md"), "\(d.type): no Docs/sinks/\(d.type).md")
        }
    }

    /// `<type>-<what>.json`: a recording says which source type's requests it answers.
    func testEveryRecordingIsNamedAfterTheSourceTypeItAnswers() {
        let types = BuiltinRegistry.standard.sources.map(\.type).sorted { $0.count > $1.count }
        let recordings = entries("Sources-config/recordings").filter { $0.hasSuffix(".json") }
        XCTAssertFalse(recordings.isEmpty)
        for name in recordings {
            XCTAssertNotNil(types.first { name.hasPrefix($0 + "-") }, "Sources-config/recordings/\(name) does not start with a source type and '-' (\(types.joined(separator: ", ")))")
        }
    }
}
