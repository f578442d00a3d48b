import TributaryCore
#if canImport(Glibc)
import Glibc
#endif

/// `tributary status`: each configured source's health as the state records it, on stdout, as a
/// table or (`--json`) one JSON object per source. The state is the one `run` and `watch` use
/// (a file, or PostgreSQL with `state.url`), opened for reading only, with no lock, so it works
/// beside a running `watch`. Exit 1 when an enabled source is failing (its last run failed) or
/// stale (nothing new for longer than its `expect_new_within`), so it can serve as a health
/// check; 2 when the state cannot be read or reached.
enum StatusCommand {
    struct Row {
        let source: SourceSettings
        let state: SourceState?
        let stale: Bool
        /// Copies of a story already emitted that `stories` kept back (`story_duplicates`).
        let duplicates: Int
        /// What its processors counted (`processed`: `no content`), by name.
        var processed: [String: Int] = [:]
        /// The interval in use: the configured one, or for `interval: "auto"` the last one its
        /// runs chose, with why (`AdaptiveInterval`).
        var interval: AdaptiveInterval.Choice? = nil

        /// The interval in use, and for `interval: "auto"` why (nil for a fixed interval).
        var intervalInUse: (seconds: Double, why: String?) {
            guard source.adaptive != nil else { return (source.interval, nil) }
            return interval.map { ($0.seconds, $0.why) } ?? (source.interval, "auto, no run yet")
        }

        var failing: Bool { (state?.failures ?? 0) > 0 }
        /// Counts against the exit code: enabled and failing or stale.
        var unhealthy: Bool { source.enabled && (failing || stale) }

        var word: String {
            if !source.enabled { return "disabled" }
            guard let state, state.lastRun != nil || state.lastSuccess != nil else { return stale ? "stale" : "never run" }
            var words: [String] = []
            if state.failures > 0 { words.append("failing") }
            if stale { words.append("stale") }
            return words.isEmpty ? "ok" : words.joined(separator: ", ")
        }
    }

    /// Stale: `expect_new_within` is set and the source's last new item (or, when it never had
    /// one, its first record) is older than that (`Staleness`, which the metrics use too).
    static func isStale(_ settings: SourceSettings, _ state: SourceState?, now: Double) -> Bool {
        Staleness.isStale(expectNewWithin: settings.expectNewWithin, state, now: now)
    }

    /// Where `status` reads: the state `run` and `watch` would use.
    enum Location {
        /// A state file (`--state`, `state.path`, or the default path).
        case file(String)
        /// A PostgreSQL state (`state.url`, unless `--state` names a file).
        case postgres(SharedStateSettings)
    }

    static func run(config: Config, location: Location, json: Bool, out: FDOutput, err: FDOutput) -> Int32 {
        var states: [String: SourceState] = [:]
        var duplicates: [String: Int] = [:]
        var processed: [String: [String: Int]] = [:]
        var intervals: [String: AdaptiveInterval.Choice] = [:]
        do {
            // No file (or one no run has written to), no schema of ours: no source has run.
            let store: (any StateBackend)?
            switch location {
            case .file(let path): store = try SQLiteState.readOnly(path: path)
            case .postgres(let shared): store = try PostgresState.readOnly(url: shared.url, schema: shared.schema)
            }
            if let store {
                defer { store.close() }
                states = try store.sourceStates(config.sources.map(\.settings.name))
                let counters = try store.counters()
                for c in counters where c.name == .storyDuplicates { duplicates[c.label, default: 0] += c.value }
                processed = ProcessedCount.bySource(counters)
                let auto = config.sources.filter { $0.settings.adaptive != nil }.map(\.settings.name)
                if !auto.isEmpty {
                    for (name, bytes) in try store.values(namespace: AdaptiveInterval.intervalNamespace, keys: auto) {
                        intervals[name] = AdaptiveInterval.decodeChoice(bytes)
                    }
                }
            }
        } catch {
            err.log("tributary: status: cannot read the state: \(error.message)\n")
            return 2
        }
        let now = Timestamp.now().seconds
        let rows = config.sources.map { s in
            Row(source: s.settings, state: states[s.settings.name], stale: isStale(s.settings, states[s.settings.name], now: now),
                duplicates: duplicates[s.settings.name] ?? 0, processed: processed[s.settings.name] ?? [:], interval: intervals[s.settings.name])
        }
        // The duplicates column when stories are configured or were (counts in state).
        let showDuplicates = config.stories != nil || !duplicates.isEmpty
        out.log(json ? rows.map(jsonLine).joined() : table(rows, duplicates: showDuplicates, processed: !processed.isEmpty))
        return rows.contains(where: \.unhealthy) ? 1 : 0
    }

