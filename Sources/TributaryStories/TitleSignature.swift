// What a title is reduced to: its content tokens (no stop words, lightly stemmed), each a 30-bit
// hash with a 2-bit kind (Docs/stories.md#what-never-matches), sorted, at most 16. This is what
// the state keeps per item and what verification compares: small, fixed size, no strings.

/// What a token is, as far as the rules go. A token's kind is read from its title alone (the
/// case of its letters, where it stands), with no dictionary of names.
public enum TokenKind: UInt8, Sendable, CaseIterable {
    /// A word written in lower case where lower case tells something (`raises`, `storm`).
    case common = 0
    /// A capitalized word whose case tells nothing: the first word, a word after a colon or a
    /// quote, any word of a title written In Title Case.
    case unknown = 1
    /// A name: a capitalized word inside a sentence-case title (`Celtics`, `Leeds`), an acronym
    /// (`NASA`), a word with inner capitals (`iPhone`).
    case name = 2
    /// A number: digits (`4`, `3.75`, `6.2`), a number word (`four`) or an ordinal (`fourth`,
    /// `4th`), all written as their value.
    case number = 3
}

public struct TitleSignature: Sendable, Equatable, CustomStringConvertible {
    public static let capacity = 16
    // The small fields come first: a record's first cache line then holds what rejects most
    // candidates (the count and the bloom) before the tokens are read.
    /// One bit per token (bit `(hash >> 2) & 63`): shared tokens are at most the bits two
    /// blooms share.
    public var bloom: UInt64 = 0
    public var count: Int { Int(storedCount) }
    @usableFromInline var storedCount: UInt8
    /// Bit 0: the title asks or explains ("What's in the bill", "Why ...", "...?"): an
    /// explainer is another article than the report it explains.
    public var flags: UInt8 = 0
    public var isQuestion: Bool { flags & 1 != 0 }
    /// The direction, level and follow-up classes of its words, or-ed (TitleAnalyzer.directions):
    /// 0 spares a comparison the lookups.
    public var directions: UInt8 = 0
    /// `hash & ~3 | kind`, sorted ascending; only the first `count` are meaningful. For a
    /// number, bit 2 of the hash says whether it is specific (TitleAnalyzer.isSpecificNumber).
    public var tokens: InlineArray<16, UInt32>

    public init() {
        tokens = .init(repeating: 0)
        storedCount = 0
    }

    /// From token values (`hash & ~3 | kind`): duplicates of one hash are merged (the kind that
    /// says most: a number, then a common word, then a name, then unknown), sorted, at most 16
    /// kept (the first 16 given).
    public init<S: Sequence<UInt32>>(values: S) {
        self.init()
        var n = 0
        for v in values {
            var dup = false
            for k in 0..<n where tokens[k] & ~3 == v & ~3 {
                tokens[k] = tokens[k] & ~3 | TitleSignature.merge(tokens[k] & 3, v & 3)
                dup = true
                break
            }
            if dup { continue }
            if n == TitleSignature.capacity { break }
            tokens[n] = v
            bloom |= 1 << UInt64((v >> 2) & 63)
            n += 1
        }
        storedCount = UInt8(n)
        sortTokens()
    }

    /// Adds a token (as `init(values:)` does, one at a time); `sortTokens` when done.
    @inline(__always) public mutating func add(_ v: UInt32) {
        let n = Int(storedCount)
        for k in 0..<n where tokens[k] & ~3 == v & ~3 {
            tokens[k] = tokens[k] & ~3 | TitleSignature.merge(tokens[k] & 3, v & 3)
            return
        }
        guard n < TitleSignature.capacity else { return }
        tokens[n] = v
        storedCount += 1
        bloom |= 1 << UInt64((v >> 2) & 63)
    }

    /// Insertion sort: at most 16 tokens.
    public mutating func sortTokens() {
        let n = Int(storedCount)
        var i = 1
        while i < n {
            let x = tokens[i]
            var j = i - 1
            while j >= 0, tokens[j] > x { tokens[j + 1] = tokens[j]; j -= 1 }
            tokens[j + 1] = x
            i += 1
        }
    }

    static func merge(_ a: UInt32, _ b: UInt32) -> UInt32 {
        // number (3) > common (0) > name (2) > unknown (1): lower case anywhere in the title
        // shows the word is an ordinary word.
        func rank(_ k: UInt32) -> Int { k == 3 ? 3 : k == 0 ? 2 : k == 2 ? 1 : 0 }
        return rank(a) >= rank(b) ? a : b
    }

    public subscript(i: Int) -> UInt32 { tokens[i] }

    public var values: [UInt32] { (0..<count).map { tokens[$0] } }

