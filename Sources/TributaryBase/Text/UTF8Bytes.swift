extension String {
    /// `body` over the string's UTF-8 bytes, borrowed in place: every native string has them
    /// contiguous; one without (bridged, never on Linux) is copied first. Not `withUTF8`: it is
    /// mutating, and the copy a caller made for it cost a retain and a release a call, on paths
    /// that run for every text of every item (the line written, each link, each key looked up).
    @inlinable @inline(__always)
    public func withUTF8Bytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        if let r = try utf8.withContiguousStorageIfAvailable(body) { return r }
        var copy = self
        return try copy.withUTF8(body)
    }
}
