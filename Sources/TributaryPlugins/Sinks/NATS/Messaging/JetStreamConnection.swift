import TributaryCore
import TributaryPluginKit
#if canImport(Glibc)
import Glibc
#endif
import CNATS

/// One connection to a NATS server with a JetStream context: it checks and creates streams, and
/// publishes batches of messages asynchronously (at most `maxPending` in flight), returning only
/// when JetStream has acknowledged every message of the batch. It knows nothing of items or
/// sinks (the `nats` sink builds the subjects, ids and payloads); messages name no URL, so the
/// caller adds the (redacted) URL it was given.
///
/// Threading rule (why `@unchecked Sendable` is sound): `connection`, `context` and `broken` are
/// used only by the thread that calls `connect`, the methods below and `close`, one call at a
/// time (a sink's delivery thread). libnats calls back from its own threads (acknowledgements,
/// disconnect, reconnect); those callbacks touch only `events`, whose state is in a `Locked`.
public final class JetStreamConnection: @unchecked Sendable {
    /// What `connect` needs.
    public struct Settings: Sendable {
        /// `nats://[user:pass@]host:port` (a comma-separated list: several servers of a cluster).
        public var url: String
        /// How long to wait without progress: for the connection, for a JetStream API answer, for
        /// the next acknowledgement of a batch.
        public var timeout: Double
        /// Asynchronous publishes awaiting their acknowledgement at most.
        public var maxPending: Int
        /// The connection's name, shown by the server's monitoring.
        public var name: String
        public init(url: String, timeout: Double, maxPending: Int = 1024, name: String = "tributary/\(Tributary.version)") {
            self.url = url
            self.timeout = timeout
            self.maxPending = maxPending
            self.name = name
        }
    }

    /// One message of a batch: its subject, its `Nats-Msg-Id` (JetStream drops a second message
    /// with the same id inside the stream's duplicate window) and its body.
    public struct Message: Sendable {
        public var subject: String
        public var id: String
        public var payload: [UInt8]
        public init(subject: String, id: String, payload: [UInt8]) {
            self.subject = subject
            self.id = id
            self.payload = payload
        }
    }

    /// What a batch came to: every message acknowledged, `duplicates` of them as already stored.
    public struct Acknowledged: Sendable, Equatable {
        public var count: Int
        public var duplicates: Int
    }

    private let library: NATSLibrary
    private let settings: Settings
    private let events: JetStreamEvents
    private var connection: OpaquePointer?
    private var context: OpaquePointer?
    /// Set when a batch failed: its unacknowledged messages were abandoned, and a late callback
    /// of that batch could be mistaken for one of the next, so no further batch is accepted.
    private var broken = false
    /// A batch failed on this connection (see `broken`): it takes no further batch, so a sink
    /// that is to go on (`watch` tries a failed sink again) needs a new connection.
    public var isBroken: Bool { broken }
    /// How long one wait lasts before the batch's progress is checked again.
    static let slice: Double = 0.25

    private init(library: NATSLibrary, settings: Settings, events: JetStreamEvents) {
        self.library = library
        self.settings = settings
        self.events = events
    }

    deinit { close() }

