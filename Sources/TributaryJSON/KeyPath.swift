import TributaryBase
import FoundationEssentials
import Glibc
import Dispatch

/// A path into a JSON document as written in configs and adapters: dot-separated keys with
/// `[n]` indexes (`feed.entry`, `weather[0].description`, `rain.3h`) and quoted bracket keys
/// for names containing dots (`["a.b"].c`). An empty path means the value itself.
public struct KeyPath: Equatable, Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    public enum Component: Equatable, Hashable, Sendable {
        case key(String)
        case index(Int)
    }

    public let components: [Component]

    public init(components: [Component]) { self.components = components }

    /// Parses a key path; throws a message saying what is wrong and where.
    public init(parsing text: String) throws(KeyPathSyntaxError) {
        // A config of many sources names the same few paths in each: parsed once each.
        if let known = Self.parsed.withLock({ $0[text] }) {
            self = known
            return
        }
        try self.init(parsingUncached: text)
        Self.parsed.withLock { cache in
            if cache.count < Self.parsedLimit { cache[text] = self }
        }
    }

    /// Paths parsed so far (valid ones only), at most `parsedLimit` of them.
    private static let parsed = Locked<[String: KeyPath]>([:])
    private static let parsedLimit = 4096

    private init(parsingUncached text: String) throws(KeyPathSyntaxError) {
        // The common case, dotted keys (`snippet.thumbnails.high.url`), split on the bytes: the
        // same components the scalar loop below makes, without it (a config of 10,000 sources
        // parses 70,000 paths). Brackets, quotes and empty keys take the loop and its errors.
        if !text.utf8.contains(where: { $0 == 0x5B || $0 == 0x5D || $0 == 0x22 }) {
            let parts = text.utf8.split(separator: 0x2E, omittingEmptySubsequences: false)
            if !parts.contains(where: \.isEmpty) {
                self.components = parts.map { .key(String(Substring($0))) }
                return
            }
        }
        var comps: [Component] = []
        let chars = Array(text.unicodeScalars)
        var i = 0
        var expectKey = true  // at start or after '.'
        func fail(_ why: String) -> KeyPathSyntaxError { KeyPathSyntaxError(path: text, message: why) }
        if chars.isEmpty { self.components = []; return }
        while i < chars.count {
            let c = chars[i]
            if c == "[" {
                i += 1
                if i < chars.count && chars[i] == "\"" {
                    i += 1
                    var key = ""
                    while i < chars.count && chars[i] != "\"" {
                        if chars[i] == "\\" && i + 1 < chars.count { i += 1 }
                        key.unicodeScalars.append(chars[i])
                        i += 1
                    }
                    guard i + 1 < chars.count, chars[i] == "\"", chars[i + 1] == "]" else { throw fail("unterminated [\"...\"] key") }
                    i += 2
                    comps.append(.key(key))
                } else {
                    var digits = ""
                    while i < chars.count && chars[i] != "]" {
                        digits.unicodeScalars.append(chars[i])
                        i += 1
                    }
                    guard i < chars.count else { throw fail("missing ']'") }
                    guard let n = Int(digits), n >= 0 else { throw fail("index '\(digits)' is not a non-negative integer") }
                    i += 1
                    comps.append(.index(n))
                }
                expectKey = false
            } else if c == "." {
                if expectKey { throw fail("empty key before '.'") }
                expectKey = true
                i += 1
                if i == chars.count { throw fail("path ends with '.'") }
            } else {
                if !expectKey { throw fail("expected '.' or '[' before '\(c)'") }
                var key = ""
                while i < chars.count && chars[i] != "." && chars[i] != "[" {
                    if chars[i] == "]" || chars[i] == "\"" { throw fail("unexpected '\(chars[i])'") }
                    key.unicodeScalars.append(chars[i])
                    i += 1
                }
                comps.append(.key(key))
                expectKey = false
            }
        }
        self.components = comps
    }

    /// For literals in adapter code; a malformed literal is a programming error.
    public init(stringLiteral value: String) {
        do { try self.init(parsing: value) } catch { preconditionFailure("invalid key path literal \(value): \(error)") }
    }

    public static let root = KeyPath(components: [])

    public func appending(_ c: Component) -> KeyPath { KeyPath(components: components + [c]) }
    public func appending(_ other: KeyPath) -> KeyPath { KeyPath(components: components + other.components) }
    public func appending(key: String) -> KeyPath { appending(.key(key)) }
    public func appending(index: Int) -> KeyPath { appending(.index(index)) }

    public var description: String {
        var s = ""
        for c in components {
            switch c {
            case .index(let n): s += "[\(n)]"
            case .key(let k):
                // Scalars, not Characters: a '.' or '"' followed by a combining mark is one
                // Character, and the parser splits on the scalar.
                if k.isEmpty || k.unicodeScalars.contains(where: { $0 == "." || $0 == "[" || $0 == "]" || $0 == "\"" }) {
                    // Inside ["..."] the parser reads a backslash as "the next scalar as is".
                    var quoted = String.UnicodeScalarView()
                    for u in k.unicodeScalars {
                        if u == "\"" || u == "\\" { quoted.append("\\") }
                        quoted.append(u)
                    }
                    s += "[\"" + String(quoted) + "\"]"
                } else {
                    if !s.isEmpty { s += "." }
                    s += k
                }
            }
        }
        return s
    }
}

/// A malformed key path (in a config or adapter).
public struct KeyPathSyntaxError: Error, CustomStringConvertible, Sendable {
    public let path: String
    public let message: String
    public var description: String { "invalid key path \"\(path)\": \(message)" }
}

extension JSONValue {
    /// The value at `path`, or nil where any step is missing or of the wrong container type.
    public subscript(path path: KeyPath) -> JSONValue? {
        var cur = self
        for c in path.components {
            switch (c, cur) {
            case (.key(let k), .object(let o)):
                guard let next = o[k] else { return nil }
                cur = next
            case (.index(let n), .array(let a)):
                guard n < a.count else { return nil }
                cur = a[n]
            default:
                return nil
            }
        }
        return cur
    }
}
