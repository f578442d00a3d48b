import Foundation
import XCTest
@testable import TributaryCore
@testable import TributaryBase
@testable import TributaryJSON
@testable import TributaryOptions
@testable import TributaryHTTP
@testable import TributaryState
@testable import TributaryPostgres
@testable import TributaryPluginKit
@testable import TributaryPlugins
import TributaryTestSupport
internal import CXML

/// The feed source's XML side (libxml2's push parser through XMLStreamParser, FeedStreamBuilder):
/// the inputs that crashed FoundationXML, hostile documents (entities, external DTDs, depth),
/// and dates that do not exist.
final class FeedXMLTests: XCTestCase {
    static let base = "https://feeds.example.org/feed"

    static func regression(_ name: String) throws -> [UInt8] {
        Array(try XCTUnwrap(FileManager.default.contents(atPath: packageRoot + "/Fuzz/regressions/feed-xml/" + name), name))
    }

    func parse(_ xml: String, extraOptions: Int32 = 0) throws(FeedFormatError) -> FeedDocument {
        let reader = try FeedBodyReader(Array(xml.utf8), url: Self.base, contentType: "application/rss+xml", extraXMLOptions: extraOptions)
        var entries: [FeedEntry] = []
        while let next = try reader.next(max: 100) { entries += next }
        return FeedDocument(format: reader.format, title: reader.title, entries: entries, feedAuthor: reader.feedAuthor, warnings: reader.warnings)
    }

    func error(_ xml: String, extraOptions: Int32 = 0) -> String? {
        do { _ = try parse(xml, extraOptions: extraOptions) } catch { return error.message }
        return nil
    }

    static func rss(_ items: String, prolog: String = #"<?xml version="1.0"?>"#) -> String {
        prolog + "<rss version=\"2.0\"><channel><title>T</title>" + items + "</channel></rss>"
    }

    // MARK: the fuzz findings (Fuzz/regressions/feed-xml)

    /// `<?r?>`: FoundationXML's strlen of a NULL instruction crashed the process; now a
    /// document without a root element, said so.
    func testProcessingInstructionOnlyIsAnErrorNotACrash() throws {
        let body = try Self.regression("processing-instruction-only")
        XCTAssertEqual(body, Array("<?r?>".utf8))
        XCTAssertThrowsError(try WebFeedSource.parse(body, baseURL: Self.base)) { e in
            let m = (e as! FeedFormatError).message
            XCTAssertTrue(m.hasPrefix("malformed XML at line 1"), m)
        }
        // The instruction is harmless in a real feed.
        let doc = try parse(Self.rss("<?r?><item><title>a</title><?x?></item>"))
        XCTAssertEqual(doc.entries.map(\.title), ["a"])
    }

