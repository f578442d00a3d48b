import TributaryPluginKit
import TributaryCore

/// `nats`: publishes each item (its JSON line, without the newline) to NATS JetStream, on a
/// subject built from `subject`, with the header `Nats-Msg-Id: <item id>`, so JetStream drops an
/// item published again within the stream's duplicate window. `write` returns once JetStream
/// acknowledged every item of the batch: an item counts as written only after its
/// acknowledgement, and a publish no stream acknowledges (no stream captures the subject) fails
/// the sink. The connection is made in `open` (libnats is loaded then, not at start) and kept
/// for the run (`watch`: until it stops); with `stream`, that stream is created if missing.
///
/// An item whose message (payload and headers) is larger than the server's `max_payload` (its
/// INFO, 1 MiB by default) can never be published: it is rejected (`SinkContext.reject`, named
/// with its size and the limit) and the rest of the batch is published, as Vector's and
/// Telegraf's NATS outputs drop and count such an event.
///
/// Messages name the sink and the URL, credentials redacted; the URL's user info is registered
/// as a secret, so it is scrubbed from whatever else might echo it.
public final class NATSSink: Sink {
    public static let defaultURL = "nats://127.0.0.1:4222"
    /// The subjects of a stream the sink creates.
    public static let streamSubjects = ["tributary.items.>"]

    public static let descriptor = SinkDescriptor(type: "nats", summary: "publish to NATS JetStream (deduplicated by item id)", options: [url, subject, stream, duplicateWindow, timeout],
                                                  makeWithTemplate: { reader, template in
        NATSOptions.registerSecrets(reader[url])
        return NATSSink(url: reader[url], subject: reader[subject], stream: reader[stream], duplicateWindow: reader[duplicateWindow], timeout: reader[timeout],
                        template: template)
    })

    static let url = Option.string("url", "nats:// URL of the server (user:pass@ or token@ to authenticate; comma-separated for a cluster)")
        .checked { NATSOptions.checkURL($0)?.text }.defaulted(defaultURL)
    static let subject = Option.natsSubject("subject", "subject to publish to; {kind}, {source}, {type} are the item's (. becomes _)")
        .defaulted(NATSSubject.standard)
    static let stream = Option.string("stream", "JetStream stream to create if missing, on the subjects tributary.items.>")
        .checked { NATSOptions.checkStream($0)?.text }
    static let duplicateWindow = Option.duration("duplicate_window", atLeast: 0.001, "the created stream's duplicate window (same id within it: stored once)").defaulted(120)
    static let timeout = Option.duration("timeout", atLeast: 0.001, "longest wait for the server: connecting, a JetStream answer, the next acknowledgement").defaulted(10)

    let url: String
    let subject: NATSSubject
    let stream: String?
    let duplicateWindow: Double
    let timeout: Double
    /// The compiled `template` (Docs/templates.md): its outputs are the payloads (a string as
    /// it is, any other value as compact JSON), one message each; the second and later outputs
    /// of one item carry the message id `<item id>#2`, `#3`, ...
    let template: (any ItemTemplate)?
    /// The open connection (nil before `open` and after `close`). Only the delivery thread
    /// calls the sink (Sink contract), so the lock is never contended; it makes the sink
    /// `Sendable` without `@unchecked`.
    private let connection = Locked<JetStreamConnection?>(nil)
    /// The context `open` was given: where items too large to publish are rejected.
    private let context = Locked<SinkContext?>(nil)

    init(url: String, subject: NATSSubject, stream: String?, duplicateWindow: Double, timeout: Double, template: (any ItemTemplate)? = nil) {
        self.url = url
        self.template = template
        self.subject = subject
        self.stream = stream
        self.duplicateWindow = duplicateWindow
        self.timeout = timeout
    }

    /// The URL as messages show it: `nats://***@host:port`.
    var shownURL: String { Redactor.redactText(Redactor.redactURL(url)) }

    public func open(_ context: SinkContext) throws(SinkError) {
        let c = try connect(warn: context.warn)
        connection.withLock { $0 = c }
        self.context.withLock { $0 = context }
    }

