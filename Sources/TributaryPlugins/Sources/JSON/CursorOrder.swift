import TributaryPluginKit
import TributaryCore

/// The order of `incremental` cursor values. A value is numeric (an integer or decimal of any
/// length, as a JSON number or a string of digits: Mastodon's `"109876543210987654"`, with an
/// optional `-` and `.fraction`, no exponent) or an RFC 3339 time (compared as instants, any
/// offset). Anything else has no order. The values of one run must all be of one kind.
enum CursorOrder {
    enum Kind: String, Sendable { case numeric = "a number", time = "an RFC 3339 time" }

    /// The kind of `value`, or nil when it is neither.
    static func kind(of value: String) -> Kind? {
        if numericParts(value) != nil { return .numeric }
        if Timestamp.parseRFC3339(value) != nil { return .time }
        return nil
    }

    /// Whether `a` comes before `b`; nil when they are not of one kind.
    static func less(_ a: String, _ b: String) -> Bool? {
        if let x = numericParts(a), let y = numericParts(b) { return numericLess(x, y) }
        if numericParts(a) == nil, numericParts(b) == nil, let x = Timestamp.parseRFC3339(a), let y = Timestamp.parseRFC3339(b) {
            return x.seconds < y.seconds
        }
        return nil
    }

    /// Sign, integer digits without leading zeros, fraction digits without trailing zeros.
    private static func numericParts(_ s: String) -> (negative: Bool, int: [UInt8], frac: [UInt8])? {
        var b = Array(s.utf8)[...]
        var negative = false
        if b.first == 0x2D { negative = true; b = b.dropFirst() }
        guard let first = b.first, first >= 0x30, first <= 0x39 else { return nil }
        let dot = b.firstIndex(of: 0x2E)
        let intPart = dot.map { b[..<$0] } ?? b
        let fracPart = dot.map { b[b.index(after: $0)...] } ?? []
        if dot != nil && fracPart.isEmpty { return nil }
        guard intPart.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), fracPart.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        let int = Array(intPart.drop(while: { $0 == 0x30 }))
        var frac = Array(fracPart)
        while frac.last == 0x30 { frac.removeLast() }
        // -0 and 0 are one value.
        if int.isEmpty && frac.isEmpty { negative = false }
        return (negative, int, frac)
    }

    private static func numericLess(_ x: (negative: Bool, int: [UInt8], frac: [UInt8]), _ y: (negative: Bool, int: [UInt8], frac: [UInt8])) -> Bool {
        if x.negative != y.negative { return x.negative }
        let magnitudeLess: Bool
        if x.int.count != y.int.count {
            magnitudeLess = x.int.count < y.int.count
        } else if x.int != y.int {
            magnitudeLess = x.int.lexicographicallyPrecedes(y.int)
        } else if x.frac != y.frac {
            magnitudeLess = x.frac.lexicographicallyPrecedes(y.frac)
        } else {
            return false  // equal
        }
        return x.negative ? !magnitudeLess : magnitudeLess
    }
}

/// The largest cursor value a run has delivered, and what stops it from being kept: the first
/// value of another kind than the run's first (or of no kind) ends the tracking, with the value
/// and where it was (`items[3].id`) for the warning.
struct CursorTracker {
    private(set) var largest: String?
    private(set) var kind: CursorOrder.Kind?
    /// Why the run's cursor is not kept (nil: no conflict).
    private(set) var conflict: String?

    /// Adds a delivered record's value (`path`: where it was, for the warning).
    mutating func add(_ value: String, at path: String) {
        guard conflict == nil else { return }
        guard let k = CursorOrder.kind(of: value) else {
            conflict = "\(path): \(Self.quoted(value)) is neither a number nor an RFC 3339 time"
            return
        }
        if let kind, k != kind {
            conflict = "\(path): \(Self.quoted(value)) is \(k.rawValue), earlier values are \(kind.rawValue)"
            return
        }
        kind = k
        if let l = largest, CursorOrder.less(l, value) != true { return }
        largest = value
    }

    /// The value to keep, given the stored one: the largest of the run unless the stored one is
    /// larger (a cursor never moves back); the stored one when the run had none or a conflict
    /// (it stays as it was). `warn` hears of a conflict, and of a stored value of another kind,
    /// which the run's largest replaces.
    func proposal(stored: String?, warn: (String) -> Void) -> String? {
        if let conflict {
            warn("incremental: \(conflict); the cursor stays at \(stored.map(Self.quoted) ?? "none")")
            return stored
        }
        guard let largest else { return stored }
        guard let stored else { return largest }
        guard let before = CursorOrder.less(largest, stored) else {
            warn("incremental: the stored cursor \(Self.quoted(stored)) is not \(kind!.rawValue) like this run's values; it is replaced by \(Self.quoted(largest))")
            return largest
        }
        return before ? stored : largest
    }

    static func quoted(_ s: String) -> String {
        let cut = s.count > 60 ? String(s.prefix(60)) + "..." : s
        return "\"\(cut)\""
    }
}
