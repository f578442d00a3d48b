/// Substring search by UTF-8 bytes, for the checks config validation and secret detection make
/// at every start (`"PASSWORD"` in a variable's name, `%` in a path template). The standard
/// library's `contains(_: some StringProtocol)` (in _StringProcessing) answers the same for
/// these ASCII needles, but its first call instantiates the generic searcher's metadata, which
/// a short-lived process (`check`) pays for on each start. Bytes, not Characters: a needle
/// followed by a combining mark in `self` still matches here.
extension StringProtocol {
    public func containsBytes(_ needle: String) -> Bool {
        var needle = needle
        return needle.withUTF8 { n in
            guard let first = n.first else { return true }
            let hay = Array(utf8)
            guard hay.count >= n.count else { return false }
            var i = 0
            let last = hay.count - n.count
            while i <= last {
                if hay[i] == first {
                    var j = 1
                    while j < n.count && hay[i + j] == n[j] { j += 1 }
                    if j == n.count { return true }
                }
                i += 1
            }
            return false
        }
    }
}
