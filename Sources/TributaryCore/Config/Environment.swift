#if canImport(Glibc)
import Glibc
#endif

/// Reads environment variables (one place, so tests and interpolation agree).
public enum Environment {
    public static func get(_ name: String) -> String? {
        guard let p = getenv(name) else { return nil }
        return String(cString: p)
    }

    /// Replaces `${VAR}` and `${VAR:-default}` in `text`. Unset variables without a default are
    /// returned in `missing` (the text keeps them empty).
    public static func interpolate(_ text: String, lookup: (String) -> String? = Environment.get) -> (text: String, missing: [String]) {
        // firstRange(of:) compares Characters, as Foundation's contains/range(of:) do, without
        // bridging to NSString (this runs for every string of a config).
        guard text.firstRange(of: "${") != nil else { return (text, []) }
        var out = ""
        var missing: [String] = []
        var rest = Substring(text)
        while let start = rest.firstRange(of: "${") {
            out += rest[..<start.lowerBound]
            let after = rest[start.upperBound...]
            guard let close = after.firstIndex(of: "}") else {
                out += rest[start.lowerBound...]
                rest = ""
                break
            }
            let body = after[..<close]
            var name = String(body)
            var fallback: String? = nil
            if let sep = body.firstRange(of: ":-") {
                name = String(body[..<sep.lowerBound])
                fallback = String(body[sep.upperBound...])
            }
            if let v = lookup(name), !(v.isEmpty && fallback != nil) {
                out += v
            } else if let fallback {
                out += fallback
            } else {
                missing.append(name)
            }
            rest = after[after.index(after: close)...]
        }
        out += rest
        return (out, missing)
    }
}
