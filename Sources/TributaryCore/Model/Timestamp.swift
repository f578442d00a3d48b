#if canImport(Glibc)
import Glibc
#endif

/// A point in time as seconds since 1970-01-01T00:00:00Z, with the parsers and formatters for
/// the date forms feeds and APIs use (RFC 3339, RFC 822/1123, unix seconds). No locale, no
/// DateFormatter: the same bytes on every machine.
public struct Timestamp: Sendable, Equatable, Hashable, Comparable, CustomStringConvertible {
    public var seconds: Double

    public init(seconds: Double) { self.seconds = seconds }

    public static func now() -> Timestamp {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Timestamp(seconds: Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9)
    }

    public static func < (a: Timestamp, b: Timestamp) -> Bool { a.seconds < b.seconds }
    public var description: String { rfc3339 }

    private var brokenDown: tm {
        var t = time_t(seconds.rounded(.down))
        var out = tm()
        gmtime_r(&t, &out)
        return out
    }

    /// `2026-11-29T10:00:00Z` (whole seconds; fractions are dropped).
    public var rfc3339: String {
        let t = brokenDown
        return pad(Int(t.tm_year) + 1900, 4) + "-" + pad(Int(t.tm_mon) + 1, 2) + "-" + pad(Int(t.tm_mday), 2)
            + "T" + pad(Int(t.tm_hour), 2) + ":" + pad(Int(t.tm_min), 2) + ":" + pad(Int(t.tm_sec), 2) + "Z"
    }

    /// `Sun, 29 Nov 2026 10:00:00 GMT` (RFC 822 with a four-digit year, as RSS readers expect).
    public var rfc822: String {
        let t = brokenDown
        return Self.days[Int(t.tm_wday)] + ", " + pad(Int(t.tm_mday), 2) + " " + Self.months[Int(t.tm_mon)] + " "
            + pad(Int(t.tm_year) + 1900, 4) + " " + pad(Int(t.tm_hour), 2) + ":" + pad(Int(t.tm_min), 2) + ":"
            + pad(Int(t.tm_sec), 2) + " GMT"
    }

