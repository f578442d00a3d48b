import TributaryBase

/// An interval and, in words, why: what a server says about how often to ask it again (the
/// shortest wait it asks for: `ttl 2h`, `Cache-Control max-age 30m`; a source with
/// `interval: "auto"` never runs sooner than its run's largest hint, Docs/scheduling.md), and
/// the interval `AdaptiveInterval` chooses from it (`median gap 3h`).
public struct IntervalHint: Sendable, Equatable {
    public var seconds: Double
    public var why: String

    public init(seconds: Double, why: String) {
        self.seconds = seconds
        self.why = why
    }

    /// The larger of two hints (the first on a tie).
    public static func larger(_ a: IntervalHint?, _ b: IntervalHint?) -> IntervalHint? {
        guard let a else { return b }
        guard let b else { return a }
        return b.seconds > a.seconds ? b : a
    }

    /// The hint of a response's headers: `Cache-Control: max-age` (not with `no-cache` or
    /// `no-store`, which ask for no wait), `Expires` (against the response's `Date`, else
    /// `now`), and for a 429 or 503 `Retry-After` (seconds or an HTTP date); the largest of
    /// them, or nil. Values of 0 or less, and beyond 3650 days, are no hint.
    public static func of(status: Int, headers: [(name: String, value: String)], now: Double) -> IntervalHint? {
        func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name }?.value }
        var best: IntervalHint? = nil
        func offer(_ seconds: Double?, _ why: @autoclosure () -> String) {
            guard let s = seconds, s >= 1, let ok = Durations.checked(s) else { return }
            best = larger(best, IntervalHint(seconds: ok, why: why() + " " + IntervalHint.shown(ok)))
        }
        if let cc = header("cache-control") {
            var maxAge: Double? = nil
            var noWait = false
            for part in cc.split(separator: ",") {
                let d = String(part).trimmingBlanks.lowercased()
                if d == "no-cache" || d == "no-store" { noWait = true }
                if d.hasPrefix("max-age=") { maxAge = Double(d.dropFirst(8).filter { $0 != "\"" }) }
            }
            if !noWait { offer(maxAge, "Cache-Control max-age") }
        }
        if header("cache-control") == nil, let e = header("expires"), let t = Timestamp.parseRFC822(e) {
            let base = header("date").flatMap { Timestamp.parseRFC822($0)?.seconds } ?? now
            offer(t.seconds - base, "Expires in")
        }
        if status == 429 || status == 503, let r = header("retry-after")?.trimmingBlanks {
            if let s = Double(r) { offer(s, "Retry-After") } else if let t = Timestamp.parseRFC822(r) { offer(t.seconds - now, "Retry-After") }
        }
        return best
    }

    /// A wait as the reasons show it: whole minutes from a minute on (`2h`, `1h30m`, `45m`).
    public static func shown(_ seconds: Double) -> String {
        Durations.format(seconds >= 60 ? (seconds / 60).rounded() * 60 : seconds.rounded())
    }
}
