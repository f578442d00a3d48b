/// `interval: "auto"`: a source's interval follows how often it publishes and what its server
/// says (Docs/scheduling.md).
///
/// - From the state: the times of its last `memory` new items (an item's `published` time
///   when it has a plausible one, else when it was first seen), distinct times only, newest
///   kept. The interval is half the median gap between them, so a source is asked about twice
///   per item it publishes. When the time since its newest item is longer than that median
///   (it went quiet), that time counts instead, so a silent source slows down.
/// - From the server (`IntervalHint`: `Cache-Control: max-age`, `Expires`, `Retry-After`, RSS
///   `<ttl>`, `sy:updatePeriod`): a floor, never run sooner.
/// - Then clamped to `interval_min`..`interval_max`. With fewer than 3 distinct times known
///   and no hint, the interval is `start` (15m within the bounds).
///
/// Every choice says why, in words `status` shows: `median gap 3h`, `ttl 2h`, `no new item
/// for 2d`, `interval_max (median gap 3d)`, `no history yet`.
public struct AdaptiveInterval: Sendable, Equatable {
    public var min: Double
    public var max: Double
    /// `defaults.jitter` when it is given (at most the interval), else 10% of the interval chosen.
    public var jitter: Double?

    /// How many new items' times are kept per source.
    public static let memory = 20
    /// How far in the future a `published` time may be and still count (clock skew); beyond
    /// it, the time the item was first seen counts.
    public static let skew = 300.0

    public init(min: Double, max: Double, jitter: Double? = nil) {
        self.min = min
        self.max = Swift.max(min, max)
        self.jitter = jitter
    }

    /// The interval before anything is known: 15m, within the bounds.
    public var start: Double { clamp(900) }

    func clamp(_ s: Double) -> Double { Swift.min(Swift.max(s, min), max) }

    /// An interval chosen, and why: the same pair as a server's hint.
    public typealias Choice = IntervalHint

    /// The interval for a source whose new items came at `arrivals` (ascending, distinct), at
    /// `now`, with its run's largest server hint.
    public func choose(arrivals: [Double], now: Double, hint: IntervalHint?) -> Choice {
        var choice: Choice
        if arrivals.count >= 3 {
            var gaps: [Double] = []
            gaps.reserveCapacity(arrivals.count - 1)
            for i in 1..<arrivals.count { gaps.append(arrivals[i] - arrivals[i - 1]) }
            gaps.sort()
            let mid = gaps.count / 2
            let median = gaps.count % 2 == 1 ? gaps[mid] : (gaps[mid - 1] + gaps[mid]) / 2
            let quiet = now - arrivals[arrivals.count - 1]
            choice = quiet > median
                ? Choice(seconds: quiet / 2, why: "no new item for " + IntervalHint.shown(quiet))
                : Choice(seconds: median / 2, why: "median gap " + IntervalHint.shown(median))
        } else {
            choice = Choice(seconds: start, why: "no history yet")
        }
        if let hint, hint.seconds > choice.seconds { choice = Choice(seconds: hint.seconds, why: hint.why) }
        if choice.seconds < min { return Choice(seconds: min, why: "interval_min (\(choice.why))") }
        if choice.seconds > max { return Choice(seconds: max, why: "interval_max (\(choice.why))") }
        return choice
    }

    /// The jitter of a run on `interval`.
    public func jitter(for interval: Double) -> Double { jitter.map { Swift.min($0, interval) } ?? interval * 0.1 }

    /// `known` arrivals with the times of `items` (new to the state) added: distinct, ascending,
    /// the newest `memory`. An item's time is its `published` time unless that is missing or
    /// more than `skew` ahead of `now`; then `now`.
    public static func merged(_ known: [Double], adding items: [Item], now: Double) -> [Double] {
        guard !items.isEmpty else { return known }
        var times = Set(known)
        for item in items {
            if let p = item.published?.seconds, p <= now + skew { times.insert(p) } else { times.insert(now) }
        }
        return Array(times.sorted().suffix(memory))
    }

    // MARK: in the state

    /// The state's namespace of the arrivals (key: the source name; value: a JSON array).
    public static let arrivalsNamespace = "arrivals"
    /// The state's namespace of the interval in use (key: the source name; value:
    /// `{"seconds": n, "why": "..."}`), what `status` shows.
    public static let intervalNamespace = "interval"

    public static func encode(arrivals: [Double]) -> [UInt8] {
        JSONWriter.serialize(.array(arrivals.map { .number(JSONNumber(Int($0.rounded()))) }))
    }

    public static func decodeArrivals(_ bytes: [UInt8]?) -> [Double] {
        guard let bytes, let a = (try? JSONParser.parse(bytes))?.arrayValue else { return [] }
        return a.compactMap { $0.numberValue?.double }.filter(\.isFinite).sorted()
    }

    public static func encode(_ c: Choice) -> [UInt8] {
        JSONWriter.serialize(.object(JSONObject([("seconds", .number(JSONNumber(Int(c.seconds.rounded())))), ("why", .string(c.why))])))
    }

    public static func decodeChoice(_ bytes: [UInt8]?) -> Choice? {
        guard let bytes, let o = (try? JSONParser.parse(bytes))?.objectValue,
              let s = o["seconds"]?.numberValue?.double, let why = o["why"]?.stringValue else { return nil }
        return Choice(seconds: s, why: why)
    }
}