    static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private func pad(_ v: Int, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    /// Days from 1970-01-01 to the civil date (proleptic Gregorian), no libc time zone involved.
    static func daysFromCivil(_ y0: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (m + 9) % 12
        let doy = (153 * mp + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    static func make(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, fraction: Double = 0, offsetSeconds: Int = 0) -> Timestamp? {
        guard (1...12).contains(month), (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second) else { return nil }
        let days = daysFromCivil(year, month, day)
        let secs = days * 86400 + hour * 3600 + minute * 60 + min(second, 59) - offsetSeconds
        return Timestamp(seconds: Double(secs) + fraction)
    }
}

extension Timestamp {
    /// RFC 3339 / ISO 8601: `2026-11-29T10:00:00Z`, `...T10:00:00.123+02:00`, `... 10:00:00Z`,
    /// also a bare date `2026-11-29` (midnight UTC) and a missing offset (taken as UTC).
    public static func parseRFC3339(_ text: String) -> Timestamp? {
        let b = Array(text.utf8)
        var i = 0
        func num(_ n: Int) -> Int? {
            guard i + n <= b.count else { return nil }
            var v = 0
            for k in 0..<n {
                let c = b[i + k]
                guard c >= 0x30 && c <= 0x39 else { return nil }
                v = v * 10 + Int(c - 0x30)
            }
            i += n
            return v
        }
        func expect(_ c: UInt8) -> Bool {
            guard i < b.count, b[i] == c else { return false }
            i += 1
            return true
        }
        guard let y = num(4), expect(0x2D), let mo = num(2), expect(0x2D), let d = num(2) else { return nil }
        if i == b.count { return make(year: y, month: mo, day: d, hour: 0, minute: 0, second: 0) }
        guard i < b.count, b[i] == UInt8(ascii: "T") || b[i] == UInt8(ascii: "t") || b[i] == 0x20 else { return nil }
        i += 1
        guard let h = num(2), expect(0x3A), let mi = num(2) else { return nil }
        var s = 0
        if expect(0x3A) { guard let sv = num(2) else { return nil }; s = sv }
        var frac = 0.0
        if i < b.count && (b[i] == UInt8(ascii: ".") || b[i] == UInt8(ascii: ",")) {
            i += 1
            var scale = 0.1
            let start = i
            while i < b.count, b[i] >= 0x30 && b[i] <= 0x39 {
                frac += Double(b[i] - 0x30) * scale
                scale /= 10
                i += 1
            }
            if i == start { return nil }
        }
        var offset = 0
        if i < b.count {
            let c = b[i]
            if c == UInt8(ascii: "Z") || c == UInt8(ascii: "z") {
                i += 1
            } else if c == UInt8(ascii: "+") || c == UInt8(ascii: "-") {
                i += 1
                guard let oh = num(2) else { return nil }
                _ = expect(0x3A)
                guard let om = num(2) else { return nil }
                offset = (oh * 3600 + om * 60) * (c == UInt8(ascii: "-") ? -1 : 1)
            } else {
                return nil
            }
        }
        guard i == b.count else { return nil }
        return make(year: y, month: mo, day: d, hour: h, minute: mi, second: s, fraction: frac, offsetSeconds: offset)
    }

    /// RFC 822 / 1123 / 2822 as used by RSS and HTTP: `Sun, 29 Nov 2026 10:00:00 GMT`,
    /// `29 Nov 26 10:00 +0200`, zone names UT/GMT/Z/EST/EDT/CST/CDT/MST/MDT/PST/PDT.
    public static func parseRFC822(_ text: String) -> Timestamp? {
        var parts = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }).map(String.init)
        guard !parts.isEmpty else { return nil }
        if parts[0].hasSuffix(",") || days.contains(where: { parts[0].lowercased().hasPrefix($0.lowercased()) }) {
            parts.removeFirst()
        }
        guard parts.count >= 4 else { return nil }
        guard let day = Int(parts[0]) else { return nil }
        let monName = parts[1].prefix(3).lowercased()
        guard let monIndex = months.firstIndex(where: { $0.lowercased() == monName }) else { return nil }
        guard var year = Int(parts[2]) else { return nil }
        if parts[2].count == 2 { year += year < 50 ? 2000 : 1900 }
        let hms = parts[3].split(separator: ":").map { Int($0) }
        guard hms.count >= 2, hms.allSatisfy({ $0 != nil }) else { return nil }
        let h = hms[0]!, mi = hms[1]!, s = hms.count > 2 ? hms[2]! : 0
        var offset = 0
        if parts.count > 4 {
            let z = parts[4]
            if let first = z.first, first == "+" || first == "-", z.count == 5, let v = Int(z.dropFirst()) {
                offset = ((v / 100) * 3600 + (v % 100) * 60) * (first == "-" ? -1 : 1)
            } else {
                let zones: [String: Int] = ["UT": 0, "UTC": 0, "GMT": 0, "Z": 0, "EST": -5, "EDT": -4, "CST": -6, "CDT": -5, "MST": -7, "MDT": -6, "PST": -8, "PDT": -7]
                guard let hours = zones[z.uppercased()] else { return nil }
                offset = hours * 3600
            }
        }
        return make(year: year, month: monIndex + 1, day: day, hour: h, minute: mi, second: s, offsetSeconds: offset)
    }

    /// Any of the forms above, or unix seconds (`"1456536694"`, also milliseconds when 13 digits).
    public static func parseAny(_ text: String) -> Timestamp? {
        let t = text.trimmingSpaces
        if !t.isEmpty, t.allSatisfy({ $0.isASCII && $0.isNumber }), let v = Double(t) {
            return Timestamp(seconds: t.count >= 13 ? v / 1000 : v)
        }
        return parseRFC3339(t) ?? parseRFC822(t)
    }
}
