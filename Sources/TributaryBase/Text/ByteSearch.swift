/// Substring search by bytes: the one implementation behind the feed readers' markup sniffing
/// (`<!DOCTYPE` in an OPML body, `<html` in a page) and the start-up checks of names
/// (`"PASSWORD"` in a variable's name, `token` in a header's). Concrete, not generic: the
/// standard library's `contains(_: some StringProtocol)` (in _StringProcessing) answers the same
/// for ASCII needles, but its first call instantiates the generic searcher's metadata, which a
/// short-lived process (`check`) pays for at each start.
public enum ByteSearch {
    /// True when `needle` occurs in `haystack` (an empty needle occurs everywhere, as for the
    /// standard library's `contains`).
    public static func contains(_ haystack: ArraySlice<UInt8>, _ needle: [UInt8]) -> Bool {
        guard let first = needle.first else { return true }
        guard haystack.count >= needle.count else { return false }
        var i = haystack.startIndex
        let last = haystack.endIndex - needle.count
        while i <= last {
            if haystack[i] == first && haystack[i..<(i + needle.count)].elementsEqual(needle) { return true }
            i += 1
        }
        return false
    }
}

extension StringProtocol {
    /// `contains(needle)` by UTF-8 bytes. Bytes, not Characters: a needle followed by a
    /// combining mark in `self` still matches here.
    public func containsBytes(_ needle: String) -> Bool {
        ByteSearch.contains(Array(utf8)[...], Array(needle.utf8))
    }
}
