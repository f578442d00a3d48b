import TributaryCore
#if canImport(Glibc)
import Glibc
#endif

/// How bad a log record is; `--log-level` (or `--quiet` = warn, `--verbose` = debug) sets the
/// least one written.
enum LogLevel: String, CaseIterable, Comparable, Sendable {
    case debug, info, warn, error

    var rank: Int {
        switch self {
        case .debug: return 0
        case .info: return 1
        case .warn: return 2
        case .error: return 3
        }
    }

    static func < (a: LogLevel, b: LogLevel) -> Bool { a.rank < b.rank }
}

enum LogFormat: String, CaseIterable, Sendable {
    /// `2026-12-01T16:45:00.123+01:00 warning: source: message` (local time); errors read
    /// `... tributary: message`, info and debug records have no prefix.
    case text
    /// One JSON object per line: `time` (UTC), `level`, `source` when it concerns one, `msg`,
    /// then the record's fields (`status`, `fetched`, `new`, `seconds`, ...).
    case json
}

/// The log on stderr: every record carries its RFC 3339 time (text: local time with its
/// offset; JSON: UTC), records below the level are dropped, and everything goes through the
/// progress line so a log line never shares a terminal line with it.
///
/// Text lines carry text from outside (an `exec` program's stderr, a server's error, an item's
/// id): its control characters are escaped where the line is rendered (`escapeControls`), so
/// nothing it holds can move the cursor, clear the screen, ring the bell or start a line that
/// looks like a record of its own. JSON escapes them already.
final class Log: Sendable {
    let format: LogFormat
    let level: LogLevel
    let progress: ProgressLine

    init(format: LogFormat, level: LogLevel, progress: ProgressLine) {
        self.format = format
        self.level = level
        self.progress = progress
    }

    func enabled(_ l: LogLevel) -> Bool { l >= level }

    /// One record. In text, `fields` are not shown: `msg` says it.
    func log(_ l: LogLevel, _ msg: String, source: String? = nil, fields: [(String, JSONValue)] = [], now: Double = Timestamp.now().seconds) {
        guard enabled(l) else { return }
        progress.log(render(l, msg, source: source, fields: fields, now: now))
    }

    func debug(_ msg: String, source: String? = nil, fields: [(String, JSONValue)] = []) { log(.debug, msg, source: source, fields: fields) }
    func info(_ msg: String, source: String? = nil, fields: [(String, JSONValue)] = []) { log(.info, msg, source: source, fields: fields) }
    func warn(_ msg: String, source: String? = nil, fields: [(String, JSONValue)] = []) { log(.warn, msg, source: source, fields: fields) }
    func error(_ msg: String, source: String? = nil, fields: [(String, JSONValue)] = []) { log(.error, msg, source: source, fields: fields) }

    /// Text lines already laid out (the summary table): written as they are in text mode (their
    /// line feeds kept, every other control character escaped), at `level`; in JSON mode the
    /// caller logs records instead.
    func text(_ l: LogLevel, _ lines: String) {
        guard enabled(l) else { return }
        progress.log(Self.escapeControls(lines, keepingLineFeeds: true))
    }

