#if canImport(Glibc)
import Glibc
#endif

/// A point in time as seconds since 1970-01-01T00:00:00Z, with the parsers and formatters for
/// the date forms feeds and APIs use (RFC 3339, RFC 822/1123, unix seconds). No locale, no
/// DateFormatter, no libc time zone: the same bytes on every machine.
///
/// The range is years 0000 to 9999 (`earliest` ... `latest`), what RFC 3339 can write. Parsers
/// return nil outside it and `init?(checked:)` turns untrusted numbers into a timestamp or nil;
/// the formatters clamp to the range, so they never trap and never write an invalid date,
/// whatever a value holds.
public struct Timestamp: Sendable, Equatable, Hashable, Comparable, CustomStringConvertible {
    public var seconds: Double

    public init(seconds: Double) { self.seconds = seconds }

    /// 0000-01-01T00:00:00Z.
    public static let earliest = -62_167_219_200.0
    /// 9999-12-31T23:59:59Z.
    public static let latest = 253_402_300_799.0

    /// A timestamp from an untrusted number of seconds: nil when it is not finite or falls
    /// outside years 0000-9999.
    public init?(checked seconds: Double) {
        guard seconds.isFinite, seconds >= Self.earliest, seconds < Self.latest + 1 else { return nil }
        self.seconds = seconds
    }

    public static func now() -> Timestamp {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Timestamp(seconds: Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9)
    }

    public static func < (a: Timestamp, b: Timestamp) -> Bool { a.seconds < b.seconds }
    public var description: String { rfc3339 }

    /// The civil date and time in UTC, whole seconds, clamped to the range.
    struct Civil {
        var year, month, day, hour, minute, second, weekday: Int
    }

    var civil: Civil {
        let clamped = seconds.isNaN ? 0 : min(max(seconds, Self.earliest), Self.latest)
        let whole = Int(clamped.rounded(.down))
        let days = whole >= 0 ? whole / 86400 : (whole - 86399) / 86400
        let rest = whole - days * 86400
        let (y, m, d) = Self.civilFromDays(days)
        // 1970-01-01 was a Thursday (4).
        let weekday = ((days % 7) + 11) % 7
        return Civil(year: y, month: m, day: d, hour: rest / 3600, minute: rest % 3600 / 60, second: rest % 60, weekday: weekday)
    }

