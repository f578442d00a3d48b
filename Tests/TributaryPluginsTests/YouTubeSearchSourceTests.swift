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

/// The `youtube.search` source in process, against a loopback server that answers like the
/// YouTube Data API (127.0.0.1 only; the real network is never touched).
final class YouTubeSearchSourceTests: XCTestCase {
    static let key = "AIzaSyTEST-k3y_0123456789"

    static func fixture(_ name: String) -> String {
        let path = BinaryRunner.packageRoot + "/Tests/Fixtures/youtube.search/" + name
        return String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
    }

    func source(_ server: LoopbackServer, _ extra: String = "", query: String = "Rock & Roll") -> String {
        #"{"name":"yt","type":"youtube.search","query":"\#(query)","api_key":"\#(Self.key)","base_url":"\#(server.baseURL)"\#(extra)}"#
    }

    // MARK: requests

    func testRequestCarriesTheQueryPercentEncodedAndEveryParameterInOrder() async throws {
        let server = try LoopbackServer { _ in .text(Self.fixture("search-empty.json")) }
        defer { server.stop() }
        let r = try await plugins.fetchOverHTTP(source(server, #","order":"viewCount","max_results":50,"result_type":["video","playlist"],"region_code":"br","relevance_language":"pt","safe_search":"strict""#))
        XCTAssertNil(r.error)
        XCTAssertEqual(r.items.count, 0)
        XCTAssertEqual(server.requests.map(\.path), [
            "/youtube/v3/search?part=snippet&q=Rock%20%26%20Roll&order=viewCount&maxResults=50&type=video%2Cplaylist&regionCode=BR&relevanceLanguage=pt&safeSearch=strict&key=\(Self.key)",
        ])
        XCTAssertEqual(server.requests.first?.header("Accept"), "application/json")

        let euro = try await plugins.fetchOverHTTP(source(server, query: "10€ Müller #1 a+b=c/d?"))
        XCTAssertNil(euro.error)
        XCTAssertEqual(server.requests.last?.path,
                       "/youtube/v3/search?part=snippet&q=10%E2%82%AC%20M%C3%BCller%20%231%20a%2Bb%3Dc%2Fd%3F&order=date&maxResults=25&type=video&key=\(Self.key)",
                       "defaults: order=date, maxResults=25, type=video; no regionCode, relevanceLanguage or safeSearch")
    }

    func testTypeAcceptsACommaSeparatedString() async throws {
        let server = try LoopbackServer { _ in .text(Self.fixture("search-empty.json")) }
        defer { server.stop() }
        _ = try await plugins.fetchOverHTTP(source(server, #","result_type":"channel, playlist,channel""#, query: "x"))
        XCTAssertEqual(server.requests.first?.path, "/youtube/v3/search?part=snippet&q=x&order=date&maxResults=25&type=channel%2Cplaylist&key=\(Self.key)")
    }

    // MARK: mapping

    func testMixedResultKindsMapToVideoChannelAndPlaylistItems() async throws {
        let server = try LoopbackServer { _ in .text(Self.fixture("search-mixed.json")) }
        defer { server.stop() }
        let r = try await plugins.fetchOverHTTP(source(server))
        XCTAssertNil(r.error)
        XCTAssertEqual(r.items.map(\.id), ["youtube:video:Kp7eSUU9oy8", "youtube:channel:UCq-Fj5jknLsUf-MWSy4_brA", "youtube:playlist:PLFgquLnL59alCl_2TQvOiD5Vgm1hCaGSI", "youtube:video:b1Gq_0-xYz9"])
        XCTAssertEqual(r.items.map(\.kind), ["video", "channel", "playlist", "video"])
        XCTAssertEqual(r.items.map(\.url), [
            "https://www.youtube.com/watch?v=Kp7eSUU9oy8",
            "https://www.youtube.com/channel/UCq-Fj5jknLsUf-MWSy4_brA",
            "https://www.youtube.com/playlist?list=PLFgquLnL59alCl_2TQvOiD5Vgm1hCaGSI",
            "https://www.youtube.com/watch?v=b1Gq_0-xYz9",
        ])
        let v = r.items[0], c = r.items[1], p = r.items[2], v2 = r.items[3]
        XCTAssertEqual(v.title, "Rock & Roll — \"Live\" at Лужники '26", "entities decoded")
        XCTAssertEqual(v.summary, "Full concert.\nSetlist in the comments & more…", "the newline is kept in the summary")
        XCTAssertEqual(v.image, "https://i.ytimg.com/vi/Kp7eSUU9oy8/maxresdefault.jpg", "maxres is the best thumbnail")
        XCTAssertEqual(v.author, "Rock & Roll Hall")
        XCTAssertEqual(v.published?.rfc3339, "2026-11-29T10:00:00Z")
        XCTAssertEqual(v.source, "yt")
        XCTAssertEqual(v.type, "youtube.search")
        XCTAssertEqual(String(decoding: JSONWriter.serialize(.object(v.data)), as: UTF8.self),
                       #"{"video_id":"Kp7eSUU9oy8","channel_id":"UCmXmlB4-HJytD7wek0Uo97A","channel_title":"Rock & Roll Hall","live_broadcast_content":"live"}"#)
        XCTAssertEqual(c.title, "摇滚音乐频道")
        XCTAssertEqual(c.image, "https://yt3.ggpht.com/ytc/AIdro_kX4nQpZ3YvE2rYjw=s800-c-k-c0xffffffff-no-rj-mo", "high, when there is no maxres or standard")
        XCTAssertEqual(String(decoding: JSONWriter.serialize(.object(c.data)), as: UTF8.self),
                       #"{"channel_id":"UCq-Fj5jknLsUf-MWSy4_brA","channel_title":"摇滚音乐频道","live_broadcast_content":"none"}"#)
        XCTAssertEqual(p.title, "YouTube playlist PLFgquLnL59alCl_2TQvOiD5Vgm1hCaGSI", "an empty title and description fall back to kind and id")
        XCTAssertNil(p.summary, "an empty description is omitted")
        XCTAssertEqual(p.data["playlist_id"], .string("PLFgquLnL59alCl_2TQvOiD5Vgm1hCaGSI"))
        XCTAssertEqual(p.published?.rfc3339, "2019-06-14T18:22:05Z")
        XCTAssertEqual(v2.image, "https://i.ytimg.com/vi/b1Gq_0-xYz9/mqdefault.jpg", "medium, when it is the largest there is")
        XCTAssertEqual(v2.author, "Аквариум")
        XCTAssertEqual(v2.data["live_broadcast_content"], .string("upcoming"))
        let schema = try SchemaValidator.itemSchema()
        for item in r.items { XCTAssertEqual(schema.validate(item.jsonValue()), [], item.id) }
    }

    func testAwkwardButValidResultsStillMap() async throws {
        let body = #"""
        {"items":[
          {"id":{"kind":"youtube#video","videoId":12345},"snippet":{"title":1984,"description":"  \n ","channelTitle":"Orwell &amp; Co","publishedAt":"2026-11-29T13:00:00.000+03:00"}},
          {"id":{"kind":"youtube#video","videoId":"noSnippet01"}},
          {"id":{"kind":"youtube#video","videoId":"descOnly001"},"snippet":{"title":"   ","description":"Line one\nline two &lt;b&gt;","thumbnails":{"default":{"url":"https://i.ytimg.com/vi/descOnly001/default.jpg"},"high":{"url":""},"maxres":"oops"}}},
          {"id":{"kind":"youtube#video","videoId":"multiline01"},"snippet":{"title":"First\nSecond","thumbnails":null,"publishedAt":null,"liveBroadcastContent":""}}
        ]}
        """#
        let server = try LoopbackServer { _ in .text(body) }
        defer { server.stop() }
        let r = try await plugins.fetchOverHTTP(source(server))
        XCTAssertNil(r.error)
        XCTAssertEqual(r.items.map(\.id), ["youtube:video:12345", "youtube:video:noSnippet01", "youtube:video:descOnly001", "youtube:video:multiline01"])
        XCTAssertEqual(r.items[0].title, "1984", "a number where a string is expected is taken as its text")
        XCTAssertNil(r.items[0].summary)
        XCTAssertEqual(r.items[0].author, "Orwell & Co")
        XCTAssertEqual(r.items[0].published?.rfc3339, "2026-11-29T10:00:00Z", "offsets are normalised to UTC")
        XCTAssertEqual(r.items[1].title, "YouTube video noSnippet01")
        XCTAssertNil(r.items[1].image)
        XCTAssertNil(r.items[1].published)
        XCTAssertEqual(r.items[1].data.keys, ["video_id"])
        XCTAssertEqual(r.items[2].title, "Line one line two <b>", "the description stands in for a blank title, on one line")
        XCTAssertEqual(r.items[2].image, "https://i.ytimg.com/vi/descOnly001/default.jpg", "empty and malformed sizes are skipped")
        XCTAssertEqual(r.items[3].title, "First Second", "titles are one line")
        XCTAssertNil(r.items[3].data["live_broadcast_content"])
    }

    func testUnknownResultKindIsSkippedWithAWarning() async throws {
        let body = #"{"items":[{"id":{"kind":"youtube#show","showId":"s1"}},{"id":{"kind":"youtube#video","videoId":"v1"},"snippet":{"title":"ok"}}]}"#
        let server = try LoopbackServer { _ in .text(body) }
        defer { server.stop() }
        let r = try await plugins.fetchOverHTTP(source(server))
        XCTAssertNil(r.error)
        XCTAssertEqual(r.items.map(\.id), ["youtube:video:v1"])
        XCTAssertEqual(r.warnings.count, 1)
        XCTAssertTrue(r.warnings[0].hasSuffix(#"key=***: items[0].id.kind: skipped a result of unknown kind "youtube#show""#), r.warnings[0])
    }

    // MARK: pagination

    func testPagesFollowNextPageTokenAndDropRepeatedResults() async throws {
        let server = try LoopbackServer { req in
            func result(_ id: String) -> String { #"{"id":{"kind":"youtube#video","videoId":"\#(id)"},"snippet":{"title":"T \#(id)"}}"# }
            if req.path.contains("pageToken=CAIQAA") { return .text(#"{"nextPageToken":"CAQQAA","items":[\#(result("b")),\#(result("c"))]}"#) }
            if req.path.contains("pageToken=CAQQAA") { return .text(#"{"nextPageToken":"CAYQAA","items":[\#(result("d"))]}"#) }
            return .text(#"{"nextPageToken":"CAIQAA","items":[\#(result("a")),\#(result("b"))]}"#)
        }
        defer { server.stop() }
        let r = try await plugins.fetchOverHTTP(source(server, #","pages":2,"max_results":2"#, query: "q"))
        XCTAssertNil(r.error)
        XCTAssertEqual(r.items.map(\.id), ["youtube:video:a", "youtube:video:b", "youtube:video:c"], "b came twice (the API repeats results across pages)")
        XCTAssertEqual(server.requests.map(\.path), [
            "/youtube/v3/search?part=snippet&q=q&order=date&maxResults=2&type=video&key=\(Self.key)",
            "/youtube/v3/search?part=snippet&q=q&order=date&maxResults=2&type=video&pageToken=CAIQAA&key=\(Self.key)",
        ], "stops at pages=2 although there is a next token")
    }

    func testPaginationStopsWithoutATokenOrOnARepeatedToken() async throws {
        let server = try LoopbackServer { req in
            req.path.contains("q=last") ? .text(#"{"items":[{"id":{"kind":"youtube#video","videoId":"a"}}]}"#)
                : .text(#"{"nextPageToken":"SAME","items":[{"id":{"kind":"youtube#video","videoId":"\#(req.path.contains("pageToken") ? "b" : "a")"}}]}"#)
        }
        defer { server.stop() }
        let last = try await plugins.fetchOverHTTP(source(server, #","pages":10"#, query: "last"))
        XCTAssertEqual(last.items.count, 1)
        XCTAssertEqual(server.requestCount, 1)
        let loop = try await plugins.fetchOverHTTP(source(server, #","pages":10"#, query: "loop"))
        XCTAssertNil(loop.error)
        XCTAssertEqual(loop.items.map(\.id), ["youtube:video:a", "youtube:video:b"])
        XCTAssertEqual(server.requestCount, 3, "the same token twice ends the run instead of looping to the page cap")
    }

    func testAFailedLaterPageKeepsTheEarlierItems() async throws {
        let server = try LoopbackServer { req in
            req.path.contains("pageToken") ? .text(Self.fixture("error-quota-exceeded.json"), status: 403) : .text(Self.fixture("search-mixed.json"))
        }
        defer { server.stop() }
        let r = try await plugins.fetchOverHTTP(source(server, #","pages":3"#), retries: 2)
        let e = try XCTUnwrap(r.sourceError)
        XCTAssertEqual(r.items.count, 4, "the first page's items were delivered before the failure")
        XCTAssertTrue(e.message.contains("pageToken=CAQQAA&key=***: HTTP 403: quotaExceeded: "), e.message)
        XCTAssertEqual(server.requestCount, 2)
    }

    // MARK: API errors

    func testQuotaExceededFailsWithTheAPIReasonAndIsNotRetried() async throws {
        let server = try LoopbackServer { _ in .text(Self.fixture("error-quota-exceeded.json"), status: 403) }
        defer { server.stop() }
        let r = try await plugins.fetchOverHTTP(source(server, query: "x"), retries: 3)
        let e = try XCTUnwrap(r.sourceError)
        XCTAssertEqual(e.message, "GET \(server.baseURL)/youtube/v3/search?part=snippet&q=x&order=date&maxResults=25&type=video&key=***: HTTP 403: quotaExceeded: The request cannot be completed because you have exceeded your quota.")
        XCTAssertEqual(server.requestCount, 1, "a 403 is not retried")
        XCTAssertFalse(e.message.contains(Self.key))
    }

    func testInvalidKeyShapesBothReadAsTheirReason() async throws {
        for (fixture, expected) in [
            ("error-key-invalid.json", "HTTP 400: badRequest: API key not valid. Please pass a valid API key."),
            ("error-key-invalid-legacy.json", "HTTP 400: keyInvalid: Bad Request"),
        ] {
            let server = try LoopbackServer { _ in .text(Self.fixture(fixture), status: 400) }
            defer { server.stop() }
            let r = try await plugins.fetchOverHTTP(source(server, query: "x"), retries: 2)
            let e = try XCTUnwrap(r.sourceError, fixture)
            XCTAssertTrue(e.message.hasSuffix("&key=***: " + expected), e.message)
            XCTAssertEqual(server.requestCount, 1, fixture)
        }
    }

    func testAnErrorMessageThatEchoesTheKeyIsScrubbed() async throws {
        let server = try LoopbackServer { _ in
            .text(#"{"error":{"code":400,"message":"Invalid value \#(Self.key)","errors":[{"reason":"invalidParameter","message":"Invalid value \#(Self.key) for key"}]}}"#, status: 400)
        }
        defer { server.stop() }
        let r = try await plugins.fetchOverHTTP(source(server))
        let e = try XCTUnwrap(r.sourceError)
        XCTAssertTrue(e.message.hasSuffix("HTTP 400: invalidParameter: Invalid value *** for key"), e.message)
        XCTAssertFalse(e.message.contains(Self.key))
    }

    func testNonAPIErrorBodiesKeepTheHTTPDescriptionAnd5xxIsRetried() async throws {
        let server = try LoopbackServer { _ in .text("<html><body>Backend Error</body></html>", status: 503, contentType: "text/html") }
        defer { server.stop() }
        let r = try await plugins.fetchOverHTTP(source(server, query: "x"), retries: 1)
        let e = try XCTUnwrap(r.sourceError)
        XCTAssertEqual(e.message, "GET \(server.baseURL)/youtube/v3/search?part=snippet&q=x&order=date&maxResults=25&type=video&key=***: HTTP 503 Service Unavailable")
        XCTAssertEqual(server.requestCount, 2)
    }

    func testBadSuccessBodiesNameTheKeyPath() async throws {
        let cases: [(String, String)] = [
            (#"{"kind":"youtube#searchListResponse","pageInfo":{"totalResults":0}}"#, "items: missing, expected array of search results"),
            (#"{"items":{"id":"x"}}"#, "items: expected array, found object"),
            (#"{"items":[{"id":{"kind":"youtube#video","videoId":"a"}},{"id":{"videoId":"b"}}]}"#, "items[1].id.kind: missing, expected string"),
            (#"{"items":[{"id":"abc"}]}"#, "items[0].id.kind: missing, expected string"),
            (#"{"items":[{"id":{"kind":"youtube#channel","videoId":"a"}}]}"#, "items[0].id.channelId: missing, expected string"),
            (#"{"items":[{"id":{"kind":"youtube#video","videoId":{"v":1}}}]}"#, "items[0].id.videoId: expected string or number, found object"),
            (#"{"items":[{"id":{"kind":"youtube#video","videoId":""}}]}"#, #"items[0].id.videoId: expected a non-empty videoId, found """#),
            (#"{"items":[{"id":{"kind":"youtube#video","videoId":"a"},"snippet":{"title":["x"]}}]}"#, "items[0].snippet.title: expected string or number, found array"),
            (#"{"items":[{"id":{"kind":"youtube#video","videoId":"a"},"snippet":"none"}]}"#, "items[0].snippet: expected object, found string"),
            (#"{"items":[{"id":{"kind":"youtube#video","videoId":"a"},"snippet":{"publishedAt":"yesterday"}}]}"#, #"items[0].snippet.publishedAt: expected an RFC 3339 date, found "yesterday""#),
            (#"{"items":[{"id":{"kind":"youtube#video","videoId":"a"},"snippet":{"thumbnails":[]}}]}"#, "items[0].snippet.thumbnails: expected object, found array"),
            (#"{"items":[{"id":{"kind":"youtube#video","videoId":"a"},"snippet":{"thumbnails":{"high":{"url":7}}}}]}"#, "items[0].snippet.thumbnails.high.url: expected string, found number"),
            (#"{"items":[],"nextPageToken":5}"#, "nextPageToken: expected string, found number"),
            (#"{"items":[{"id":{"kind":"youtube#video","videoId":"a"}}"#, "invalid JSON at 1:56: unexpected end of input"),
            ("", "empty response body, expected JSON"),
        ]
        for (body, expected) in cases {
            let server = try LoopbackServer { _ in .text(body) }
            defer { server.stop() }
            let r = try await plugins.fetchOverHTTP(source(server, #","pages":2"#, query: "x"))
            let e = try XCTUnwrap(r.sourceError, body)
            XCTAssertTrue(e.message.hasPrefix("GET \(server.baseURL)/youtube/v3/search?part=snippet&q=x&order=date&maxResults=25&type=video&key=***: "), e.message)
            XCTAssertTrue(e.message.contains(expected), "\(body)\n\(e.message)")
        }
    }

    // MARK: options

    func testOptionErrorsAreClearAndAllReportedAtOnce() async {
        // Declared kinds and ranges are checked first, all at once; the source's own checks run when those pass.
        let declared = plugins.configErrors(#"""
        {"name":"yt","type":"youtube.search","query":"q","api_key":"k","order":"newest","max_results":51,"pages":11,
         "safe_search":"off","base_url":"ftp://example.org","published_after":"2026-01-01T00:00:00Z"}
        """#)
        let semantic = plugins.configErrors(#"""
        {"name":"yt","type":"youtube.search","query":"  ","api_key":"","result_type":"videos,channel","region_code":"BRA","relevance_language":"portuguese!"}
        """#)
        let expected = [
            #"sources[0] ("yt").order: expected one of "date", "rating", "relevance", "title", "videoCount", "viewCount", found "newest""#,
            #"sources[0] ("yt").max_results: expected an integer <= 50, found 51"#,
            #"sources[0] ("yt").pages: expected an integer <= 10, found 11"#,
            #"sources[0] ("yt").safe_search: expected one of "none", "moderate", "strict", found "off""#,
            #"sources[0] ("yt").base_url: expected an http:// or https:// URL, found "ftp://example.org""#,
            #"sources[0] ("yt"): unknown key "published_after""#,
            #"sources[0] ("yt").query: must not be empty"#,
            #"sources[0] ("yt").api_key: must not be empty"#,
            #"sources[0] ("yt").result_type: expected "video", "channel" or "playlist" (or several, comma-separated), found "videos" (did you mean "video"?)"#,
            #"sources[0] ("yt").region_code: expected a two-letter ISO 3166-1 country code such as "BR", found "BRA""#,
            #"sources[0] ("yt").relevance_language: expected an ISO 639-1 language code such as "pt" or "zh-Hans", found "portuguese!""#,
        ]
        let all = declared + semantic
        for x in expected {
            XCTAssertTrue(all.contains { $0.contains(x) }, "missing: \(x)\nin: \(all.joined(separator: "\n"))")
        }
        XCTAssertEqual(declared.count, 6, "\(declared)")
        XCTAssertEqual(semantic.count, 5, "\(semantic)")
    }

    func testFileBaseURLIsRefused() async {
        let e = plugins.configErrors(#"{"name":"yt","type":"youtube.search","query":"q","api_key":"k","base_url":"file:///etc/passwd"}"#)
        XCTAssertEqual(e, [#"t.json: sources[0] ("yt").base_url: expected an http:// or https:// URL, found "file:///etc/passwd""#])
    }

    func testRequiredOptionsAndWrongTypes() async {
        let missing = plugins.configErrors(#"{"name":"yt","type":"youtube.search"}"#)
        XCTAssertTrue(missing.contains { $0.hasSuffix(#"sources[0] ("yt"): missing required key "query" (string: search terms (q), sent percent-encoded (RFC 3986, UTF-8))"#) }, "\(missing)")
        XCTAssertTrue(missing.contains { $0.contains(#"missing required key "api_key""#) }, "\(missing)")
        let wrong = plugins.configErrors(#"{"name":"yt","type":"youtube.search","query":42,"api_key":"k","max_results":"ten","result_type":[1],"pages":0}"#)
        XCTAssertTrue(wrong.contains { $0.hasSuffix(".query: expected a string, found 42") }, "\(wrong)")
        XCTAssertTrue(wrong.contains { $0.hasSuffix(#".max_results: expected an integer, found "ten""#) }, "\(wrong)")
        XCTAssertTrue(wrong.contains { $0.hasSuffix(".result_type: expected a string or a list of strings, found [1]") }, "\(wrong)")
        XCTAssertTrue(wrong.contains { $0.hasSuffix(".pages: expected an integer >= 1, found 0") }, "\(wrong)")
    }

    func testValidOptionVariantsAreAccepted() async throws {
        for extra in [#","region_code":"jp","relevance_language":"zh-Hans""#, #","relevance_language":"es-419","safe_search":"none""#,
                      #","result_type":"playlist","order":"videoCount","base_url":"https://yt.example.org/api/""#] {
            XCTAssertEqual(plugins.configErrors(#"{"name":"yt","type":"youtube.search","query":"q","api_key":"k"\#(extra)}"#), [], extra)
        }
        let c = try plugins.configure(#"{"name":"yt","type":"youtube.search","query":"q","api_key":"k","base_url":"https://yt.example.org/api/"}"#)
        let s = try XCTUnwrap(c.source as? YouTubeSearchSource)
        XCTAssertEqual(s.pageURL(token: "T"), "https://yt.example.org/api/youtube/v3/search?part=snippet&q=q&order=date&maxResults=25&type=video&pageToken=T&key=k")
    }

    func testDescriptorDeclaresEveryOption() async {
        let d = YouTubeSearchSource.descriptor
        XCTAssertEqual(d.type, "youtube.search")
        XCTAssertEqual(d.options.map(\.name), ["query", "api_key", "order", "max_results", "pages", "result_type", "region_code", "relevance_language", "safe_search", "since_last_run", "base_url"])
        XCTAssertEqual(d.options.filter(\.required).map(\.name), ["query", "api_key"])
        XCTAssertEqual(d.options.first { $0.name == "order" }?.defaultText, "date")
        XCTAssertTrue(BuiltinRegistry.standard.sources.contains { $0.type == "youtube.search" })
    }
}
