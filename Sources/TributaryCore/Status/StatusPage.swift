/// `watch`'s status page (`GET /` with `metrics.listen`): the status records (`StatusRecord`)
/// as one server-rendered HTML page with no external assets and no script, readable in a text
/// browser: a table of every source with its health, last run and success, failures, next due
/// time, interval, items emitted, last error (redacted) and an inline SVG chart of its new items
/// per day over the last 14 days, with the numbers as text beside it.
///
/// `?sort=health` (the default: failing first, then stale, never run, ok, disabled; config
/// order within each), `?sort=name` or `?sort=last_run` (most recent first); `?tag=T` keeps the
/// sources whose config `tags` hold T. The page links every sort and every tag.
///
/// Every value is escaped (`StatusPage.text`): names, errors and tags are untrusted, and
/// control and bidirectional-formatting characters (U+202E) are shown as their code points.
public enum StatusPage {
    public enum Sort: String, Sendable, CaseIterable {
        case health, name
        case lastRun = "last_run"

        var label: String {
            switch self {
            case .health: return "health"
            case .name: return "name"
            case .lastRun: return "last run"
            }
        }
    }

    /// The page's query parameters.
    public struct Query: Sendable, Equatable {
        public var sort: Sort = .health
        public var tag: String? = nil

        public init(sort: Sort = .health, tag: String? = nil) {
            self.sort = sort
            self.tag = tag
        }

        /// From a query string (`sort=name&tag=news`, percent-encoded, `+` a space); unknown
        /// parameters and sorts are ignored.
        public init(_ query: String) {
            for pair in query.split(separator: "&") {
                let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let key = StatusPage.percentDecoded(kv[0]), value = kv.count > 1 ? StatusPage.percentDecoded(kv[1]) : ""
                switch key {
                case "sort": if let s = Sort(rawValue: value) { sort = s }
                case "tag": tag = value.isEmpty ? nil : value
                default: break
                }
            }
        }

        /// `?sort=name&tag=news` for a link (the defaults left out; `?` alone for none).
        public var href: String {
            var parts: [String] = []
            if sort != .health { parts.append("sort=" + sort.rawValue) }
            if let tag { parts.append("tag=" + tag.percentEncoded(keeping: { StatusPage.unreserved($0) })) }
            return "?" + parts.joined(separator: "&")
        }
    }

    /// The records `query` selects, in its order.
    public static func select(_ records: [StatusRecord], _ query: Query) -> [StatusRecord] {
        var rows = Array(records.enumerated())
        if let tag = query.tag { rows = rows.filter { $0.element.tags.contains(tag) } }
        switch query.sort {
        case .health:
            rows.sort { ($0.element.health, $0.offset) < ($1.element.health, $1.offset) }
        case .name:
            rows.sort { ($0.element.source.name.lowercased(), $0.element.source.name, $0.offset) < ($1.element.source.name.lowercased(), $1.element.source.name, $1.offset) }
        case .lastRun:
            rows.sort { ($0.element.state?.lastRun ?? -.infinity, -$0.offset) > ($1.element.state?.lastRun ?? -.infinity, -$1.offset) }
        }
        return rows.map(\.element)
    }