    /// `text` with its control characters written out, as journalctl shows a message: C0 (but
    /// tab), DEL and C1 (U+0080-U+009F) as `\xHH` for each of their UTF-8 bytes (ESC is `\x1b`,
    /// BEL `\x07`, CSI U+009B `\xc2\x9b`), a carriage return as `\r` and a line feed as `\n`
    /// (unless `keepingLineFeeds`: lines laid out on purpose). A backslash stays as it is: the
    /// escapes tell a reader what was there, and a regex in a message stays readable. Text
    /// without controls is returned as it is.
    static func escapeControls(_ text: String, keepingLineFeeds: Bool = false) -> String {
        func escaped(_ b: UInt8, next: UInt8?) -> Bool {
            switch b {
            case 0x09: return false
            case 0x0A: return !keepingLineFeeds
            case 0..<0x20, 0x7F: return true
            case 0xC2: return next.map { (0x80...0x9F).contains($0) } ?? false
            default: return false
            }
        }
        // Most lines have nothing to escape: one pass over the bytes, no copy.
        guard text.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09 && ($0 != 0x0A || !keepingLineFeeds)) || $0 == 0x7F || $0 == 0xC2 }) else { return text }
        let bytes = Array(text.utf8)
        let hex = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 16)
        var i = 0
        while i < bytes.count {
            let b = bytes[i], next = i + 1 < bytes.count ? bytes[i + 1] : nil
            if !escaped(b, next: next) {
                out.append(b)
            } else if b == 0x0A {
                out += Array("\\n".utf8)
            } else if b == 0x0D {
                out += Array("\\r".utf8)
            } else {
                for c in b == 0xC2 ? [b, next!] : [b] { out += [UInt8(ascii: "\\"), UInt8(ascii: "x"), hex[Int(c >> 4)], hex[Int(c & 0xF)]] }
                if b == 0xC2 { i += 1 }
            }
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    func render(_ l: LogLevel, _ msg: String, source: String?, fields: [(String, JSONValue)], now: Double) -> String {
        switch format {
        case .text:
            let prefix: String
            switch l {
            case .warn: prefix = "warning: "
            case .error: prefix = "tributary: "
            case .debug, .info: prefix = ""
            }
            let text = msg.hasSuffix("\n") ? String(msg.dropLast()) : msg
            return Self.localTime(now) + " " + prefix + (source.map { Self.escapeControls($0) + ": " } ?? "") + Self.escapeControls(text) + "\n"
        case .json:
            var entries: [(key: String, value: JSONValue)] = [("time", .string(Self.utcTime(now))), ("level", .string(l.rawValue))]
            if let source { entries.append(("source", .string(source))) }
            entries.append(("msg", .string(msg.hasSuffix("\n") ? String(msg.dropLast()) : msg)))
            for (k, v) in fields { entries.append((k, v)) }
            var out = JSONWriter.serialize(.object(JSONObject(entries)))
            out.append(0x0A)
            return String(decoding: out, as: UTF8.self)
        }
    }

    /// `2026-12-01T15:45:00.123Z`
    static func utcTime(_ t: Double) -> String {
        let (whole, ms) = split(t)
        var tt = time_t(whole)
        var tmv = tm()
        gmtime_r(&tt, &tmv)
        return stamp(tmv, ms) + "Z"
    }

    /// `2026-12-01T16:45:00.123+01:00`, in the local time zone (TZ).
    static func localTime(_ t: Double) -> String {
        let (whole, ms) = split(t)
        var tt = time_t(whole)
        var tmv = tm()
        localtime_r(&tt, &tmv)
        let off = Int(tmv.tm_gmtoff) / 60
        let sign = off < 0 ? "-" : "+"
        return stamp(tmv, ms) + sign + pad(abs(off) / 60, 2) + ":" + pad(abs(off) % 60, 2)
    }

    private static func split(_ t: Double) -> (Int, Int) {
        let ms = Int((t * 1000).rounded(.down))
        let whole = ms >= 0 ? ms / 1000 : (ms - 999) / 1000
        return (whole, ms - whole * 1000)
    }

    private static func stamp(_ t: tm, _ ms: Int) -> String {
        pad(Int(t.tm_year) + 1900, 4) + "-" + pad(Int(t.tm_mon) + 1, 2) + "-" + pad(Int(t.tm_mday), 2) + "T"
            + pad(Int(t.tm_hour), 2) + ":" + pad(Int(t.tm_min), 2) + ":" + pad(Int(t.tm_sec), 2) + "." + pad(ms, 3)
    }

    private static func pad(_ v: Int, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }
}

extension Log {
    /// A source's end as a record: level warn when it failed, `level` otherwise.
    func sourceFinished(_ r: SourceReport, level l: LogLevel) {
        let lv: LogLevel = r.isFailure ? max(l, .warn) : l
        guard enabled(lv) else { return }
        if format == .text {
            progress.log(Self.localTime(Timestamp.now().seconds) + " " + Summary.line(r))  // its status escaped there
            return
        }
        log(lv, Summary.status(r), source: r.name, fields: Self.fields(r))
    }

