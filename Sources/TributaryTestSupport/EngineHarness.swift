import Foundation
import TributaryCore

/// Runs a config through the real engine, with an in-memory sink and any transport (usually a
/// ReplayTransport over recordings the test wrote) and optionally a state.
public enum EngineHarness {
    public struct Outcome: Sendable {
        public let report: RunReport
        public let items: [Item]
        public let warnings: [String]
    }

    public static func run(config: String, registry: Registry, transport: any HTTPTransport, directory: String = NSTemporaryDirectory(),
                           state: (any StateBackend)? = nil, options: Delivery.Options = Delivery.Options(),
                           sink: InMemorySink = InMemorySink()) async throws -> Outcome {
        let cfg = try ConfigLoader.load(bytes: Array(config.utf8), file: "t.json", directory: directory, registry: registry, environment: { _ in nil })
        let engine = Engine(sources: cfg.sources, delivery: Delivery(sinks: [sink], state: state, options: options), transport: transport,
                            options: Engine.Options(concurrency: cfg.http.concurrency))
        let warnings = Locked<[String]>([])
        let report = await engine.run { event in
            if case .warning(_, let message) = event { warnings.withLock { $0.append(message) } }
        }
        return Outcome(report: report, items: sink.items, warnings: warnings.withLock { $0 })
    }

    /// Writes one recording per (url, status, body) into `dir`, for a ReplayTransport.
    public static func record(_ dir: TempDir, _ exchanges: [(url: String, status: Int, body: String)], contentType: String = "application/json") {
        for (i, e) in exchanges.enumerated() {
            let rec = Recording(method: "GET", url: e.url, status: e.status, headers: [("Content-Type", contentType)], body: Array(e.body.utf8))
            _ = dir.write("r\(i).json", String(decoding: rec.encoded(), as: UTF8.self))
        }
    }
}
