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

/// libpq opened at run time (PostgresLibrary), the connection wrapper against a real server,
/// and URLs shown without their password.
final class PostgresTests: XCTestCase {
    func testURLIsShownWithoutItsPasswordAndThePasswordIsASecret() throws {
        let url = try XCTUnwrap(PostgresURL("postgres://app:s3cr%40t-pw@db.example:5433/feeds?sslmode=require"))
        XCTAssertEqual(url.display, "postgres://app:***@db.example:5433/feeds?sslmode=require")
        XCTAssertEqual(Secrets.scrub("auth failed for s3cr@t-pw and s3cr%40t-pw"), "auth failed for *** and ***")
        let query = try XCTUnwrap(PostgresURL("postgresql://db/feeds?user=app&password=qwerty-9"))
        XCTAssertEqual(query.display, "postgresql://db/feeds?user=app&password=***")
        XCTAssertEqual(try XCTUnwrap(PostgresURL("postgres://db")).conninfo, "postgres://db?connect_timeout=5&application_name=tributary")
        XCTAssertEqual(try XCTUnwrap(PostgresURL("postgres://db/x?connect_timeout=1")).conninfo, "postgres://db/x?connect_timeout=1&application_name=tributary")
        XCTAssertNil(PostgresURL("mysql://db/x"))
        XCTAssertNil(PostgresURL("db.example:5432"))
    }

    func testAMissingLibpqIsNamedInTheError() {
        guard case .failure(let e) = PostgresLibrary.open("libpq-does-not-exist.so.5") else { return XCTFail("opened a library that does not exist") }
        XCTAssertTrue(e.message.contains("PostgreSQL needs libpq (libpq-does-not-exist.so.5, Debian package libpq5)"), e.message)
    }

    func testStatementsParametersBytesAndTransactions() throws {
        let server = try PostgresServer.shared()
        let db = try PostgresConnection(url: XCTUnwrap(PostgresURL(server.url())))
        let lib = try PostgresLibrary.shared().get()
        for (slot, name) in PostgresLibrary.slots { XCTAssertNotNil(lib.api.pointee[keyPath: slot], name) }
        XCTAssertTrue(db.serverVersion.hasPrefix("15.") || db.serverVersion.hasPrefix("1"), db.serverVersion)
        let table = "t_" + UUID().uuidString.prefix(8).lowercased()
        try db.execute("CREATE TABLE \(table)(k text PRIMARY KEY, b bytea, n double precision)")
        defer { _ = try? db.execute("DROP TABLE \(table)") }
        let bytes: [UInt8] = [0, 1, 2, 255, 0x5C, 0x27]
        try db.transaction { () throws(PostgresError) in
            try db.execute("INSERT INTO \(table) VALUES($1, $2::bytea, $3::float8)", [.text("a'\"\\é"), .bytes(bytes), .text("1.5")])
            try db.execute("INSERT INTO \(table) VALUES($1, NULL, NULL)", [.text("b")])
        }
        let rows = try db.execute("SELECT k, n FROM \(table) ORDER BY k")
        XCTAssertEqual(rows.count, 2)
        XCTAssertEqual(rows.string(0, 0), "a'\"\\é")
        XCTAssertEqual(rows.double(0, 1), 1.5)
        XCTAssertNil(rows.double(1, 1))
        XCTAssertEqual(try db.execute("SELECT b FROM \(table) WHERE k = $1", [.text("a'\"\\é")], binaryResult: true).bytes(0, 0), bytes)
        let arrays = try db.execute("SELECT count(*) FROM unnest($1::text[]) AS v(x) WHERE x = ANY($1::text[])", [.text(PostgresConnection.textArray(["a\"b", "c\\d", "", "{,}"]))])
        XCTAssertEqual(arrays.int(0, 0), 4)
        // A failed transaction leaves nothing, and the connection is usable afterwards.
        XCTAssertThrowsError(try db.transaction { () throws(PostgresError) in
            try db.execute("INSERT INTO \(table) VALUES('c', NULL, NULL)")
            try db.execute("INSERT INTO \(table) VALUES('c', NULL, NULL)")
        }) { error in
            let e = error as? PostgresError
            XCTAssertEqual(e?.sqlstate, "23505")
            XCTAssertEqual(e?.transient, false)
            XCTAssertFalse(e?.message.contains(server.password) ?? true)
        }
        XCTAssertEqual(try db.execute("SELECT count(*) FROM \(table)").int(0, 0), 2)
    }

    func testAnUnreachableServerIsATransientErrorNamingTheURLWithoutItsPassword() throws {
        let url = try XCTUnwrap(PostgresURL("postgres://tributary:hunter2-pw@127.0.0.1:1/postgres?connect_timeout=2"))
        XCTAssertThrowsError(try PostgresConnection(url: url)) { error in
            let e = error as? PostgresError
            XCTAssertEqual(e?.transient, true)
            XCTAssertTrue(e?.message.hasPrefix("cannot connect to PostgreSQL at postgres://tributary:***@127.0.0.1:1/postgres?connect_timeout=2: ") ?? false, e?.message ?? "")
            XCTAssertFalse(e?.message.contains("hunter2-pw") ?? true)
        }
    }

