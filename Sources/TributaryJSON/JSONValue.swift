import TributaryBase
import Glibc

/// A parsed JSON document: the one value type every source, the config loader and the item
/// writer share. Objects keep their keys in document order (duplicates included).
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The JSON type name used in error messages ("string", "number", ...): its `kind`'s.
    public var typeName: String { kind.typeName }

    public var stringValue: String? { if case .string(let s) = self { return s }; return nil }
    public var objectValue: JSONObject? { if case .object(let o) = self { return o }; return nil }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { return a }; return nil }
    public var numberValue: JSONNumber? { if case .number(let n) = self { return n }; return nil }
    public var boolValue: Bool? { if case .bool(let b) = self { return b }; return nil }

    public static func int(_ v: Int) -> JSONValue { .number(JSONNumber(v)) }
    public static func double(_ v: Double) -> JSONValue { .number(JSONNumber(v)) }
}

/// A JSON number kept as the literal text it was written with, so integers of any size and
/// doubles round-trip exactly; conversions happen on access.
public struct JSONNumber: Equatable, Sendable, CustomStringConvertible {
    public let text: String

    /// `text` must be a valid JSON number literal.
    public init(text: String) { self.text = text }
    public init(_ value: Int) { self.text = String(value) }
    public init(_ value: Int64) { self.text = String(value) }
    public init(_ value: Double) {
        if value.isFinite, value == value.rounded(), abs(value) < 1e15 {
            self.text = String(Int64(value))
        } else if value.isFinite {
            self.text = "\(value)"
        } else {
            self.text = "0"  // JSON has no inf/nan; callers never pass them on purpose.
        }
    }

    /// The exact integer value, or nil when the literal has a fraction/exponent or is out of range.
    public var int64: Int64? { Int64(text) }
    /// The nearest double (may be inf for huge exponents).
    public var double: Double { Double(text) ?? .nan }
    public var isInteger: Bool { !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) }
    public var description: String { text }
}

/// A JSON object: ordered entries, lookups by key where the last duplicate wins.
public struct JSONObject: Equatable, Sendable {
    public var entries: [(key: String, value: JSONValue)]

    public init(_ entries: [(key: String, value: JSONValue)] = []) { self.entries = entries }

    public subscript(key: String) -> JSONValue? {
        get {
            var i = entries.count - 1
            while i >= 0 {
                if entries[i].key == key { return entries[i].value }
                i -= 1
            }
            return nil
        }
        set {
            if let i = entries.lastIndex(where: { $0.key == key }) {
                if let newValue { entries[i].value = newValue } else { entries.remove(at: i) }
            } else if let newValue {
                entries.append((key, newValue))
            }
        }
    }

    public var count: Int { entries.count }
    public var keys: [String] { entries.map(\.key) }
    public var isEmpty: Bool { entries.isEmpty }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.entries.count == rhs.entries.count else { return false }
        for i in lhs.entries.indices where lhs.entries[i].key != rhs.entries[i].key || lhs.entries[i].value != rhs.entries[i].value {
            return false
        }
        return true
    }
}

extension JSONValue {
    /// A deep copy in new storage: every container and every string not stored inline is
    /// allocated anew, so what the copy's readers keep holds none of the original's memory.
    public func detached() -> JSONValue {
        switch self {
        case .string(let s): return .string(JSONValue.freshString(s))
        case .number(let n): return .number(JSONNumber(text: JSONValue.freshString(n.text)))
        case .array(let a): return .array(a.map { $0.detached() })
        case .object(let o): return .object(o.detached())
        default: return self
        }
    }

    @inline(__always) static func freshString(_ s: String) -> String {
        var s = s
        return s.withUTF8 { String(decoding: $0, as: UTF8.self) }
    }
}

extension JSONObject {
    /// `JSONValue.detached()` of an object.
    public func detached() -> JSONObject {
        var out: [(key: String, value: JSONValue)] = []
        out.reserveCapacity(entries.count)
        for e in entries { out.append((JSONValue.freshString(e.key), e.value.detached())) }
        return JSONObject(out)
    }
}

extension JSONValue {
    /// Whether `a` and `b` hold the same UTF-8 bytes: `==` first (byte equality implies it, and
    /// it is a `memcmp` for the ASCII text configs are mostly made of), then the bytes, borrowed
    /// in place (`utf8.elementsEqual` went byte by byte through the views: a third of `check`).
    static func sameBytes(_ a: borrowing String, _ b: borrowing String) -> Bool {
        guard a == b else { return false }
        return a.withUTF8Bytes { pa in
            b.withUTF8Bytes { pb in pa.count == pb.count && (pa.count == 0 || memcmp(pa.baseAddress!, pb.baseAddress!, pa.count) == 0) }
        }
    }

    /// The same JSON text, byte for byte: strings and keys by their UTF-8 bytes and numbers by
    /// their text. `==` compares strings as Swift does, by canonical equivalence ("é" as one
    /// scalar equals "e" and a combining accent; ";" equals the Greek question mark U+037E),
    /// which is not the same text for a checker or a jq program that reads the bytes.
    public func isIdentical(to other: JSONValue) -> Bool {
        switch self {
        case .null:
            if case .null = other { return true }
            return false
        case .bool(let a):
            if case .bool(let b) = other { return a == b }
            return false
        case .number(let a):
            if case .number(let b) = other { return Self.sameBytes(a.text, b.text) }
            return false
        case .string(let a):
            if case .string(let b) = other { return Self.sameBytes(a, b) }
            return false
        case .array(let a):
            guard case .array(let b) = other, a.count == b.count else { return false }
            for i in a.indices where !a[i].isIdentical(to: b[i]) { return false }
            return true
        case .object(let a):
            if case .object(let b) = other { return a.isIdentical(to: b) }
            return false
        }
    }
}

extension JSONObject {
    /// `JSONValue.isIdentical(to:)` of two objects: the same keys, byte for byte, in order.
    public func isIdentical(to other: JSONObject) -> Bool {
        guard entries.count == other.entries.count else { return false }
        // In place: a subscript of `entries` copied each entry, a retain of its key and value.
        return entries.withUnsafeBufferPointer { a in
            other.entries.withUnsafeBufferPointer { b in
                for i in 0..<a.count {
                    guard JSONValue.sameBytes(a[i].key, b[i].key), a[i].value.isIdentical(to: b[i].value) else { return false }
                }
                return true
            }
        }
    }
}
