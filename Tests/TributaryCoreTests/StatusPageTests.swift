import XCTest
import TributaryTestSupport
@testable import TributaryCore
@testable import TributaryBase
@testable import TributaryState

/// The status records and the page built from them: new items per day on every backend (kept
/// with the batch's transaction, forgotten after `NewPerDay.keptDays`), the records' JSON, the
/// page's escaping, order, filter and charts.
final class StatusPageTests: XCTestCase {
    func testNewItemsPerDayAreCountedWithTheBatchAndPrunedOnEveryBackend() throws {
        var backends: [(String, any StateBackend)] = [("memory", InMemoryState())]
        for b in StateUnderTest.backends { backends.append((b.rawValue, try StateUnderTest(b, dir: TempDir()).open())) }
        let day = 20_000.0 * 86400
        for (name, state) in backends {
            defer { state.close() }
            for (t, new) in [(day + 10, 2), (day + 500, 3), (day + 86400, 1), (day + 86400 + 5, 0), (day - 40 * 86400, 7)] {
                let tx = try state.begin()
                try tx.addSourceCounts(SourceCounts(source: "a", type: "feed", fetched: new, new: new, now: t))
                try tx.commit()
            }
            let lost = try state.begin()
            try lost.addSourceCounts(SourceCounts(source: "a", type: "feed", fetched: 9, new: 9, now: day + 20))
            lost.rollback()
            XCTAssertEqual(try state.newPerDay(["a", "b"], since: 20_000 - 13), ["a": [20_000: 5, 20_001: 1]], name)
            XCTAssertEqual(try state.newPerDay(["a"], since: 0)["a"]?[20_000 - 40], 7, name)
            try state.prune(retention: 365 * 86400, now: day + 86400)
            XCTAssertNil(try state.newPerDay(["a"], since: 0)["a"]?[20_000 - 40], "older than \(NewPerDay.keptDays) days: pruned (\(name))")
            XCTAssertEqual(try state.newPerDay(["a"], since: 0)["a"]?[20_000], 5, name)
        }
    }

    static func source(_ name: String, enabled: Bool = true, tags: [String] = []) -> ConfiguredSource {
        var s = ConfiguredSource(settings: SourceSettings(name: name, type: "feed", enabled: enabled), source: NoSource())
        s.written = JSONObject([("name", .string(name)), ("tags", .array(tags.map { .string($0) }))])
        return s
    }

    struct NoSource: FeedSource {
        func fetch(_ context: FetchContext) async throws(SourceError) {}
    }

    func records(now: Double) -> [StatusRecord] {
        Secrets.register("s3cr3tvalue")  // as a `${VAR}` the config uses registers its value
        var inputs = StatusInputs()
        let today = NewPerDay.day(now)
        inputs.states["ok"] = SourceState(lastRun: now - 60, lastSuccess: now - 60, nextDue: now + 840, emittedTotal: 12)
        inputs.states["bad\u{202E}"] = SourceState(lastRun: now - 30, failures: 2, nextDue: now + 30, lastError: "GET http://h/x?token=s3cr3tvalue: HTTP 500: <script>alert('x')</script>\u{202E}txt.exe")
        inputs.newPerDay["ok"] = [today: 4, today - 2: 8, today - 20: 99]
        let sources = [Self.source("ok", tags: ["news"]), Self.source("never"), Self.source("off", enabled: false, tags: ["tech"]),
                       Self.source("bad\u{202E}", tags: ["news", "<i>x</i>"])]
        return StatusRecord.build(sources, inputs, now: now)
    }

