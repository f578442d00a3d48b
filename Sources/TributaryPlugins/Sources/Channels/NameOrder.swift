import TributaryCore
import TributaryPluginKit

@_spi(_Unicode) import Swift

/// Channel names in the order people expect (`sort: "name"`): case-insensitive, and runs of
/// digits by their value, so "Channel 2" comes before "Channel 10". It is what Foundation's
/// `compare(_:options: [.caseInsensitive, .numeric])` gave, without linking Foundation proper
/// (NSString, CoreFoundation, ICU), whose relocations every start paid for
/// (Docs/PERFORMANCE.md, "Start-up"). ChannelsSourceTests compares the two.
enum NameOrder {
    /// `a` sorts before `b`. As Foundation's, the comparison is of the canonical decompositions
    /// (NFD, the standard library's own, an SPI of it), so "Ärzte" sorts with the A's.
    static func precedes(_ a: String, _ b: String) -> Bool {
        compare(Array(a.lowercased()._nfd), Array(b.lowercased()._nfd)) < 0
    }

    private static func compare(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        var i = 0, j = 0
        while i < a.count && j < b.count {
            if isDigit(a[i]) && isDigit(b[j]) {
                let (x, nextI) = digitRun(a, from: i)
                let (y, nextJ) = digitRun(b, from: j)
                if x.count != y.count { return x.count < y.count ? -1 : 1 }
                for (p, q) in zip(x, y) where p != q { return p.value < q.value ? -1 : 1 }
                i = nextI
                j = nextJ
                continue
            }
            if a[i] != b[j] { return a[i].value < b[j].value ? -1 : 1 }
            i += 1
            j += 1
        }
        let restA = a.count - i, restB = b.count - j
        return restA == restB ? 0 : (restA < restB ? -1 : 1)
    }

    private static func isDigit(_ u: Unicode.Scalar) -> Bool { u.value >= 0x30 && u.value <= 0x39 }

    /// The digits from `start` without leading zeros (one zero for a run of zeros), and where the run ends.
    private static func digitRun(_ s: [Unicode.Scalar], from start: Int) -> (ArraySlice<Unicode.Scalar>, Int) {
        var end = start
        while end < s.count && isDigit(s[end]) { end += 1 }
        var first = start
        while first < end - 1 && s[first] == "0" { first += 1 }
        return (s[first..<end], end)
    }
}
