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

/// The `postgres` sink against a real server, and the config keys of a PostgreSQL state.
final class PostgresSinkTests: XCTestCase {
    func errors(_ text: String) -> [String] {
        do {
            _ = try ConfigLoader.load(bytes: Array(text.utf8), file: "tributary.json", directory: "/cfg", registry: BuiltinRegistry.standard, environment: { _ in nil })
            XCTFail("expected config errors")
            return []
        } catch {
            return error.messages
        }
    }

    let source = #"{"name":"a","type":"json","url":"https://e.org/x","fields":{"title":"t"}}"#

    func testStateAndSinkKeysAreValidated() throws {
        let ok = try ConfigLoader.load(bytes: Array(#"{"state":{"url":"postgresql://u:pw-123456@db/feeds","schema":"feeds_2","lease":"30s"},"sources":[\#(source)]}"#.utf8),
                                       file: "tributary.json", directory: "/cfg", registry: BuiltinRegistry.standard, environment: { _ in nil })
        XCTAssertEqual(ok.sharedState?.url.display, "postgresql://u:***@db/feeds")
        XCTAssertEqual(ok.sharedState?.schema, "feeds_2")
        XCTAssertEqual(ok.lease, 30)
        XCTAssertEqual(errors(#"{"state":{"url":"mysql://db/x"},"sources":[\#(source)]}"#),
                       [#"tributary.json: (top level).state.url: expected a postgres:// or postgresql:// URL (postgres://user:password@host:port/database), found "mysql://db/x""#])
        XCTAssertEqual(errors(#"{"state":{"url":"postgres://db/x","path":"s.sqlite","schema":"1x","lease":"500ms"},"sources":[\#(source)]}"#), [
            #"tributary.json: (top level).state.schema: expected a schema name (letters, digits and _, not starting with a digit, at most 63), found "1x""#,
            "tributary.json: (top level).state.lease: must be at least 1s, found 500ms",
            "tributary.json: (top level).state.path: cannot be used with state.url (the state is either a file or a PostgreSQL database)",
        ])
        XCTAssertEqual(errors(#"{"sources":[\#(source)],"sinks":[{"type":"postgres","url":"postgres://db/x","table":"a.b.c"}]}"#),
                       [#"tributary.json: sinks[0].table: expected a table name or schema.table (letters, digits and _, not starting with a digit), found "a.b.c""#])
        XCTAssertEqual(errors(#"{"sources":[\#(source)],"sinks":[{"type":"postgres"}]}"#).count, 1, "url is required")
    }

    func testPayloadKeepsTheLastOfEachIdAndHasNoNUL() {
        let t = Timestamp(seconds: 0)
        var a = Item(id: "x:1", source: "s", type: "json", kind: "entry", title: "one\u{0}", fetched: t)
        a.summary = #"a \u0000 b"#
        let b = Item(id: "x:1", source: "s", type: "json", kind: "entry", title: "one again", fetched: t)
        let text = String(decoding: PostgresItemsTable.payload([a, b, Item(id: "x:2", source: "s", type: "json", kind: "entry", title: "two", fetched: t)]), as: UTF8.self)
        XCTAssertEqual(text.components(separatedBy: #""id":"x:1""#).count, 2, text)
        XCTAssertTrue(text.contains("one again") && text.contains("x:2"), text)
        let nul = String(decoding: PostgresItemsTable.payload([a]), as: UTF8.self)
        XCTAssertTrue(nul.contains(#""title":"one\ufffd""#), nul)
        XCTAssertTrue(nul.contains(#"a \\u0000 b"#), "an escaped backslash before u0000 is text, kept: \(nul)")
    }

    func testUpsertsEveryColumnInOneTransactionPerBatch() throws {
        let server = try PostgresServer.shared()
        let schema = "t_" + UUID().uuidString.prefix(8).lowercased()
        defer { _ = try? server.psql("DROP SCHEMA IF EXISTS \(schema) CASCADE") }
        let sink = PostgresSink(url: try XCTUnwrap(PostgresURL(server.url())), table: try XCTUnwrap(PostgresItemsTable("\(schema).items")))
        try sink.open(SinkContext(window: nil))
        var item = Item(id: "v:1", source: "yt", type: "youtube.search", kind: "video", title: "First", fetched: Timestamp(seconds: 1_796_000_000))
        item.published = Timestamp(seconds: 1_795_000_000)
        item.tags = ["swift", "a \"quoted\" tag"]
        item.geo = Geo(lat: -19.92, lon: -43.94)
        item.url = "https://e.org/v/1"
        item.data = JSONObject([("views", .number(JSONNumber(42))), ("nested", .object(JSONObject([("k", .string("v"))])))])
        try sink.write([item, Item(id: "v:2", source: "yt", type: "youtube.search", kind: "video", title: "Second", fetched: Timestamp(seconds: 1_796_000_000))])
        item.title = "First, renamed"
        item.tags = []
        try sink.write([item])
        try sink.close()
        let rows = try server.psql("""
            SELECT id, source, type, kind, title, coalesce(url, '-'), to_char(published AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
                   coalesce(array_to_string(tags, ','), '-'), coalesce(lat::text, '-'), coalesce(data->>'views', '-') FROM \(schema).items ORDER BY id
            """)
        XCTAssertEqual(rows, """
            v:1|yt|youtube.search|video|First, renamed|https://e.org/v/1|2026-11-18T11:06:40Z|-|-19.92|42
            v:2|yt|youtube.search|video|Second|-||-|-|-

            """)
    }
}
