import TributaryCore
import TributaryDocs
import TributaryPlugins
import TributaryTestSupport
import XCTest

/// The `hn` source of Docs/writing-a-source.md, registered as a plugin would be, against a
/// loopback server answering as the Algolia API does (no network).
final class HackerNewsSourceTests: XCTestCase {
    let hn = SourceHarness(registry: Registry(sources: BuiltinRegistry.standard.sources + [HackerNewsSource.descriptor],
                                              sinks: BuiltinRegistry.standard.sinks))

    /// The shape of a real `search_by_date` answer (two hits; `_highlightResult` shortened).
    static let algolia = #"""
    {"exhaustive":{"nbHits":false,"typo":false},"exhaustiveNbHits":false,"exhaustiveTypo":false,
     "hits":[
      {"_highlightResult":{"author":{"matchLevel":"none","matchedWords":[],"value":"ann"}},
       "_tags":["story","author_ann","story_42170001"],"author":"ann","children":[42170050],
       "created_at":"2026-11-29T10:00:00Z","created_at_i":1795946400,"num_comments":12,"objectID":"42170001",
       "points":41,"story_id":42170001,"title":"Swift & Rust: what strict concurrency buys","updated_at":"2026-11-29T12:01:13Z",
       "url":"https://example.org/swift-rust"},
      {"_highlightResult":{"author":{"matchLevel":"none","matchedWords":[],"value":"bob"}},
       "_tags":["story","author_bob","story_42169950","ask_hn"],"author":"bob","children":[],
       "created_at":"2026-11-29T08:00:00Z","created_at_i":1795939200,"num_comments":9,"objectID":"42169950",
       "points":7,"story_id":42169950,"title":" ","updated_at":"2026-11-29T09:30:02Z"}
     ],
     "hitsPerPage":2,"nbHits":118,"nbPages":59,"page":0,"params":"query=swift+%26+rust&tags=story&hitsPerPage=2",
     "processingTimeMS":3,"query":"swift & rust","serverTimeMS":5}
    """#

    func testFetchesAndMapsOverHTTP() async throws {
        let server = try LoopbackServer { _ in .text(Self.algolia, contentType: "application/json; charset=utf-8") }
        defer { server.stop() }
        let base = server.url("/api/v1")
        let fetch = try await hn.fetchOverHTTP(#"{"name":"hn-swift","type":"hn","query":"swift & rust","max_results":2,"base_url":"\#(base)/"}"#)
        XCTAssertNil(fetch.error)
        XCTAssertEqual(server.requests.map(\.path), ["/api/v1/search_by_date?query=swift%20%26%20rust&tags=story&hitsPerPage=2"])
        XCTAssertEqual(fetch.items.map(\.id), ["hn:42170001", "hn:42169950"])
        let first = fetch.items[0]
        XCTAssertEqual(first.source, "hn-swift")
        XCTAssertEqual(first.type, "hn")
        XCTAssertEqual(first.title, "Swift & Rust: what strict concurrency buys")
        XCTAssertEqual(first.url, "https://example.org/swift-rust")
        XCTAssertEqual(first.author, "ann")
        XCTAssertEqual(first.published?.rfc3339, "2026-11-29T10:00:00Z")
        XCTAssertEqual(first.data, JSONObject([(key: "points", value: .int(41)), (key: "comments", value: .int(12))]))
        XCTAssertEqual(fetch.items[1].title, "Hacker News item 42169950", "titles are never empty")
        XCTAssertEqual(fetch.items[1].url, "https://news.ycombinator.com/item?id=42169950")
    }

    func testWrongShapeNamesTheURLAndKeyPath() async throws {
        let url = "https://hn.algolia.com/api/v1/search_by_date?query=x&tags=story&hitsPerPage=30"
        let fetch = try await hn.fetch(#"{"name":"hn","type":"hn","query":"x"}"#, [(url, 200, #"{"hits":[{"objectID":"1","title":["not","text"]}]}"#)])
        XCTAssertEqual(fetch.error, "GET \(url): hits[0].title: expected string, found array")
    }

    func testAnHTTPErrorKeepsTheStatus() async throws {
        let url = "https://hn.algolia.com/api/v1/search_by_date?query=x&tags=story&hitsPerPage=30"
        let fetch = try await hn.fetch(#"{"name":"hn","type":"hn","query":"x"}"#, [(url, 400, #"{"message":"Invalid value for hitsPerPage","status":400}"#)])
        XCTAssertEqual(fetch.items, [])
        XCTAssertTrue(fetch.error?.hasPrefix("GET \(url): HTTP 400") == true, fetch.error ?? "no error")
    }

    func testConfigErrors() {
        XCTAssertEqual(hn.configErrors(#"{"name":"hn","type":"hn","query":"  "}"#), [#"t.json: sources[0] ("hn").query: must not be empty"#])
        XCTAssertEqual(hn.configErrors(#"{"name":"hn","type":"hn","query":"x","max_results":0}"#),
                       [#"t.json: sources[0] ("hn").max_results: expected an integer >= 1, found 0"#])
        XCTAssertEqual(hn.configErrors(#"{"name":"hn","type":"hn","query":"x","tags":"job"}"#).count, 1)
    }

    /// The code blocks of Docs/writing-a-source.md that follow a `<!-- worked example: PATH -->`
    /// line are that file, byte for byte: the page shows what this test compiles and runs.
    func testTheDocShowsTheseFiles() throws {
        let page = try String(contentsOfFile: packageRoot + "/Docs/writing-a-source.md", encoding: .utf8)
        let lines = page.components(separatedBy: "\n")
        var shown: [String] = []
        for (i, line) in lines.enumerated() where line.hasPrefix("<!-- worked example: ") {
            let path = String(line.dropFirst("<!-- worked example: ".count).prefix { $0 != " " })
            guard i + 1 < lines.count, lines[i + 1] == "```swift",
                  let close = lines[(i + 2)...].firstIndex(of: "```") else {
                XCTFail("Docs/writing-a-source.md:\(i + 1): a ```swift block must follow the marker of \(path)")
                continue
            }
            let block = lines[(i + 2)..<close].joined(separator: "\n") + "\n"
            let file = try String(contentsOfFile: packageRoot + "/" + path, encoding: .utf8)
            XCTAssertEqual(block, file, "Docs/writing-a-source.md:\(i + 3): the block differs from \(path); paste the file there")
            shown.append(path)
        }
        XCTAssertEqual(shown, ["Sources/TributaryDocs/WorkedExample/HackerNewsSource.swift",
                               "Tests/TributaryPluginsTests/WorkedExample/HackerNewsSourceTests.swift"])
    }
}