    static func fields(_ r: SourceReport) -> [(String, JSONValue)] {
        var f: [(String, JSONValue)] = [("type", .string(r.type))]
        switch r.status {
        case .ok: f.append(("status", .string("ok")))
        case .notModified: f.append(("status", .string("not modified")))
        case .failed(let reason): f += [("status", .string("failed")), ("error", .string(reason))]
        case .skipped(let reason): f += [("status", .string("skipped")), ("reason", .string(reason))]
        case .stopped(let reason): f += [("status", .string("stopped")), ("reason", .string(reason))]
        }
        f += [("fetched", .number(JSONNumber(r.fetched))), ("new", .number(JSONNumber(r.new)))] + counts(r.processed)
        if r.rejected > 0 { f.append(("rejected", .number(JSONNumber(r.rejected)))) }
        f.append(("seconds", .number(JSONNumber(text: seconds(r.seconds)))))
        return f
    }

    /// An HTTP request's record (`--verbose`): `method`, `url` (redacted), `status` (absent
    /// without an answer, `error` then), `bytes`, `seconds`, `page` (a paginated source),
    /// `not_modified` (a 304 answered from the state), `attempt` (a retry).
    static func fields(_ r: HTTPRequestRecord) -> [(String, JSONValue)] {
        var f: [(String, JSONValue)] = [("method", .string(r.method)), ("url", .string(r.url))]
        if let status = r.status { f.append(("status", .number(JSONNumber(status)))) }
        if let error = r.error { f.append(("error", .string(error))) }
        f += [("bytes", .number(JSONNumber(r.bytes))), ("seconds", .number(JSONNumber(text: seconds(r.seconds))))]
        if let page = r.page { f.append(("page", .number(JSONNumber(page)))) }
        if r.notModified { f.append(("not_modified", .bool(true))) }
        if r.attempt > 1 { f.append(("attempt", .number(JSONNumber(r.attempt)))) }
        return f
    }

    /// The processing stage's counts as fields: `filtered` always, `skipped` and the others
    /// (`no content` as `no_content`) when above 0.
    static func counts(_ processed: [ProcessingTally.Label: Int]) -> [(String, JSONValue)] {
        var f: [(String, JSONValue)] = [("filtered", .number(JSONNumber(processed[.filtered] ?? 0)))]
        for (label, n) in processed.sorted(by: { $0.key < $1.key }) where label != .filtered && n > 0 {
            f.append((label.name.replacing(" ", with: "_"), .number(JSONNumber(n))))
        }
        return f
    }

    /// Seconds with millisecond precision, as a JSON number.
    static func seconds(_ s: Double) -> String {
        let ms = Int((s * 1000).rounded())
        let frac = String(ms % 1000)
        return "\(ms / 1000)." + String(repeating: "0", count: 3 - frac.count) + frac
    }

    /// The end-of-run summary: the table in text, records in JSON (one per source, then `total`).
    func summary(_ report: RunReport, elapsed: Double, dryRun: Bool = false) {
        guard enabled(.info) || report.sources.contains(where: \.isFailure) && enabled(.warn) else { return }
        if format == .text {
            text(.info, Summary.render(report, elapsed: elapsed, dryRun: dryRun))
            return
        }
        for r in report.sources { sourceFinished(r, level: .info) }
        let failed = report.sources.filter(\.isFailure).count
        var fields: [(String, JSONValue)] = [
            ("sources", .number(JSONNumber(report.sources.count))), ("failed", .number(JSONNumber(failed))),
            ("fetched", .number(JSONNumber(report.sources.reduce(0) { $0 + $1.fetched }))), ("new", .number(JSONNumber(report.delivered))),
        ] + Self.counts(report.sources.reduce(into: [:]) { $0.merge($1.processed, uniquingKeysWith: +) })
        if report.rejected > 0 { fields.append(("rejected", .number(JSONNumber(report.rejected)))) }
        fields.append(("seconds", .number(JSONNumber(text: Self.seconds(elapsed)))))
        if dryRun { fields.append(("dry_run", .bool(true))) }
        log(failed > 0 ? .warn : .info, "total", fields: fields)
    }
}
