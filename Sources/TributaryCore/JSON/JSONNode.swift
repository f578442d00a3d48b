/// A wrong or missing value at a key path, e.g. `items[3].snippet.title: expected string, found number`.
public struct JSONAccessError: Error, CustomStringConvertible, Sendable, Equatable {
    public let path: KeyPath
    public let expected: String
    /// The JSON type found, or nil when the key is missing.
    public let found: String?

    public init(path: KeyPath, expected: String, found: String?) {
        self.path = path
        self.expected = expected
        self.found = found
    }

    public var description: String {
        let where_ = path.components.isEmpty ? "(document)" : path.description
        if let found { return "\(where_): expected \(expected), found \(found)" }
        return "\(where_): missing, expected \(expected)"
    }
}

/// A position in a parsed document that remembers its full key path, so every typed accessor
/// can say exactly where a value was wrong. Lenient conversions are opt-in at the call site.
public struct JSONNode: Sendable {
    /// The value here, or nil when the path does not exist in the document.
    public let value: JSONValue?
    public let path: KeyPath

    public init(_ root: JSONValue, path: KeyPath = .root) {
        self.value = root
        self.path = path
    }

    init(value: JSONValue?, path: KeyPath) {
        self.value = value
        self.path = path
    }

    public subscript(_ sub: KeyPath) -> JSONNode {
        JSONNode(value: value?[path: sub], path: path.appending(sub))
    }

    public subscript(key key: String) -> JSONNode { self[KeyPath(components: [.key(key)])] }

    /// True when the path is absent or holds `null`.
    public var isMissing: Bool { value == nil || value == .null }

    private func wrong(_ expected: String) -> JSONAccessError {
        JSONAccessError(path: path, expected: expected, found: value?.typeName)
    }

    // MARK: strings

    /// A string; with `allowNumber`, a number is accepted and written as its literal text
    /// (APIs that send identifiers as numbers).
    public func string(allowNumber: Bool = false) throws(JSONAccessError) -> String {
        guard let s = try optionalString(allowNumber: allowNumber) else { throw wrong("string") }
        return s
    }

    /// nil when absent or null; an error only when present with the wrong type.
    public func optionalString(allowNumber: Bool = false) throws(JSONAccessError) -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let s)?: return s
        case .number(let n)? where allowNumber: return n.text
        case .bool(let b)? where allowNumber: return b ? "true" : "false"
        default: throw wrong(allowNumber ? "string or number" : "string")
        }
    }

    // MARK: numbers

    /// A double; with `allowString`, a string holding a number is accepted.
    public func double(allowString: Bool = false) throws(JSONAccessError) -> Double {
        guard let d = try optionalDouble(allowString: allowString) else { throw wrong("number") }
        return d
    }

    public func optionalDouble(allowString: Bool = false) throws(JSONAccessError) -> Double? {
        switch value {
        case nil, .null?: return nil
        case .number(let n)?: return n.double
        case .string(let s)? where allowString:
            let t = s.trimmingSpaces
            if t.isEmpty { return nil }
            guard let d = Double(t), d.isFinite else { throw wrong("number (or a string holding one)") }
            return d
        default: throw wrong(allowString ? "number or numeric string" : "number")
        }
    }

    /// A number field both as a value and as the JSON to keep in an item's `data`: a JSON number
    /// exactly as the API wrote it, a numeric string as the number it holds; nil when absent.
    public func optionalNumber(allowString: Bool = true) throws(JSONAccessError) -> (value: Double, json: JSONValue)? {
        guard let d = try optionalDouble(allowString: allowString) else { return nil }
        if case .number(let n)? = value { return (d, .number(n)) }
        return (d, .double(d))
    }

    public func int(allowString: Bool = false) throws(JSONAccessError) -> Int64 {
        guard let i = try optionalInt(allowString: allowString) else { throw wrong("integer") }
        return i
    }

    public func optionalInt(allowString: Bool = false) throws(JSONAccessError) -> Int64? {
        switch value {
        case nil, .null?: return nil
        case .number(let n)?:
            if let i = n.int64 { return i }
            let d = n.double
            if d.isFinite, d == d.rounded(), abs(d) < 9.0e18 { return Int64(d) }
            throw wrong("integer")
        case .string(let s)? where allowString:
            let t = s.trimmingSpaces
            if t.isEmpty { return nil }
            guard let i = Int64(t) else { throw wrong("integer (or a string holding one)") }
            return i
        default: throw wrong(allowString ? "integer or numeric string" : "integer")
        }
    }

    // MARK: bools

    /// A bool; with `lenient`, also `1`/`0` and `"true"`/`"false"`/`"1"`/`"0"`.
    public func bool(lenient: Bool = false) throws(JSONAccessError) -> Bool {
        guard let b = try optionalBool(lenient: lenient) else { throw wrong("bool") }
        return b
    }

    public func optionalBool(lenient: Bool = false) throws(JSONAccessError) -> Bool? {
        switch value {
        case nil, .null?: return nil
        case .bool(let b)?: return b
        case .number(let n)? where lenient:
            if n.text == "1" { return true }
            if n.text == "0" { return false }
        case .string(let s)? where lenient:
            switch s.lowercased() {
            case "true", "1", "yes": return true
            case "false", "0", "no": return false
            default: break
            }
        default: break
        }
        throw wrong(lenient ? "bool (true/false, 1/0)" : "bool")
    }

    // MARK: containers

    /// The elements of an array, each with its own path.
    public func array() throws(JSONAccessError) -> [JSONNode] {
        guard let a = try optionalArray() else { throw wrong("array") }
        return a
    }

    public func optionalArray() throws(JSONAccessError) -> [JSONNode]? {
        switch value {
        case nil, .null?: return nil
        case .array(let a)?: return a.enumerated().map { JSONNode(value: $0.element, path: path.appending(index: $0.offset)) }
        default: throw wrong("array")
        }
    }

    public func object() throws(JSONAccessError) -> JSONObject {
        switch value {
        case .object(let o)?: return o
        default: throw wrong("object")
        }
    }

    /// Strings of an array of strings (numbers allowed when `allowNumber`); absent -> [].
    public func stringArray(allowNumber: Bool = false) throws(JSONAccessError) -> [String] {
        guard let items = try optionalArray() else { return [] }
        var out: [String] = []
        for item in items {
            if let s = try item.optionalString(allowNumber: allowNumber) { out.append(s) }
        }
        return out
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return String(s)
    }
}