    /// Opens libnats (first use) and connects. A lost connection is re-established by libnats
    /// itself (every 250 ms, without limit) while the connection is open.
    public static func connect(_ settings: Settings) throws(NATSError) -> JetStreamConnection {
        let library: NATSLibrary
        switch NATSLibrary.shared() {
        case .success(let l): library = l
        case .failure(let e): throw NATSError(.unavailable, e.message)
        }
        let api = library.api
        // Kept for the life of the process: libnats may still run a connection callback after
        // natsConnection_Destroy has returned (its callback thread drains a queue), so this is
        // never released. One small object per connection.
        let events = JetStreamEvents(library: library)
        let closure = Unmanaged.passRetained(events).toOpaque()
        let c = JetStreamConnection(library: library, settings: settings, events: events)
        let ms = Int64(max(1, settings.timeout * 1000))

        var options: OpaquePointer?
        guard tributary_nats_options_create(api, &options) == NATS_OK, let options else {
            throw NATSError(.connect, "cannot create connection options: \(library.lastError ?? "out of memory")")
        }
        defer { tributary_nats_options_destroy(api, options) }
        var s = tributary_nats_options_set_url(api, options, settings.url)
        guard s == NATS_OK else { throw NATSError(.connect, "not a NATS URL: \(library.lastError ?? library.text(s))") }
        _ = tributary_nats_options_set_name(api, options, settings.name)
        _ = tributary_nats_options_set_timeout(api, options, ms)
        _ = tributary_nats_options_set_max_reconnect(api, options, -1)
        _ = tributary_nats_options_set_reconnect_wait(api, options, 250)
        _ = tributary_nats_options_set_disconnected_cb(api, options, { _, closure in
            guard let closure else { return }
            Unmanaged<JetStreamEvents>.fromOpaque(closure).takeUnretainedValue().disconnected()
        }, closure)
        _ = tributary_nats_options_set_reconnected_cb(api, options, { _, closure in
            guard let closure else { return }
            Unmanaged<JetStreamEvents>.fromOpaque(closure).takeUnretainedValue().reconnected()
        }, closure)
        s = tributary_nats_connect(api, &c.connection, options)
        guard s == NATS_OK else { throw NATSError(.connect, library.lastError ?? library.text(s)) }

        var jsOptions = jsOptions()
        _ = tributary_nats_js_options_init(api, &jsOptions)
        jsOptions.Wait = ms
        jsOptions.PublishAsync.MaxPending = Int64(settings.maxPending)
        jsOptions.PublishAsync.StallWait = Int64(slice * 1000)
        jsOptions.PublishAsync.AckHandlerClosure = closure
        jsOptions.PublishAsync.AckHandler = { _, msg, ack, failure, closure in
            guard let closure else { return }
            let events = Unmanaged<JetStreamEvents>.fromOpaque(closure).takeUnretainedValue()
            events.acknowledged(msg, ack, failure)
        }
        s = tributary_nats_jetstream(api, &c.context, c.connection, &jsOptions)
        guard s == NATS_OK else { throw NATSError(.connect, "cannot create a JetStream context: \(library.lastError ?? library.text(s))") }
        return c
    }

    /// The largest message the server takes, headers and payload together (its INFO's
    /// `max_payload`, 1 MiB unless configured; read again on each call, since a reconnect may
    /// reach another server of a cluster); nil when not known (not connected yet). A larger
    /// message is refused: libnats refuses a payload over it, and the server closes the
    /// connection on a message whose headers take it over.
    public var maxPayload: Int? {
        guard let connection else { return nil }
        let n = tributary_nats_max_payload(library.api, connection)
        return n > 0 ? Int(n) : nil
    }

    /// The bytes of `message` that count against `maxPayload`: its payload and its header block
    /// as libnats encodes it (`NATS/1.0\r\n`, `Nats-Msg-Id: <id>\r\n`, then `\r\n`).
    public static func size(of message: Message) -> (payload: Int, headers: Int) {
        (message.payload.count, "NATS/1.0\r\n".utf8.count + "Nats-Msg-Id: ".utf8.count + message.id.utf8.count + 2 + 2)
    }

    /// Whether the stream exists (JetStream's "stream not found" is `false`, not an error).
    public func streamExists(_ name: String) throws(NATSError) -> Bool {
        var info: UnsafeMutablePointer<jsStreamInfo>?
        var code = jsErrCode(rawValue: 0)
        let s = tributary_nats_stream_info(library.api, &info, context, name, &code)
        tributary_nats_stream_info_destroy(library.api, info)
        if s == NATS_OK { return true }
        if s == NATS_NOT_FOUND || code == JSStreamNotFoundErr { return false }
        throw apiError("cannot look up stream \(name)", s, code)
    }

    /// Creates a file-backed stream on `subjects` that drops a message whose id it stored within
    /// `duplicateWindow` seconds.
    public func addStream(_ name: String, subjects: [String], duplicateWindow: Double) throws(NATSError) {
        var config = jsStreamConfig()
        _ = tributary_nats_stream_config_init(library.api, &config)
        config.Duplicates = Int64(duplicateWindow * 1_000_000_000)
        var info: UnsafeMutablePointer<jsStreamInfo>?
        var code = jsErrCode(rawValue: 0)
        let cSubjects = subjects.map { strdup($0) }
        defer { cSubjects.forEach { free($0) } }
        let s: natsStatus = name.withCString { cName in
            var pointers: [UnsafePointer<CChar>?] = cSubjects.map { UnsafePointer($0) }
            return pointers.withUnsafeMutableBufferPointer { p in
                config.Name = cName
                config.Subjects = p.baseAddress
                config.SubjectsLen = Int32(p.count)
                return tributary_nats_add_stream(library.api, &info, context, &config, &code)
            }
        }
        tributary_nats_stream_info_destroy(library.api, info)
        guard s == NATS_OK else { throw apiError("cannot create stream \(name)", s, code) }
    }

