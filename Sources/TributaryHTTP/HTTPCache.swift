/// Why a stored response could not be read.
public struct HTTPCacheError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Where the bodies of earlier responses are kept, so a 304 Not Modified can be answered with
/// the body its validators stand for. The client asks only on a 304, for a key it had
/// validators for; the engine provides the store (the state, read on its own thread).
public protocol HTTPCache: Sendable {
    /// The body stored under `key`, or nil when there is none.
    func storedBody(_ key: String) async throws(HTTPCacheError) -> [UInt8]?
}
