// What the titles read so far say about words whose case tells nothing in a given title.
//
// In "Knicks Down Celtics 105-96" every word is capitalized, so "Down" may be a verb or a name,
// and "Knicks Beat Celtics 105-96" differs from it by one capitalized word, which is also the
// shape of "Knicks Beat Nets 105-96". Sentence-case titles settle it: "down" and "beat" are
// written in lower case inside titles all day long; "Celtics" and "Nets" never are. This keeps,
// for every token hash, whether it was seen as a common word (lower case, inside a
// sentence-case title) and whether it was seen as a name (capitalized inside one), with no
// dictionary: it learns from the feeds it reads.
//
// Bounded: two Bloom filters (two bits per token) per kind, in two generations of 4 Mi bits; a
// generation is cleared and becomes the current one after 200,000 new tokens, so memory is
// fixed (2 MiB) and the false-positive rate stays near 1%.

public final class WordSightings {
    static let bits = 22
    static let wordsPerGeneration = 1 << (bits - 6)
    static let tokensPerGeneration = 200_000

    /// Four bit arrays of `wordsPerGeneration` words: common (generation 0, 1), names (0, 1).
    let words: UnsafeMutablePointer<UInt64>
    var current = 0
    var added = 0

    public init() {
        words = .allocate(capacity: 4 * WordSightings.wordsPerGeneration)
        words.initialize(repeating: 0, count: 4 * WordSightings.wordsPerGeneration)
    }

    deinit { words.deallocate() }

    @inline(__always) static func positions(_ token: UInt32) -> (Int, Int) {
        let h = fmix64(UInt64(token >> 3) | 0xC0FF_EE00_0000_0000)
        let mask = UInt64(1 << bits) - 1
        return (Int(h & mask), Int((h >> 32) & mask))
    }

    /// Bit array `set`: 0, 1 common words of generation 0, 1; 2, 3 names.
    @inline(__always) func test(_ set: Int, _ p: (Int, Int)) -> Bool {
        let base = words + set * WordSightings.wordsPerGeneration
        return base[p.0 >> 6] & (1 << UInt64(p.0 & 63)) != 0 && base[p.1 >> 6] & (1 << UInt64(p.1 & 63)) != 0
    }

    @inline(__always) func set(_ set: Int, _ p: (Int, Int)) {
        let base = words + set * WordSightings.wordsPerGeneration
        base[p.0 >> 6] |= 1 << UInt64(p.0 & 63)
        base[p.1 >> 6] |= 1 << UInt64(p.1 & 63)
    }

    /// Records the common words and the names of a title.
    public func learn(_ signature: TitleSignature) {
        for i in 0..<signature.count {
            let v = signature.tokens[i]
            let kind = v & 3
            guard kind == 0 || kind == 2 else { continue }
            let p = WordSightings.positions(v)
            let target = (kind == 0 ? 0 : 2) + current
            if !test(target, p) {
                set(target, p)
                added += 1
                if added >= WordSightings.tokensPerGeneration { rotate() }
            }
        }
    }

    /// Everything `learn` has changed so far (2 MiB), to be put back with `restore`.
    public struct Saved {
        fileprivate let words: [UInt64]
        fileprivate let current: Int
        fileprivate let added: Int
    }

    /// A copy of what the sightings hold now: a look at some titles that must leave no trace
    /// (the engine's preview of what a batch would emit) learns as usual and then restores it.
    public func save() -> Saved {
        Saved(words: Array(UnsafeBufferPointer(start: words, count: 4 * WordSightings.wordsPerGeneration)), current: current, added: added)
    }

    /// Puts back what `save` copied: the sightings are again exactly as they were then.
    public func restore(_ saved: Saved) {
        saved.words.withUnsafeBufferPointer { b in words.update(from: b.baseAddress!, count: 4 * WordSightings.wordsPerGeneration) }
        current = saved.current
        added = saved.added
    }

    func rotate() {
        current ^= 1
        (words + current * WordSightings.wordsPerGeneration).update(repeating: 0, count: WordSightings.wordsPerGeneration)
        (words + (2 + current) * WordSightings.wordsPerGeneration).update(repeating: 0, count: WordSightings.wordsPerGeneration)
        added = 0
    }

    public func seenAsCommon(_ token: UInt32) -> Bool {
        let p = WordSightings.positions(token)
        return test(0, p) || test(1, p)
    }

    public func seenAsName(_ token: UInt32) -> Bool {
        let p = WordSightings.positions(token)
        return test(2, p) || test(3, p)
    }

    /// `signature` with each token of unknown kind made common (seen only in lower case) or a
    /// name (seen only capitalized inside sentence-case titles) where the sightings say so.
    public func resolve(_ signature: TitleSignature) -> TitleSignature {
        var out = signature
        for i in 0..<signature.count where signature.tokens[i] & 3 == 1 {
            let v = signature.tokens[i]
            let c = seenAsCommon(v), n = seenAsName(v)
            if c && !n { out.tokens[i] = v & ~3 } else if n && !c { out.tokens[i] = v & ~3 | 2 }
        }
        return out
    }
}
