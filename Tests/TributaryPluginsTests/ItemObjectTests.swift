import XCTest
@testable import TributaryCore
@testable import TributaryJSON
@testable import TributaryPluginKit
import TributaryTestSupport

/// A program's item object (a jq program's output, an exec processor's answer) against the item
/// rules: here the page text fields, `content` and `content_html`, which a program may read,
/// set, change or drop like any other string field.
final class ItemObjectTests: XCTestCase {
    static let input: Item = {
        var item = Item(id: "feed:1", source: "blog", type: "feed", kind: "entry", title: "T", fetched: Timestamp(seconds: 1_795_946_400))
        item.summary = "S"
        item.content = "One.\n\nTwo."
        item.contentHTML = "<p>One.</p><p>Two.</p>"
        item.url = "https://e.org/1"
        return item
    }()

    func testAnItemsOwnValueReadsBackAsTheItem() throws {
        let value = Self.input.jsonValue()
        XCTAssertEqual(try ItemObject.read(value, input: Self.input, times: ItemObject.InputTimes(value)), Self.input)
        XCTAssertEqual(try ItemObject.read(json: Self.input.jsonLine(), input: Self.input), Self.input)
        XCTAssertEqual(Array(ItemObject.fields[5...7]), ["summary", "content", "content_html"], "in the contract's order")
    }

    func testAProgramSetsChangesAndDropsThePageText() throws {
        let set = try ItemObject.read(json: Array(#"{"id":"feed:1","title":"T","content":"Set.","content_html":"<p>Set.</p>"}"#.utf8), input: Self.input)
        XCTAssertEqual(set.content, "Set.")
        XCTAssertEqual(set.contentHTML, "<p>Set.</p>")
        let dropped = try ItemObject.read(json: Array(#"{"id":"feed:1","title":"T","content":null}"#.utf8), input: Self.input)
        XCTAssertNil(dropped.content, "null is absent")
        XCTAssertNil(dropped.contentHTML, "a field the object does not have is dropped")
    }

    func testPageTextMustBeAString() {
        for (json, message) in [(#"{"id":"feed:1","title":"T","content":["a"]}"#, "content: expected a string, found an array"),
                                (#"{"id":"feed:1","title":"T","content_html":7}"#, "content_html: expected a string, found the number 7")] {
            XCTAssertThrowsError(try ItemObject.read(json: Array(json.utf8), input: Self.input), json) { error in
                XCTAssertEqual((error as? ItemObjectError)?.message, message)
            }
        }
        XCTAssertThrowsError(try ItemObject.read(json: Array(#"{"id":"feed:1","title":"T","contents":"x"}"#.utf8), input: Self.input)) { error in
            XCTAssertTrue((error as? ItemObjectError)?.message.contains("the fields: id, source, type, kind, title, summary, content, content_html, url,") == true, "\(error)")
        }
    }
}
