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
    /// One source's line: its status record (`StatusRecord`, which the status page of `watch`
    /// is built from too).
    typealias Row = StatusRecord

    /// Where `status` reads: the state `run` and `watch` would use.
    enum Location {
        /// A state file (`--state`, `state.path`, or the default path).
        case file(String)
        /// A PostgreSQL state (`state.url`, unless `--state` names a file).
        case postgres(SharedStateSettings)
    }

    static func run(config: Config, location: Location, json: Bool, out: FDOutput, err: FDOutput) -> Int32 {
        var inputs = StatusInputs()
        let now = Timestamp.now().seconds
        do {
            // No file (or one no run has written to), no schema of ours: no source has run.
            let store: (any StateBackend)?
            switch location {
            case .file(let path): store = try SQLiteState.readOnly(path: path)
            case .postgres(let shared): store = try PostgresState.readOnly(url: shared.url, schema: shared.schema)
            }
            if let store {
                defer { store.close() }
                inputs = try StatusInputs.read(from: store, sources: config.sources, now: now)
            }
        } catch {
            err.log("tributary: status: cannot read the state: \(error.message)\n")
            return 2
        }
        let rows = StatusRecord.build(config.sources, inputs, now: now)
        // The duplicates column when stories are configured or were (counts in state).
        let showDuplicates = config.stories != nil || !inputs.duplicates.isEmpty
        out.log(json ? rows.map(\.json).joined() : table(rows, duplicates: showDuplicates, processed: !inputs.processed.isEmpty))
        return rows.contains(where: \.unhealthy) ? 1 : 0
    }

    /// `duplicates`: with a DUPLICATES column after EMITTED.
    /// `processed`: with a PROCESSED column (`3 no content`) after those.
    static func table(_ rows: [Row], duplicates: Bool = false, processed: Bool = false) -> String {
        func t(_ v: Double?) -> String { v.map { Log.localTime($0).prefix(19).replacingT() } ?? "-" }
        // Built a column at a time: one expression of `+`s and `?:`s took the type checker 18 s.
        var header = ["NAME", "TYPE", "STATUS", "LAST RUN", "LAST SUCCESS", "FAILURES", "NEXT DUE", "INTERVAL", "EMITTED"]
        if duplicates { header.append("DUPLICATES") }
        if processed { header.append("PROCESSED") }
        header.append("LAST ERROR")
        var cells = [header]
        for r in rows {
            let state = r.state
            var row: [String] = [r.source.name, r.source.type, r.word, t(state?.lastRun), t(state?.lastSuccess)]
            row.append(String(state?.failures ?? 0))
            row.append(t(state?.nextDue))
            row.append(r.intervalText)
            row.append(String(state?.emittedTotal ?? 0))
            if duplicates { row.append(String(r.duplicates)) }
            if processed {
                let counts: [String] = r.processed.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
                row.append(counts.isEmpty ? "-" : counts.joined(separator: ", "))
            }
            row.append(r.lastError ?? "")
            cells.append(row)
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
