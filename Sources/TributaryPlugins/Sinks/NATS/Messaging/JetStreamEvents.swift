import TributaryCore
import TributaryPluginKit
import CNATS

/// What libnats's threads report to a `JetStreamConnection`: each acknowledgement (positive or
/// negative) of the batch being published, and the connection being lost and re-established.
/// Every callback runs on a libnats thread and only touches `state`, under its lock; the
/// publishing thread reads a snapshot (`outcome`) between its waits.
final class JetStreamEvents: Sendable {
    struct Outcome: Sendable {
        var acked = 0
        var duplicates = 0
        /// The first negative acknowledgement of the batch; later ones add nothing a person needs.
        var failure: NATSError?
        var reconnects = 0
        /// Connections lost so far (a server going away answers "no responders" first).
        var disconnects = 0
        /// Monotonic time of the last reconnect.
        var lastReconnect: Double = 0
        var disconnected = false
        /// Ids of the batch answered "no responders" (no stream took them), in arrival order,
        /// and when the first came: either no stream captures their subject (a failure, once
        /// no disconnect explains it) or the server is shutting down (JetStream stops before
        /// the connections close), and they are published again after the reconnect.
        var unanswered: [String] = []
        var firstUnanswered: Double?
        var noStream: NATSError?
        /// The ids of the batch being published, and those acknowledged so far: an
        /// acknowledgement counts once, and only for a message of this batch (libnats may run
        /// a callback of an earlier batch late, and a message published again after a
        /// reconnect may be acknowledged twice).
        var batch: Set<String> = []
        var ackedIDs: Set<String> = []
    }

    let library: NATSLibrary
    private let state = Locked(Outcome())

    init(library: NATSLibrary) { self.library = library }

    /// Starts a batch of messages with these ids: counts and failure cleared; returns the
    /// reconnects so far.
    func begin(ids: Set<String>) -> Int {
        state.withLock { s in
            s.batch = ids
            s.ackedIDs = []
            s.acked = 0
            s.duplicates = 0
            s.failure = nil
            s.unanswered = []
            s.firstUnanswered = nil
            s.noStream = nil
            return s.reconnects
        }
    }

    var outcome: Outcome { state.withLock { $0 } }
    var firstFailure: NATSError? { state.withLock { $0.failure } }

    func disconnected() {
        state.withLock { s in
            s.disconnected = true
            s.disconnects += 1
        }
    }

    /// The ids answered "no responders" so far; empties the list.
    func takeUnanswered() -> [String] {
        state.withLock { s in
            let ids = s.unanswered
            s.unanswered = []
            s.firstUnanswered = nil
            return ids
        }
    }

    func reconnected() {
        let now = JetStreamConnection.now()
        state.withLock { s in
            s.disconnected = false
            s.reconnects += 1
            s.lastReconnect = now
        }
    }

    /// The acknowledgement handler (`jsOptions.PublishAsync.AckHandler`): owns `msg` and frees it.
    func acknowledged(_ msg: OpaquePointer?, _ ack: UnsafeMutablePointer<jsPubAck>?, _ failure: UnsafeMutablePointer<jsPubAckErr>?) {
        defer { tributary_nats_msg_destroy(library.api, msg) }
        let id = tributary_nats_header_get(library.api, msg, "Nats-Msg-Id").map { String(cString: $0) } ?? "?"
        if let ack {
            let duplicate = ack.pointee.Duplicate
            state.withLock { s in
                guard s.batch.contains(id), s.ackedIDs.insert(id).inserted else { return }
                s.acked += 1
                if duplicate { s.duplicates += 1 }
            }
            return
        }
        guard let failure else { return }
        guard state.withLock({ $0.batch.contains(id) }) else { return }  // an earlier batch's, already decided
        let subject = tributary_nats_msg_subject(library.api, msg).map { String(cString: $0) } ?? "?"
        let status = failure.pointee.Err
        let error: NATSError
        if status == NATS_NO_RESPONDERS {
            let now = JetStreamConnection.now()
            state.withLock { s in
                s.unanswered.append(id)
                if s.firstUnanswered == nil { s.firstUnanswered = now }
                if s.noStream == nil { s.noStream = NATSError(.noStream, "no stream captures subject \(subject)") }
            }
            return
        } else {
            let text = failure.pointee.ErrText.map { String(cString: $0) } ?? library.text(status)
            let code = failure.pointee.ErrCode.rawValue
            error = NATSError(.refused, "JetStream refused \(id) on \(subject): \(text)" + (code != 0 ? " (JetStream error \(code))" : ""))
        }
        state.withLock { s in
            if s.failure == nil { s.failure = error }
        }
    }
}
