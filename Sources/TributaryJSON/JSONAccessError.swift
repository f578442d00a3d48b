import TributaryBase

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
