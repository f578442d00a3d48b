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

/// The `json` source and the engine, in process, answered by the replay transport.
final class JSONSourceTests: XCTestCase {
    struct Run {
        let report: RunReport
        let items: [Item]
    }

    func run(_ config: String, recordings: [(String, Int, String)]) async throws -> Run {
        let dir = TempDir()
        defer { dir.remove() }
        EngineHarness.record(dir, recordings.map { (url: $0.0, status: $0.1, body: $0.2) })
        let outcome = try await EngineHarness.run(config: config, registry: BuiltinRegistry.standard, transport: try ReplayTransport(directory: dir.path), directory: dir.path)
        return Run(report: outcome.report, items: outcome.items)
    }

    let gdata = #"""
    {"version":"1.0","encoding":"UTF-8","feed":{"entry":[
      {"id":{"$t":"http://gdata.youtube.com/feeds/api/videos/dQw4w9WgXcQ"},"published":{"$t":"2013-05-01T10:00:00.000Z"},
       "title":{"$t":"Rock &amp; Roll","type":"text"},"content":{"$t":"First\nline","type":"text"},
       "link":[{"rel":"alternate","href":"https://www.youtube.com/watch?v=dQw4w9WgXcQ"}],"author":[{"name":{"$t":"Rick"}}]},
      {"id":{"$t":"http://gdata.youtube.com/feeds/api/videos/xyz"},"published":{"$t":"2013-05-02T10:00:00.000+02:00"},
       "title":{"$t":"Музыка"},"link":[{"href":"/watch?v=xyz"}]}
    ]}}
    """#

    func testLegacyGdataShape() async throws {
        let r = try await run(#"""
        {"sources":[{"name":"gd","type":"json","url":"https://gdata.youtube.com/feeds/api/videos?q=x","items":"feed.entry","kind":"video","id_prefix":"gdata",
          "fields":{"id":"id.$t","title":"title.$t","summary":"content.$t","url":"link[0].href","published":"published.$t","author":"author[0].name.$t"}}]}
        """#, recordings: [("https://gdata.youtube.com/feeds/api/videos?q=x", 200, gdata)])
        XCTAssertEqual(r.report.exitCode, 0)
        XCTAssertEqual(r.items.count, 2)
        XCTAssertEqual(r.items[0].id, "gdata:http://gdata.youtube.com/feeds/api/videos/dQw4w9WgXcQ")
        XCTAssertEqual(r.items[0].title, "Rock &amp; Roll")
        XCTAssertEqual(r.items[0].summary, "First\nline")
        XCTAssertEqual(r.items[0].author, "Rick")
        XCTAssertEqual(r.items[0].kind, "video")
        XCTAssertEqual(r.items[0].published?.rfc3339, "2013-05-01T10:00:00Z")
        XCTAssertEqual(r.items[1].published?.rfc3339, "2013-05-02T08:00:00Z")
        XCTAssertEqual(r.items[1].url, "https://gdata.youtube.com/watch?v=xyz", "relative links resolve against the request URL")
        XCTAssertEqual(r.items[1].title, "Музыка")
    }

    func testTokenPaginationAndQueryEncoding() async throws {
        let base = "https://api.example.org/search?q=Rock%20%26%20Roll&price=10%E2%82%AC"
        let r = try await run(#"""
        {"sources":[{"name":"p","type":"json","url":"https://api.example.org/search","query":{"q":"Rock & Roll","price":"10€"},"items":"items",
          "fields":{"id":"id","title":"t"},"pagination":{"next_token":"next","token_param":"page","max_pages":5}}]}
        """#, recordings: [
            (base, 200, #"{"items":[{"id":1,"t":"a"}],"next":"P2"}"#),
            (base + "&page=P2", 200, #"{"items":[{"id":2,"t":"b"}],"next":"P3"}"#),
            (base + "&page=P3", 200, #"{"items":[{"id":3,"t":"c"}]}"#),
        ])
        XCTAssertEqual(r.report.exitCode, 0, "\(r.report.sources)")
        XCTAssertEqual(r.items.map(\.id), ["p:1", "p:2", "p:3"])
    }

    func testNextURLPaginationStopsAtThePageCap() async throws {
        let r = try await run(#"""
        {"sources":[{"name":"p","type":"json","url":"https://e.org/1","items":"data","fields":{"id":"id","title":"id"},"pagination":{"next_url":"links.next","max_pages":2}}]}
        """#, recordings: [
            ("https://e.org/1", 200, #"{"data":[{"id":"a"}],"links":{"next":"/2"}}"#),
            ("https://e.org/2", 200, #"{"data":[{"id":"b"}],"links":{"next":"/3"}}"#),
        ])
        XCTAssertEqual(r.report.exitCode, 0, "\(r.report.sources)")
        XCTAssertEqual(r.items.map(\.id), ["p:a", "p:b"])
    }

    func testWrongTypeNamesTheKeyPathAndKeepsEarlierItems() async throws {
        let r = try await run(#"""
        {"sources":[{"name":"v","type":"json","url":"https://e.org/s?key=SECRET","items":"items","fields":{"id":"id.videoId","title":"snippet.title"}}]}
        """#, recordings: [("https://e.org/s?key=SECRET", 200, #"{"items":[{"id":{"videoId":"a"},"snippet":{"title":"ok"}},{"id":{"videoId":"b"}},{"id":{"videoId":"c"}},{"id":{"videoId":"d"},"snippet":{"title":{"x":1}}}]}"#)])
        XCTAssertEqual(r.report.exitCode, 1)
        guard case .failed(let reason) = r.report.sources[0].status else { return XCTFail("should fail") }
        XCTAssertEqual(reason, "GET https://e.org/s?key=***: items[3].snippet.title: expected string or number, found object")
        XCTAssertFalse(reason.contains("SECRET"))
        XCTAssertEqual(r.items.map(\.id), [], "an item error fails the page; nothing half-mapped is delivered")
    }

    func testBadBodiesAreReadableErrors() async throws {
        let cases: [(String, Int, String, String)] = [
            ("https://e.org/html", 200, "<!DOCTYPE html><html><body>Login</body></html>", "got an HTML page, expected JSON"),
            ("https://e.org/empty", 200, "", "empty response body, expected JSON"),
            ("https://e.org/trunc", 200, #"{"items":[{"id":1"#, "invalid JSON at 1:18: unexpected end of input"),
            ("https://e.org/notarray", 200, #"{"items":"nope"}"#, "items: expected array of items, found string"),
            ("https://e.org/typo", 200, #"{"itmes":[]}"#, "items: missing, expected array of items (check the \"items\" key path)"),
            ("https://e.org/403", 403, #"{"error":{"code":403,"message":"quota exceeded"}}"#, #"HTTP 403 Forbidden: {"error":{"code":403,"message":"quota exceeded"}}"#),
        ]
        for (url, status, body, expected) in cases {
            let r = try await run(#"{"sources":[{"name":"x","type":"json","url":"\#(url)","items":"items","fields":{"id":"id","title":"id"}}]}"#, recordings: [(url, status, body)])
            guard case .failed(let reason)? = r.report.sources.first?.status else { XCTFail("\(url) should fail"); continue }
            XCTAssertTrue(reason.contains(expected), "\(url): \(reason)")
            XCTAssertTrue(reason.contains(url), "\(url): \(reason)")
        }
    }

    func testOneFailingSourceDoesNotStopTheOthersAndDuplicatesAreDropped() async throws {
        let r = try await run(#"""
        {"sources":[
          {"name":"a","type":"json","url":"https://e.org/a","fields":{"id":"id","title":"t"},"id_prefix":"same"},
          {"name":"b","type":"json","url":"https://e.org/b","fields":{"id":"id","title":"t"},"id_prefix":"same"},
          {"name":"c","type":"json","url":"https://e.org/missing","fields":{"id":"id","title":"t"}},
          {"name":"d","type":"json","url":"https://e.org/d","fields":{"id":"id","title":"t"},"max_items":2}
        ]}
        """#, recordings: [
            ("https://e.org/a", 200, #"[{"id":1,"t":"one"},{"id":2,"t":"two"},{"id":1,"t":"one again"}]"#),
            ("https://e.org/b", 200, #"[{"id":2,"t":"two"},{"id":3,"t":"three"}]"#),
            ("https://e.org/d", 200, #"[{"id":1,"t":"x"},{"id":2,"t":"y"},{"id":3,"t":"z"}]"#),
        ])
        XCTAssertEqual(r.report.exitCode, 1)
        XCTAssertEqual(Set(r.items.map(\.id)), ["same:1", "same:2", "same:3", "d:1", "d:2"])
        XCTAssertEqual(r.items.count, 5, "each id once per run")
        let c = r.report.sources.first { $0.name == "c" }!
        XCTAssertEqual(c.status, .failed("no recording for GET https://e.org/missing"))
        XCTAssertEqual(r.report.sources.map(\.name), ["a", "b", "c", "d"], "summary in config order")
    }

    func testManyFailedURLsAreSummarisedNotListedInFull() async throws {
        let urls = (1...6).map { "\"https://e.org/u\($0)\"" }.joined(separator: ",")
        let r = try await run(#"{"sources":[{"name":"m","type":"json","urls":[\#(urls)],"fields":{"id":"id","title":"id"}}]}"#,
                        recordings: [("https://e.org/u1", 200, #"[{"id":"a"}]"#)])
        guard case .failed(let reason) = r.report.sources[0].status else { return XCTFail() }
        XCTAssertTrue(reason.hasPrefix("5 of 6 URLs failed: no recording for GET https://e.org/u2; "), reason)
        XCTAssertTrue(reason.hasSuffix("; and 2 more"), reason)
        XCTAssertEqual(r.items.map(\.id), ["m:a"], "the URL that worked is still delivered")
    }

    func testFieldsFallbacksTagsGeoDataAndDates() async throws {
        let r = try await run(#"""
        {"sources":[{"name":"f","type":"json","url":"https://e.org/f","items":"list","kind":"business",
          "fields":{"id":"key","title":"name","summary":"desc","url":"u","tags":"tags","lat":"pos.lat","lon":"pos.lon","published":"ts","published_format":"unix",
                    "data":{"rating":"r","locked":"isLocked","nested":"n","label":"lbl","gone":"nothing"}}}]}
        """#, recordings: [("https://e.org/f", 200, #"""
        {"list":[
          {"key":77777,"name":"  Первый канал \n","tags":["#музыкальный","#новости"],"pos":{"lat":"55.75","lon":37.61},"ts":1456536694,"r":4.5,"isLocked":false,"n":{"a":[1,2]},"lbl":"  kept as it is, \u00e9 \n","nothing":null},
          {"key":"k2","desc":"only a summary here","tags":"single","ts":null,"u":"ftp://not-http"}
        ]}
        """#)])
        XCTAssertEqual(r.report.exitCode, 0, "\(r.report.sources)")
        let a = r.items[0], b = r.items[1]
        XCTAssertEqual(a.id, "f:77777")
        XCTAssertEqual(a.title, "Первый канал")
        XCTAssertEqual(a.tags, ["#музыкальный", "#новости"])
        XCTAssertEqual(a.geo, Geo(lat: 55.75, lon: 37.61))
        XCTAssertEqual(a.published?.rfc3339, "2016-02-27T01:31:34Z")
        XCTAssertEqual(String(decoding: JSONWriter.serialize(.object(a.data)), as: UTF8.self), #"{"rating":4.5,"locked":false,"nested":{"a":[1,2]},"label":"  kept as it is, é \n"}"#, "a string is kept as it is; null is left out")
        XCTAssertEqual(b.title, "only a summary here", "title falls back to the summary")
        XCTAssertEqual(b.tags, ["single"])
        XCTAssertNil(b.url, "non-http links are dropped")
        XCTAssertNil(b.published)
    }

    /// `published` as `auto` reads every form, whether the RFC 3339 time is read from the page's
    /// bytes (plain) or goes through the general parse (white space around it, an escape in it,
    /// RFC 822, unix seconds and milliseconds as numbers or digit strings); `rfc3339` and
    /// `rfc822` read theirs, and `rfc822` does not take an RFC 3339 time.
    func testDateFormsReadTheSameOnEveryPath() async throws {
        let body = #"""
        [{"id":"1","t":"2024-01-02T03:04:05Z"},{"id":"2","t":"2024-01-02T05:04:05.5+02:00"},{"id":"3","t":" 2024-01-02T03:04:05Z "},
         {"id":"4","t":"2024-01-02T03:04:05\u005A"},{"id":"5","t":"Tue, 02 Jan 2024 03:04:05 GMT"},{"id":"6","t":"1704164645"},
         {"id":"7","t":1704164645},{"id":"8","t":"1704164645000"},{"id":"9","t":"2024-01-02"}]
        """#
        let forms: [(String, [String?])] = [("auto", ["03:04:05", "03:04:05", "03:04:05", "03:04:05", "03:04:05", "03:04:05", "03:04:05", "03:04:05", "00:00:00"]),
                                   ("rfc3339", [])]
        for (format, expected) in forms {
            let r = try await run(#"{"sources":[{"name":"d","type":"json","url":"https://e.org/d","fields":{"id":"id","title":"id","published":"t","published_format":"\#(format)"}}]}"#,
                                  recordings: [("https://e.org/d", 200, body)])
            if format == "rfc3339" {
                guard case .failed(let reason) = r.report.sources[0].status else { return XCTFail("\(r.report.sources)") }
                XCTAssertTrue(reason.hasSuffix(#"[2].t: expected a date (rfc3339), found " 2024-01-02T03:04:05Z ""#), reason)
                continue
            }
            XCTAssertEqual(r.report.exitCode, 0, "\(r.report.sources)")
            XCTAssertEqual(r.items.map { $0.published.map { String($0.rfc3339.dropFirst(11).prefix(8)) } }, expected, format)
            XCTAssertEqual(r.items.map { $0.published?.rfc3339.prefix(10) }, Array(repeating: "2024-01-02", count: 9), format)
        }
    }

    func testBadDateIsAnErrorWithThePath() async throws {
        let r = try await run(#"{"sources":[{"name":"d","type":"json","url":"https://e.org/d","fields":{"id":"id","title":"id","published":"when"}}]}"#,
                        recordings: [("https://e.org/d", 200, #"[{"id":"a","when":"yesterday"}]"#)])
        guard case .failed(let reason) = r.report.sources[0].status else { return XCTFail() }
        XCTAssertTrue(reason.hasSuffix(#"[0].when: expected a date (auto), found "yesterday""#), reason)
    }
}
