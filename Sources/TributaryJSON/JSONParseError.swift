import TributaryBase

/// A syntax error in a JSON document: where it is (0-based byte offset, 1-based line and
/// byte column) and what was expected.
public struct JSONParseError: Error, CustomStringConvertible, Sendable, Equatable {
    public let offset: Int
    public let line: Int
    public let column: Int
    public let message: String

    public init(offset: Int, line: Int, column: Int, message: String) {
        self.offset = offset
        self.line = line
        self.column = column
        self.message = message
    }

    /// The error at `offset` in `bytes`, with its line and column counted from the bytes.
    public init(offset: Int, message: String, in bytes: UnsafeBufferPointer<UInt8>) {
        var line = 1
        var lineStart = 0
        var i = 0
        let end = min(offset, bytes.count)
        while i < end {
            if bytes[i] == 0x0A { line += 1; lineStart = i + 1 }
            i += 1
        }
        self.init(offset: offset, line: line, column: offset - lineStart + 1, message: message)
    }

    public var description: String { "\(line):\(column): \(message)" }
}

/// A parse failure before its line and column are known (they are counted only on failure).
struct RawError: Error {
    let offset: Int
    let message: String
}
