extension Array where Element == String {
    /// `joined(separator:)`, with the same result, for the joins every start makes (option
    /// help, config checks). The standard library's is not inlinable, so its first call looks
    /// up `Array`'s collection conformances at run time, about 0.1 ms of a `check`; this one is
    /// concrete and compiled in.
    public func joined(with separator: String) -> String {
        guard var out = first else { return "" }
        var size = out.utf8.count
        for s in self.dropFirst() { size += separator.utf8.count + s.utf8.count }
        out.reserveCapacity(size)
        for s in self.dropFirst() {
            out += separator
            out += s
        }
        return out
    }
}
