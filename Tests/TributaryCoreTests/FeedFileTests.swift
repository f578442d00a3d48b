import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import XCTest
@testable import TributaryCore
@testable import TributaryBase
@testable import TributaryJSON
@testable import TributaryOptions
@testable import TributaryHTTP
@testable import TributaryState
@testable import TributaryPostgres
@testable import TributaryPluginKit
import TributaryTestSupport

/// The window merge, the XML reader and `FeedFile`'s choice of where a window comes from.
final class FeedWindowTests: XCTestCase {
    static func item(_ id: String, _ published: Double?, fetched: Double = 1000, title: String? = nil) -> Item {
        var i = Item(id: id, source: "s", type: "json", kind: "entry", title: title ?? id, fetched: Timestamp(seconds: fetched))
        i.published = published.map { Timestamp(seconds: $0) }
        return i
    }

    func ids(_ w: FeedWindow) -> [String] { w.items.map(\.id) }

    func testNewestFirstByPublishedElseFetchedWithStableTies() {
        let w = FeedWindow(maxItems: 10, items: [
            Self.item("a", 100), Self.item("b", nil, fetched: 300), Self.item("c", 200), Self.item("d", 200), Self.item("e", 100),
        ])
        XCTAssertEqual(ids(w), ["b", "c", "d", "a", "e"], "fetched stands in for a missing date; equal times keep arrival order")
    }

    func testMergeReplacesByIdAddsAndCaps() {
        var w = FeedWindow(maxItems: 3, items: [Self.item("a", 100), Self.item("b", 200)])
        w.merge([Self.item("a", 100, title: "a updated"), Self.item("c", 300), Self.item("d", 50)])
        XCTAssertEqual(ids(w), ["c", "b", "a"], "d is the oldest and falls past max_items")
        XCTAssertEqual(w.items.last?.title, "a updated", "an id already there is replaced, never doubled")
        w.merge([Self.item("c", 300), Self.item("c", 400, title: "twice in one batch")])
        XCTAssertEqual(ids(w), ["c", "b", "a"])
        XCTAssertEqual(w.items.first?.title, "twice in one batch", "the later of two equal ids wins")
        XCTAssertEqual(Set(ids(w)).count, w.items.count)
    }

    func testARepeatedIdInTheInitialItemsIsKeptOnce() {
        let w = FeedWindow(maxItems: 5, items: [Self.item("a", 100), Self.item("a", 300), Self.item("b", 200)])
        XCTAssertEqual(ids(w), ["a", "b"])
        XCTAssertEqual(w.items[0].published, Timestamp(seconds: 300))
    }
}

final class XMLReaderTests: XCTestCase {
    func testEscapedTextReadsBackAsWritten() throws {
        let nasty = "Rock & Roll <live> \"q\" 'a' ]]> tab\tCR\rCRLF\r\nLF\n Привет 😀 \u{1}\u{B}\u{FFFE}gone"
        let doc = "<?xml version=\"1.0\"?>\n<!-- c -->\n<r a=\"\(XML.escapeAttribute(nasty))\"><t>\(XML.escape(nasty))</t><e/></r>\n"
        let root = try XML.parse(Array(doc.utf8))
        let kept = "Rock & Roll <live> \"q\" 'a' ]]> tab\tCR\rCRLF\r\nLF\n Привет 😀 gone"
        XCTAssertEqual(root.child("t")?.text, kept, "only what XML 1.0 forbids is dropped")
        XCTAssertEqual(root.attribute("a"), kept, "tab and line ends in attributes survive as references")
        XCTAssertNotNil(root.child("e"))
        XCTAssertTrue(XMLParser(data: Data(doc.utf8)).parse(), "the escaped document is well-formed for libxml2 too")
    }

    func testLineEndsReferencesAndCDATA() throws {
        let root = try XML.parse(Array("\u{FEFF}<r x='a\tb\r\nc'>one\r\ntwo\rthree &#233;&#x1F600;<![CDATA[<raw> & \r\n]]></r>".utf8))
        XCTAssertEqual(root.text, "one\ntwo\nthree é😀<raw> & \n")
        XCTAssertEqual(root.attribute("x"), "a b c")
    }

