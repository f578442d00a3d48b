import TributaryBase

/// The six JSON types, as a node reports them without building a value.
public enum JSONKind: String, Sendable, Equatable {
    case null, bool, number, string, array, object

    /// The name used in error messages ("string", "number", ...), as `JSONValue.typeName`.
    public var typeName: String { rawValue }
}

extension JSONValue {
    public var kind: JSONKind {
        switch self {
        case .null: return .null
        case .bool: return .bool
        case .number: return .number
        case .string: return .string
        case .array: return .array
        case .object: return .object
        }
    }
}