    /// The hash of the token set, kinds left out: equal for titles that normalize alike.
    public var exactKey: UInt64 {
        var h: UInt64 = 0x5EED_0000_0000_0007 ^ UInt64(count) ^ UInt64(flags) << 8
        for i in 0..<count { h = fmix64(h ^ UInt64(tokens[i] & ~3)) &+ 0x9E37_79B9_7F4A_7C15 }
        return fmix64(h)
    }

    /// An upper bound of the tokens `a` and `b` share, from their blooms alone.
    @inline(__always) public static func sharedAtMost(_ a: TitleSignature, _ b: TitleSignature) -> Int {
        min((a.bloom & b.bloom).nonzeroBitCount, min(a.count, b.count))
    }

    public static func == (a: TitleSignature, b: TitleSignature) -> Bool {
        guard a.count == b.count, a.flags == b.flags, a.directions == b.directions else { return false }
        for i in 0..<a.count where a.tokens[i] != b.tokens[i] { return false }
        return true
    }

    /// `count` little-endian UInt32 values, then the flags and directions bytes when either is
    /// not 0: the form a database keeps (a BLOB).
    public var encoded: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(count * 4 + 1)
        for i in 0..<count {
            let v = tokens[i]
            out.append(UInt8(truncatingIfNeeded: v)); out.append(UInt8(truncatingIfNeeded: v >> 8))
            out.append(UInt8(truncatingIfNeeded: v >> 16)); out.append(UInt8(truncatingIfNeeded: v >> 24))
        }
        if flags != 0 || directions != 0 { out.append(flags); out.append(directions) }
        return out
    }

    /// The inverse of `encoded`; nil when the bytes are not a signature.
    public init?(encoded: [UInt8]) {
        var bytes = encoded
        var flags: UInt8 = 0, directions: UInt8 = 0
        if bytes.count % 4 == 2 {
            directions = bytes.removeLast()
            flags = bytes.removeLast()
            guard flags != 0 || directions != 0 else { return nil }
        }
        guard bytes.count % 4 == 0, bytes.count / 4 <= TitleSignature.capacity else { return nil }
        self.init()
        self.flags = flags
        self.directions = directions
        var prev: UInt32?
        for i in 0..<(bytes.count / 4) {
            let v = UInt32(bytes[4 * i]) | UInt32(bytes[4 * i + 1]) << 8 | UInt32(bytes[4 * i + 2]) << 16 | UInt32(bytes[4 * i + 3]) << 24
            if let p = prev, p >= v { return nil }
            tokens[i] = v
            bloom |= 1 << UInt64((v >> 2) & 63)
            prev = v
        }
        storedCount = UInt8(bytes.count / 4)
    }

    public var description: String {
        (isQuestion ? "?" : "") + "[" + (0..<count).map { i in
            let v = tokens[i]
            let kind = TokenKind(rawValue: UInt8(v & 3))!
            return String(v >> 2, radix: 16) + ":" + "\(kind)"
        }.joined(separator: " ") + "]"
    }
}

/// How two signatures relate: shared tokens, sizes, and what the tokens of one that the other
/// lacks are.
public struct TitleComparison: Sendable {
    public var shared = 0
    public var countA = 0
    public var countB = 0
    /// A has a number B lacks (and the other way).
    public var numberOnlyInA = false
    public var numberOnlyInB = false
    /// A has a name B lacks (and the other way).
    public var nameOnlyInA = false
    public var nameOnlyInB = false
    /// A has a capitalized word of unknown kind B lacks (and the other way).
    public var unknownOnlyInA = false
    public var unknownOnlyInB = false


    /// One title asks or explains and the other does not.
    public var differentForm = false
    /// Direction and level words among the tokens each side has alone (TitleAnalyzer.directions).
    public var directionsOnlyInA: UInt8 = 0
    public var directionsOnlyInB: UInt8 = 0
    /// Shared tokens that are a number or a name (or a capitalized word) on either side.
    public var sharedAnchors = 0
    /// Shared numbers that are specific (a decimal, a score, 11 and more but not a year).
    public var sharedSpecificNumbers = 0

    public init(_ a: TitleSignature, _ b: TitleSignature) {
        countA = a.count
        countB = b.count
        differentForm = a.isQuestion != b.isQuestion
        let ta = a.tokens.span, tb = b.tokens.span
        let table = TitleAnalyzer.directionTable
        let la = a.directions != 0, lb = b.directions != 0
        var i = 0, j = 0
        while i < countA, j < countB {
            let va = ta[unchecked: i], vb = tb[unchecked: j]
            let x = va >> 2, y = vb >> 2
            if x == y {
                if va & 3 != 0 || vb & 3 != 0 { sharedAnchors += 1 }
                if va & 7 == 7 { sharedSpecificNumbers += 1 }
                shared += 1; i += 1; j += 1
            } else if x < y {
                note(va, inA: true, la, table); i += 1
            } else {
                note(vb, inA: false, lb, table); j += 1
            }
        }
        while i < countA { note(ta[unchecked: i], inA: true, la, table); i += 1 }
        while j < countB { note(tb[unchecked: j], inA: false, lb, table); j += 1 }
    }

