import TributaryCore

/// Writes the metrics of the state (`Metrics`) where they are wanted: the `--metrics-file`
/// (atomically, for the node_exporter textfile collector) and `watch`'s endpoint, which also
/// gets what its status page is built from (`StatusInputs`, the status records' one read of the
/// state, the same `tributary status` makes). `run` publishes
/// once at its end; `watch` after each delivered batch and each finished source run, coalesced
/// (`Updates`), and once more at its end.
struct MetricsPublisher: Sendable {
    let delivery: Delivery
    let sources: [(name: String, type: String)]
    let configured: [ConfiguredSource]
    /// Their settings, for `tributary_source_stale` (`expect_new_within`, `enabled`).
    let settings: [SourceSettings]
    let file: String?
    let server: MetricsServer?
    let log: Log

    init(delivery: Delivery, sources: [ConfiguredSource], file: String?, server: MetricsServer?, log: Log) {
        self.delivery = delivery
        self.sources = sources.map { ($0.settings.name, $0.settings.type) }
        self.configured = sources
        self.settings = sources.map(\.settings)
        self.file = file
        self.server = server
        self.log = log
    }

    func publish() async {
        if let server {
            do {
                let inputs = try await delivery.gateway.statusInputs(sources: configured, now: Timestamp.now().seconds)
                server.updateStatus(sources: configured, inputs: inputs)
            } catch {
                log.warn("status page: cannot read the state: \(error.message)")
            }
        }
        var metrics: Metrics?
        do { metrics = try await delivery.gateway.metrics(sources: sources, sinks: delivery.sinkNames) } catch {
            log.warn("metrics: cannot read the state: \(error.message)")
            return
        }
        guard var metrics else {
            if file != nil { log.warn("metrics: not written: the counters live in the state, and this run has none (--no-state)") }
            return
        }
        metrics.judgeStaleness(settings, now: Timestamp.now().seconds)
        let text = metrics.text
        server?.update(text)
        guard let file else { return }
        do throws(SinkError) { try AtomicFile.write(Array(text.utf8), to: file) } catch {
            log.warn("metrics: cannot write \(file): \(error.message)")
        }
    }

    /// Coalesces requests to publish: `request` never blocks, and however many come while one
    /// publication runs, one more follows it.
    final class Updates: Sendable {
        private let stream: AsyncStream<Void>
        private let continuation: AsyncStream<Void>.Continuation

        init() {
            (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        }

        func request() { continuation.yield() }
        func finish() { continuation.finish() }

        /// Publishes once per request (coalesced) until `finish`, then once more.
        func run(_ publisher: MetricsPublisher) async {
            for await _ in stream { await publisher.publish() }
            await publisher.publish()
        }
    }
}