    func testTwoTransactionsClaimingTheSameIdsEmitEachOnce() throws {
        let server = try PostgresServer.shared()
        let schema = "t_" + UUID().uuidString.prefix(8).lowercased()
        let a = try PostgresState(url: XCTUnwrap(PostgresURL(server.url())), schema: schema)
        let b = try PostgresState(url: XCTUnwrap(PostgresURL(server.url())), schema: schema)
        defer { a.close(); b.close(); _ = try? server.psql("DROP SCHEMA \(schema) CASCADE") }
        let ids = (0..<50).map { EmittedID(id: "i\($0)", source: "s", hash: "h") }
        let ta = try a.begin()
        XCTAssertEqual(try ta.claim(ids, now: 1).compactMap { $0 }.count, 0, "all new to a")
        // b's claim waits for a's transaction: commit a from another thread after a moment.
        let box = TransactionBox(ta)
        let committed = DispatchSemaphore(value: 0)
        let committer = Thread { usleep(300_000); try? box.tx.commit(); committed.signal() }
        committer.start()
        let tb = try b.begin()
        let known = try tb.claim(ids.reversed(), now: 2)
        tb.rollback()
        // a's connection is the committer's until its commit has returned (b can go on as soon
        // as the server committed, before libpq has handed the result back over there).
        committed.wait()
        XCTAssertEqual(known.compactMap { $0 }.count, 50, "every id a committed is known to b: none emitted twice")
        // Leases: one worker at a time.
        let keys = [SourceKey(name: "x", type: "json"), SourceKey(name: "y", type: "json")]
        XCTAssertEqual(try a.claimDue(keys, worker: "wa", lease: 60, limit: 10, now: 0).claimed.map(\.name).sorted(), ["x", "y"])
        let other = try b.claimDue(keys, worker: "wb", lease: 60, limit: 10, now: 0)
        XCTAssertEqual(other.claimed.count, 0)
        XCTAssertNotNil(other.nextCheck, "when the leases run out")
        XCTAssertEqual(try b.lease(keys, worker: "wb", lease: 60), ["x": "wa", "y": "wa"])
        XCTAssertEqual(try a.renewLeases(["x", "y"], worker: "wa", lease: 60), [:])
        XCTAssertEqual(try b.renewLeases(["x"], worker: "wb", lease: 60), ["x": "wa"])
        XCTAssertEqual(try a.renewLeases(["x", "never-leased"], worker: "wa", lease: 60), ["never-leased": ""], "a source nobody holds is lost to nobody")
        let tx = try a.begin()
        try tx.releaseLease(source: "x", worker: "wa")
        try tx.commit()
        XCTAssertEqual(try b.lease(keys, worker: "wb", lease: 60), ["y": "wa"], "x is free again")
    }
}

extension PostgresTests {
    /// The validators of many sources in one read are what each source's own read gives (a
    /// source without any is there, empty), and a source's read-ahead validators are taken by
    /// its next read, once, in place of a round trip.
    func testValidatorsOfManySourcesReadInOneGoAreEachSourcesOwn() async throws {
        let server = try PostgresServer.shared()
        let schema = "t_" + UUID().uuidString.prefix(8).lowercased()
        let state = try PostgresState(url: XCTUnwrap(PostgresURL(server.url())), schema: schema)
        defer { state.close(); _ = try? server.psql("DROP SCHEMA \(schema) CASCADE") }
        XCTAssertTrue(state.readsCostRoundTrips)
        let tx = try state.begin()
        try tx.storeValidators([
            ("a GET https://x.test/1", CachedResponse(etag: "\"e1\"", lastModified: nil, body: [1])),
            ("a GET https://x.test/2", CachedResponse(etag: nil, lastModified: "Tue, 01 Dec 2026 10:00:00 GMT", body: [])),
            ("b GET https://x.test/1", CachedResponse(etag: "\"e3\"", lastModified: nil, body: [2])),
            ("ab GET https://x.test/9", CachedResponse(etag: "\"e4\"", lastModified: nil, body: [])),
        ], now: 1)
        try tx.commit()
        let scopes = ["a", "b", "ab", "none"]
        let all = try state.validators(scopes: scopes)
        XCTAssertEqual(Set(all.keys), Set(scopes))
        for scope in scopes { XCTAssertEqual(all[scope], try state.validators(scope: scope), scope) }
        XCTAssertEqual(all["a"]?.count, 2)
        XCTAssertEqual(all["none"], [:])
        XCTAssertEqual(try state.validators(scopes: []), [:])

        let gateway = StateGateway(state: state)
        await gateway.prefetchValidators(["a", "none"])
        _ = try server.psql("DELETE FROM \(schema).validators")
        let ahead = try await gateway.validators(scope: "a")
        XCTAssertEqual(ahead["a GET https://x.test/1"]?.etag, "\"e1\"", "read ahead, before the rows went")
        let again = try await gateway.validators(scope: "a")
        XCTAssertEqual(again, [:], "taken once: the next read is the state's")
        await gateway.shutdown()
    }
}

/// Hands a transaction to the one other thread that commits it (the test's two connections
/// must run at once). Why `@unchecked Sendable`: after the hand-over only that thread uses it.
final class TransactionBox: @unchecked Sendable {
    let tx: any StateTransaction
    init(_ tx: any StateTransaction) { self.tx = tx }
}
