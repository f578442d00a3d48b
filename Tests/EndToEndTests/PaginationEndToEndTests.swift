import Foundation
import XCTest
import TributaryCore
import TributaryTestSupport

/// The `json` source's pagination kinds through the release binary, against a loopback API that
/// checks the query of every request and answers 400 naming what it expected otherwise: auto (a
/// `Link` header, a body `next`, a `nextPageToken`), link_header, offset with a total, page
/// with a page count, cursor; each stopping rule (max_pages, an empty page, a repeated cursor
/// or URL); `items: "auto"`; and credentials kept from another host's next page.
final class PaginationEndToEndTests: XCTestCase {
    /// `n` records `{"id": ..., "title": ...}` as JSON text, ids `prefix-<from>`...
    static func records(_ prefix: String, _ from: Int, _ count: Int) -> String {
        "[" + (0..<count).map { #"{"id":"\#(prefix)-\#(from + $0)","title":"\#(prefix) \#(from + $0)"}"# }.joined(separator: ",") + "]"
    }

    /// The query of a request target as name -> value (decoded).
    static func query(_ target: String) -> [String: String] {
        var out: [String: String] = [:]
        for item in URLComponents(string: "http://x" + target)?.queryItems ?? [] { out[item.name] = item.value ?? "" }
        return out
    }

    static func path(_ target: String) -> String { String(target.split(separator: "?", maxSplits: 1).first ?? "") }

    static func bad(_ why: String) -> LoopbackResponse { .text(#"{"error":"\#(why)"}"#, status: 400) }

    /// Answers `body` with `headers` when the request's query is exactly `want`, else 400.
    static func expect(_ q: [String: String], _ want: [String: String], _ body: String, headers: [(name: String, value: String)] = []) -> LoopbackResponse {
        guard q == want else { return bad("expected query \(want.sorted { $0.key < $1.key }), got \(q.sorted { $0.key < $1.key })") }
        var r = LoopbackResponse.text(body)
        r.headers += headers
        return r
    }

    /// The API: each path is one shape of a real API, each page checked.
    static func handler(base: @escaping @Sendable () -> String, other: @escaping @Sendable () -> String) -> @Sendable (LoopbackRequest) -> LoopbackResponse {
        { req in
            let q = query(req.path)
            let b = base()
            switch path(req.path) {
            case "/repos/o/r/issues":
                // GitHub REST: per_page, then the Link header's page=N (rel lists, two fields).
                switch q["page"] {
                case nil:
                    return expect(q, ["per_page": "2", "state": "open"], records("gh", 1, 2),
                                  headers: [("Link", #"<\#(b)/repos/o/r/issues?per_page=2&state=open&page=2>; rel="next", <\#(b)/repos/o/r/issues?per_page=2&state=open&page=3>; rel="last""#)])
                case "2":
                    return expect(q, ["per_page": "2", "state": "open", "page": "2"], records("gh", 3, 2),
                                  headers: [("Link", #"<\#(b)/repos/o/r/issues?per_page=2&state=open&page=1>; rel="prev first""#),
                                            ("Link", #"<\#(b)/repos/o/r/issues?per_page=2&state=open&page=3>; rel="next last""#)])
                case "3":
                    return expect(q, ["per_page": "2", "state": "open", "page": "3"], records("gh", 5, 1),
                                  headers: [("Link", #"<\#(b)/repos/o/r/issues?per_page=2&state=open&page=2>; rel="prev""#)])
                default: return bad("no page \(q["page"]!)")
                }
            case "/v1/articles":
                // A JSON:API-like body: the list under data, the next page at links.next.href.
                switch q["cursor"] {
                case nil: return expect(q, [:], #"{"data":\#(records("art", 1, 2)),"links":{"self":"/v1/articles","next":{"href":"/v1/articles?cursor=p2"}}}"#)
                case "p2": return expect(q, ["cursor": "p2"], #"{"data":\#(records("art", 3, 1)),"links":{"next":null}}"#)
                default: return bad("no cursor \(q["cursor"]!)")
                }
            case "/youtube/v3/search":
                // nextPageToken, sent back as pageToken.
                switch q["pageToken"] {
                case nil: return expect(q, ["part": "snippet"], #"{"kind":"youtube#searchListResponse","nextPageToken":"CAIQAA","items":\#(records("yt", 1, 2))}"#)
                case "CAIQAA": return expect(q, ["part": "snippet", "pageToken": "CAIQAA"], #"{"prevPageToken":"CAIQAQ","items":\#(records("yt", 3, 2))}"#)
                default: return bad("no token")
                }
            case "/api/v1/timelines/tag/swift":
                // Mastodon: Link with max_id (next) and min_id (prev), the list at the top.
                switch q["max_id"] {
                case nil:
                    return expect(q, ["limit": "2"], #"[{"id":"109876543210987655","content":"a"},{"id":"109876543210987654","content":"b"}]"#,
                                  headers: [("Link", #"<\#(b)/api/v1/timelines/tag/swift?limit=2&max_id=109876543210987654>; rel="next", <\#(b)/api/v1/timelines/tag/swift?limit=2&min_id=109876543210987655>; rel="prev""#)])
                case "109876543210987654":
                    return expect(q, ["limit": "2", "max_id": "109876543210987654"], #"[{"id":"109876543210987653","content":"c"}]"#,
                                  headers: [("Link", #"<\#(b)/api/v1/timelines/tag/swift?limit=2&min_id=109876543210987653>; rel="prev""#)])
                default: return bad("no max_id \(q["max_id"]!)")
                }
            case "/works":
                // An offset API with the total in meta.count: 5 records, 2 a page.
                let offset = Int(q["offset"] ?? "") ?? -1
                guard [0, 2, 4].contains(offset) else { return bad("offset must be 0, 2 or 4, got \(q["offset"] ?? "none")") }
                return expect(q, ["filter": "x", "offset": String(offset), "per-page": "2"],
                              #"{"meta":{"count":5},"results":\#(records("w", offset + 1, min(2, 5 - offset)))}"#)
            case "/search/pages":
                // A page API with the number of pages: 3 pages, numbered from 0.
                let page = Int(q["p"] ?? "") ?? -1
                guard (0...2).contains(page) else { return bad("p must be 0...2, got \(q["p"] ?? "none")") }
                return expect(q, ["p": String(page)], #"{"nbPages":3,"hits":\#(records("pg", page * 10, 2))}"#)
            case "/conversations.list":
                // Slack's cursor: response_metadata.next_cursor, empty at the end.
                let cursors = ["": "dGVhbTpDMDYx", "dGVhbTpDMDYx": "dGVhbTpDMDYy", "dGVhbTpDMDYy": ""]
                let c = q["cursor"] ?? ""
                guard let next = cursors[c] else { return bad("unknown cursor \(c)") }
                return expect(q, c.isEmpty ? ["limit": "2"] : ["limit": "2", "cursor": c],
                              #"{"ok":true,"channels":\#(records("ch-" + c.suffix(1), 1, 2)),"response_metadata":{"next_cursor":"\#(next)"}}"#)
            case "/endless":
                // A next page forever: max_pages ends it.
                let n = Int(q["n"] ?? "1") ?? 1
                return expect(q, n == 1 ? [:] : ["n": String(n)], records("e\(n)", 1, 1), headers: [("Link", "<\(b)/endless?n=\(n + 1)>; rel=\"next\"")])
            case "/emptying":
                // Pages 1 and 2 have records, page 3 none, page 4 would fail: the empty page ends it.
                let p = q["page"] ?? ""
                if p == "3" { return .text(#"{"items":[]}"#) }
                guard p == "1" || p == "2" else { return bad("page \(p) should never be asked for") }
                return .text(#"{"items":\#(records("em" + p, 1, 1))}"#)
            case "/sticky":
                // The same cursor again on the second page: the repeat ends it.
                return .text(#"{"items":\#(records("st" + (q["c"] ?? "0"), 1, 1)),"next":"A"}"#)
            case "/loop":
                // Page 2 links back to page 1: a URL already fetched ends it.
                let p = q["p"] ?? "1"
                let next = p == "1" ? "\(b)/loop?p=2" : "\(b)/loop"
                guard p == "1" || p == "2" else { return bad("p \(p)") }
                return expect(q, p == "1" ? [:] : ["p": "2"], records("lp" + p, 1, 1), headers: [("Link", "<\(next)>; rel=\"next\"")])
            case "/private":
                // A next page on another host: the credentials stay here.
                guard req.header("Authorization") == "Bearer s3cr3t-t0ken" else { return bad("no credentials on the first host") }
                return .text(#"{"items":\#(records("pv", 1, 1)),"next":"\#(other())/elsewhere"}"#)
            default:
                return bad("no such path \(req.path)")
            }
        }
    }

    func testEveryKindFollowsTheAPIsPagesWithTheParametersItChecks() throws {
        let box = Locked<(String, String)>(("", ""))
        let server = try LoopbackServer(handler: Self.handler(base: { box.withLock { $0.0 } }, other: { box.withLock { $0.1 } }))
        let elsewhere = try LoopbackServer { req in
            req.header("Authorization") == nil ? .text(#"{"items":\#(Self.records("ew", 1, 1))}"#) : Self.bad("credentials reached another host")
        }
        box.withLock { $0 = (server.baseURL, elsewhere.baseURL) }
        let dir = TempDir()
        defer { server.stop(); elsewhere.stop(); dir.remove() }
        let b = server.baseURL
        let fields = #""fields":{"id":"id","title":"title"}"#
        func source(_ name: String, _ url: String, _ items: String, _ pagination: String, extra: String = "") -> String {
            #"{"name":"\#(name)","type":"json","url":"\#(url)","items":"\#(items)",\#(fields),"pagination":\#(pagination)\#(extra)}"#
        }
        let sources = [
            source("github", "\(b)/repos/o/r/issues?per_page=2&state=open", "", #"{"type":"auto"}"#),
            source("articles", "\(b)/v1/articles", "auto", #"{"type":"auto"}"#),
            source("youtube", "\(b)/youtube/v3/search?part=snippet", "auto", #"{"type":"auto"}"#),
            #"{"name":"mastodon","type":"json","url":"\#(b)/api/v1/timelines/tag/swift?limit=2","items":"auto","fields":{"id":"id","title":"content"},"pagination":{"type":"link_header"}}"#,
            source("works", "\(b)/works?filter=x", "results", #"{"type":"offset","limit_param":"per-page","limit":2,"total_path":"meta.count"}"#),
            source("pages", "\(b)/search/pages", "auto", #"{"type":"page","page_param":"p","start":0,"total_pages_path":"nbPages"}"#),
            source("slack", "\(b)/conversations.list?limit=2", "channels", #"{"type":"cursor","cursor_path":"response_metadata.next_cursor","cursor_param":"cursor"}"#),
            source("endless", "\(b)/endless", "", #"{"type":"link_header","max_pages":3}"#),
            source("emptying", "\(b)/emptying", "items", #"{"type":"page","max_pages":10}"#),
            source("sticky", "\(b)/sticky", "items", #"{"type":"cursor","cursor_path":"next","cursor_param":"c"}"#),
            source("loop", "\(b)/loop", "", #"{"type":"link_header"}"#),
            source("private", "\(b)/private", "items", #"{"type":"auto"}"#, extra: #","headers":{"Authorization":"Bearer s3cr3t-t0ken"}"#),
        ]
        let config = dir.write("tributary.json", #"{"sources":[\#(sources.joined(separator: ",\n"))],"sinks":[{"type":"jsonl","path":"items.jsonl"}]}"#)
        let r = try BinaryRunner.run(["run", "-c", config, "--no-state"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertFalse(r.stderr.contains("failed:"), r.stderr)
        let ids = (dir.read("items.jsonl") ?? "").split(separator: "\n").compactMap { line -> String? in
            (try? JSONParser.parse(String(line)))?[path: "id"]?.stringValue
        }
        func got(_ source: String) -> [String] { ids.filter { $0.hasPrefix(source + ":") }.map { String($0.dropFirst(source.count + 1)) } }
        XCTAssertEqual(got("github"), ["gh-1", "gh-2", "gh-3", "gh-4", "gh-5"])
        XCTAssertEqual(got("articles"), ["art-1", "art-2", "art-3"])
        XCTAssertEqual(got("youtube"), ["yt-1", "yt-2", "yt-3", "yt-4"])
        XCTAssertEqual(got("mastodon"), ["109876543210987655", "109876543210987654", "109876543210987653"])
        XCTAssertEqual(got("works"), ["w-1", "w-2", "w-3", "w-4", "w-5"])
        XCTAssertEqual(got("pages"), ["pg-0", "pg-1", "pg-10", "pg-11", "pg-20", "pg-21"])
        XCTAssertEqual(got("slack"), ["ch--1", "ch--2", "ch-x-1", "ch-x-2", "ch-y-1", "ch-y-2"])
        XCTAssertEqual(got("endless"), ["e1-1", "e2-1", "e3-1"], "max_pages 3")
        XCTAssertEqual(got("emptying"), ["em1-1", "em2-1"])
        XCTAssertEqual(got("sticky"), ["st0-1", "stA-1"])
        XCTAssertEqual(got("loop"), ["lp1-1", "lp2-1"])
        XCTAssertEqual(got("private"), ["pv-1", "ew-1"])
        // Every request the server answered, by path: no more than the rules allow, none refused.
        let paths = server.requests.map { Self.path($0.path) }
        func count(_ p: String) -> Int { paths.filter { $0 == p }.count }
        XCTAssertEqual(count("/repos/o/r/issues"), 3)
        XCTAssertEqual(count("/works"), 3, "offsets 0, 2, 4; 6 is past the total 5")
        XCTAssertEqual(count("/search/pages"), 3, "pages 0, 1, 2 of nbPages 3")
        XCTAssertEqual(count("/conversations.list"), 3)
        XCTAssertEqual(count("/endless"), 3)
        XCTAssertEqual(count("/emptying"), 3, "the empty page 3 is the last asked for")
        XCTAssertEqual(count("/sticky"), 2, "cursor A again: not asked a third time")
        XCTAssertEqual(count("/loop"), 2)
        XCTAssertEqual(elsewhere.requestCount, 1)
    }

    func testWrongCombinationsAreConfigErrorsNamingTheKey() throws {
        let dir = TempDir()
        defer { dir.remove() }
        func errors(_ pagination: String, items: String = "items") throws -> String {
            let config = dir.write("c.json", #"{"sources":[{"name":"a","type":"json","url":"http://127.0.0.1:9/x","items":"\#(items)","fields":{"id":"id"},"pagination":\#(pagination)}],"sinks":[{"type":"stdout"}]}"#)
            let r = try BinaryRunner.run(["check", "-c", config])
            XCTAssertNotEqual(r.status, 0, pagination)
            return r.stdout + r.stderr
        }
        let page = try errors(#"{"type":"page","total_path":"meta.total"}"#)
        XCTAssertTrue(page.contains(#"sources[0] ("a").pagination.total_path: goes with "type": "offset", not with "type": "page""#), page)
        let cursor = try errors(#"{"type":"cursor"}"#)
        XCTAssertTrue(cursor.contains(#"pagination.cursor_path: required with "type": "cursor""#), cursor)
        XCTAssertTrue(cursor.contains(#"pagination.cursor_param: required with "type": "cursor""#), cursor)
        let legacy = try errors(#"{"type":"offset","next_url":"next"}"#)
        XCTAssertTrue(legacy.contains(#"pagination.next_url: goes with no "type", not with "type": "offset""#), legacy)
        let none = try errors(#"{"max_pages":3}"#)
        XCTAssertTrue(none.contains(#"pagination: needs "type" (one of auto, link_header, offset, page, cursor), or "next_url" or "next_token""#), none)
        let kind = try errors(#"{"type":"pages"}"#)
        XCTAssertTrue(kind.contains("pagination.type"), kind)
    }

    func testItemsAutoThatFindsNoListNamesWhatItLookedFor() throws {
        let server = try LoopbackServer { _ in .text(#"{"meta":{"count":2},"payload":{"things":[{"id":1}]}}"#) }
        let dir = TempDir()
        defer { server.stop(); dir.remove() }
        let config = dir.write("c.json", #"{"sources":[{"name":"a","type":"json","url":"\#(server.baseURL)/x","items":"auto","fields":{"id":"id"}}],"sinks":[{"type":"stdout"}]}"#)
        let r = try BinaryRunner.run(["run", "-c", config, "--no-state"])
        XCTAssertNotEqual(r.status, 0)
        XCTAssertTrue(r.stderr.contains("expected an array of objects under a key named data, items, results, entries"), r.stderr)
        XCTAssertTrue(r.stderr.contains(#"GET \#(server.baseURL)/x"#), r.stderr)
    }
}
