#if canImport(Glibc)
import Glibc
#endif

/// Reads environment variables (one place, so tests and interpolation agree).
public enum Environment {
    public static func get(_ name: String) -> String? {
        guard let p = getenv(name) else { return nil }
        return String(cString: p)
    }

    // The searches below compare Characters, as Foundation's range(of:) did here ("${" followed
    // by a combining mark is not a match), with concrete String/Substring code only: this runs
    // for every string of a config, and the generic standard-library and Foundation searches
    // cost `check` their first-use type and conformance lookups.

    /// Whether `a` is directly followed by `b` somewhere in the UTF-8 bytes (a necessary
    /// condition for a Character-wise match of the two ASCII characters).
    static func hasBytePair(_ s: String, _ a: UInt8, _ b: UInt8) -> Bool {
        var previous: UInt8 = 0
        for byte in s.utf8 {
            if previous == a && byte == b { return true }
            previous = byte
        }
        return false
    }

    /// The first two adjacent Characters `a` `b` in `s`.
    static func firstPair(_ a: Character, _ b: Character, in s: Substring) -> Range<String.Index>? {
        var i = s.startIndex
        while i < s.endIndex {
            let next = s.index(after: i)
            if s[i] == a, next < s.endIndex, s[next] == b { return i..<s.index(after: next) }
            i = next
        }
        return nil
    }

    /// Replaces `${VAR}` and `${VAR:-default}` in `text`. Unset variables without a default are
    /// returned in `missing`, and the text keeps them as written (`${VAR}`), so a value that
    /// still holds one can be told apart (`ConfigDiagnostics.isUnresolved`).
    public static func interpolate(_ text: String, lookup: (String) -> String? = Environment.get) -> (text: String, missing: [String]) {
        // Most strings of a config have no "${" even as bytes: done without looking further.
        guard hasBytePair(text, UInt8(ascii: "$"), UInt8(ascii: "{")) else { return (text, []) }
        var out = ""
        var missing: [String] = []
        var rest = Substring(text)
        while let start = firstPair("$", "{", in: rest) {
            out += String(rest[..<start.lowerBound])
            let after = rest[start.upperBound...]
            guard let close = after.firstIndex(of: "}") else {
                out += String(rest[start.lowerBound...])
                rest = ""
                break
            }
            let body = after[..<close]
            var name = String(body)
            var fallback: String? = nil
            if let sep = firstPair(":", "-", in: body) {
                name = String(body[..<sep.lowerBound])
                fallback = String(body[sep.upperBound...])
            }
            if let v = lookup(name), !(v.isEmpty && fallback != nil) {
                out += v
            } else if let fallback {
                out += fallback
            } else {
                missing.append(name)
                out += String(rest[start.lowerBound...close])
            }
            rest = after[after.index(after: close)...]
        }
        out += String(rest)
        return (out, missing)
    }
}
