import XCTest
@testable import TributaryCore
@testable import TributaryPlugins
@testable import TributaryBase
@testable import TributaryJSON
@testable import TributaryOptions
@testable import TributaryHTTP
@testable import TributaryState
@testable import TributaryPostgres
@testable import TributaryPluginKit
import TributaryTestSupport

/// `JetStreamConnection` in this process against a real nats-server (`NATSServer`): the
/// acknowledgements arrive on libnats's threads, so under `make sanitize-thread` this is where
/// the publisher's locking is checked; the end-to-end tests drive the same code in the binary.
final class JetStreamConnectionTests: XCTestCase {
    func messages(_ range: Range<Int>, subject: String = "tributary.items.entry") -> [JetStreamConnection.Message] {
        range.map { JetStreamConnection.Message(subject: subject, id: "t:\($0)", payload: Array(#"{"id":"t:\#($0)"}"#.utf8)) }
    }

    func testBatchesAreAcknowledgedAndRepublishedIDsAreDuplicates() throws {
        let server = try NATSServer()
        defer { server.remove() }
        let c = try JetStreamConnection.connect(.init(url: server.url, timeout: 5, maxPending: 64))
        defer { c.close() }
        XCTAssertFalse(try c.streamExists("T"))
        try c.addStream("T", subjects: ["tributary.items.>"], duplicateWindow: 60)
        XCTAssertTrue(try c.streamExists("T"))
        // More messages per batch than may be in flight: publishing stalls and resumes.
        for start in stride(from: 0, to: 2_000, by: 500) {
            XCTAssertEqual(try c.publish(messages(start..<start + 500)), .init(count: 500, duplicates: 0))
        }
        XCTAssertEqual(try c.publish(messages(0..<300)), .init(count: 300, duplicates: 300))
        XCTAssertEqual(try c.publish([]), .init(count: 0, duplicates: 0))
        XCTAssertEqual(try NATSReader.count(server.url, stream: "T")?.count, 2_000)
    }

    /// `maxPayload` is the server's INFO, and `size(of:)` counts what the server counts: a
    /// message of exactly the limit, headers included, is taken; one byte more is refused by
    /// the server (which closes the connection: libnats checks the payload alone).
    func testMaxPayloadIsTheServersAndSizeCountsTheHeadersAsTheServerDoes() throws {
        let server = try NATSServer(maxPayload: 2048)
        defer { server.remove() }
        func message(_ id: String, total: Int) -> JetStreamConnection.Message {
            let headers = JetStreamConnection.size(of: .init(subject: "tributary.items.entry", id: id, payload: [])).headers
            return .init(subject: "tributary.items.entry", id: id, payload: Array(repeating: UInt8(ascii: "p"), count: total - headers))
        }
        let c = try JetStreamConnection.connect(.init(url: server.url, timeout: 2))
        defer { c.close() }
        XCTAssertEqual(c.maxPayload, 2048)
        try c.addStream("T", subjects: ["tributary.items.>"], duplicateWindow: 60)
        let fits = message("t:fits", total: 2048)
        XCTAssertEqual(JetStreamConnection.size(of: fits).payload + JetStreamConnection.size(of: fits).headers, 2048)
        XCTAssertEqual(JetStreamConnection.size(of: fits).headers, "NATS/1.0\r\nNats-Msg-Id: t:fits\r\n\r\n".utf8.count)
        XCTAssertEqual(try c.publish([fits]), .init(count: 1, duplicates: 0))
        XCTAssertThrowsError(try c.publish([message("t:over", total: 2049)]), "the server refuses one byte more")
        XCTAssertEqual(try NATSReader.read(server.url, stream: "T")?.messages.map(\.id), ["t:fits"])
    }

    func testAPublishNoStreamCapturesFailsAndTheConnectionTakesNoFurtherBatch() throws {
        let server = try NATSServer()
        defer { server.remove() }
        let c = try JetStreamConnection.connect(.init(url: server.url, timeout: 5))
        defer { c.close() }
        XCTAssertThrowsError(try c.publish(messages(0..<1_000, subject: "nowhere.entry"))) { error in
            XCTAssertEqual((error as? NATSError)?.kind, .noStream)
            XCTAssertEqual((error as? NATSError)?.message, "no stream captures subject nowhere.entry")
        }
        XCTAssertThrowsError(try c.publish(messages(0..<1))) { error in
            XCTAssertTrue("\(error)".contains("abandoned"), "\(error)")
        }
    }

    func testConnectFailuresAndAMissingLibrarySayWhat() throws {
        XCTAssertThrowsError(try JetStreamConnection.connect(.init(url: "nats://127.0.0.1:\(try NATSServer.freePort())", timeout: 1))) { error in
            XCTAssertEqual((error as? NATSError)?.kind, .connect)
            XCTAssertEqual((error as? NATSError)?.message, "No server available for connection")
        }
        guard case .failure(let e) = NATSLibrary.open("libnats-missing.so.0") else { return XCTFail("a missing library must not load") }
        XCTAssertTrue(e.message.hasPrefix("the nats sink needs the NATS C client (libnats-missing.so.0, Debian package libnats3.4), which could not be loaded: "), e.message)
        guard case .success(let lib) = NATSLibrary.shared() else { return XCTFail("libnats.so.3.4 must load") }
        XCTAssertEqual(lib.version.split(separator: ".").first, "3")
    }
}