    static func jsonLine(_ r: Row) -> String {
        var e: [(key: String, value: JSONValue)] = [("name", .string(r.source.name)), ("type", .string(r.source.type))]
        func time(_ key: String, _ t: Double?) { if let t { e.append((key, .string(Timestamp(seconds: t).rfc3339))) } }
        time("last_run", r.state?.lastRun)
        time("last_success", r.state?.lastSuccess)
        e.append(("failures", .number(JSONNumber(r.state?.failures ?? 0))))
        time("next_due", r.state?.nextDue)
        let interval = r.intervalInUse
        e.append(("interval", .number(JSONNumber(Int(interval.seconds.rounded())))))
        if let why = interval.why { e.append(("interval_reason", .string(why))) }
        if let error = r.state?.lastError, r.failing { e.append(("last_error", .string(Secrets.scrub(error)))) }
        e.append(("emitted", .number(JSONNumber(r.state?.emittedTotal ?? 0))))
        e.append(("duplicates", .number(JSONNumber(r.duplicates))))
        if !r.processed.isEmpty {
            e.append(("processed", .object(JSONObject(r.processed.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.number(JSONNumber($0.value))) }))))
        }
        e.append(("stale", .bool(r.stale)))
        time("last_new", r.state?.lastNew)
        e.append(("enabled", .bool(r.source.enabled)))
        var bytes = JSONWriter.serialize(.object(JSONObject(e)))
        bytes.append(0x0A)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `15m`, or for `interval: "auto"` `1h30m (median gap 3h)`.
    static func intervalText(_ r: Row) -> String {
        let i = r.intervalInUse
        return Durations.format(i.seconds) + (i.why.map { " (\($0))" } ?? "")
    }

    /// `duplicates`: with a DUPLICATES column after EMITTED.
    /// `processed`: with a PROCESSED column (`3 no content`) after those.
    static func table(_ rows: [Row], duplicates: Bool = false, processed: Bool = false) -> String {
        func t(_ v: Double?) -> String { v.map { Log.localTime($0).prefix(19).replacingT() } ?? "-" }
        let header = ["NAME", "TYPE", "STATUS", "LAST RUN", "LAST SUCCESS", "FAILURES", "NEXT DUE", "INTERVAL", "EMITTED"] + (duplicates ? ["DUPLICATES"] : []) + (processed ? ["PROCESSED"] : []) + ["LAST ERROR"]
        var cells = [header]
        for r in rows {
            let err = r.failing ? r.state?.lastError.map(Secrets.scrub) ?? "" : ""
            cells.append([r.source.name, r.source.type, r.word, t(r.state?.lastRun), t(r.state?.lastSuccess), String(r.state?.failures ?? 0),
                          t(r.state?.nextDue), intervalText(r), String(r.state?.emittedTotal ?? 0)] + (duplicates ? [String(r.duplicates)] : [])
                + (processed ? [r.processed.isEmpty ? "-" : r.processed.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")] : []) + [err])
        }
        let widths = header.indices.map { c in cells.map { $0[c].count }.max() ?? 0 }
        var out = ""
        for row in cells {
            var line = ""
            for (c, cell) in row.enumerated() {
                line += c == row.count - 1 ? cell : Summary.pad(cell, widths[c]) + "  "
            }
            while line.hasSuffix(" ") { line.removeLast() }
            out += line + "\n"
        }
        return out
    }
}

extension Substring {
    /// `2026-12-01T16:45:00` as `2026-12-01 16:45:00` (the table's local times).
    fileprivate func replacingT() -> String {
        String(map { $0 == "T" ? " " : $0 })
    }
}