    private func apiError(_ what: String, _ s: natsStatus, _ code: jsErrCode) -> NATSError {
        if s == NATS_NO_RESPONDERS { return NATSError(.noJetStream, "\(what): JetStream is not enabled on the server (no answer to its API)") }
        if s == NATS_TIMEOUT { return NATSError(.timeout, "\(what): no answer from JetStream within \(Durations.format(settings.timeout))") }
        let detail = library.lastError ?? library.text(s)
        return NATSError(.refused, "\(what): \(detail)" + (code.rawValue != 0 ? " (JetStream error \(code.rawValue))" : ""))
    }

    /// Publishes the batch and returns once JetStream acknowledged every message. Throws on
    /// the first negative acknowledgement (`.noStream`: no stream captures a subject), or when
    /// `timeout` passes without a new acknowledgement; the messages not acknowledged then are
    /// abandoned and the connection takes no further batch. After libnats reconnects, the
    /// messages still waiting are published again with the same ids: JetStream stores each
    /// once, and acknowledges an id it already holds as a duplicate.
    public func publish(_ messages: [Message]) throws(NATSError) -> Acknowledged {
        guard !broken, let context else { throw NATSError(.refused, "the connection was abandoned after an earlier failure") }
        // Acknowledgements are counted per id of this batch (two items whose ids escape alike
        // are one message to JetStream).
        let ids = Set(messages.map(\.id))
        var progress = Progress(reconnects: events.begin(ids: ids), at: Self.now())
        progress.disconnects = events.outcome.disconnects
        // Where each id is in the batch, so messages published again keep the batch's order
        // (built only then).
        let order = { Dictionary(messages.enumerated().map { ($0.element.id, $0.offset) }, uniquingKeysWith: { first, _ in first }) }
        do throws(NATSError) {
            for m in messages {
                var msg = try makeMessage(m)
                while true {
                    let s = tributary_nats_publish_async(library.api, context, &msg)
                    if s == NATS_OK { break }
                    guard s == NATS_TIMEOUT else {  // NATS_TIMEOUT: stalled at maxPending
                        tributary_nats_msg_destroy(library.api, msg)
                        throw NATSError(.publish, "cannot publish to \(m.subject): \(library.lastError ?? library.text(s))")
                    }
                    do throws(NATSError) { try check(&progress, messages, order: order) } catch {
                        tributary_nats_msg_destroy(library.api, msg)
                        throw error
                    }
                }
                if progress.countPublished(), let f = events.firstFailure { throw f }
            }
            let ms = Int64(Self.slice * 1000)
            while true {
                if tributary_nats_publish_async_complete(library.api, context, ms) == NATS_OK {
                    // Nothing in flight; messages answered "no responders" wait for their verdict.
                    guard events.outcome.firstUnanswered != nil else { break }
                    usleep(UInt32(Self.slice * 250_000))
                }
                try check(&progress, messages, order: order)
            }
            let outcome = events.outcome
            if let f = outcome.failure { throw f }
            guard outcome.acked == ids.count else {
                throw NATSError(.refused, "\(outcome.acked) of \(ids.count) messages were acknowledged")
            }
            return Acknowledged(count: outcome.acked, duplicates: outcome.duplicates)
        } catch {
            broken = true
            abandonPending()
            throw error
        }
    }

    /// Where a batch stands: acknowledgements seen and when the last one came, reconnects handled.
    private struct Progress {
        var reconnects: Int
        var disconnects = 0
        var at: Double
        var acked = 0
        var published = 0
        init(reconnects: Int, at: Double) {
            self.reconnects = reconnects
            self.at = at
        }
        /// Counts a message published; true every 256th, when failures are looked at (they are
        /// also looked at in every wait).
        mutating func countPublished() -> Bool {
            published += 1
            return published % 256 == 0
        }
    }

    /// One check while waiting: a negative acknowledgement ends the batch; after a reconnect
    /// (once it has settled for a moment, so what libnats re-sent by itself had its chance) the
    /// messages still waiting are published again; `timeout` without progress ends the batch.
    private func check(_ p: inout Progress, _ messages: [Message], order: () -> [String: Int]) throws(NATSError) {
        let total = messages.count
        let snapshot = events.outcome
        if let f = snapshot.failure { throw f }
        let now = Self.now()
        // "No responders" with no lost connection to explain it, for two slices: no stream
        // captures the subject. With one (the server shut JetStream down, then the connections),
        // those messages go out again after the reconnect, below.
        if let first = snapshot.firstUnanswered, let noStream = snapshot.noStream,
           snapshot.disconnects == p.disconnects, !snapshot.disconnected, now - first >= 2 * Self.slice {
            throw noStream
        }
        if snapshot.acked > p.acked {
            p.acked = snapshot.acked
            p.at = now
        }
        if snapshot.reconnects > p.reconnects, !snapshot.disconnected, now - snapshot.lastReconnect >= Self.slice {
            p.reconnects = snapshot.reconnects
            p.disconnects = snapshot.disconnects
            p.at = now
            try republishPending(order)
            try republish(events.takeUnanswered(), messages, order: order)
        }
        if now - p.at >= settings.timeout {
            let state = snapshot.disconnected ? "; the connection to the server is lost and being retried" : ""
            throw NATSError(.timeout, "no acknowledgement from JetStream within \(Durations.format(settings.timeout)): \(total - snapshot.acked) of \(total) messages not acknowledged\(state)")
        }
    }

