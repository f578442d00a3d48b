/// The metrics of one state file in the Prometheus text exposition format (version 0.0.4),
/// for the node_exporter textfile collector (`--metrics-file`) and `watch`'s `GET /metrics`.
///
/// Every `_total` is a counter kept in the state, written in the transaction of the batch or
/// run it counts, so it grows across runs for as long as the state file lives (`rate()` works
/// across cron runs); the others are gauges of the last run. Sources are the configured ones,
/// in config order, whether or not they have run; sinks are the configured ones by name.
public struct Metrics: Sendable {
    public struct Source: Sendable {
        public var name: String
        public var type: String
        /// What the state holds for it (nil: never recorded).
        public var state: SourceState?
        /// Its `expect_new_within` (nil: never stale) and whether it is enabled (a disabled
        /// source is never stale), for `tributary_source_stale` (`judgeStaleness`).
        public var expectNewWithin: Double? = nil
        public var enabled: Bool = true
    }

    public var sources: [Source]
    /// HTTP answers by status, in label order.
    public var httpRequests: [(status: String, count: Int)]
    /// The configured sinks, in config order, with their totals.
    public var sinks: [(name: String, written: Int, failures: Int, rejected: Int)]
    /// Filter rules that could not test an item, by the rule's key path, in label order.
    public var filterErrors: [(rule: String, count: Int)]
    /// Copies of a story already emitted that `stories` kept back, by source (configured
    /// sources, in config order).
    public var storyDuplicates: [(source: String, count: Int)]
    /// What processors counted (`no content`), by source (config order) and name.
    public var processed: [(source: String, what: String, count: Int)]
    /// The time `tributary_source_stale` is judged at (nil: when the text is made).
    public var now: Double?

    public init(sources: [(name: String, type: String)], states: [String: SourceState], counters: [StateCounter], sinks: [String]) {
        self.sources = sources.map { Source(name: $0.name, type: $0.type, state: states[$0.name]) }
        httpRequests = counters.filter { $0.name == .httpRequests }.sorted { $0.label < $1.label }.map { ($0.label, $0.value) }
        func total(_ name: StateCounter.Name, _ label: String) -> Int {
            counters.filter { $0.name == name && $0.label == label }.reduce(0) { $0 + $1.value }
        }
        self.sinks = sinks.map { ($0, total(.sinkWritten, $0), total(.sinkFailures, $0), total(.sinkRejected, $0)) }
        filterErrors = counters.filter { $0.name == .filterErrors }.sorted { $0.label < $1.label }.map { ($0.label, $0.value) }
        storyDuplicates = sources.map { ($0.name, total(.storyDuplicates, $0.name)) }
        let counted = ProcessedCount.bySource(counters)
        processed = sources.flatMap { s in (counted[s.name] ?? [:]).sorted { $0.key < $1.key }.map { (s.name, $0.key, $0.value) } }
    }

    /// Sets each source's `expect_new_within` and `enabled` from its settings and the time
    /// staleness is judged at: `tributary_source_stale` is then what `tributary status` says.
    public mutating func judgeStaleness(_ settings: [SourceSettings], now: Double) {
        var byName: [String: SourceSettings] = [:]
        for s in settings { byName[s.name] = s }
        for i in sources.indices {
            guard let s = byName[sources[i].name] else { continue }
            sources[i].expectNewWithin = s.expectNewWithin
            sources[i].enabled = s.enabled
        }
        self.now = now
    }

    /// One metric family: its name, type, help, and samples (labels, value).
    struct Family {
        let name: String
        let type: String
        let help: String
        var samples: [(labels: [(String, String)], value: Double)] = []
    }