    @inline(__always) mutating func note(_ value: UInt32, inA: Bool, _ lookup: Bool, _ table: HashTable<UInt8>) {
        let kind = value & 3
        if lookup, kind == 0 || kind == 1, let d = table.get(fmix64(UInt64(value >> 2))) {
            if inA { directionsOnlyInA |= d } else { directionsOnlyInB |= d }
        }
        switch kind {
        case 3: if inA { numberOnlyInA = true } else { numberOnlyInB = true }
        case 2: if inA { nameOnlyInA = true } else { nameOnlyInB = true }
        case 1: if inA { unknownOnlyInA = true } else { unknownOnlyInB = true }
        default: break
        }
    }

    /// Settles the words of unknown kind each side has alone with what the titles read so far
    /// say of them (WordSightings.resolve): a word seen only in lower case is common, one seen
    /// only as a name inside sentence case is a name.
    /// `a` and `b` are the signatures this comparison was made of.
    public mutating func resolve(with sightings: WordSightings, _ a: TitleSignature, _ b: TitleSignature) {
        guard unknownOnlyInA || unknownOnlyInB else { return }
        var stillA = false, stillB = false
        func settle(_ v: UInt32, _ unknown: inout Bool, _ name: inout Bool) {
            let c = sightings.seenAsCommon(v), m = sightings.seenAsName(v)
            if m && !c { name = true } else if !(c && !m) { unknown = true }
        }
        var i = 0, j = 0
        while i < countA || j < countB {
            let x = i < countA ? a.tokens[i] >> 2 : UInt32.max, y = j < countB ? b.tokens[j] >> 2 : UInt32.max
            if x == y {
                i += 1; j += 1
            } else if x < y {
                if a.tokens[i] & 3 == 1 { settle(a.tokens[i], &stillA, &nameOnlyInA) }
                i += 1
            } else {
                if b.tokens[j] & 3 == 1 { settle(b.tokens[j], &stillB, &nameOnlyInB) }
                j += 1
            }
        }
        unknownOnlyInA = stillA
        unknownOnlyInB = stillB
    }

    /// |A ∩ B| / |A ∪ B|.
    public var jaccard: Double {
        let union = countA + countB - shared
        return union == 0 ? 0 : Double(shared) / Double(union)
    }

    /// |A ∩ B| / min(|A|, |B|): 1 when one title is the other with words added.
    public var containment: Double {
        let m = min(countA, countB)
        return m == 0 ? 0 : Double(shared) / Double(m)
    }

    /// Both have a specific number and neither has a number the other lacks: "177,000 jobs ...
    /// 4.2%" and "adds 177,000 jobs ... 4.2%" are one report whatever the verbs.
    public var sameSpecificNumbers: Bool { sharedSpecificNumbers > 0 && !numberOnlyInA && !numberOnlyInB }
    /// One side goes up where the other goes down ("Dow rises" / "Dow falls", "raises rates" /
    /// "cuts rates"), or each names another level ("yellow warning" / "amber warning").
    public var oppositeDirection: Bool {
        let a = directionsOnlyInA, b = directionsOnlyInB
        if a & 1 != 0 && b & 2 != 0 || a & 2 != 0 && b & 1 != 0 { return true }
        let la = a & 60, lb = b & 60
        return la != 0 && lb != 0 && la != lb
    }

    /// One side reacts to or follows what the other reports ("Meta to appeal EU fine" / "EU
    /// fines Meta"; "Hollis survives confidence vote" / "Hollis faces confidence vote").
    public var followUp: Bool { (directionsOnlyInA & 64 != 0) != (directionsOnlyInB & 64 != 0) }

    /// Each side has a number the other lacks: "fourth quarter" against "third quarter", 4%
    /// against 3.75%.
    public var differentNumber: Bool { numberOnlyInA && numberOnlyInB }
    /// Each side has a name the other lacks: Celtics against Warriors, Leeds against York,
    /// Google against Microsoft. A name against a capitalized word of unknown kind counts; two
    /// words of unknown kind (a title In Title Case, a first word) count only when the titles
    /// differ by one or two words on a side: the shape of one template with another name in it.
    public var differentName: Bool {
        if nameOnlyInA && (nameOnlyInB || unknownOnlyInB) { return true }
        if nameOnlyInB && unknownOnlyInA { return true }
        if unknownOnlyInA && unknownOnlyInB { return countA - shared <= 2 || countB - shared <= 2 }
        return false
    }
}
