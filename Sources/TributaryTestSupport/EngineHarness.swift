import Dispatch
import Foundation
import TributaryCore

/// Runs a config through the real engine from synchronous test code, with an in-memory sink and
/// any transport (usually a ReplayTransport over recordings the test wrote).
public enum EngineHarness {
    public struct Outcome: Sendable {
        public let report: RunReport
        public let items: [Item]
        public let warnings: [String]
    }

    public static func run(config: String, registry: Registry, transport: any HTTPTransport, directory: String = NSTemporaryDirectory()) throws -> Outcome {
        let cfg = try ConfigLoader.load(bytes: Array(config.utf8), file: "t.json", directory: directory, registry: registry, environment: { _ in nil })
        let sink = InMemorySink()
        let engine = Engine(sources: cfg.sources, sinks: [sink], transport: transport)
        let box = OutcomeBox()
        let done = DispatchSemaphore(value: 0)
        Task {
            let report = await engine.run { event in
                if case .warning(_, let message) = event { box.warn(message) }
            }
            box.finish(report)
            done.signal()
        }
        done.wait()
        return Outcome(report: box.report!, items: sink.items, warnings: box.warnings)
    }

    /// Writes one recording per (url, status, body) into `dir`, for a ReplayTransport.
    public static func record(_ dir: TempDir, _ exchanges: [(url: String, status: Int, body: String)], contentType: String = "application/json") {
        for (i, e) in exchanges.enumerated() {
            let rec = Recording(method: "GET", url: e.url, status: e.status, headers: [("Content-Type", contentType)], body: Array(e.body.utf8))
            _ = dir.write("r\(i).json", String(decoding: rec.encoded(), as: UTF8.self))
        }
    }
}

/// What the engine's task reports back; read only after the semaphore it signals.
final class OutcomeBox: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var report: RunReport?
    private var warningList: [String] = []
    func warn(_ m: String) { lock.lock(); warningList.append(m); lock.unlock() }
    func finish(_ r: RunReport) { lock.lock(); report = r; lock.unlock() }
    var warnings: [String] { lock.lock(); defer { lock.unlock() }; return warningList }
}
