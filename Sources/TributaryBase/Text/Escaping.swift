extension String {
    /// The string with every Unicode scalar that `replacement` maps written as what it returns
    /// (an empty string drops it), and every other scalar kept: the one loop behind the escaping
    /// of XML text and attributes, feed content and Prometheus label values, each of which only
    /// says what its scalars become. Scalars, not Characters: a quote followed by a combining
    /// mark is still a quote.
    @inlinable
    public func replacingScalars(_ replacement: (Unicode.Scalar) -> String?) -> String {
        var out = ""
        out.reserveCapacity(utf8.count)
        for u in unicodeScalars {
            if let r = replacement(u) { out += r } else { out.unicodeScalars.append(u) }
        }
        return out
    }
}
