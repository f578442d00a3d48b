import Foundation
import XCTest
import TributaryCore
import TributaryTestSupport

/// `tributary run` with `youtube.search` sources against a loopback server that behaves like the
/// YouTube Data API: pages by `pageToken`, checks the key, and answers quota and key errors with
/// the API's own error bodies.
final class YouTubeSearchEndToEndTests: XCTestCase {
    static let secret = "AIzaSyE2E-S3CRET_value_42"

    static func fixture(_ name: String) -> String {
        String(decoding: FileManager.default.contents(atPath: BinaryRunner.packageRoot + "/Tests/Fixtures/youtube.search/" + name) ?? Data(), as: UTF8.self)
    }

    static func result(_ kind: String, _ id: String, _ title: String) -> String {
        let key = ["video": "videoId", "channel": "channelId", "playlist": "playlistId"][kind]!
        return #"{"kind":"youtube#searchResult","id":{"kind":"youtube#\#(kind)","\#(key)":"\#(id)"},"snippet":{"publishedAt":"2026-11-29T10:00:00Z","channelId":"UCx","title":"\#(title)","description":"d","thumbnails":{"high":{"url":"https://i.ytimg.com/vi/\#(id)/hqdefault.jpg"}},"channelTitle":"C &amp; D","liveBroadcastContent":"none"}}"#
    }

