import TributaryBase

/// One value of a parsed document, in document order (a container before its descendants, an
/// object's key before its value). 16 bytes, no references.
///
/// | kind | offset | length | end |
/// |---|---|---|---|
/// | null, true, false | first byte | literal bytes | own index + 1 |
/// | number | first byte | literal bytes | own index + 1 |
/// | string value | first byte after the opening quote | bytes between the quotes, escapes as written | own index + 1 |
/// | object key (a string) | as a string value | as a string value | the object's previous key (the object itself for the first key) |
/// | array | the `[` | elements | index just past the last descendant |
/// | object | index of its last key (its own index when empty) | members | index just past the last descendant |
///
/// `end` is what makes the tape walkable: the next sibling of value `i` is entry `end`, so a walk
/// skips a whole subtree in one step. Keys instead link backwards, so a lookup starts at the last
/// key and stops at the first match: the last duplicate, as `JSONObject` lookups find.
/// While the parser has a container open, its `end` holds the index of the enclosing open
/// container (`noParent` at the top level) and `length`/`offset` what it saved of its own state.
struct JSONTapeEntry {
    var kind: UInt8
    var flags: UInt8
    var offset: UInt32
    var length: UInt32
    var end: UInt32

    static let null: UInt8 = 0
    static let `false`: UInt8 = 1
    static let `true`: UInt8 = 2
    static let number: UInt8 = 3
    static let string: UInt8 = 4
    static let array: UInt8 = 5
    static let object: UInt8 = 6

    /// Strings: the raw bytes hold at least one backslash escape (else they are the value).
    static let hasEscapes: UInt8 = 1
    /// Strings: the raw bytes hold at least one byte >= 0x80.
    static let hasNonASCII: UInt8 = 2
    /// Numbers: no fraction and no exponent.
    static let isInteger: UInt8 = 1

    static let noParent: UInt32 = .max

    /// Largest document the 32-bit offsets can address.
    static let maxDocumentBytes = Int(UInt32.max) - 1

    @inline(__always) var isContainer: Bool { kind >= Self.array }

    var publicKind: JSONKind {
        switch kind {
        case Self.null: return .null
        case Self.false, Self.true: return .bool
        case Self.number: return .number
        case Self.string: return .string
        case Self.array: return .array
        default: return .object
        }
    }
}
