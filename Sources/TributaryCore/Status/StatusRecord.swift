/// Each configured source's health as the state records it: what `tributary status` prints (a
/// table, or `--json`) and what `watch`'s status page and `/status.json` serve
/// (`StatusPage`). Built here once, from one read of the state (`StatusInputs`), so the command
/// and the page cannot disagree.
public struct StatusRecord: Sendable {
    public let source: SourceSettings
    public let state: SourceState?
    public let stale: Bool
    /// Copies of a story already emitted that `stories` kept back (`story_duplicates`).
    public let duplicates: Int
    /// What its processors counted (`processed`: `no content`), by name.
    public var processed: [String: Int] = [:]
    /// The interval in use: the configured one, or for `interval: "auto"` the last one its
    /// runs chose, with why (`AdaptiveInterval`).
    public var interval: AdaptiveInterval.Choice? = nil
    /// New items per UTC day over the last `StatusRecord.chartDays` days, oldest first (the
    /// last is today's).
    public var newPerDay: [Int] = []
    /// The source's `tags` as written in its config (a `feed` source's folders), for the page's
    /// filter.
    public var tags: [String] = []

    /// Days the status page charts.
    public static let chartDays = 14

    public init(source: SourceSettings, state: SourceState?, stale: Bool, duplicates: Int, processed: [String: Int] = [:],
                interval: AdaptiveInterval.Choice? = nil, newPerDay: [Int] = [], tags: [String] = []) {
        self.source = source
        self.state = state
        self.stale = stale
        self.duplicates = duplicates
        self.processed = processed
        self.interval = interval
        self.newPerDay = newPerDay
        self.tags = tags
    }

    /// The interval in use, and for `interval: "auto"` why (nil for a fixed interval).
    public var intervalInUse: (seconds: Double, why: String?) {
        guard source.adaptive != nil else { return (source.interval, nil) }
        return interval.map { ($0.seconds, $0.why) } ?? (source.interval, "auto, no run yet")
    }

    /// `15m`, or for `interval: "auto"` `1h30m (median gap 3h)`.
    public var intervalText: String {
        let i = intervalInUse
        return Durations.format(i.seconds) + (i.why.map { " (\($0))" } ?? "")
    }

    public var failing: Bool { (state?.failures ?? 0) > 0 }
    /// Counts against the exit code: enabled and failing or stale.
    public var unhealthy: Bool { source.enabled && (failing || stale) }
    /// Whether a run was ever recorded.
    public var hasRun: Bool { state.map { $0.lastRun != nil || $0.lastSuccess != nil } ?? false }

    /// The last error, secrets redacted (`Secrets.scrub`), while the source is failing.
    public var lastError: String? { failing ? state?.lastError.map(Secrets.scrub) : nil }

    /// `ok`, `failing`, `stale`, `failing, stale`, `never run` or `disabled`.
    public var word: String {
        if !source.enabled { return "disabled" }
        guard hasRun else { return stale ? "stale" : "never run" }
        var words: [String] = []
        if failing { words.append("failing") }
        if stale { words.append("stale") }
        return words.isEmpty ? "ok" : words.joined(separator: ", ")
    }

    /// The one health a source is sorted and coloured by, worst first.
    public enum Health: String, Sendable, CaseIterable, Comparable {
        case failing, stale
        case neverRun = "never run"
        case ok, disabled

        public static func < (a: Health, b: Health) -> Bool {
            allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
        }
    }

    public var health: Health {
        if !source.enabled { return .disabled }
        if failing { return .failing }
        if stale { return .stale }
        return hasRun ? .ok : .neverRun
    }

    /// Stale: `expect_new_within` is set and the source's last new item (or, when it never had
    /// one, its first record) is older than that (`Staleness`, which the metrics use too).
    public static func isStale(_ settings: SourceSettings, _ state: SourceState?, now: Double) -> Bool {
        Staleness.isStale(expectNewWithin: settings.expectNewWithin, state, now: now)
    }

