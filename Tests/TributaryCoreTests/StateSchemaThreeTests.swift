import Foundation
import XCTest
@testable import TributaryCore
import TributaryTestSupport

/// Schema 3 of both state backends: ids keyed on their SHA-256 (`StateKeys`), the migration of
/// an existing state (its ids still known afterwards), and `status`'s read-only PostgreSQL state.
final class StateSchemaThreeTests: XCTestCase {
    let longID = "x:" + String(repeating: "0123456789abcdef", count: 640)  // 10 KB

    func testTheKeyIsTheSHA256OfTheUTF8Bytes() {
        XCTAssertEqual(StateKeys.idHashHex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(StateKeys.idHash("é").count, 32)
    }

    func testASchemaTwoFileIsMigratedAndKnowsItsIdsByTheirHash() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let path = dir.path + "/v2.sqlite"
        let v2 = SQLiteState.migrations[0].sql + SQLiteState.migrations[1].sql + """
            INSERT INTO emitted VALUES('x:1', 'old', 10, 10, 'h1'), ('x:2', 'old', 20, 20, 'h2');
            PRAGMA user_version = 2;
            """
        let made = try Shell.run(["sqlite3", path], stdin: v2)
        XCTAssertEqual(made.status, 0, made.stderr)
        // A dry run reads the file as it is (keyed on id), without migrating it.
        let reader = try XCTUnwrap(try SQLiteState.readOnly(path: path))
        let dry = try reader.begin()
        XCTAssertEqual(try dry.claim([EmittedID(id: "x:1", source: "old", hash: "h1"), EmittedID(id: "x:9", source: "old", hash: "h")], now: 30),
                       [KnownID(source: "old", hash: "h1"), nil])
        dry.rollback()
        reader.close()
        XCTAssertEqual(try Shell.run(["sqlite3", path, "PRAGMA user_version"]).stdout, "2\n")

        let store = try SQLiteState(path: path, lockTimeout: 1)
        let tx = try store.begin()
        let ids = [EmittedID(id: "x:2", source: "old", hash: "h2"), EmittedID(id: longID, source: "new", hash: "h"), EmittedID(id: "x:1", source: "old", hash: "h1")]
        XCTAssertEqual(try tx.claim(ids, now: 30), [KnownID(source: "old", hash: "h2"), nil, KnownID(source: "old", hash: "h1")], "the old ids are known after the migration")
        try tx.commit()
        let again = try store.begin()
        XCTAssertEqual(try again.claim(ids, now: 40).compactMap { $0 }.count, 3, "the 10 KB id is known too")
        again.rollback()
        store.close()
        XCTAssertEqual(try Shell.run(["sqlite3", path, "PRAGMA user_version"]).stdout, "3\n")
        XCTAssertEqual(try Shell.run(["sqlite3", path, "SELECT lower(hex(id_hash)) FROM emitted WHERE id = 'x:1'"]).stdout, StateKeys.idHashHex("x:1") + "\n")
        XCTAssertEqual(try Shell.run(["sqlite3", path, "SELECT count(*) FROM emitted"]).stdout, "3\n")
        // Read-only again, now keyed on the hash.
        let after = try XCTUnwrap(try SQLiteState.readOnly(path: path))
        let look = try after.begin()
        XCTAssertEqual(try look.claim([EmittedID(id: longID, source: "new", hash: "h")], now: 50), [KnownID(source: "new", hash: "h")])
        look.rollback()
        after.close()
    }

    func testAVersionTwoPostgreSQLStateIsMigratedAndKnowsItsIdsByTheirHash() throws {
        let server = try PostgresServer.shared()
        let schema = "t_" + UUID().uuidString.prefix(8).lowercased()
        defer { _ = try? server.psql("DROP SCHEMA IF EXISTS \(schema) CASCADE") }
        let s = PostgresConnection.quote(identifier: schema)
        let v2 = ["CREATE SCHEMA \(s)", "CREATE TABLE \(s).meta(key text PRIMARY KEY, value text NOT NULL)"] + PostgresSchema.version1(s) + PostgresSchema.version2(s) + [
            "INSERT INTO \(s).meta VALUES('schema_version', '2')",
            "INSERT INTO \(s).emitted VALUES('x:1', 'old', 10, 10, 'h1'), ('x:2', 'old', 20, 20, 'h2')",
            #"INSERT INTO \#(s).recent_items VALUES('rss out.xml', 'x:1', 10, '{"id":"x:1"}')"#,
            "INSERT INTO \(s).sources(name, type, last_run, last_success, failures, in_config, emitted_total) VALUES('old', 'json', 10, 10, 0, 10, 2)",
        ]
        _ = try server.psql(v2.joined(separator: ";\n"))
        let url = try XCTUnwrap(PostgresURL(server.url()))
        // `status` reads it as it is.
        let reader = try XCTUnwrap(try PostgresState.readOnly(url: url, schema: schema))
        XCTAssertEqual(reader.version, 2)
        XCTAssertEqual(try reader.sourceStates(["old"])["old"]?.emittedTotal, 2)
        reader.close()
        XCTAssertEqual(try server.psql("SELECT value FROM \(s).meta"), "2\n", "reading migrates nothing")

        let store = try PostgresState(url: url, schema: schema)
        defer { store.close() }
        let tx = try store.begin()
        let ids = [EmittedID(id: "x:2", source: "old", hash: "h2"), EmittedID(id: longID, source: "new", hash: "h"), EmittedID(id: "x:1", source: "old", hash: "h1")]
        XCTAssertEqual(try tx.claim(ids, now: 30), [KnownID(source: "old", hash: "h2"), nil, KnownID(source: "old", hash: "h1")], "the old ids are known after the migration")
        try tx.replaceWindow(sink: "rss out.xml", items: [WindowItem(id: longID, sortTime: 30, line: Array(#"{"id":"long"}"#.utf8)), WindowItem(id: "x:1", sortTime: 10, line: Array(#"{"id":"x:1"}"#.utf8))])
        try tx.commit()
        let again = try store.begin()
        XCTAssertEqual(try again.claim(ids, now: 40).compactMap { $0 }.count, 3, "the 10 KB id is known too")
        again.rollback()
        XCTAssertEqual(try store.window(sink: "rss out.xml").map { String(decoding: $0, as: UTF8.self) }, [#"{"id":"long"}"#, #"{"id":"x:1"}"#])
        XCTAssertEqual(try server.psql("SELECT value FROM \(s).meta"), "3\n")
        XCTAssertEqual(try server.psql("SELECT encode(id_hash, 'hex') FROM \(s).emitted WHERE id = 'x:1'"), StateKeys.idHashHex("x:1") + "\n")
        XCTAssertEqual(try server.psql("SELECT count(*) FROM pg_indexes WHERE schemaname = '\(schema)' AND indexname IN ('emitted_pkey', 'emitted_last_seen')"), "2\n")
        let migrated = try XCTUnwrap(try PostgresState.readOnly(url: url, schema: schema))
        XCTAssertEqual(migrated.version, PostgresSchema.version)
        migrated.close()
        XCTAssertNil(try PostgresState.readOnly(url: url, schema: schema + "_none"), "no state there yet")
        XCTAssertEqual(try server.psql("SELECT count(*) FROM pg_namespace WHERE nspname = '\(schema)_none'"), "0\n", "and none made")
    }
}
