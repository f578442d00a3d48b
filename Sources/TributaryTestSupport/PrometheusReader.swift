import Foundation
import TributaryCore

/// Reads Prometheus text exposition the way Prometheus' own Python client does
/// (`prometheus_client.parser.text_string_to_metric_families`, from the venv `make test-tools`
/// creates, or `$TRIBUTARY_TEST_PYTHON`): from a file, or fetched from a URL (urllib). A
/// document the parser rejects fails the read.
public enum PrometheusReader {
    public struct Sample: Sendable, Equatable {
        public let name: String
        public let labels: [String: String]
        public let value: Double
    }

    public struct Family: Sendable {
        /// As the parser names it (a counter's family drops `_total`).
        public let name: String
        public let type: String
        public let samples: [Sample]
    }

    public struct Exposition: Sendable {
        public let families: [Family]
        /// Every sample, by its full name.
        public var samples: [Sample] { families.flatMap(\.samples) }

        /// The value of the sample `name` with exactly these labels, or nil.
        public func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
            samples.first { $0.name == name && $0.labels == labels }?.value
        }

        public func family(_ name: String) -> Family? { families.first { $0.name == name } }
    }

    public static var python: String {
        if let p = ProcessInfo.processInfo.environment["TRIBUTARY_TEST_PYTHON"], !p.isEmpty { return p }
        return BinaryRunner.packageRoot + "/.build/test-tools/venv/bin/python3"
    }

    static let script = #"""
    import json, sys, urllib.request
    from prometheus_client.parser import text_string_to_metric_families
    where = sys.argv[1]
    if where.startswith("http://"):
        with urllib.request.urlopen(where, timeout=10) as r:
            if r.status != 200: raise SystemExit("status %d" % r.status)
            text = r.read().decode("utf-8")
    else:
        text = open(where, encoding="utf-8").read()
    out = []
    for f in text_string_to_metric_families(text):
        out.append({"name": f.name, "type": f.type,
                    "samples": [{"name": s.name, "labels": s.labels, "value": s.value} for s in f.samples]})
    print(json.dumps(out))
    """#

    public struct ReadError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Parses the file at `path`, or fetches and parses `http://...`.
    public static func read(_ where: String) throws -> Exposition {
        let r = try Shell.run([python, "-c", script, `where`], timeout: 30)
        guard r.status == 0 else { throw ReadError(description: "prometheus_client could not read \(`where`): \(r.stderr)") }
        let root = try JSONParser.parse(r.stdout)
        var families: [Family] = []
        for f in root.arrayValue ?? [] {
            var samples: [Sample] = []
            for s in f[path: "samples"]?.arrayValue ?? [] {
                var labels: [String: String] = [:]
                for e in s[path: "labels"]?.objectValue?.entries ?? [] { labels[e.key] = e.value.stringValue }
                samples.append(Sample(name: s[path: "name"]?.stringValue ?? "", labels: labels, value: Double(s[path: "value"]?.numberValue?.text ?? "") ?? .nan))
            }
            families.append(Family(name: f[path: "name"]?.stringValue ?? "", type: f[path: "type"]?.stringValue ?? "", samples: samples))
        }
        return Exposition(families: families)
    }
}
