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
@testable import TributaryPlugins
import TributaryTestSupport

final class SinkTests: XCTestCase {
    func item(_ n: Int, title: String = "Item", published: Double? = nil) -> Item {
        var i = Item(id: "t:\(n)", source: "s", type: "json", kind: "entry", title: "\(title) \(n)", fetched: Timestamp(seconds: 1_795_946_400))
        i.published = published.map { Timestamp(seconds: $0) }
        i.url = "https://e.org/\(n)?a=1&b=2"
        return i
    }

    func testJSONLAppendsWholeLinesAndFsyncs() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let path = dir.path + "/sub/items.jsonl"
        let sink = JSONLSink(path: path)
        try sink.write([item(1), item(2)])
        try sink.close()
        let again = JSONLSink(path: path)
        try again.write([item(3)])
        try again.close()
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 3)
        for l in lines { XCTAssertNoThrow(try JSONParser.parse(String(l))) }
    }

    func testLargeBatchesAreWrittenInChunksOfWholeLines() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let path = dir.path + "/big.jsonl"
        let sink = JSONLSink(path: path)
        let items = (0..<6000).map { n -> Item in
            var i = item(n)
            i.summary = String(repeating: "Длинный текст 长文本 ", count: 20)
            return i
        }
        try sink.write(items)
        try sink.close()
        let data = try XCTUnwrap(FileManager.default.contents(atPath: path))
        XCTAssertGreaterThan(data.count, 3 * FDOutput.chunkSize, "the batch spans several chunks")
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
        XCTAssertEqual(lines.count, 6000)
        for (n, line) in lines.enumerated() where n % 500 == 0 || n == 5999 {
            XCTAssertEqual((try? JSONParser.parse(String(line)))?[path: "id"], .string("t:\(n)"))
        }
    }

    /// The sink keeps its line buffer between batches: each batch starts empty, after a batch
    /// written whole and after one that failed half way (here: past the file size limit).
    func testAJSONLSinkStartsEveryBatchAfresh() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let path = dir.path + "/kept.jsonl"
        let sink = JSONLSink(path: path)
        func big(_ from: Int) -> [Item] {
            (from..<from + 3000).map { n -> Item in
                var i = item(n)
                i.summary = String(repeating: "Длинный текст 长文本 ", count: 20)
                return i
            }
        }
        func ids() throws -> [String] {
            try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { line in
                guard case .string(let id)? = try JSONParser.parse(String(line))[path: "id"] else { return "?" }
                return id
            }
        }
        try sink.write(big(0))
        try sink.write([item(7000)])
        XCTAssertEqual(try ids(), (0..<3000).map { "t:\($0)" } + ["t:7000"])

        // A batch that cannot be written whole: a file size limit 64 KiB above the file's size
        // (write(2) then fails with EFBIG, SIGXFSZ ignored), lifted again after the batch.
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        var saved = rlimit()
        XCTAssertEqual(getrlimit(Int32(RLIMIT_FSIZE.rawValue), &saved), 0)
        let previous = signal(SIGXFSZ, SIG_IGN)
        var limited = saved
        limited.rlim_cur = rlim_t(size + 65536)
        XCTAssertEqual(setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limited), 0)
        XCTAssertThrowsError(try sink.write(big(10000))) { e in XCTAssertTrue("\(e)".contains("cut back"), "\(e)") }
        XCTAssertEqual(setrlimit(Int32(RLIMIT_FSIZE.rawValue), &saved), 0)
        signal(SIGXFSZ, previous)

        try sink.write([item(8000)])
        XCTAssertEqual(try ids(), (0..<3000).map { "t:\($0)" } + ["t:7000", "t:8000"])

        // A line of more than two chunks: the buffer and writer that held it are let go, and
        // the next batch is written by new ones.
        var huge = item(8500)
        huge.summary = String(repeating: "x", count: 3 * FDOutput.chunkSize)
        try sink.write([huge])
        try sink.write([item(9000)])
        try sink.close()
        XCTAssertEqual(try ids(), (0..<3000).map { "t:\($0)" } + ["t:7000", "t:8000", "t:8500", "t:9000"])
    }

    func testJSONLRepairsAPartialLastLine() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let path = dir.write("items.jsonl", "{\"id\":\"a:1\"}\n{\"id\":\"a:2\",\"tit")
        let sink = JSONLSink(path: path)
        try sink.write([item(3)])
        try sink.close()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("{\"id\":\"a:1\"}\n{\"id\":\"t:3\""), text)
        XCTAssertTrue(text.hasSuffix("\n"))
        XCTAssertEqual(text.split(separator: "\n").count, 2)
    }

    func testJSONLTruncateEmptiesEvenWithNothingNew() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let path = dir.write("items.jsonl", "{\"old\":1}\n")
        let sink = JSONLSink(path: path, truncate: true)
        try sink.close()
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "")
    }

    func testJSONLReportsAnUnwritablePath() {
        let sink = JSONLSink(path: "/proc/tributary-cannot/items.jsonl")
        XCTAssertThrowsError(try sink.write([item(1)])) { e in
            XCTAssertTrue("\(e)".contains("/proc/tributary-cannot"), "\(e)")
        }
    }

    func testRSSIsValidXMLNewestFirstAndCapped() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let path = dir.path + "/feed.xml"
        let sink = FeedFile(format: RSSFormat(), feed: FeedChannel(title: "T & <co>", link: "https://e.org/", description: "d"), path: path, maxItems: 2)
        var nasty = item(1, title: "Bad \u{0}\u{1}\u{B}chars & <tags> \"q\" 'a' \u{FFFE} ok — Привет", published: 100)
        nasty.summary = "line1\nline2 ]]> <b>"
        nasty.tags = ["#музыкальный"]
        nasty.image = "https://e.org/i.png?x=1&y=2"
        try sink.write([nasty, item(2, published: 300)])
        try sink.write([item(3, published: 200)])
        try sink.close()
        let data = try XCTUnwrap(FileManager.default.contents(atPath: path))
        let xml = String(decoding: data, as: UTF8.self)
        XCTAssertFalse(xml.contains("\u{0}"))
        XCTAssertFalse(xml.contains("\u{1}"))
        let parser = XMLParser(data: data)
        let collector = TitleCollector()
        parser.delegate = collector
        XCTAssertTrue(parser.parse(), "RSS must be well-formed XML: \(String(describing: parser.parserError))")
        XCTAssertEqual(collector.titles, ["T & <co>", "Item 2", "Item 3"], "channel title, then newest first, capped at 2")
        XCTAssertTrue(xml.contains(#"<guid isPermaLink="false">t:2</guid>"#))
        XCTAssertTrue(xml.contains("<pubDate>Thu, 01 Jan 1970 00:05:00 GMT</pubDate>"))
        // The file is replaced atomically: no temporary file is left behind.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), ["feed.xml"])
    }

    func testRSSKeepsTheModeOfAnExistingFile() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let path = dir.write("feed.xml", "old")
        chmod(path, 0o600)
        let sink = FeedFile(format: RSSFormat(), feed: FeedChannel(title: "t", link: "https://e.org/", description: "d"), path: path, maxItems: 5)
        try sink.write([item(1)])
        try sink.close()
        let attrs = try FileManager.default.attributesOfItem(atPath: path)
        XCTAssertEqual((attrs[.posixPermissions] as? NSNumber)?.intValue, 0o600)
    }

    func testStdoutTextLine() {
        var i = item(7)
        i.title = "Two\nlines\r\nand CRLF\u{1B}[31m red\u{7}"
        let line = BuiltinRegistry.standard.itemLines.line(i)
        XCTAssertTrue(line.hasPrefix("entry    "), line)
        XCTAssertTrue(line.contains("Two lines and CRLF[31m red  https://"), line)
        XCTAssertFalse(line.contains("\r"))
        XCTAssertFalse(line.unicodeScalars.contains { $0.value < 0x20 })
        XCTAssertTrue(line.hasSuffix("https://e.org/7?a=1&b=2"))
        XCTAssertFalse(line.contains("\n"))
    }

    func weatherItem(_ data: [(String, JSONValue)]) -> Item {
        var i = Item(id: "owm:3470127:1795946400", source: "s", type: "openweathermap", kind: "weather", title: "Belo Horizonte: 19.8 °C, light rain", fetched: Timestamp(seconds: 1_795_946_500))
        i.published = Timestamp(seconds: 1_795_946_400)
        i.url = "https://openweathermap.org/city/3470127"
        i.data = JSONObject(data.map { (key: $0.0, value: $0.1) })
        return i
    }

    func testStdoutWeatherLineReadsLikeWeather() {
        let full = weatherItem([
            ("temperature", .double(19.8)), ("humidity", .int(88)), ("pressure", .int(1013)), ("wind_speed", .double(3.6)), ("wind_deg", .int(320)),
            ("units", .string("metric")), ("sunrise", .string("2026-11-29T08:13:00Z")), ("sunset", .string("2026-11-29T21:27:59Z")), ("timezone", .int(-10800)),
        ])
        XCTAssertEqual(BuiltinRegistry.standard.itemLines.line(full), "weather  2026-11-29 07:00  Belo Horizonte: 19.8 °C, light rain, humidity 88%, wind 3.6 m/s NW, sunrise 05:13, sunset 18:27",
                       "times are the place's own (UTC-3), from data.timezone")
        let imperial = weatherItem([("wind_speed", .double(6.91)), ("units", .string("imperial")), ("lang", .string("pt_br")), ("timezone", .int(3600))])
        XCTAssertEqual(BuiltinRegistry.standard.itemLines.line(imperial), "weather  2026-11-29 11:00  Belo Horizonte: 19.8 °C, light rain, wind 6,9 mph")
        let unix = weatherItem([("sunrise", .int(1_795_940_201)), ("sunset", .int(0)), ("timezone", .int(-10800))])
        XCTAssertEqual(BuiltinRegistry.standard.itemLines.line(unix), "weather  2026-11-29 07:00  Belo Horizonte: 19.8 °C, light rain, sunrise 05:16", "unix seconds as a json source maps them")
    }

    /// The sink writes the line the source types registered for an item's kind (handed over in
    /// `SinkContext.lines`), and the standard line for every other kind.
    func testStdoutWritesTheRegisteredLineOfAKind() throws {
        let path = NSTemporaryDirectory() + "stdout-sink-\(UUID().uuidString).txt"
        defer { unlink(path) }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        let weather = weatherItem([("humidity", .int(88)), ("timezone", .int(-10800))])
        let plain = item(7)
        let sink = StdoutSink(format: .text, output: FDOutput(fd: fd))
        try sink.open(SinkContext(window: nil, lines: BuiltinRegistry.standard.itemLines))
        try sink.write([weather, plain])
        let bare = StdoutSink(format: .text, output: FDOutput(fd: fd))
        try bare.open(SinkContext(window: nil))
        try bare.write([weather])
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        XCTAssertEqual(lines, ["weather  2026-11-29 07:00  Belo Horizonte: 19.8 °C, light rain, humidity 88%",
                               ItemLine.standard(plain), ItemLine.standard(weather)])
        XCTAssertTrue(lines[2].hasSuffix("https://openweathermap.org/city/3470127"), "no registered line: the standard one, with the url")
    }

    func testStdoutWeatherLineWithoutDataKeepsOnlyWhatIsThere() {
        var bare = weatherItem([])
        bare.title = "Two\nlines"
        XCTAssertEqual(BuiltinRegistry.standard.itemLines.line(bare), "weather  " + ItemLine.localTime(Timestamp(seconds: 1_795_946_400)) + "  Two lines",
                       "no timezone: this machine's time; no url on a weather line")
        let odd = weatherItem([("humidity", .string("88")), ("sunrise", .string("not a date")), ("timezone", .string("x"))])
        XCTAssertFalse(BuiltinRegistry.standard.itemLines.line(odd).contains("humidity"), "values of the wrong type are left out, never a crash")
        XCTAssertFalse(BuiltinRegistry.standard.itemLines.line(odd).contains("sunrise"))
    }

    func testXMLEscape() {
        XCTAssertEqual(XML.escape("a&b<c>d\"e'f"), "a&amp;b&lt;c&gt;d&quot;e&apos;f")
        XCTAssertEqual(XML.escape("x\u{0}\u{8}\u{1F}\t\n\r\u{FFFF}y😀"), "x\t\n&#13;y😀", "a carriage return is a reference: a literal one reads back as a line feed")
        XCTAssertEqual(XML.escapeAttribute("a\tb\nc\rd"), "a&#9;b&#10;c&#13;d")
    }
}

final class TitleCollector: NSObject, XMLParserDelegate, @unchecked Sendable {
    var titles: [String] = []
    private var current: String?
    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        if name == "title" { current = "" }
    }
    func parser(_ parser: XMLParser, foundCharacters string: String) { current? += string }
    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if name == "title", let c = current { titles.append(c); current = nil }
    }
}