    var families: [Family] {
        func perSource(_ name: String, _ type: String, _ help: String, _ value: (SourceState?) -> Double?) -> Family {
            var f = Family(name: name, type: type, help: help)
            for s in sources {
                if let v = value(s.state) { f.samples.append(([("source", s.name), ("type", s.type)], v)) }
            }
            return f
        }
        var out = [
            perSource("tributary_source_fetched_items_total", "counter", "Items the source fetched (after max_items), over the life of the state file.") { Double($0?.fetchedTotal ?? 0) },
            perSource("tributary_source_new_items_total", "counter", "Items the source delivered to the sinks (new items), over the life of the state file.") { Double($0?.emittedTotal ?? 0) },
            perSource("tributary_source_failures_total", "counter", "Failed runs of the source, over the life of the state file.") { Double($0?.failuresTotal ?? 0) },
            perSource("tributary_source_up", "gauge", "1 when the source's last run succeeded, else 0.") { s in
                s.map { $0.lastSuccess != nil && $0.failures == 0 ? 1 : 0 } ?? 0
            },
            perSource("tributary_source_last_success_timestamp_seconds", "gauge", "When the source last succeeded (Unix time).") { $0?.lastSuccess },
            perSource("tributary_source_duration_seconds", "gauge", "How long the source's last run took.") { $0?.lastDuration },
            perSource("tributary_source_last_new_timestamp_seconds", "gauge", "When the source last delivered a new item (Unix time).") { $0?.lastNew },
        ]
        let now = self.now ?? Timestamp.now().seconds
        var stale = Family(name: "tributary_source_stale", type: "gauge",
                           help: "1 when the source is enabled and has delivered nothing new for longer than its expect_new_within (tributary status: stale), else 0.")
        stale.samples = sources.map { s in
            ([("source", s.name), ("type", s.type)], s.enabled && Staleness.isStale(expectNewWithin: s.expectNewWithin, s.state, now: now) ? 1 : 0)
        }
        out.append(stale)
        var http = Family(name: "tributary_http_requests_total", type: "counter", help: "HTTP answers by status (\"error\": a transfer that got no answer), over the life of the state file.")
        http.samples = httpRequests.map { ([("status", $0.status)], Double($0.count)) }
        var written = Family(name: "tributary_sink_written_items_total", type: "counter", help: "Items the sink wrote, over the life of the state file.")
        written.samples = sinks.map { ([("sink", $0.name)], Double($0.written)) }
        var failed = Family(name: "tributary_sink_failures_total", type: "counter", help: "Times the sink failed to open, write or close, over the life of the state file.")
        failed.samples = sinks.map { ([("sink", $0.name)], Double($0.failures)) }
        var rejected = Family(name: "tributary_sink_rejected_items_total", type: "counter",
                              help: "Items the sink rejected for good (too large for its server) and that were recorded as delivered, over the life of the state file.")
        rejected.samples = sinks.map { ([("sink", $0.name)], Double($0.rejected)) }
        var filter = Family(name: "tributary_filter_errors_total", type: "counter",
                            help: "Times a filter rule could not test an item (a regex that reached PCRE2's match limit), by the rule's key path, over the life of the state file.")
        filter.samples = filterErrors.map { ([("rule", $0.rule)], Double($0.count)) }
        var duplicates = Family(name: "tributary_story_duplicates_total", type: "counter",
                                help: "Items the source fetched that tell a story already emitted, kept back by stories (action drop), over the life of the state file.")
        duplicates.samples = storyDuplicates.map { ([("source", $0.source)], Double($0.count)) }
        var processedFamily = Family(name: "tributary_source_processed_items_total", type: "counter",
                                     help: "Items a source's processors counted, by what happened (\"no content\": fulltext found no article), over the life of the state file.")
        processedFamily.samples = processed.map { ([("source", $0.source), ("outcome", $0.what)], Double($0.count)) }
        out += [http, written, failed, rejected, filter, duplicates, processedFamily]
        return out
    }

    /// The exposition text: `# HELP` and `# TYPE` for every family, then its samples.
    public var text: String {
        var out = ""
        for f in families {
            out += "# HELP \(f.name) \(Self.escapeHelp(f.help))\n# TYPE \(f.name) \(f.type)\n"
            for s in f.samples {
                let labels = s.labels.map { "\($0.0)=\"\(Self.escapeLabel($0.1))\"" }.joined(separator: ",")
                out += f.name + (labels.isEmpty ? "" : "{\(labels)}") + " " + Self.format(s.value) + "\n"
            }
        }
        return out
    }

    /// A label value as the format writes it: `\` as `\\`, `"` as `\"`, a line feed as `\n`.
    public static func escapeLabel(_ value: String) -> String {
        value.replacingScalars { u in
            switch u {
            case "\\": return "\\\\"
            case "\"": return "\\\""
            case "\n": return "\\n"
            default: return nil
            }
        }
    }

    /// Help text: `\` as `\\`, a line feed as `\n`.
    static func escapeHelp(_ text: String) -> String {
        text.replacingAll("\\", with: "\\\\").replacingAll("\n", with: "\\n")
    }

    /// Integers without a fraction; other values with up to millisecond precision.
    static func format(_ v: Double) -> String {
        guard v.isFinite else { return v.isNaN ? "NaN" : (v > 0 ? "+Inf" : "-Inf") }
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        let ms = (v * 1000).rounded() / 1000
        return "\(ms)"
    }
}

extension String {
    fileprivate func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        for ch in self { if ch == target { out += replacement } else { out.append(ch) } }
        return out
    }
}