    func testThePageEscapesEverythingAndSortsFiltersAndCharts() throws {
        let now = 20_000.0 * 86400 + 3600
        let rs = records(now: now)
        XCTAssertEqual(rs.map(\.health), [.ok, .neverRun, .disabled, .failing])
        XCTAssertEqual(rs[0].newPerDay, Array(repeating: 0, count: 11) + [8, 0, 4], "14 days, today's last; older ones left out")
        XCTAssertEqual(rs[3].lastError, "GET http://h/x?token=***: HTTP 500: <script>alert('x')</script>\u{202E}txt.exe", "redacted")
        XCTAssertTrue(rs[3].json.contains(#""last_error":"GET http://h/x?token=***"#), rs[3].json)

        let page = StatusPage.html(rs, query: StatusPage.Query(""), now: now)
        XCTAssertFalse(page.contains("<script"), "no script, hostile or not")
        XCTAssertFalse(page.contains("\u{202E}"))
        XCTAssertFalse(page.contains("s3cr3t"))
        XCTAssertFalse(page.contains("<i>"))
        XCTAssertTrue(page.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;[U+202E]txt.exe"), page)
        XCTAssertTrue(page.contains("bad[U+202E]"))
        let order = page.components(separatedBy: "<span class=\"name\">").dropFirst().map { $0.prefix { $0 != "<" } }
        XCTAssertEqual(order, ["bad[U+202E]", "never", "ok", "off"], "failing first, then never run, ok, disabled")
        XCTAssertTrue(page.contains("<a href=\"?sort=name\">name</a>"), page)
        XCTAssertTrue(page.contains("<a href=\"?tag=%3Ci%3Ex%3C%2Fi%3E\">&lt;i&gt;x&lt;/i&gt;</a>"), page)
        XCTAssertTrue(page.contains("aria-label=\"New items per day from 2024-09-21 to 2024-10-04: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 8, 0, 4; 12 in all\""), page)
        XCTAssertTrue(page.contains("0 0 0 0 0 0 0 0 0 0 0 8 0 4 (12 in 14 days)"))

        let byName = StatusPage.html(rs, query: StatusPage.Query("sort=name&tag=news"), now: now)
        let named = byName.components(separatedBy: "<span class=\"name\">").dropFirst().map { $0.prefix { $0 != "<" } }
        XCTAssertEqual(named, ["bad[U+202E]", "ok"])
        XCTAssertTrue(byName.contains("<a href=\"?tag=news\">health</a>"), byName)
        XCTAssertEqual(StatusPage.Query("tag=a%20b+c&sort=last_run&x=1"), StatusPage.Query(sort: .lastRun, tag: "a b c"))
        XCTAssertEqual(StatusPage.select(rs, StatusPage.Query(sort: .lastRun)).map(\.source.name), ["bad\u{202E}", "ok", "never", "off"])
        XCTAssertTrue(StatusPage.html(rs, query: StatusPage.Query("tag=none"), now: now).contains("No source has the tag"))

        let array = StatusRecord.jsonArray(rs)
        XCTAssertEqual(array, "[\n" + rs.map { String($0.json.dropLast()) }.joined(separator: ",\n") + "\n]\n")
        XCTAssertNoThrow(try JSONParser.parse(array))
    }

    func testTheServerAnswersThePageHeadAndJSON() throws {
        let server = try MetricsServer(host: "127.0.0.1", port: 0)
        defer { server.stop() }
        XCTAssertTrue(String(decoding: server.reply(to: "GET / HTTP/1.1"), as: UTF8.self).hasPrefix("HTTP/1.1 503 "), "before the first status")
        server.updateStatus(sources: [Self.source("ok")], inputs: StatusInputs())
        let get = String(decoding: server.reply(to: "GET /?sort=name HTTP/1.1"), as: UTF8.self)
        XCTAssertTrue(get.hasPrefix("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n"), get)
        XCTAssertTrue(get.contains("Content-Security-Policy: default-src 'none'"), get)
        let head = String(decoding: server.reply(to: "HEAD /?sort=name HTTP/1.1"), as: UTF8.self)
        XCTAssertTrue(head.hasSuffix("\r\n\r\n"), "headers only")
        XCTAssertEqual(head, String(get.prefix(head.count)))
        let json = String(decoding: server.reply(to: "GET /status.json HTTP/1.1"), as: UTF8.self)
        XCTAssertTrue(json.contains("Content-Type: application/json\r\n") && json.hasSuffix("\"enabled\":true}\n]\n"), json)
        XCTAssertTrue(String(decoding: server.reply(to: "DELETE / HTTP/1.1"), as: UTF8.self).contains("405 Method Not Allowed\r\n"))
        XCTAssertTrue(String(decoding: server.reply(to: "GET /index.html HTTP/1.1"), as: UTF8.self).hasPrefix("HTTP/1.1 404 "))

        // A page that takes long to render: the next one not kept waits as long; the kept one,
        // /healthz and /metrics answer meanwhile.
        server.updateStatus(sources: (1000..<4000).map { Self.source("s\($0)") }, inputs: StatusInputs())
        let big = String(decoding: server.reply(to: "GET / HTTP/1.1"), as: UTF8.self)
        XCTAssertTrue(big.hasPrefix("HTTP/1.1 200 ") && big.contains("s3999"), String(big.prefix(200)))
        let busy = String(decoding: server.reply(to: "GET /?sort=name HTTP/1.1"), as: UTF8.self)
        XCTAssertTrue(busy.hasPrefix("HTTP/1.1 503 ") && busy.contains("Retry-After: 1\r\n"), busy)
        XCTAssertEqual(String(decoding: server.reply(to: "GET / HTTP/1.1"), as: UTF8.self), big, "kept")
        XCTAssertTrue(String(decoding: server.reply(to: "GET /healthz HTTP/1.1"), as: UTF8.self).hasPrefix("HTTP/1.1 200 "))
    }
}
