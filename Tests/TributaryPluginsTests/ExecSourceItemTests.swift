import XCTest
@testable import TributaryCore
@testable import TributaryJSON
@testable import TributaryPlugins
import TributaryTestSupport

/// The `exec` source's lines take every item field of the contract, the page text too.
final class ExecSourceItemTests: XCTestCase {
    func testAPrintedItemMayCarryPageText() async throws {
        let line = #"{"id":"x:1","title":"T","summary":"S","content":"One.\n\nTwo.","content_html":"<p>One.</p><p>Two.</p>"}"#
        let quoted = String(decoding: JSONWriter.serialize(.string(line)), as: UTF8.self)
        let configured = try plugins.configure(#"{"name":"p","type":"exec","command":["printf","%s\\n",\#(quoted)]}"#)
        let r = await plugins.fetch(configured, transport: CannedTransport(status: 404, body: ""))
        XCTAssertNil(r.error)
        let item = try XCTUnwrap(r.items.first)
        XCTAssertEqual(item.content, "One.\n\nTwo.")
        XCTAssertEqual(item.contentHTML, "<p>One.</p><p>Two.</p>")
        XCTAssertEqual(item.summary, "S")
    }

    func testPageTextMustBeAString() async throws {
        let line = #"{"id":"x:1","title":"T","content_html":["<p>"]}"#
        let quoted = String(decoding: JSONWriter.serialize(.string(line)), as: UTF8.self)
        let configured = try plugins.configure(#"{"name":"p","type":"exec","command":["printf","%s\\n",\#(quoted)]}"#)
        let r = await plugins.fetch(configured, transport: CannedTransport(status: 404, body: ""))
        XCTAssertEqual(r.items.count, 0)
        XCTAssertTrue(r.error?.contains("content_html") == true, "\(String(describing: r.error))")
    }
}
