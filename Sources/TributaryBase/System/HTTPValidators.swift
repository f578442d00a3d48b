/// The conditional-GET validators of one earlier response (`ETag`, `Last-Modified`): what the
/// HTTP client sends back (`If-None-Match`, `If-Modified-Since`) and what the state keeps per
/// request, in one type for both (the state stores what the client hands it, as it is).
public struct HTTPValidators: Sendable, Equatable {
    public var etag: String?
    public var lastModified: String?
    public init(etag: String?, lastModified: String?) {
        self.etag = etag
        self.lastModified = lastModified
    }
}

/// A fresh response's validators and body, kept for the next conditional GET: a 304 Not
/// Modified is answered with the body its validators stand for.
public struct CachedResponse: Sendable, Equatable {
    public var etag: String?
    public var lastModified: String?
    public var body: [UInt8]
    public init(etag: String?, lastModified: String?, body: [UInt8]) {
        self.etag = etag
        self.lastModified = lastModified
        self.body = body
    }

    /// The entry without its body.
    public var validators: HTTPValidators { HTTPValidators(etag: etag, lastModified: lastModified) }
}