    /// The whole page.
    public static func html(_ records: [StatusRecord], query: Query, now: Double) -> String {
        let shown = select(records, query)
        var o = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Tributary status</title>
            <style>\(style)</style>
            </head>
            <body>
            <h1>Tributary status</h1>

            """
        var counts: [StatusRecord.Health: Int] = [:]
        for r in records { counts[r.health, default: 0] += 1 }
        let summary = StatusRecord.Health.allCases.compactMap { h in counts[h].map { "\($0) \(h.rawValue)" } }.joined(separator: ", ")
        o += "<p>\(records.count) source\(records.count == 1 ? "" : "s")\(summary.isEmpty ? "" : ": " + summary). "
        o += "As of <time datetime=\"\(Timestamp(seconds: now).rfc3339)\">\(utc(now))</time>. "
        o += "Also as JSON: <a href=\"/status.json\">status.json</a>; metrics: <a href=\"/metrics\">/metrics</a>.</p>\n"

        o += "<nav aria-label=\"sort and filter\">\n<p>Sort by: "
        o += Sort.allCases.map { s in
            s == query.sort ? "<strong aria-current=\"true\">\(s.label)</strong>" : "<a href=\"\(attribute(Query(sort: s, tag: query.tag).href))\">\(s.label)</a>"
        }.joined(separator: " | ")
        o += "</p>\n"
        var tags: [String] = []
        for r in records { for t in r.tags where !tags.contains(t) { tags.append(t) } }
        tags.sort()
        if !tags.isEmpty || query.tag != nil {
            o += "<p>Tag: "
            var links = [query.tag == nil ? "<strong aria-current=\"true\">all</strong>" : "<a href=\"\(attribute(Query(sort: query.sort).href))\">all</a>"]
            for t in tags {
                links.append(t == query.tag ? "<strong aria-current=\"true\">\(text(t))</strong>" : "<a href=\"\(attribute(Query(sort: query.sort, tag: t).href))\">\(text(t))</a>")
            }
            o += links.joined(separator: " | ") + "</p>\n"
        }
        o += "</nav>\n"

        if shown.isEmpty {
            o += query.tag.map { "<p>No source has the tag \u{201C}\(text($0))\u{201D}.</p>\n" } ?? "<p>No source is configured.</p>\n"
        } else {
            o += """
                <table>
                <caption>Sources by \(query.sort.label)\(query.tag.map { ", tag \u{201C}\(text($0))\u{201D}" } ?? "")</caption>
                <thead><tr><th scope="col">Source</th><th scope="col">Health</th><th scope="col">Last run</th><th scope="col">Last success</th><th scope="col">Failures</th><th scope="col">Next due</th><th scope="col">Interval</th><th scope="col">Emitted</th><th scope="col">New items per day, last \(StatusRecord.chartDays) days</th><th scope="col">Last error</th></tr></thead>
                <tbody>

                """
            for r in shown { o += row(r, now: now) }
            o += "</tbody>\n</table>\n"
        }
        o += "</body>\n</html>\n"
        return o
    }

    static func row(_ r: StatusRecord, now: Double) -> String {
        let health = r.health
        var o = "<tr class=\"\(health == .neverRun ? "never-run" : health.rawValue)\" data-health=\"\(attribute(health.rawValue))\">"
        o += "<th scope=\"row\"><span class=\"name\">\(text(r.source.name))</span><br><small>\(text(r.source.type))"
        if !r.tags.isEmpty { o += " \u{00B7} " + r.tags.map(text).joined(separator: ", ") }
        o += "</small></th>"
        o += "<td><span class=\"health\">\(text(r.word))</span></td>"
        o += "<td>\(time(r.state?.lastRun, now: now))</td>"
        o += "<td>\(time(r.state?.lastSuccess, now: now))</td>"
        o += "<td class=\"num\">\(r.state?.failures ?? 0)</td>"
        o += "<td>\(r.source.enabled ? time(r.state?.nextDue, now: now) : "-")</td>"
        o += "<td>\(text(r.intervalText))</td>"
        o += "<td class=\"num\">\(r.state?.emittedTotal ?? 0)\(r.duplicates > 0 ? "<br><small>\(r.duplicates) duplicates</small>" : "")</td>"
        o += "<td>\(chart(r.newPerDay, now: now))</td>"
        o += "<td class=\"error\">\(r.lastError.map(text) ?? "")</td>"
        o += "</tr>\n"
        return o
    }

    /// 14 bars, today's last, scaled to the busiest day; the numbers in its title, its label and
    /// as text after it.
    static func chart(_ days: [Int], now: Double) -> String {
        let today = NewPerDay.day(now)
        let first = today - days.count + 1
        let top = max(days.max() ?? 0, 1)
        let total = days.reduce(0, +)
        let w = 10, h = 32
        let label = "New items per day from \(date(first)) to \(date(today)): \(days.map(String.init).joined(separator: ", ")); \(total) in all"
        var o = "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"\(days.count * w)\" height=\"\(h + 2)\" viewBox=\"0 0 \(days.count * w) \(h + 2)\" role=\"img\" aria-label=\"\(attribute(label))\"><title>\(text(label))</title>"
        o += "<rect x=\"0\" y=\"\(h)\" width=\"\(days.count * w)\" height=\"2\" fill=\"#c8ccd2\"/>"
        for (i, n) in days.enumerated() where n > 0 {
            let bar = max(2, Int((Double(n) / Double(top) * Double(h)).rounded()))
            o += "<rect x=\"\(i * w + 1)\" y=\"\(h - bar)\" width=\"\(w - 2)\" height=\"\(bar)\" fill=\"#2f6fb3\"><title>\(date(first + i)): \(n)</title></rect>"
        }
        o += "</svg><br><small class=\"days\">\(days.map(String.init).joined(separator: " ")) (\(total) in \(days.count) days)</small>"
        return o
    }

    /// `2026-12-04 16:30:05 UTC<br><small>5m ago</small>`, or `-`.
    static func time(_ t: Double?, now: Double) -> String {
        guard let t else { return "-" }
        let d = (now - t).rounded()
        let rel = abs(d) < 1 ? "now" : d > 0 ? Durations.format(d) + " ago" : "in " + Durations.format(-d)
        return "<time datetime=\"\(Timestamp(seconds: t).rfc3339)\">\(utc(t))</time><br><small>\(rel)</small>"
    }

    /// `2026-12-04 16:30:05 UTC`.
    static func utc(_ t: Double) -> String {
        String(Timestamp(seconds: t).rfc3339.prefix(19).map { $0 == "T" ? " " : $0 }) + " UTC"
    }

    /// `2026-12-04` for a `NewPerDay` day.
    static func date(_ day: Int) -> String { String(Timestamp(seconds: Double(day) * 86400).rfc3339.prefix(10)) }

    /// Untrusted text as HTML text: `&`, `<`, `>`, quotes escaped, and every control,
    /// bidirectional-formatting, line-separator and byte-order-mark character shown as its code
    /// point (`[U+202E]`), so none of them can reorder or hide what follows.
    public static func text(_ s: String) -> String {
        var o = ""
        o.reserveCapacity(s.utf8.count)
        for u in s.unicodeScalars {
            switch u {
            case "&": o += "&amp;"
            case "<": o += "&lt;"
            case ">": o += "&gt;"
            case "\"": o += "&quot;"
            case "'": o += "&#39;"
            default:
                if isShownAsCodePoint(u) {
                    let hex = String(u.value, radix: 16, uppercase: true)
                    o += "[U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "]"
                } else {
                    o.unicodeScalars.append(u)
                }
            }
        }
        return o
    }

    /// `text` for an attribute's value (quoted with `"`).
    static func attribute(_ s: String) -> String { text(s) }

    static func isShownAsCodePoint(_ u: Unicode.Scalar) -> Bool {
        switch u.value {
        case 0x00...0x1F, 0x7F...0x9F: return true  // C0 (tab and newline too), DEL, C1
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true  // bidi marks, embeddings, overrides, isolates
        case 0x2028, 0x2029, 0xFEFF, 0xFFF9...0xFFFB: return true
        default: return false
        }
    }

    static func unreserved(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2D || b == 0x2E || b == 0x5F || b == 0x7E
    }

    /// `%XX` decoded (invalid UTF-8 replaced), `+` as a space.
    static func percentDecoded(_ s: Substring) -> String {
        var bytes: [UInt8] = []
        let u = Array(s.utf8)
        var i = 0
        func hex(_ b: UInt8) -> UInt8? {
            switch b {
            case 0x30...0x39: return b - 0x30
            case 0x41...0x46: return b - 0x41 + 10
            case 0x61...0x66: return b - 0x61 + 10
            default: return nil
            }
        }
        while i < u.count {
            if u[i] == 0x25, i + 2 < u.count, let a = hex(u[i + 1]), let b = hex(u[i + 2]) {
                bytes.append(a << 4 | b)
                i += 3
            } else {
                bytes.append(u[i] == 0x2B ? 0x20 : u[i])
                i += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static let style = """
        body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#1d232a;background:#fff}\
        h1{font-size:1.4em;margin:0 0 .4em}\
        table{border-collapse:collapse;width:100%}\
        caption{text-align:left;font-weight:600;padding:.4em 0}\
        th,td{border-bottom:1px solid #dde1e6;padding:.35em .6em;text-align:left;vertical-align:top}\
        thead th{background:#f3f5f7;font-size:.9em}\
        td.num{text-align:right}\
        small{color:#5b6570}\
        time{white-space:nowrap}\
        .name{font-weight:600;overflow-wrap:anywhere}\
        .error{max-width:28em;overflow-wrap:anywhere;font-family:ui-monospace,monospace;font-size:.85em;color:#8a1c1c}\
        .health{display:inline-block;padding:0 .5em;border-radius:.8em;font-weight:600;background:#e2e5e9}\
        tr.ok .health{background:#d6f0dc;color:#14532d}\
        tr.failing .health{background:#fbd5d5;color:#7f1d1d}\
        tr.stale .health{background:#fde8c4;color:#7c3b00}\
        tr.disabled{color:#6b7580}\
        nav p{margin:.3em 0}\
        svg.chart{display:block}
        """
}