    func testWhatItRefusesSaysWhereAndWhy() {
        let cases: [(String, String)] = [
            ("<r>\n<a></b></r>", "line 2: </b> closes <a>"),
            ("<r>", "<r> is not closed"),
            ("<r>&nbsp;</r>", "unknown reference &nbsp;"),
            ("<r>&#0;</r>", "unknown reference &#0;"),
            ("<r a='1' a='2'/>", "the attribute a appears twice"),
            ("<!DOCTYPE r [<!ENTITY x 'y'>]><r>&x;</r>", "internal subset"),
            ("<r/><s/>", "an element after the root element"),
            ("text<r/>", "text before the root element"),
            ("", "no root element"),
            ("<r><!-- open", "a comment is not closed"),
        ]
        for (doc, expected) in cases {
            XCTAssertThrowsError(try XML.parse(Array(doc.utf8)), doc) { e in
                XCTAssertTrue("\(e)".contains(expected), "\(doc): \(e)")
            }
        }
        let deep = String(repeating: "<a>", count: 300) + String(repeating: "</a>", count: 300)
        XCTAssertThrowsError(try XML.parse(Array(deep.utf8))) { XCTAssertTrue("\($0)".contains("deeper than 256"), "\($0)") }
    }

    /// Every prefix of a document, and bytes that are not UTF-8, end in a tree or an error:
    /// never a trap.
    func testEveryTruncationEndsInAnErrorNotATrap() {
        let doc = Array("<?xml version=\"1.0\"?><rss><channel><item a=\"&amp;\"><title>x &lt; y</title><![CDATA[z]]><!-- c --></item></channel></rss>".utf8)
        for n in 0..<doc.count { _ = try? XML.parse(Array(doc.prefix(n))) }
        XCTAssertNotNil(try? XML.parse(doc))
        XCTAssertEqual(try XML.parse([0x3C, 0x72, 0x3E, 0xFF, 0xC3, 0x3C, 0x2F, 0x72, 0x3E]).text, "\u{FFFD}\u{FFFD}")
    }
}

/// `FeedFile` with a format of one id per line ("id published-seconds title").
final class FeedFileTests: XCTestCase {
    static let feed = FeedChannel(title: "t", link: "https://e.org/", description: "d")

    struct LinesFormat: FeedFormat {
        static let type = "lines"
        static let documentName = "a lines document"
        func render(_ items: [Item], feed: FeedChannel, now: Timestamp) -> [UInt8] {
            Array(items.map { "\($0.id) \(Int(($0.published ?? $0.fetched).seconds)) \($0.title)\n" }.joined().utf8)
        }
        func readBack(_ bytes: [UInt8]) throws(FeedReadError) -> [Item] {
            try String(decoding: bytes, as: UTF8.self).split(separator: "\n").map { (line: Substring) throws(FeedReadError) -> Item in
                let f = line.split(separator: " ", maxSplits: 2).map(String.init)
                guard f.count == 3, let t = Double(f[1]) else { throw FeedReadError("\"\(line)\" is not a line of ours") }
                var i = FeedFormats.readBackItem(type: "lines", id: f[0], title: f[2], date: Timestamp(seconds: t))
                i.published = i.fetched
                return i
            }
        }
    }

    /// A state's window table in memory, as `Delivery` would hand it over.
    final class Store: Sendable {
        let rows = Locked([String: [[UInt8]]]())
        var context: SinkContext { context() }
        func context(warn: @escaping @Sendable (String) -> Void = { _ in }) -> SinkContext {
            SinkContext(window: SinkWindowStore(load: { key in self.rows.withLock { $0[key] ?? [] } },
                                                save: { key, items in self.rows.withLock { $0[key] = items.map(\.line) } }), warn: warn)
        }
    }

    func item(_ id: String, _ t: Double) -> Item { FeedWindowTests.item(id, t) }