    /// Connects, and with `stream` creates it if missing (`warn` says when the stream made does
    /// not capture the subject).
    private func connect(warn: (String) -> Void) throws(SinkError) -> JetStreamConnection {
        let c: JetStreamConnection
        do {
            c = try JetStreamConnection.connect(.init(url: url, timeout: timeout))
        } catch {
            var message = error.kind == .unavailable ? error.message : "cannot connect to \(shownURL): \(error.message)"
            if error.message == "No server available for connection" {
                message += " (nothing accepted a connection: is the server running, and are the host and port right?)"
            }
            throw failure(message)
        }
        do throws(NATSError) {
            if let stream, try !c.streamExists(stream) {
                do {
                    try c.addStream(stream, subjects: Self.streamSubjects, duplicateWindow: duplicateWindow)
                } catch {
                    // Workers that start together all find no stream and all create it; the
                    // server answers the later ones with an error (JetStream says "subjects
                    // overlap" rather than "exists"). The stream being there now is success.
                    guard try c.streamExists(stream) else { throw error }
                }
                if !subject.isUnderDefaultStreamSubjects {
                    warn("nats: created stream \(stream) on \(Self.streamSubjects.joined(separator: ", ")), which does not capture the subject \(subject.template): publishing fails unless another stream does")
                }
            }
        } catch {
            c.close()
            throw failure("\(shownURL): \(error.message)")
        }
        return c
    }

    /// The connection for a batch: the open one, or a new one when a batch failed on it (it
    /// abandoned that batch's messages and takes no further batch): `watch` tries a failed
    /// sink again, and the batch after an outage goes out on a fresh connection.
    private func connectionForBatch() throws(SinkError) -> JetStreamConnection {
        guard let c = connection.withLock({ $0 }) else { throw failure("\(shownURL): not connected (the sink was not opened)") }
        guard c.isBroken else { return c }
        // Closed (it stays broken, so the next batch tries again when connecting fails).
        c.close()
        let fresh = try connect(warn: { _ in })
        connection.withLock { $0 = fresh }
        return fresh
    }

    public func write(_ items: [Item]) throws(SinkError) {
        guard !items.isEmpty else { return }
        let c = try connectionForBatch()
        var messages: [JetStreamConnection.Message] = []
        messages.reserveCapacity(items.count)
        let limit = c.maxPayload
        let sinkContext = context.withLock { $0 }
        var payloads: [(item: Item, id: String, payload: [UInt8])] = []
        if let template {
            for (item, outputs) in TemplateRendering.render(items, with: template, context: sinkContext ?? SinkContext(window: nil), sink: "nats") {
                for (n, o) in outputs.enumerated() { payloads.append((item, TemplateRendering.outputID(item.id, n), o.text)) }
            }
        } else {
            payloads = items.map { ($0, $0.id, $0.jsonLine()) }
        }
        for (item, id, payload) in payloads {
            let m = JetStreamConnection.Message(subject: subject.subject(for: item), id: NATSOptions.messageID(id), payload: payload)
            if let limit {
                let size = JetStreamConnection.size(of: m)
                if size.payload + size.headers > limit {
                    context.withLock { $0 }?.reject(item, reason: "nats: \(shownURL): its message is \(size.payload + size.headers) bytes (payload \(size.payload), headers \(size.headers)), over the server's max_payload of \(limit) bytes; not published")
                    continue
                }
            }
            messages.append(m)
        }
        guard !messages.isEmpty else { return }
        do {
            _ = try c.publish(messages)
        } catch {
            var hint = ""
            if error.kind == .noStream {
                if let stream {
                    hint = " (the stream \(stream) does not capture it: use a subject under its subjects)"
                } else if subject.isUnderDefaultStreamSubjects {
                    hint = " (set \"stream\" to have the sink create one on \(Self.streamSubjects[0]), or add a stream that captures it)"
                } else {
                    hint = " (add a stream that captures it)"
                }
            }
            throw failure("\(shownURL): \(error.message)\(hint); the batch is not recorded as written")
        }
    }

    public func close() throws(SinkError) {
        let c = connection.withLock { c in
            defer { c = nil }
            return c
        }
        c?.close()
        context.withLock { $0 = nil }
    }

    private func failure(_ message: String) -> SinkError {
        SinkError(Redactor.redactText("nats: " + message))
    }
}