    /// `2026-11-29T10:00:00Z` (whole seconds; fractions are dropped).
    public var rfc3339: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20)
        appendRFC3339(into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `rfc3339`'s 20 bytes appended to `out` (no intermediate strings: every item line holds
    /// one or two of these). They are laid out on the stack and appended at once: appended a
    /// byte at a time, each append checked the array's capacity and uniqueness.
    public func appendRFC3339(into out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { b in
            writeRFC3339(to: b.baseAddress!)
            out.append(contentsOf: UnsafeBufferPointer(b))
        }
    }

    /// `rfc3339`'s 20 bytes at `p`, which has room for them.
    public func writeRFC3339(to p: UnsafeMutablePointer<UInt8>) {
        let t = civil
        let b = UnsafeMutableBufferPointer(start: p, count: 20)
        Self.put(t.year, 4, b, 0)
        b[4] = UInt8(ascii: "-")
        Self.put(t.month, 2, b, 5)
        b[7] = UInt8(ascii: "-")
        Self.put(t.day, 2, b, 8)
        b[10] = UInt8(ascii: "T")
        Self.put(t.hour, 2, b, 11)
        b[13] = UInt8(ascii: ":")
        Self.put(t.minute, 2, b, 14)
        b[16] = UInt8(ascii: ":")
        Self.put(t.second, 2, b, 17)
        b[19] = UInt8(ascii: "Z")
    }

    /// `v` (0 ... 10^width - 1) in exactly `width` digits at `b[at...]`.
    @inline(__always)
    private static func put(_ v: Int, _ width: Int, _ b: UnsafeMutableBufferPointer<UInt8>, _ at: Int) {
        var rest = v
        var i = at + width - 1
        while i >= at {
            b[i] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
            i -= 1
        }
    }

    /// `10:00:00`: the time of day of `t`, as both formats write it.
    @inline(__always)
    private static func appendClock(_ t: Civil, _ out: inout [UInt8]) {
        digits(t.hour, 2, &out)
        out.append(UInt8(ascii: ":"))
        digits(t.minute, 2, &out)
        out.append(UInt8(ascii: ":"))
        digits(t.second, 2, &out)
    }

    /// `v` (0 ... 10^width - 1, which the clamped range guarantees) in exactly `width` digits.
    @inline(__always)
    private static func digits(_ v: Int, _ width: Int, _ out: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<width { divisor *= 10 }
        var rest = v
        while divisor > 0 {
            out.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest / divisor % 10))
            rest %= divisor
            divisor /= 10
        }
    }

    /// `Sun, 29 Nov 2026 10:00:00 GMT` (RFC 822 with a four-digit year, as RSS readers expect).
    public var rfc822: String {
        let t = civil
        var out: [UInt8] = []
        out.reserveCapacity(29)
        out.append(contentsOf: Self.days[t.weekday].utf8)
        out.append(contentsOf: ", ".utf8)
        Self.digits(t.day, 2, &out)
        out.append(UInt8(ascii: " "))
        out.append(contentsOf: Self.months[t.month - 1].utf8)
        out.append(UInt8(ascii: " "))
        Self.digits(t.year, 4, &out)
        out.append(UInt8(ascii: " "))
        Self.appendClock(t, &out)
        out.append(contentsOf: " GMT".utf8)
        return String(decoding: out, as: UTF8.self)
    }

    static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Days from 1970-01-01 to the civil date (proleptic Gregorian, H. Hinnant's algorithm).
    /// Callers keep `y0` within 0...9999, so nothing overflows.
    static func daysFromCivil(_ y0: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (m + 9) % 12
        let doy = (153 * mp + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    /// The inverse of `daysFromCivil`.
    static func civilFromDays(_ z0: Int) -> (year: Int, month: Int, day: Int) {
        let z = z0 + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    static func isLeapYear(_ y: Int) -> Bool { y % 4 == 0 && (y % 100 != 0 || y % 400 == 0) }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// A validated civil date and time (a real calendar day: no 31 February), or nil. A leap
    /// second (`:60`) reads as `:59`. `offsetSeconds` is the zone's offset east of UTC.
    static func make(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, fraction: Double = 0, offsetSeconds: Int = 0) -> Timestamp? {
        guard (0...9999).contains(year), (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
              (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second),
              abs(offsetSeconds) < 86400, fraction >= 0 else { return nil }
        let days = daysFromCivil(year, month, day)
        let secs = days * 86400 + hour * 3600 + minute * 60 + min(second, 59) - offsetSeconds
        // Many fraction digits can round up to 1.0; a fraction never carries into the next second.
        return Timestamp(checked: Double(secs) + min(fraction, 0.999_999))
    }
}

extension Timestamp {
    /// RFC 3339 / ISO 8601: `2026-11-29T10:00:00Z`, `...T10:00:00.123+02:00`, `... 10:00:00Z`,
    /// also a bare date `2026-11-29` (midnight UTC) and a missing offset (taken as UTC).
    public static func parseRFC3339(_ text: String) -> Timestamp? {
        // Read in place: a copy of the bytes into an array was a third of the parse.
        var text = text
        return text.withUTF8 { parseRFC3339(bytes: $0) }
    }

    /// The 20 bytes at `p` as `YYYY-MM-DDTHH:MM:SSZ` (`T` or `t` or a space, `Z` or `z`, as the
    /// general parse takes them), or nil when they are not that form or not a valid time; the
    /// general parse then answers. Invariant: `p` has 20 readable bytes.
    @inline(__always)
    private static func wholeSecondsUTC(_ p: UnsafePointer<UInt8>) -> Timestamp? {
        @inline(__always) func digit(_ i: Int) -> Int? {
            let d = p[i] &- 0x30
            return d < 10 ? Int(d) : nil
        }
        @inline(__always) func two(_ i: Int) -> Int? {
            guard let a = digit(i), let b = digit(i + 1) else { return nil }
            return a * 10 + b
        }
        let t = p[10], z = p[19]
        guard p[4] == 0x2D, p[7] == 0x2D, t == 0x54 || t == 0x74 || t == 0x20, p[13] == 0x3A, p[16] == 0x3A, z == 0x5A || z == 0x7A,
              let c = two(0), let y = two(2), let mo = two(5), let d = two(8), let h = two(11), let mi = two(14), let sec = two(17) else { return nil }
        return make(year: c * 100 + y, month: mo, day: d, hour: h, minute: mi, second: sec)
    }

    /// `parseRFC3339` of the text whose UTF-8 is `b`.
    public static func parseRFC3339(bytes b: UnsafeBufferPointer<UInt8>) -> Timestamp? {
        // Most APIs write `2026-11-29T10:00:00Z`: read at fixed places, the same answer as below.
        if b.count == 20, let p = b.baseAddress, let t = wholeSecondsUTC(p) { return t }
        return parseRFC3339Fields(bytes: b)
    }

    /// The general parse of every form `parseRFC3339` takes (the fixed-place form included).
    static func parseRFC3339Fields(bytes b: UnsafeBufferPointer<UInt8>) -> Timestamp? {
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

    /// Zone names feeds write after the time, as minutes east of UTC: RFC 822's own (UT, GMT,
    /// the North American ones and the one-letter military zones, which RFC 2822 section 4.3
    /// reads as UTC because RFC 822 gave their signs backwards) and the common European
    /// (German MEZ/MESZ too), Asian and Pacific abbreviations that feeds use in practice.
    /// Ambiguous names (IST: India, Ireland or Israel) are not here: a date with one is
    /// rejected rather than guessed.
    static let zoneOffsets: [String: Int] = militaryZones.merging([
        "UT": 0, "UTC": 0, "GMT": 0, "Z": 0, "MEZ": 60, "MESZ": 120,
        "EST": -300, "EDT": -240, "CST": -360, "CDT": -300, "MST": -420, "MDT": -360, "PST": -480, "PDT": -420,
        "AKST": -540, "AKDT": -480, "HST": -600, "AST": -240, "ADT": -180, "NST": -210, "NDT": -150,
        "WET": 0, "WEST": 60, "BST": 60, "CET": 60, "CEST": 120, "MET": 60, "MEST": 120, "EET": 120, "EEST": 180, "MSK": 180,
        "JST": 540, "KST": 540, "HKT": 480, "SGT": 480, "AWST": 480, "ACST": 570, "ACDT": 630, "AEST": 600, "AEDT": 660,
        "NZST": 720, "NZDT": 780,
    ]) { a, _ in a }

    /// A to Z without J (RFC 822 section 5.1), each read as UTC.
    static let militaryZones: [String: Int] = Dictionary(uniqueKeysWithValues: "ABCDEFGHIKLMNOPQRSTUVWXYZ".map { (String($0), 0) })

    /// RFC 822 / 1123 / 2822 as used by RSS and HTTP: `Sun, 29 Nov 2026 10:00:00 GMT`,
    /// `29 Nov 26 10:00 +0200`, zone names from `zoneOffsets`. The date must exist (no
    /// `31 Feb`); a weekday that disagrees with the date is ignored, as mail readers do.
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
        guard parts[2].count <= 4, var year = Int(parts[2]) else { return nil }
        if parts[2].count == 2 { year += year < 50 ? 2000 : 1900 } else if parts[2].count == 3 { year += 1900 }
        let hms = parts[3].split(separator: ":").map { Int($0) }
        guard hms.count >= 2, hms.allSatisfy({ $0 != nil }) else { return nil }
        let h = hms[0]!, mi = hms[1]!, s = hms.count > 2 ? hms[2]! : 0
        var offset = 0
        if parts.count > 4 {
            let z = parts[4]
            if let first = z.first, first == "+" || first == "-", z.count == 5, z.dropFirst().allSatisfy({ $0.isASCII && $0.isNumber }), let v = Int(z.dropFirst()) {
                offset = ((v / 100) * 3600 + (v % 100) * 60) * (first == "-" ? -1 : 1)
            } else {
                guard let minutes = zoneOffsets[z.uppercased()] else { return nil }
                offset = minutes * 60
            }
        }
        return make(year: year, month: monIndex + 1, day: day, hour: h, minute: mi, second: s, offsetSeconds: offset)
    }

    /// Any of the forms above, or unix seconds (`"1456536694"`, also milliseconds when 13 digits).
    public static func parseAny(_ text: String) -> Timestamp? {
        let t = text.trimmingSpaces
        if !t.isEmpty, t.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            guard let v = Double(t) else { return nil }
            return Timestamp(checked: t.utf8.count >= 13 ? v / 1000 : v)
        }
        return parseRFC3339(t) ?? parseRFC822(t)
    }
}
