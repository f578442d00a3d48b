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

extension String {
    /// `self + tail`, made at its length in one allocation. `+` copies `self` into a new
    /// string and then grows it for `tail`: an item's id (`source:` and the native id) cost
    /// about 700 instructions that way (callgrind). The result is the same string.
    public func joined(with tail: String) -> String {
        withUTF8Bytes { head in
            tail.withUTF8Bytes { rest in
                let count = head.count + rest.count
                // Fifteen bytes or fewer are stored in the string itself: no allocation either way.
                guard count > 15, let h = head.baseAddress, let r = rest.baseAddress else { return self + tail }
                return String(unsafeUninitializedCapacity: count) { out in
                    let base = UnsafeMutableRawPointer(out.baseAddress!)
                    base.copyMemory(from: h, byteCount: head.count)
                    (base + head.count).copyMemory(from: r, byteCount: rest.count)
                    return count
                }
            }
        }
    }
}

extension String {
    /// A copy of `bytes`, which the caller has checked are valid UTF-8 (a JSON tape's string,
    /// validated by the parser): the standard library's initializers check them again, which
    /// was 2% of a `json` source's instructions (`validateUTF8`; two thirds of the bench
    /// corpus's texts are not ASCII). `isASCII` must be exact: a string marked not ASCII when
    /// it is loses the standard library's ASCII fast paths (comparing, hashing, counting), and
    /// one marked ASCII when it is not is read wrongly.
    ///
    /// Invalid UTF-8 here is undefined behaviour: only bytes a validator passed may come in.
    @inlinable @inline(__always)
    package init(copyingValidatedUTF8 bytes: UnsafeBufferPointer<UInt8>, isASCII: Bool) {
        self = unsafe String(copying: UTF8Span(unchecked: Span(_unsafeElements: bytes), isKnownASCII: isASCII))
    }
}
