import XCTest
@testable import TributaryCore
@testable import TributaryPlugins

/// The top-level `stories` section: its defaults, its values, and errors with key paths.
final class StoriesConfigTests: XCTestCase {
    let source = #"{"name":"a","type":"json","url":"https://e.org/x","fields":{"title":"t"}}"#

    func load(_ text: String) throws(ConfigError) -> Config {
        try ConfigLoader.load(bytes: Array(text.utf8), file: "tributary.json", directory: "/cfg", registry: BuiltinRegistry.standard, environment: { _ in nil })
    }

    func errors(_ text: String) -> [String] {
        do {
            _ = try load(text)
            XCTFail("expected config errors")
            return []
        } catch {
            return error.messages
        }
    }

    func testNoSectionNoStoriesAndAnEmptyOneHasTheDefaults() throws {
        XCTAssertNil(try load(#"{"sources":[\#(source)]}"#).stories)
        let s = try XCTUnwrap(try load(#"{"stories":{},"sources":[\#(source)]}"#).stories)
        XCTAssertEqual(s, StorySettings(match: [.url, .title], within: 72 * 3600, scope: .all, action: .drop))
    }

    func testTheSectionsValues() throws {
        let s = try XCTUnwrap(try load(#"{"stories":{"match":["title"],"within":"12h","scope":"tags","action":"tag"},"sources":[\#(source)]}"#).stories)
        XCTAssertEqual(s, StorySettings(match: [.title], within: 12 * 3600, scope: .tags, action: .tag))
    }

    func testErrorsNameTheKeyPath() {
        XCTAssertEqual(errors(#"{"stories":{"match":["url","slug"]},"sources":[\#(source)]}"#),
                       [#"tributary.json: (top level).stories.match[1]: expected "url" or "title", found "slug""#])
        XCTAssertEqual(errors(#"{"stories":{"match":[]},"sources":[\#(source)]}"#),
                       [#"tributary.json: (top level).stories.match: expected at least one of "url", "title", found an empty list"#])
        let within = errors(#"{"stories":{"within":"soon"},"sources":[\#(source)]}"#)
        XCTAssertEqual(within.count, 1)
        XCTAssertTrue(within.first?.hasPrefix("tributary.json: (top level).stories.within: ") ?? false, "\(within)")
        let action = errors(#"{"stories":{"action":"delete"},"sources":[\#(source)]}"#)
        XCTAssertTrue(action.first?.hasPrefix("tributary.json: (top level).stories.action: ") ?? false, "\(action)")
        XCTAssertTrue(action.first?.contains(#""drop""#) ?? false, "\(action)")
        let typo = errors(#"{"stories":{"actoin":"tag"},"sources":[\#(source)]}"#)
        XCTAssertEqual(typo, [#"tributary.json: (top level).stories: unknown key "actoin" (did you mean "action"?)"#])
        let scope = errors(#"{"stories":{"scope":"tag"},"sources":[\#(source)]}"#)
        XCTAssertTrue(scope.first?.hasPrefix("tributary.json: (top level).stories.scope: ") ?? false, "\(scope)")
    }
}