    /// `encoding="UTF-.8"` and NUL bytes before the root: FoundationXML went on parsing with the
    /// context abortParsing had freed. Both are errors with a position now.
    func testUnknownEncodingAndNULBytesAreErrors() throws {
        for name in ["unknown-encoding-name", "nul-bytes-before-element"] {
            XCTAssertThrowsError(try WebFeedSource.parse(try Self.regression(name), baseURL: Self.base), name) { e in
                let m = (e as! FeedFormatError).message
                XCTAssertTrue(m.hasPrefix("malformed XML at line 1") || m.hasPrefix("not an RSS, Atom or JSON feed"), "\(name): \(m)")
            }
        }
        // Without the junk after it, the name alone is no problem: libxml2 hands names to ICU,
        // whose converter names ignore punctuation ("UTF-.8" is UTF-8). A name nobody knows is
        // an error.
        XCTAssertNil(error(Self.rss("<item><title>é</title></item>", prolog: #"<?xml version="1.0" encoding="UTF-.8"?>"#)))
        let unknown = error(Self.rss("", prolog: #"<?xml version="1.0" encoding="x-no-such-encoding"?>"#))
        XCTAssertTrue(unknown?.contains("unsupported character encoding") == true, unknown ?? "no error")
    }

    /// 100,000 nested elements in a description: read without recursion per level (a thread
    /// with a 256 KiB stack would overflow on any), the item whole.
    func testHundredThousandNestedElementsOnASmallStack() throws {
        let body = try Self.regression("nested-100000-elements")
        XCTAssertGreaterThan(body.count(where: { $0 == UInt8(ascii: "<") }), 2 * 100_000, "the fixture nests 100,000 <a>")
        let box = Locked<Result<FeedDocument, FeedFormatError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            box.withLock { $0 = Result { () throws(FeedFormatError) in try WebFeedSource.parse(body, baseURL: Self.base) } }
            done.signal()
        }
        thread.stackSize = 256 << 10
        thread.start()
        XCTAssertEqual(done.wait(timeout: .now() + 600), .success, "bounded: sanitizer builds run this 20 to 40 times slower")
        let doc = try XCTUnwrap(box.withLock { $0 }).get()
        XCTAssertEqual(doc.entries.count, 1)
        XCTAssertEqual(doc.entries[0].title, "deep")

        // Text at the bottom of the nesting is kept (as the markup's text).
        let deep = String(repeating: "<b>", count: 100_000) + "bottom" + String(repeating: "</b>", count: 100_000)
        let doc2 = try parse(Self.rss("<item><title>t</title><description>" + deep + "</description></item>"))
        XCTAssertEqual(doc2.entries.first?.summary, "bottom")
    }

    // MARK: entities

    func testInternalEntitiesExpandInTextAndAttributes() throws {
        let doc = try parse(#"""
        <?xml version="1.0"?>
        <!DOCTYPE rss [
          <!ENTITY co "Example &amp; Co">
          <!ENTITY who "&co; (&#233;diteur)">
          <!ENTITY host "img.example.org">
        ]>
        <rss version="2.0"><channel><title>&who;</title>
        <item><title>News from &who;</title><link>https://e.org/?a=1&amp;b=2</link>
        <enclosure url="https://&host;/x.png?a=1&amp;b=&#50;" type="image/png" length="1"/></item>
        </channel></rss>
        """#)
        XCTAssertEqual(doc.title, "Example & Co (éditeur)")
        XCTAssertEqual(doc.entries.first?.title, "News from Example & Co (éditeur)")
        XCTAssertEqual(doc.entries.first?.url, "https://e.org/?a=1&b=2")
        XCTAssertEqual(doc.entries.first?.image, "https://img.example.org/x.png?a=1&b=2", "entity and references in an attribute expanded")
    }

    /// Billion laughs (10 levels of 10): refused once the text passes the document's size or
    /// 1 MiB, whichever is more, quickly and without the memory.
    func testBillionLaughsIsRefused() throws {
        var dtd = #"<!ENTITY lol0 "lol">"#
        for i in 1...9 { dtd += "<!ENTITY lol\(i) \"" + String(repeating: "&lol\(i - 1);", count: 10) + "\">" }
        let xml = "<?xml version=\"1.0\"?><!DOCTYPE rss [" + dtd + "]>" + Self.rss("<item><title>&lol9;</title></item>", prolog: "")
        for (name, extra) in [("default", Int32(0)), ("with NOENT", Int32(XML_PARSE_NOENT.rawValue))] {
            let (m, cpu) = ThreadCPU.measure { error(xml, extraOptions: extra) }
            XCTAssertTrue(m?.hasPrefix("XML refused at line 1") == true && m?.contains("entities expanded too much") == true, "\(name): \(m ?? "no error")")
            XCTAssertLessThan(cpu, 5, "\(name): CPU seconds")
        }
        // Same entities in an attribute.
        let attr = "<?xml version=\"1.0\"?><!DOCTYPE rss [" + dtd + "]>" + Self.rss("<item><title>t</title><enclosure url=\"&lol9;\"/></item>", prolog: "")
        XCTAssertEqual(error(attr)?.contains("entities expanded too much"), true)
        // A self-reference is an error, not a loop.
        XCTAssertEqual(error(#"<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY a "x&b;"><!ENTITY b "&a;">]>"# + Self.rss("<item><title>&a;</title></item>", prolog: ""))?.contains("refers to itself"), true)
    }

    /// External entities and DTDs: never fetched, whatever the URL (a loopback server that
    /// counts requests, a local file), even with the options that make libxml2 load them.
    func testExternalEntitiesAndDTDsAreNeverLoaded() throws {
        let server = try LoopbackServer { _ in .text("<!ENTITY leak \"LEAKED\">", contentType: "application/xml-dtd") }
        defer { server.stop() }
        let secret = TempDir()
        defer { secret.remove() }
        let file = secret.path + "/secret.txt"
        try "TOP SECRET".write(toFile: file, atomically: true, encoding: .utf8)
        let xml = """
        <?xml version="1.0"?>
        <!DOCTYPE rss SYSTEM "\(server.url("/rss.dtd"))" [
          <!ENTITY file SYSTEM "file://\(file)">
          <!ENTITY web SYSTEM "\(server.url("/entity"))">
          <!ENTITY % param SYSTEM "\(server.url("/param"))">
          %param;
        ]>
        <rss version="2.0"><channel><title>T</title>
        <item><title>a &file; b &web; c</title><description>&leak;</description></item>
        </channel></rss>
        """
        let loadsBefore = XMLLibrary.refusedLoads.withLock { $0.count }
        for extra in [Int32(0), Int32(XML_PARSE_NOENT.rawValue | XML_PARSE_DTDLOAD.rawValue | XML_PARSE_DTDATTR.rawValue)] {
            let doc = try parse(xml, extraOptions: extra)
            XCTAssertEqual(doc.entries.first?.title, "a &file; b &web; c", "external entities kept as written")
            XCTAssertFalse(doc.entries.contains { ($0.summary ?? "").contains("LEAKED") || ($0.title ?? "").contains("SECRET") })
            XCTAssertTrue(doc.warnings.contains { $0.contains("external entities are never fetched") }, "\(doc.warnings)")
        }
        XCTAssertEqual(server.requestCount, 0, "nothing was fetched: \(server.requests.map(\.path))")
        XCTAssertEqual(XMLLibrary.refusedLoads.withLock { $0.count }, loadsBefore, "libxml2 never even asked the entity loader")
    }

    // MARK: streaming

    /// A feed of 1,234 items arrives in batches of 500, in order, every item once.
    func testLargeFeedsAreEmittedInBatches() async throws {
        var items = ""
        for i in 0..<1234 { items += "<item><guid>g\(i)</guid><title>item \(i)</title></item>" }
        let url = "https://big.example.org/rss"
        let r = try await plugins.fetch(#"{"name":"f","type":"feed","url":"\#(url)"}"#,
                                        responses: [CannedResponse(url: url, status: 200, headers: [("Content-Type", "application/rss+xml")], body: Array(Self.rss(items).utf8))])
        XCTAssertNil(r.error)
        XCTAssertEqual(r.batches.map(\.count), [500, 500, 234])
        XCTAssertEqual(r.items.map(\.title), (0..<1234).map { "item \($0)" })
    }

    // MARK: dates

    /// Zone names are read; dates that do not exist leave the item without a date and say so,
    /// instead of rolling over into the next month or day.
    func testZoneNamesAreReadAndImpossibleDatesLeftOut() async throws {
        let dates = ["Sun, 29 Nov 2026 11:00:00 CET", "Sun, 29 Jun 2025 12:00:00 CEST", "Sun, 29 Jun 2025 11:00:00 BST",
                     "Sun, 29 Nov 2026 05:00:00 EST", "Sun, 29 Jun 2025 03:00:00 PDT",
                     "Tue, 31 Feb 2026 10:00:00 GMT", "Sun, 29 Nov 2026 25:00:00 GMT", "Sun, 29 Nov 2026 10:60:00 GMT", "2026-02-29T10:00:00Z"]
        let items = dates.enumerated().map { "<item><guid>g\($0.offset)</guid><title>t</title><pubDate>\($0.element)</pubDate></item>" }.joined()
        let url = "https://dates.example.org/rss"
        let r = try await plugins.fetch(#"{"name":"f","type":"feed","url":"\#(url)"}"#,
                                        responses: [CannedResponse(url: url, status: 200, headers: [("Content-Type", "application/rss+xml")], body: Array(Self.rss(items).utf8))])
        XCTAssertNil(r.error)
        XCTAssertEqual(r.items.map { $0.published?.rfc3339 }, [
            "2026-11-29T10:00:00Z", "2025-06-29T10:00:00Z", "2025-06-29T10:00:00Z", "2026-11-29T10:00:00Z", "2025-06-29T10:00:00Z",
            nil, nil, nil, nil,
        ])
        XCTAssertTrue(r.warnings.contains(#"GET \#(url): 4 dates in no known format, left out (e.g. "Tue, 31 Feb 2026 10:00:00 GMT")"#), "\(r.warnings)")
    }
}
