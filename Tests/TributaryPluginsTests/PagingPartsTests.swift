import Foundation
import XCTest
@testable import TributaryJSON
@testable import TributaryPlugins
import TributaryTestSupport

/// The parts of the `json` source's paging that have rules of their own: the `Link` header
/// parser (RFC 8288), the incremental cursor's order and its kind rule, the body search of
/// `"type": "auto"` and `"items": "auto"`.
final class PagingPartsTests: XCTestCase {
    typealias L = LinkHeader.Link

    func testLinkHeaderFieldsAsServersWriteThem() {
        // GitHub: two links, bare targets with commas in the query.
        XCTAssertEqual(LinkHeader.parse(#"<https://api.github.com/repositories/1/issues?page=2&a=b,c>; rel="next", <https://api.github.com/repositories/1/issues?page=5>; rel="last""#),
                       [L(target: "https://api.github.com/repositories/1/issues?page=2&a=b,c", rels: ["next"]),
                        L(target: "https://api.github.com/repositories/1/issues?page=5", rels: ["last"])])
        // A quoted list of relation types, case-insensitive, other parameters first and after.
        XCTAssertEqual(LinkHeader.parse(#"</p/3>; title="a; b, c"; REL="Next Last"; type=text/html"#), [L(target: "/p/3", rels: ["next", "last"])])
        // A bare rel token; spaces around `;` and `=`; an escaped quote in a parameter.
        XCTAssertEqual(LinkHeader.parse(#"  </a> ;rel = next ; title="say \"hi\"" ,</b>;rel=prev"#), [L(target: "/a", rels: ["next"]), L(target: "/b", rels: ["prev"])])
        // Only the first rel counts (RFC 8288 3.3); a link without rel has none.
        XCTAssertEqual(LinkHeader.parse(#"</a>; rel="prev"; rel="next", </b>"#), [L(target: "/a", rels: ["prev"]), L(target: "/b", rels: [])])
        // A malformed part is skipped up to the next link.
        XCTAssertEqual(LinkHeader.parse(#"garbage; rel="next", </ok>; rel="next""#), [L(target: "/ok", rels: ["next"])])
        XCTAssertEqual(LinkHeader.parse(#"</unclosed; rel="next""#), [])
        XCTAssertEqual(LinkHeader.parse(""), [])
        // Several fields: the first next wins, whatever the field's case.
        let headers: [(name: String, value: String)] = [("link", #"</1>; rel="prev""#), ("Content-Type", "x"), ("LINK", #"</2>; rel="first", </3>; rel="next""#)]
        XCTAssertEqual(LinkHeader.next(headers), "/3")
        XCTAssertNil(LinkHeader.next([("Link", #"</1>; rel="nextish""#)]))
    }

    func testAParameterIsSetWhereItStandsAndNeverTwice() {
        XCTAssertEqual(QueryParameters.setting("https://a/w?f=x&offset=0&per-page=2", "offset", "2"), "https://a/w?f=x&offset=2&per-page=2")
        XCTAssertEqual(QueryParameters.setting("https://a/w?page=1&q=a&page=9", "page", "2"), "https://a/w?page=2&q=a")
        XCTAssertEqual(QueryParameters.setting("https://a/w", "since_id", "10"), "https://a/w?since_id=10")
        XCTAssertEqual(QueryParameters.setting("https://a/w?q=a%20b", "page token", "x&y"), "https://a/w?q=a%20b&page%20token=x%26y")
        XCTAssertEqual(QueryParameters.setting("https://a/w?page%20token=1", "page token", "2"), "https://a/w?page%20token=2")
        XCTAssertEqual(QueryParameters.setting("https://a/w?pages=1", "page", "2"), "https://a/w?pages=1&page=2")
        XCTAssertTrue(QueryParameters.has("https://a/w?limit=2&max_id=5", "max_id"))
        XCTAssertFalse(QueryParameters.has("https://a/w?limit=2&max_idx=5", "max_id"))
    }

    func testCursorOrderIsNumericOfAnyLengthOrTimeAsInstants() {
        XCTAssertEqual(CursorOrder.less("9999999999999999", "109876543210987654"), true, "longer numbers are larger")
        XCTAssertEqual(CursorOrder.less("109876543210987655", "109876543210987654"), false)
        XCTAssertEqual(CursorOrder.less("123456789012345678901234567890", "123456789012345678901234567891"), true, "beyond 64 bits")
        XCTAssertEqual(CursorOrder.less("007", "7"), false, "leading zeros")
        XCTAssertEqual(CursorOrder.less("7", "007"), false)
        XCTAssertEqual(CursorOrder.less("-5", "3"), true)
        XCTAssertEqual(CursorOrder.less("-5", "-12"), false)
        XCTAssertEqual(CursorOrder.less("1.5", "1.25"), false)
        XCTAssertEqual(CursorOrder.less("1.25", "1.5"), true)
        XCTAssertEqual(CursorOrder.less("2.50", "2.5"), false, "trailing zeros")
        XCTAssertEqual(CursorOrder.less("-0", "0"), false)
        XCTAssertEqual(CursorOrder.less("2026-11-30T12:00:00+02:00", "2026-11-30T11:00:00Z"), true, "10:00Z before 11:00Z")
        XCTAssertEqual(CursorOrder.less("2026-11-30T11:00:00Z", "2026-11-30T11:00:00.250Z"), true)
        XCTAssertNil(CursorOrder.less("5", "2026-11-30T11:00:00Z"))
        XCTAssertNil(CursorOrder.less("abc", "abd"))
        XCTAssertEqual(CursorOrder.kind(of: "109876543210987654"), .numeric)
        XCTAssertEqual(CursorOrder.kind(of: "2026-11-30T11:00:00Z"), .time)
        XCTAssertNil(CursorOrder.kind(of: "1e5"))
        XCTAssertNil(CursorOrder.kind(of: "12."))
        XCTAssertNil(CursorOrder.kind(of: "v12"))
    }

    func testTheTrackerKeepsTheLargestAndNeverMovesBackOrAcrossKinds() {
        var t = CursorTracker()
        for v in ["5", "109876543210987654", "77"] { t.add(v, at: "[0].id") }
        var warnings: [String] = []
        XCTAssertEqual(t.proposal(stored: nil, warn: { warnings.append($0) }), "109876543210987654")
        XCTAssertEqual(t.proposal(stored: "200000000000000000", warn: { warnings.append($0) }), "200000000000000000", "never back")
        XCTAssertEqual(warnings, [])
        // A stored value of another kind (the config changed): replaced, with a warning.
        XCTAssertEqual(t.proposal(stored: "2026-11-30T11:00:00Z", warn: { warnings.append($0) }), "109876543210987654")
        XCTAssertEqual(warnings.count, 1)
        XCTAssertTrue(warnings[0].contains("is not a number"), warnings[0])
        // Mixed kinds in one run: nothing advances, and the warning names the value and where.
        var mixed = CursorTracker()
        mixed.add("2026-11-30T11:00:00Z", at: "items[0].t")
        mixed.add("17", at: "items[1].t")
        mixed.add("2026-12-30T11:00:00Z", at: "items[2].t")
        warnings = []
        XCTAssertEqual(mixed.proposal(stored: "2026-01-01T00:00:00Z", warn: { warnings.append($0) }), "2026-01-01T00:00:00Z")
        XCTAssertEqual(warnings, [#"incremental: items[1].t: "17" is a number, earlier values are an RFC 3339 time; the cursor stays at "2026-01-01T00:00:00Z""#])
        // Nothing delivered: the stored value stays.
        XCTAssertEqual(CursorTracker().proposal(stored: "9", warn: { _ in }), "9")
        XCTAssertNil(CursorTracker().proposal(stored: nil, warn: { _ in }))
    }

    func testAutoFindsTheNextPageAndTheListByName() throws {
        func next(_ json: String) throws -> NextPageFinder.Found? { NextPageFinder.find(JSONNode(try JSONDocument(json))) }
        XCTAssertEqual(try next(#"{"data":[{"next":"no"}],"links":{"self":"/a","next":{"href":"/b"}}}"#), .url("/b"), "not inside the records")
        XCTAssertEqual(try next(#"{"items":[],"nextPageToken":"CAIQAA"}"#), .token("CAIQAA", param: "pageToken"))
        XCTAssertEqual(try next(#"{"response_metadata":{"next_cursor":"dGVhbQ=="}}"#), .token("dGVhbQ==", param: "cursor"))
        XCTAssertEqual(try next(#"{"@odata.nextLink":"https://graph/x?$skiptoken=1"}"#), .url("https://graph/x?$skiptoken=1"))
        XCTAssertEqual(try next(#"{"next_page_url":null,"meta":{"nextUrl":"/p2"}}"#), .url("/p2"))
        XCTAssertNil(try next(#"{"a":{"b":{"c":{"next":"/too-deep"}}}}"#), "at most 3 levels deep")
        XCTAssertEqual(try next(#"{"a":{"b":{"next":"/deep-enough"}}}"#), .url("/deep-enough"))
        XCTAssertNil(try next(#"{"next":"","page":2}"#))
        XCTAssertEqual(NextPageFinder.tokenParam(for: "next_page_token"), "page_token")
        XCTAssertEqual(NextPageFinder.tokenParam(for: "nextToken"), "token")

        func list(_ json: String) throws -> String? {
            switch ItemsLocator.locate(JSONNode(try JSONDocument(json))) {
            case .success(let n): return n.path.description
            case .failure: return nil
            }
        }
        XCTAssertEqual(try list(#"[{"id":1}]"#), "")
        XCTAssertEqual(try list(#"{"meta":{"count":1},"results":[{"id":1}]}"#), "results")
        XCTAssertEqual(try list(#"{"data":{"children":[{"kind":"t3"}]}}"#), "data.children")
        XCTAssertEqual(try list(#"{"hits":{"total":1,"hits":[{"_id":"1"}]}}"#), "hits.hits")
        XCTAssertEqual(try list(#"{"feed":{"entry":[{"id":1}]}}"#), "feed.entry")
        XCTAssertEqual(try list(#"{"tags":["a"],"items":[]}"#), "items", "an empty list is a list (an empty last page)")
        XCTAssertEqual(try list(#"{"data":["a","b"],"posts":[{"id":1}]}"#), "posts", "strings are not records")
        XCTAssertNil(try list(#"{"payload":{"things":[{"id":1}]}}"#))
    }

    /// Through the source with replayed pages: a missing total is an error naming the path
    /// (the first page stays delivered), and `explain` says why paging ended.
    func testAMissingTotalIsAnErrorAndExplainSaysWhyPagingEnded() async throws {
        let source = #"{"name":"w","type":"json","url":"https://api.example.org/works","items":"auto","fields":{"id":"id"},"pagination":{"type":"offset","limit":2,"total_path":"meta.count"}}"#
        let missing = try await plugins.fetch(source, [("https://api.example.org/works?offset=0&limit=2", 200, #"{"results":[{"id":1},{"id":2}]}"#)])
        XCTAssertEqual(missing.items.map(\.id), ["w:1", "w:2"])
        XCTAssertEqual(missing.error, "GET https://api.example.org/works?offset=0&limit=2: pagination: meta.count: missing, expected the total number of records (pagination.total_path)")
        let pages = [("https://api.example.org/works?offset=0&limit=2", 200, #"{"meta":{"count":"3"},"results":[{"id":1},{"id":2}]}"#),
                     ("https://api.example.org/works?offset=2&limit=2", 200, #"{"meta":{"count":"3"},"results":[{"id":3}]}"#)]
        let r = try await plugins.fetch(source, responses: pages.map { CannedResponse(url: $0.0, status: $0.1, body: $0.2, contentType: "application/json") }, explain: true)
        XCTAssertNil(r.error)
        XCTAssertEqual(r.items.map(\.id), ["w:1", "w:2", "w:3"])
        XCTAssertEqual(r.logs, ["pagination: offset 3 reached the total 3: done"])
    }
}