    /// The fake API: `q=10%E2%82%AC` has run out of quota, a wrong key is a 400, otherwise two pages.
    static func api(_ req: LoopbackRequest) -> LoopbackResponse {
        guard req.path.hasPrefix("/youtube/v3/search?") else { return .text(#"{"error":{"code":404,"message":"Not Found"}}"#, status: 404) }
        if !req.path.hasSuffix("&key=" + secret) { return .text(fixture("error-key-invalid.json"), status: 400) }
        if req.path.contains("q=10%E2%82%AC") { return .text(fixture("error-quota-exceeded.json"), status: 403) }
        if req.path.contains("&pageToken=P2&") {
            return .text(#"{"kind":"youtube#searchListResponse","nextPageToken":"P3","items":[\#(result("playlist", "PLrock", "Rock &amp; Roll &#39;n&#39; more")),\#(result("video", "v2", "Second"))]}"#)
        }
        return .text(#"{"kind":"youtube#searchListResponse","nextPageToken":"P2","items":[\#(result("video", "v1", "&quot;Rock &amp; Roll&quot;")),\#(result("channel", "UCrock", "Канал"))]}"#)
    }

    func testSearchPagesAndAQuotaErrorThroughTheBinary() throws {
        let server = try LoopbackServer { Self.api($0) }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = dir.write("tributary.json", #"""
        {"sources":[
          {"name":"rock","type":"youtube.search","query":"Rock & Roll","api_key":"${YT_KEY}","pages":2,"max_results":2,"result_type":"video,channel,playlist","base_url":"\#(server.baseURL)"},
          {"name":"euro","type":"youtube.search","query":"10€","api_key":"${YT_KEY}","base_url":"\#(server.baseURL)/","retries":3}
        ],"sinks":[{"type":"stdout","format":"jsonl"}]}
        """#)
        let r = try BinaryRunner.run(["run", "-c", cfg], env: ["YT_KEY": Self.secret])
        XCTAssertEqual(r.status, 1, r.stderr)
        let lines = r.stdoutLines
        XCTAssertEqual(lines.count, 4, r.stdout)
        let schema = try SchemaValidator.itemSchema()
        for line in lines { XCTAssertEqual(schema.validate(line: line), [], line) }
        let items = try lines.map { try XCTUnwrap(JSONParser.parse(Array($0.utf8)).objectValue) }
        XCTAssertEqual(items.map { $0["id"]?.stringValue }, ["youtube:video:v1", "youtube:channel:UCrock", "youtube:playlist:PLrock", "youtube:video:v2"])
        XCTAssertEqual(items.map { $0["kind"]?.stringValue }, ["video", "channel", "playlist", "video"])
        XCTAssertEqual(items[0]["title"]?.stringValue, "\"Rock & Roll\"")
        XCTAssertEqual(items[2]["title"]?.stringValue, "Rock & Roll 'n' more")
        XCTAssertEqual(items[1]["url"]?.stringValue, "https://www.youtube.com/channel/UCrock")
        XCTAssertEqual(items[2]["url"]?.stringValue, "https://www.youtube.com/playlist?list=PLrock")
        XCTAssertEqual(items[0]["author"]?.stringValue, "C & D")

        let paths = server.requests.map(\.path)
        XCTAssertEqual(paths.filter { $0.contains("q=Rock") }, [
            "/youtube/v3/search?part=snippet&q=Rock%20%26%20Roll&order=date&maxResults=2&type=video%2Cchannel%2Cplaylist&key=\(Self.secret)",
            "/youtube/v3/search?part=snippet&q=Rock%20%26%20Roll&order=date&maxResults=2&type=video%2Cchannel%2Cplaylist&pageToken=P2&key=\(Self.secret)",
        ], "two pages, the query percent-encoded per RFC 3986")
        XCTAssertEqual(paths.filter { $0.contains("q=10") }, ["/youtube/v3/search?part=snippet&q=10%E2%82%AC&order=date&maxResults=25&type=video&key=\(Self.secret)"],
                       "the 403 is asked once although retries is 3")

        XCTAssertTrue(r.stderr.contains("rock  youtube.search  ok  4 fetched  4 new"), r.stderr)
        XCTAssertTrue(r.stderr.contains("euro  youtube.search  failed: GET \(server.baseURL)/youtube/v3/search?part=snippet&q=10%E2%82%AC&order=date&maxResults=25&type=video&key=***: HTTP 403: quotaExceeded: The request cannot be completed because you have exceeded your quota."), r.stderr)
        XCTAssertTrue(r.stderr.contains("total: 2 sources, 1 failed, 4 fetched, 4 new"), r.stderr)
        XCTAssertFalse(r.stderr.contains(Self.secret), r.stderr)
        XCTAssertFalse(r.stdout.contains(Self.secret))
    }

    func testAWrongKeyFailsWithTheAPIReasonAndNoSecretInAnyOutput() throws {
        let server = try LoopbackServer { Self.api($0) }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let wrong = "AIzaSyWRONG-key-000000"
        let cfg = dir.write("tributary.json", #"{"sources":[{"name":"yt","type":"youtube.search","query":"q","api_key":"\#(wrong)","base_url":"\#(server.baseURL)"}]}"#)
        let record = dir.path + "/rec"
        let r = try BinaryRunner.run(["run", "-c", cfg, "--verbose", "--record", record])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(r.stdout, "")
        XCTAssertTrue(r.stderr.contains("&key=***: HTTP 400: badRequest: API key not valid. Please pass a valid API key."), r.stderr)
        XCTAssertFalse(r.stderr.contains(wrong), r.stderr)
        XCTAssertEqual(server.requestCount, 1)
        let files = (try? FileManager.default.contentsOfDirectory(atPath: record)) ?? []
        XCTAssertEqual(files.count, 1)
        for f in files {
            let text = dir.read("rec/" + f) ?? ""
            XCTAssertTrue(text.contains("&key=***"), text)
            XCTAssertFalse(text.contains(wrong), text)
        }
    }

    func testSourcesListsTheOptionsAndCheckRejectsBadOnes() throws {
        let list = try BinaryRunner.run(["sources"])
        XCTAssertEqual(list.status, 0)
        XCTAssertTrue(list.stdout.contains("youtube.search: YouTube Data API v3 search.list"), list.stdout)
        XCTAssertTrue(list.stdout.contains("query (string, required)"), list.stdout)
        XCTAssertTrue(list.stdout.contains(#"order ("date"|"rating"|"relevance"|"title"|"videoCount"|"viewCount") [default: date]"#), list.stdout)
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = dir.write("tributary.json", #"{"sources":[{"name":"yt","type":"youtube.search","query":"q","api_key":"k","max_results":100,"ordr":"date"}]}"#)
        let r = try BinaryRunner.run(["check", "-c", cfg])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains(#"sources[0] ("yt").max_results: expected an integer <= 50, found 100"#), r.stderr)
        XCTAssertTrue(r.stderr.contains(#"unknown key "ordr" (did you mean "order"?)"#), r.stderr)
    }

    func testPublishedAfterComesFromTheLastSuccessfulRun() throws {
        let server = try LoopbackServer { YouTubeSearchEndToEndTests.api($0) }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = dir.write("tributary.json", #"{"state":{"path":"state.sqlite"},"sources":[{"name":"yt","type":"youtube.search","base_url":"\#(server.baseURL)","query":"rock","api_key":"${K}","pages":1}],"sinks":[{"type":"jsonl","path":"items.jsonl"}]}"#)
        let before = Timestamp.now().seconds
        let first = try BinaryRunner.run(["run", "-c", cfg], env: ["K": Self.secret])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertFalse(server.requests[0].path.contains("publishedAfter"), "the first run asks for the newest results")
        let second = try BinaryRunner.run(["run", "-c", cfg], env: ["K": Self.secret])
        XCTAssertEqual(second.status, 0, second.stderr)
        let path = server.requests[1].path
        guard let r = path.range(of: "publishedAfter=") else { return XCTFail(path) }
        let value = String(path[r.upperBound...].prefix(while: { $0 != "&" })).removingPercentEncoding ?? ""
        let after = try XCTUnwrap(Timestamp.parseRFC3339(value), value).seconds
        XCTAssertEqual(after, before - 3600, accuracy: 5, "last success minus one hour of overlap")
        XCTAssertTrue(second.stderr.contains("0 new"), "what was emitted is not emitted again: \(second.stderr)")
    }
}
