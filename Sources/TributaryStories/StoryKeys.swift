// The keys an item is filed and looked up under: a few 64-bit numbers, so a store is a plain
// multimap (a SQL table with an index on one INTEGER column).
//
// - identity: the canonical URL's hash (the item id's without a URL);
// - exact title: the hash of the title's token set, so equal titles always meet;
// - numbers: the hash of the title's specific numbers (a decimal, a score, an amount), so
//   rewrites that keep the figures meet;
// - MinHash bands (Broder 1997; LSH banding as in Leskovec, Rajaraman and Ullman, "Mining of
//   Massive Datasets", ch. 3): for each of `bands` fixed random orders of token hashes, the two
//   tokens of the title that come first in that order, as one key. Two titles share a band's
//   key when the first two of their union in that order are in both, which happens with
//   probability close to J² for Jaccard similarity J; with 8 bands a pair at J = 0.6 meets with
//   probability 0.93, at J = 0.8 with 0.999, and two unrelated titles almost never. A pair of
//   tokens (not one) keeps each key's list short: a common word alone would file thousands.
//
// The bands find candidates; StoryMatcher's verification decides.

public enum StoryKeys {
    /// Fixed: changing them changes every stored key.
    static let bandSeeds: [(add: UInt64, mul: UInt64)] = (0..<32).map { i in
        let a = fmix64(0xB0A7_5EED_0000_0000 &+ UInt64(i))
        let m = fmix64(0x0DD5_EED0_0000_0000 &+ UInt64(i)) | 1
        return (a, m)
    }

    @inline(__always) public static func identity(_ hash: UInt64) -> UInt64 {
        fmix64(hash ^ 0x1D00_0000_0000_0001)
    }

    @inline(__always) public static func exactTitle(_ signature: TitleSignature) -> UInt64 {
        fmix64(signature.exactKey ^ 0xE7AC_7000_0000_0002)
    }

    /// The key of the title's specific numbers (nil without one): rewrites of one report keep
    /// its figures ("177,000 jobs", "4.2%") when they change its words.
    public static func numbers(_ signature: TitleSignature) -> UInt64? {
        var h: UInt64 = 0x0B5E_5500_0000_0003
        var any = false
        for i in 0..<signature.count where signature.tokens[i] & 7 == 7 {
            h = fmix64(h ^ UInt64(signature.tokens[i] >> 3)) &+ 0x9E37_79B9_7F4A_7C15
            any = true
        }
        return any ? fmix64(h) : nil
    }

    /// Appends the band keys of `signature` (none below two tokens; equal keys once).
    public static func appendBands(_ signature: TitleSignature, bands: Int, to keys: inout [UInt64]) {
        let n = signature.count
        guard n >= 2 else { return }
        let start = keys.count
        for b in 0..<min(bands, bandSeeds.count) {
            let (add, mul) = bandSeeds[b]
            var best1 = UInt64.max, best2 = UInt64.max
            var tok1: UInt32 = 0, tok2: UInt32 = 0
            for i in 0..<n {
                let t = signature.tokens[i] >> 2
                var p = (UInt64(t) &+ add) &* mul
                p ^= p >> 29
                if p < best1 {
                    best2 = best1; tok2 = tok1
                    best1 = p; tok1 = t
                } else if p < best2 {
                    best2 = p; tok2 = t
                }
            }
            let key = fmix64((UInt64(tok1) << 32 | UInt64(tok2)) ^ (UInt64(b + 1) &* 0x9E37_79B9_7F4A_7C15))
            var seen = false
            for k in start..<keys.count where keys[k] == key { seen = true; break }
            if !seen { keys.append(key) }
        }
    }
}