    /// The configured sources' records, in config order, as of `now`.
    public static func build(_ sources: [ConfiguredSource], _ inputs: StatusInputs, now: Double) -> [StatusRecord] {
        let today = NewPerDay.day(now)
        return sources.map { s in
            let name = s.settings.name
            let state = inputs.states[name]
            let days = inputs.newPerDay[name] ?? [:]
            let tags = s.written?["tags"]?.arrayValue?.compactMap(\.stringValue) ?? []
            return StatusRecord(source: s.settings, state: state, stale: isStale(s.settings, state, now: now), duplicates: inputs.duplicates[name] ?? 0,
                                processed: inputs.processed[name] ?? [:], interval: inputs.intervals[name],
                                newPerDay: (today - chartDays + 1...today).map { days[$0] ?? 0 }, tags: tags)
        }
    }

    /// The object `status --json` prints for the source (one line, newline-terminated), and
    /// `/status.json` serves in its array.
    public var json: String {
        var e: [(key: String, value: JSONValue)] = [("name", .string(source.name)), ("type", .string(source.type))]
        func time(_ key: String, _ t: Double?) { if let t { e.append((key, .string(Timestamp(seconds: t).rfc3339))) } }
        time("last_run", state?.lastRun)
        time("last_success", state?.lastSuccess)
        e.append(("failures", .number(JSONNumber(state?.failures ?? 0))))
        time("next_due", state?.nextDue)
        let interval = intervalInUse
        e.append(("interval", .number(JSONNumber(Int(interval.seconds.rounded())))))
        if let why = interval.why { e.append(("interval_reason", .string(why))) }
        if let error = lastError { e.append(("last_error", .string(error))) }
        e.append(("emitted", .number(JSONNumber(state?.emittedTotal ?? 0))))
        e.append(("duplicates", .number(JSONNumber(duplicates))))
        if !processed.isEmpty {
            e.append(("processed", .object(JSONObject(processed.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.number(JSONNumber($0.value))) }))))
        }
        e.append(("stale", .bool(stale)))
        time("last_new", state?.lastNew)
        e.append(("enabled", .bool(source.enabled)))
        var bytes = JSONWriter.serialize(.object(JSONObject(e)))
        bytes.append(0x0A)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `/status.json`: the `json` objects, in order, as one array (one object a line).
    public static func jsonArray(_ records: [StatusRecord]) -> String {
        guard !records.isEmpty else { return "[]\n" }
        return "[\n" + records.map { String($0.json.dropLast()) }.joined(separator: ",\n") + "\n]\n"
    }
}

/// What status records are built from, read from the state in one go: by `status` from a
/// state opened for reading, by `watch` on its state's thread (`StateGateway.statusInputs`)
/// each time it publishes its metrics.
public struct StatusInputs: Sendable {
    public var states: [String: SourceState] = [:]
    public var duplicates: [String: Int] = [:]
    public var processed: [String: [String: Int]] = [:]
    public var intervals: [String: AdaptiveInterval.Choice] = [:]
    /// New items by source and UTC day (`NewPerDay`), from `chartDays` days back.
    public var newPerDay: [String: [Int: Int]] = [:]

    public init() {}

    /// Reads what the records of `sources` need. `now` picks the days read (one more than the
    /// chart shows, so a page rendered just after midnight still has them).
    public static func read(from store: any StateBackend, sources: [ConfiguredSource], now: Double) throws(StateError) -> StatusInputs {
        var inputs = StatusInputs()
        let names = sources.map(\.settings.name)
        inputs.states = try store.sourceStates(names)
        let counters = try store.counters()
        for c in counters where c.name == .storyDuplicates { inputs.duplicates[c.label, default: 0] += c.value }
        inputs.processed = ProcessedCount.bySource(counters)
        let auto = sources.filter { $0.settings.adaptive != nil }.map(\.settings.name)
        if !auto.isEmpty {
            for (name, bytes) in try store.values(namespace: AdaptiveInterval.intervalNamespace, keys: auto) {
                inputs.intervals[name] = AdaptiveInterval.decodeChoice(bytes)
            }
        }
        inputs.newPerDay = try store.newPerDay(names, since: NewPerDay.day(now) - StatusRecord.chartDays)
        return inputs
    }
}
