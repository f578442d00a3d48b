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
        // The bytes are searched with memchr for `a` (most config strings have none): a loop
        // over the bytes was 2% of loading a config of 10,000 sources.
        s.withUTF8Bytes { buf -> Bool in
            guard buf.count >= 2, let base = buf.baseAddress else { return false }
            var at = base
            let last = base + buf.count - 1  // `a` must have a byte after it
            while at < last, let hit = memchr(at, Int32(a), last - at) {
                let p = UnsafePointer(hit.assumingMemoryBound(to: UInt8.self))
                if p[1] == b { return true }
                at = p + 1
            }
            return false
        }
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
    ///
    /// `$${` is the escape, as in compose files: in a run of `$` before `{`, each `$$` is one
    /// literal `$`, and only an odd run's last `$` starts a reference. So `$${VAR}` reads as the
    /// literal text `${VAR}`, `$$${VAR}` as `$` and VAR's value; a `$$` before anything but `{`
    /// is left as it is. `escaped` writes any text so that it reads back as itself.
    public static func interpolate(_ text: String, lookup: (String) -> String? = Environment.get) -> (text: String, missing: [String]) {
        var missing: [String] = []
        let out = substitute(text) { name, fallback, written in
            if let v = lookup(name), !(v.isEmpty && fallback != nil) { return v }
            if let fallback { return fallback }
            missing.append(name)
            return written
        }
        return (out, missing)
    }

    /// `text` with its escapes read (`$${` as `${`) and its references kept as written (no
    /// environment): what the config says, for `export opml`, which must not write the values.
    public static func unescaped(_ text: String) -> String {
        substitute(text) { _, _, written in written }
    }

    /// `text` written so that `interpolate` reads it back unchanged, whatever it holds: every run
    /// of `$` before a `{` doubled. For text from elsewhere (an OPML file's URLs and titles)
    /// that must never be filled in from the environment.
    public static func escaped(_ text: String) -> String {
        guard hasBytePair(text, UInt8(ascii: "$"), UInt8(ascii: "{")) else { return text }
        var out = ""
        var dollars = 0
        for ch in text {
            if ch == "$" { dollars += 1; continue }
            if dollars > 0 {
                out += String(repeating: "$", count: ch == "{" ? 2 * dollars : dollars)
                dollars = 0
            }
            out.append(ch)
        }
        out += String(repeating: "$", count: dollars)
        return out
    }

    /// The scan that `interpolate` and `unescaped` share: escapes read, and each reference
    /// replaced by `resolve(name, default, as written)`.
    private static func substitute(_ text: String, resolve: (String, String?, String) -> String) -> String {
        // Most strings of a config have no "${" even as bytes: done without looking further.
        guard hasBytePair(text, UInt8(ascii: "$"), UInt8(ascii: "{")) else { return text }
        var out = ""
        var rest = Substring(text)
        while let start = firstPair("$", "{", in: rest) {
            // The run of `$` this `${` ends: its pairs are literal `$`s; an even run escapes the `{`.
            var runStart = start.lowerBound
            while runStart > rest.startIndex, rest[rest.index(before: runStart)] == "$" { runStart = rest.index(before: runStart) }
            let run = rest.distance(from: runStart, to: start.lowerBound) + 1
            out += String(rest[..<runStart])
            out += String(repeating: "$", count: run / 2)
            if run % 2 == 0 {
                out += "{"
                rest = rest[start.upperBound...]
                continue
            }
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
            out += resolve(name, fallback, String(rest[start.lowerBound...close]))
            rest = after[after.index(after: close)...]
        }
        out += String(rest)
        return out
    }
}
