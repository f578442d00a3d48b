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
import TributaryTestSupport

/// Schema 3 of both state backends: ids keyed on their SHA-256 (`StateKeys`), the migration of
/// an existing state (its ids still known afterwards), `status`'s read-only PostgreSQL state,
/// and a worker's own leftover lease reused by `claimDue`.
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
        XCTAssertEqual(try Shell.run(["sqlite3", path, "PRAGMA user_version"]).stdout, "\(SQLiteState.schemaVersion)\n", "migrated through step 3 to the latest")
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
        XCTAssertEqual(try server.psql("SELECT value FROM \(s).meta"), "\(PostgresSchema.version)\n", "migrated through version 3 to the latest")
        XCTAssertEqual(try server.psql("SELECT encode(id_hash, 'hex') FROM \(s).emitted WHERE id = 'x:1'"), StateKeys.idHashHex("x:1") + "\n")
        XCTAssertEqual(try server.psql("SELECT count(*) FROM pg_indexes WHERE schemaname = '\(schema)' AND indexname IN ('emitted_pkey', 'emitted_last_seen')"), "2\n")
        let migrated = try XCTUnwrap(try PostgresState.readOnly(url: url, schema: schema))
        XCTAssertEqual(migrated.version, PostgresSchema.version)
        migrated.close()
        XCTAssertNil(try PostgresState.readOnly(url: url, schema: schema + "_none"), "no state there yet")
        XCTAssertEqual(try server.psql("SELECT count(*) FROM pg_namespace WHERE nspname = '\(schema)_none'"), "0\n", "and none made")
    }

    /// A lease the worker holds already (its release was lost with the state) does not keep
    /// the source from it: `claimDue` leases it again at once, and only to that worker.
    func testClaimDueReusesTheWorkersOwnLeftoverLease() throws {
        let server = try PostgresServer.shared()
        let schema = "t_" + UUID().uuidString.prefix(8).lowercased()
        let url = try XCTUnwrap(PostgresURL(server.url()))
        let a = try PostgresState(url: url, schema: schema)
        let b = try PostgresState(url: url, schema: schema)
        defer { a.close(); b.close(); _ = try? server.psql("DROP SCHEMA \(schema) CASCADE") }
        let keys = [SourceKey(name: "x", type: "json")]
        XCTAssertEqual(try a.claimDue(keys, worker: "wa", lease: 120, limit: 10, now: 0).claimed.map(\.name), ["x"])
        // wa's run of x ended without its release: x is still wa's for two minutes.
        let other = try b.claimDue(keys, worker: "wb", lease: 120, limit: 10, now: 0)
        XCTAssertEqual(other.claimed.count, 0, "another worker waits for the lease")
        XCTAssertGreaterThan(other.nextCheck ?? 0, Date().timeIntervalSince1970 + 60, "until it runs out")
        XCTAssertEqual(other.later.map(\.name), ["x"], "put off until the lease runs out")
        XCTAssertEqual(other.later.first?.at ?? 0, other.nextCheck ?? 1, accuracy: 0.001)
        let own = try a.claimDue(keys, worker: "wa", lease: 120, limit: 10, now: 0)
        XCTAssertEqual(own.claimed.map(\.name), ["x"], "its own worker takes it again at once")
        // Not due (a run recorded): the next check is its due time, not its lease's end.
        let tx = try a.begin()
        let due = Date().timeIntervalSince1970 + 5
        try tx.recordRun(RunRecord(source: "x", type: "json", success: false, error: "state went away", nextDue: due, now: due - 5))
        try tx.commit()
        let later = try a.claimDue(keys + [SourceKey(name: "y", type: "json")], worker: "wa", lease: 120, limit: 10, now: 0)
        XCTAssertEqual(later.claimed.map(\.name), ["y"])
        XCTAssertEqual(try XCTUnwrap(later.nextCheck), due, accuracy: 0.01)
        XCTAssertEqual(later.later.map(\.name), ["x"])
        XCTAssertEqual(later.later.first?.at ?? 0, due, accuracy: 0.01)
        // Due and free, left out by the limit: not put off (offered again at the next look).
        let limited = try b.claimDue([SourceKey(name: "z1", type: "json"), SourceKey(name: "z2", type: "json")], worker: "wb", lease: 120, limit: 1, now: 0)
        XCTAssertEqual(limited.claimed.count, 1)
        XCTAssertEqual(limited.later.map(\.name), [])
    }
}
