import FoundationEssentials
import Glibc
import Dispatch

/// The program's version, shown by `--version` and sent in the User-Agent.
public enum Tributary {
    public static let version = "0.2.0"
}

/// Durations in config: a number of seconds or `"250ms"`, `"20s"`, `"15m"`, `"2h"`, `"1d"`
/// (units may be combined: `"1h30m"`), from 0 up to `max` (ten years): every duration ends up
/// in arithmetic (timeouts in milliseconds, backoff, retention), and nothing longer means
/// anything, so a larger value is a config error instead of an overflow later.
public enum Durations {
    /// 3650 days.
    public static let max = 3650.0 * 86400

    package static func checked(_ d: Double) -> Double? { d.isFinite && d >= 0 && d <= max ? d : nil }

    public static func parse(_ text: String) -> Double? {
        let s = text.trimmingSpaces
        guard !s.isEmpty else { return nil }
        if let d = Double(s) { return checked(d) }
        var total = 0.0
        var i = s.startIndex
        var sawUnit = false
        while i < s.endIndex {
            var numEnd = i
            while numEnd < s.endIndex, s[numEnd].isASCII, s[numEnd].isNumber || s[numEnd] == "." { numEnd = s.index(after: numEnd) }
            guard numEnd > i, let v = Double(s[i..<numEnd]) else { return nil }
            var unitEnd = numEnd
            while unitEnd < s.endIndex, s[unitEnd].isLetter { unitEnd = s.index(after: unitEnd) }
            let factor: Double
            switch s[numEnd..<unitEnd] {
            case "ms": factor = 0.001
            case "s": factor = 1
            case "m": factor = 60
            case "h": factor = 3600
            case "d": factor = 86400
            case "w": factor = 7 * 86400
            default: return nil
            }
            total += v * factor
            sawUnit = true
            i = unitEnd
        }
        return sawUnit ? checked(total) : nil
    }

    /// `0.25` -> `250ms`, `20` -> `20s`, `900` -> `15m`, `5400` -> `1h30m`.
    public static func format(_ seconds: Double) -> String {
        // Beyond `max` (never from the parser) only the number is shown: no Int conversion.
        guard seconds.isFinite, seconds >= 0, seconds <= max else { return "\(seconds)s" }
        if seconds == 0 { return "0s" }
        if seconds < 1 { return "\(Int((seconds * 1000).rounded()))ms" }
        if seconds != seconds.rounded() {  // one decimal, as printf's %.1f rounds (to even)
            let tenths = Int((seconds * 10).rounded(.toNearestOrEven))
            return "\(tenths / 10).\(tenths % 10)s"
        }
        var rest = Int(seconds)
        var out = ""
        for (unit, size) in [("d", 86400), ("h", 3600), ("m", 60), ("s", 1)] where rest >= size {
            out += "\(rest / size)\(unit)"
            rest %= size
        }
        return out.isEmpty ? "0s" : out
    }
}

/// Sizes in config: a number of bytes or `"512KiB"`, `"16MiB"`, `"1GiB"` (also `KB`/`MB`/`GB`
/// as powers of 1000), from 0 up to `max` (1 TiB); anything larger is a config error, never an
/// overflow.
public enum ByteSizes {
    /// 1 TiB.
    public static let max = 1 << 40

    public static func parse(_ text: String) -> Int? {
        let s = text.trimmingSpaces
        if let n = Int(s) { return n >= 0 && n <= max ? n : nil }
        let units: [(String, Double)] = [("KiB", 1024), ("MiB", 1_048_576), ("GiB", 1_073_741_824), ("KB", 1000), ("MB", 1e6), ("GB", 1e9), ("B", 1)]
        for (u, f) in units where s.hasSuffix(u) {
            guard let v = Double(String(s.dropLast(u.count)).trimmingSpaces), v.isFinite, v >= 0 else { return nil }
            let bytes = (v * f).rounded(.down)
            guard bytes <= Double(max) else { return nil }
            return Int(bytes)
        }
        return nil
    }

    public static func format(_ bytes: Int) -> String {
        if bytes >= 1 << 30, bytes % (1 << 30) == 0 { return "\(bytes >> 30)GiB" }
        if bytes >= 1 << 20, bytes % (1 << 20) == 0 { return "\(bytes >> 20)MiB" }
        if bytes >= 1 << 10, bytes % (1 << 10) == 0 { return "\(bytes >> 10)KiB" }
        return "\(bytes) bytes"
    }
}
