import XCTest
import CNATS
@testable import TributaryCore
@testable import TributaryPlugins
@testable import TributaryBase
@testable import TributaryJSON
@testable import TributaryOptions
@testable import TributaryHTTP
@testable import TributaryState
@testable import TributaryPostgres
@testable import TributaryPluginKit

/// `JetStreamEvents.acknowledged` with real libnats messages (the callback owns and frees them):
/// an acknowledgement counts once, and only for an id of the batch being published.
final class JetStreamEventsTests: XCTestCase {
    /// libnats, initialised: a message's destruction needs the library's collector, which
    /// `natsOptions_Create` starts (as connecting does in the sink).
    func library() throws -> NATSLibrary {
        let lib = try NATSLibrary.shared().get()  // make deps installs it: missing is a failure
        var options: OpaquePointer?
        XCTAssertEqual(tributary_nats_options_create(lib.api, &options), NATS_OK)
        tributary_nats_options_destroy(lib.api, options)
        return lib
    }

    func message(_ lib: NATSLibrary, id: String) throws -> OpaquePointer? {
        var msg: OpaquePointer?
        XCTAssertEqual(tributary_nats_msg_create(lib.api, &msg, "tributary.items.entry", nil, 0), NATS_OK)
        XCTAssertEqual(tributary_nats_header_set(lib.api, msg, "Nats-Msg-Id", id), NATS_OK)
        return msg
    }

    func ack(_ events: JetStreamEvents, _ lib: NATSLibrary, _ id: String, duplicate: Bool = false) throws {
        var a = jsPubAck()
        a.Duplicate = duplicate
        events.acknowledged(try message(lib, id: id), &a, nil)
    }

    func testAnAcknowledgementCountsOnceAndOnlyForTheBatchBeingPublished() throws {
        let lib = try library()
        let events = JetStreamEvents(library: lib)
        _ = events.begin(ids: ["a", "b"])
        try ack(events, lib, "a")
        try ack(events, lib, "a", duplicate: true)  // published again after a reconnect
        try ack(events, lib, "old")                 // a late callback of an earlier batch
        XCTAssertEqual(events.outcome.acked, 1, "b is still unacknowledged")
        XCTAssertEqual(events.outcome.duplicates, 0)
        try ack(events, lib, "b", duplicate: true)
        XCTAssertEqual(events.outcome.acked, 2)
        XCTAssertEqual(events.outcome.duplicates, 1)
        // The next batch starts from nothing; the previous batch's late acks do not count.
        _ = events.begin(ids: ["c"])
        try ack(events, lib, "a")
        try ack(events, lib, "b")
        XCTAssertEqual(events.outcome.acked, 0)
        try ack(events, lib, "c")
        XCTAssertEqual(events.outcome.acked, 1)
    }

    func testANegativeAcknowledgementOfAnEarlierBatchIsNotThisBatchsFailure() throws {
        let lib = try library()
        let events = JetStreamEvents(library: lib)
        _ = events.begin(ids: ["new"])
        var err = jsPubAckErr()
        err.Err = NATS_ERR
        events.acknowledged(try message(lib, id: "old"), nil, &err)
        XCTAssertNil(events.outcome.failure)
        events.acknowledged(try message(lib, id: "new"), nil, &err)
        XCTAssertNotNil(events.outcome.failure)
    }
}
