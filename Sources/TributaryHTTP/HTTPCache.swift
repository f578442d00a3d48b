/// Conditional-GET validators of one earlier response.
public struct Validators: Sendable, Equatable {
    public var etag: String?
    public var lastModified: String?
    public init(etag: String?, lastModified: String?) {
        self.etag = etag
        self.lastModified = lastModified
    }
}

/// A fresh response's validators and body, to be kept for the next conditional GET.
public struct CachedResponse: Sendable, Equatable {
    public var etag: String?
    public var lastModified: String?
    public var body: [UInt8]
    public init(etag: String?, lastModified: String?, body: [UInt8]) {
        self.etag = etag
        self.lastModified = lastModified
        self.body = body
    }
}

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