    func testWithoutStateTheFileIsReadBackAndKept() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let path = dir.write("out/feed.txt", "old2 200 Old two\nold1 100 Old one\n")
        let file = FeedFile(format: LinesFormat(), feed: Self.feed, path: path, maxItems: 3)
        try file.open(SinkContext(window: nil))
        XCTAssertEqual(file.items.map(\.id), ["old2", "old1"])
        try file.write([item("new", 300), item("old1", 100)])
        try file.close()
        XCTAssertEqual(dir.read("out/feed.txt"), "new 300 new\nold2 200 Old two\nold1 100 old1\n", "kept, added, the repeated id replaced")
    }

    func testWithoutStateAFileThatIsNotOursFailsOpenAndStaysAsItIs() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let path = dir.write("feed.txt", "a hand-written note\n")
        let file = FeedFile(format: LinesFormat(), feed: Self.feed, path: path, maxItems: 3)
        XCTAssertThrowsError(try file.open(SinkContext(window: nil))) { e in
            XCTAssertEqual("\(e)", "lines: cannot read back \(path): \"a hand-written note\" is not a line of ours; expected a lines document as the lines sink writes it (move the file away, or run with state)")
        }
        XCTAssertEqual(dir.read("feed.txt"), "a hand-written note\n")
        let store = Store()
        let warnings = Locked([String]())
        try file.open(store.context(warn: { m in warnings.withLock { $0.append(m) } }))
        XCTAssertEqual(warnings.withLock { $0.count }, 1, "with state it is a warning: \(warnings.withLock { $0 })")
        try file.write([item("a", 1)])
        XCTAssertEqual(dir.read("feed.txt"), "a 1 a\n")
    }

    func testStateHoldsTheWindowWhenItHasOne() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let path = dir.path + "/feed.txt"
        let store = Store()
        let first = FeedFile(format: LinesFormat(), feed: Self.feed, path: path, maxItems: 5)
        try first.open(store.context)
        try first.write([item("a", 100), item("b", 200)])
        XCTAssertEqual(store.rows.withLock { $0.keys.sorted() }, ["lines:" + path], "the key is <type>:<path>")
        // A run without state adds to the file; state does not see it.
        let look = FeedFile(format: LinesFormat(), feed: Self.feed, path: path, maxItems: 5)
        try look.open(SinkContext(window: nil))
        try look.write([item("c", 300)])
        XCTAssertEqual(dir.read("feed.txt"), "c 300 c\nb 200 b\na 100 a\n")
        // With state again, state's window is the truth.
        let again = FeedFile(format: LinesFormat(), feed: Self.feed, path: path, maxItems: 5)
        try again.open(store.context)
        XCTAssertEqual(again.items.map(\.id), ["b", "a"])
        try again.close()
        XCTAssertEqual(dir.read("feed.txt"), "c 300 c\nb 200 b\na 100 a\n", "nothing new: the file is left as it is")
        try again.write([item("c", 300)])
        XCTAssertEqual(dir.read("feed.txt"), "c 300 c\nb 200 b\na 100 a\n")
        XCTAssertEqual(store.rows.withLock { $0["lines:" + path]?.count }, 3)
    }

    func testAFirstRunWithStateKeepsWhatRunsWithoutStateWrote() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let path = dir.write("feed.txt", "x 50 X\n")
        let file = FeedFile(format: LinesFormat(), feed: Self.feed, path: path, maxItems: 5)
        try file.open(Store().context)
        try file.write([item("y", 60)])
        XCTAssertEqual(dir.read("feed.txt"), "y 60 y\nx 50 X\n")
    }

    func testAFailedWriteLeavesFileAndWindowAsTheyWere() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let file = FeedFile(format: LinesFormat(), feed: Self.feed, path: "/proc/tributary-cannot/feed.txt", maxItems: 5)
        try file.open(SinkContext(window: nil))
        XCTAssertThrowsError(try file.write([item("a", 1)])) { e in
            XCTAssertTrue("\(e)".hasPrefix("lines: cannot create folder /proc/tributary-cannot"), "\(e)")
        }
        XCTAssertEqual(file.items.count, 0)
    }

    func testCloseWritesAMissingFileFromTheWindow() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let path = dir.path + "/feed.txt"
        let file = FeedFile(format: LinesFormat(), feed: Self.feed, path: path, maxItems: 5)
        try file.open(SinkContext(window: nil))
        try file.close()
        XCTAssertEqual(dir.read("feed.txt"), "")
    }
}