    /// Publishes again, in the batch's order, every message still waiting for its acknowledgement.
    private func republishPending(_ order: () -> [String: Int]) throws(NATSError) {
        var list = natsMsgList()
        guard tributary_nats_pending(library.api, &list, context) == NATS_OK else { return }
        defer { tributary_nats_msg_list_destroy(library.api, &list) }
        let index = order()
        let position = { (m: OpaquePointer?) -> Int in
            tributary_nats_header_get(self.library.api, m, "Nats-Msg-Id").flatMap { index[String(cString: $0)] } ?? Int.max
        }
        let sorted = (0..<Int(list.Count)).map { (position(list.Msgs[$0]), $0) }.sorted { $0 < $1 }.map(\.1)
        for i in sorted {
            let s = tributary_nats_publish_async(library.api, context, &list.Msgs[i])
            guard s == NATS_OK else { throw NATSError(.publish, "cannot publish again after reconnecting: \(library.lastError ?? library.text(s))") }
        }
    }

    /// Publishes again, in the batch's order, the messages answered "no responders" before the
    /// connection was lost.
    private func republish(_ ids: [String], _ messages: [Message], order: () -> [String: Int]) throws(NATSError) {
        guard !ids.isEmpty else { return }
        let index = order()
        for i in ids.compactMap({ index[$0] }).sorted() {
            var msg = try makeMessage(messages[i])
            let start = Self.now()
            var s = tributary_nats_publish_async(library.api, context, &msg)
            while s == NATS_TIMEOUT && Self.now() - start < settings.timeout {  // stalled at maxPending
                s = tributary_nats_publish_async(library.api, context, &msg)
            }
            guard s == NATS_OK else {
                tributary_nats_msg_destroy(library.api, msg)
                throw NATSError(.publish, "cannot publish again after reconnecting: \(library.lastError ?? library.text(s))")
            }
        }
    }

    /// Takes back (and frees) every message still waiting, so none of their acknowledgements is counted.
    private func abandonPending() {
        var list = natsMsgList()
        if tributary_nats_pending(library.api, &list, context) == NATS_OK { tributary_nats_msg_list_destroy(library.api, &list) }
    }

    private func makeMessage(_ m: Message) throws(NATSError) -> OpaquePointer? {
        var msg: OpaquePointer?
        let s = m.payload.withUnsafeBufferPointer { tributary_nats_msg_create(library.api, &msg, m.subject, $0.baseAddress, Int32($0.count)) }
        guard s == NATS_OK else { throw NATSError(.publish, "cannot make a message for \(m.subject): \(library.lastError ?? library.text(s))") }
        guard tributary_nats_header_set(library.api, msg, "Nats-Msg-Id", m.id) == NATS_OK else {
            tributary_nats_msg_destroy(library.api, msg)
            throw NATSError(.publish, "cannot set the Nats-Msg-Id header: \(library.lastError ?? "invalid value")")
        }
        return msg
    }

    /// Closes the connection (what it still had to send is flushed for up to 500 ms). Idempotent.
    public func close() {
        if let context { tributary_nats_js_destroy(library.api, context) }
        if let connection { tributary_nats_connection_destroy(library.api, connection) }
        context = nil
        connection = nil
    }

    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

/// Why a NATS operation failed. `message` names no URL and no credentials.
public struct NATSError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// libnats could not be loaded.
        case unavailable
        /// No connection could be made (refused, unknown host, authorization violation, bad URL).
        case connect
        /// The server has no JetStream.
        case noJetStream
        /// A publish no stream acknowledged: no stream captures its subject.
        case noStream
        /// JetStream or the server refused something (a negative acknowledgement, an API error).
        case refused
        /// A publish call itself failed (closed connection, reconnect buffer full).
        case publish
        /// No answer or acknowledgement within the timeout.
        case timeout
    }

    public let kind: Kind
    public let message: String
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }
    public var description: String { message }
}
