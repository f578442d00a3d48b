// Titles: what does not make a title different is taken away, what does is kept and labelled
// (Docs/stories.md#what-matches).
//
// 1. Characters: HTML entities left in feed titles, curly quotes, dashes, odd spaces, full-width
//    forms, Latin accents (é is e), case.
// 2. Words: split at spaces and punctuation, "U.S." is "us", "1,000" is 1000, "Biden's" is
//    "biden", "Q3" is q + 3, "4th" and "fourth" are 4, "%" is "percent".
// 3. Labels: `BREAKING:`, `UPDATE 2-`, `LIVE:`, `WATCH:`, `[VIDEO]`, `(Updated)` and the like in
//    front or at the end are dropped; so is an outlet name after ` - `, ` | `, ` — `, ` – `,
//    ` · ` (a short trailing segment), or after `: ` when it looks like a name (capitalized, at
//    most three words) or matches the URL's host.
// 4. Tokens: stop words dropped, the rest lightly stemmed (raise, raises, raised, raising are
//    one), each labelled number, name, unknown or common (TokenKind) from its case and place.

public struct TitleAnalysis: Sendable {
    /// The title's words after step 3, lower case, single spaces: equal for titles that differ
    /// only in case, punctuation, quotes, labels and outlet names.
    public var normalized: String
    /// The content tokens (step 4) in title order, with their kinds.
    public var tokens: [(text: String, kind: TokenKind)]
    public var signature: TitleSignature
}

public enum TitleAnalyzer {
    /// Labels dropped in front of a title (followed by `:`, `|`, `-`) or standing alone in
    /// brackets at either end.
    public static let labels: [String] = [
        "breaking", "breaking news", "breaking update", "update", "updated", "updates", "live", "live updates",
        "live update", "live blog", "live video", "watch", "watch live", "watch now", "exclusive", "video",
        "opinion", "analysis", "just in", "developing", "developing story", "correction", "corrected",
        "refile", "rpt", "wrapup", "focus", "instant view", "explainer", "factbox", "fact check", "podcast",
        "photos", "gallery", "listen", "audio", "editorial", "column", "comment", "news alert", "alert",
        "urgent", "flash", "newsflash", "sponsored", "new", "report", "recap", "highlights",
    ]

    public static let stopWords: Set<String> = [
        "a", "an", "the", "of", "to", "in", "on", "at", "for", "by", "with", "from", "as", "and", "or", "but",
        "is", "are", "was", "were", "be", "been", "being", "its", "it", "this", "that", "these", "those",
        "after", "over", "into", "amid", "about", "up", "out", "than", "then", "has", "have", "had", "will",
        "would", "can", "could", "may", "might", "should", "says", "said", "say", "his", "her", "their",
        "our", "your", "my", "not", "no", "vs", "via", "how", "what", "why", "who", "when", "where", "which",
        "while", "he", "she", "they", "we", "you", "i", "if", "so", "do", "does", "did", "just", "also",
        "more", "most", "off", "per", "new", "now", "here", "there", "all", "some", "any",
        // French, Spanish, German, Italian, Portuguese, Dutch articles and prepositions
        "le", "la", "les", "de", "des", "du", "et", "en", "un", "une", "au", "aux", "el", "los", "las",
        "y", "del", "por", "para", "con", "der", "die", "das", "und", "im", "mit", "von", "zu", "den",
        "dem", "il", "di", "e", "o", "da", "na", "no", "het", "een", "op", "van",
    ]

    @inline(__always) static func wordHash<C: Collection<UInt8>>(_ bytes: C) -> UInt64 {
        if let h = bytes.withContiguousStorageIfAvailable({ stableHash(UnsafeRawBufferPointer($0), seed: wordSeed) }) { return h }
        return stableHash(Array(bytes), seed: wordSeed)
    }
    static let wordSeed: UInt64 = 0x776F_7264_0000_0007 // "word"
    static func wordHash(_ s: String) -> UInt64 { stableHash(s, seed: wordSeed) }

    static let stopTable = HashTable(stopWords.map { (wordHash($0), true) }, filler: false)
    /// One probe per word: bit 0 a stop word, bit 1 a question word, bits 8-15 the index + 1 of
    /// its value in `numberValues`, bits 16-31 the index + 1 of its present in `irregularBases`.
    static let wordInfo: HashTable<UInt32> = {
        var info: [UInt64: UInt32] = [:]
        for w in stopWords { info[wordHash(w), default: 0] |= 1 }
        for w in ["what", "why", "how", "who", "where", "when", "which", "here"] { info[wordHash(w), default: 0] |= 2 }
        for (k, w) in numberWordList.enumerated() { info[wordHash(w.0), default: 0] |= UInt32(k + 1) << 8 }
        for (k, w) in irregularList.enumerated() { info[wordHash(w.0), default: 0] |= UInt32(k + 1) << 16 }
        return HashTable(info.map { ($0.key, $0.value) }, filler: 0)
    }()
    static let numberWordList: [(String, String)] = numberWords.sorted { $0.key < $1.key }
    static let numberValues: [[UInt8]] = numberWordList.map { Array($0.1.utf8) }
    static let irregularList: [([UInt8], [UInt8])] = irregular.sorted { $0.key.lexicographicallyPrecedes($1.key) }
    static let irregularBases: [[UInt8]] = irregularList.map { $0.1 }
    static let numberTable = HashTable(numberWords.map { (wordHash($0.key), Array($0.value.utf8)) }, filler: [])
    static let questionTable = HashTable(["what", "why", "how", "who", "where", "when", "which", "here"].map { (wordHash($0), true) }, filler: false)
    static let labelHashes: [[UInt64]] = labels.map { $0.split(separator: " ").map { wordHash(String($0)) } }

    static let numberWords: [String: String] = [
        "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
        "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12", "thirteen": "13",
        "fourteen": "14", "fifteen": "15", "sixteen": "16", "seventeen": "17", "eighteen": "18",
        "nineteen": "19", "twenty": "20", "thirty": "30", "forty": "40", "fifty": "50", "sixty": "60",
        "seventy": "70", "eighty": "80", "ninety": "90",
        "first": "1", "second": "2", "third": "3", "fourth": "4", "fifth": "5", "sixth": "6", "seventh": "7",
        "eighth": "8", "ninth": "9", "tenth": "10", "eleventh": "11", "twelfth": "12", "thirteenth": "13",
        "fourteenth": "14", "fifteenth": "15", "sixteenth": "16", "seventeenth": "17", "eighteenth": "18",
        "nineteenth": "19", "twentieth": "20", "thirtieth": "30", "fiftieth": "50", "hundredth": "100",
    ]

    /// Analyzes `title`. `host` (a canonical URL's host) lets an outlet name that matches it go
    /// whatever its form ("Example News" on examplenews.com).
    public static func analyze(_ title: String, host: String? = nil) -> TitleAnalysis {
        var (words, buffer) = tokenize(title)
        stripLabels(&words)
        stripOutletNames(&words, buffer, host: host.map { Array($0.utf8)[...] })
        return finish(words, buffer, keepText: true, endsWithQuestionMark: words.last?.questionAfter ?? false)
    }

    /// The signature alone (no strings kept): what the matcher computes per item.
    public static func signature(_ title: String, host: String? = nil) -> TitleSignature {
        signature(title, hostBytes: host.map { Array($0.utf8)[...] })
    }

    /// The signature with the URL's host as bytes (a canonical URL's prefix).
    public static func signature(_ title: String, hostBytes: ArraySlice<UInt8>?) -> TitleSignature {
        var (words, buffer) = tokenize(title)
        stripLabels(&words)
        stripOutletNames(&words, buffer, host: hostBytes)
        return finish(words, buffer, keepText: false, endsWithQuestionMark: words.last?.questionAfter ?? false).signature
    }

    // MARK: - Words

    enum Boundary: UInt8 { case space, start, colon, dash, hyphen, pipe, sentence, quote, open, close }

    struct Word {
        /// The word's bytes (lower case, accents folded, UTF-8): `start..<end` of the buffer all
        /// the words of a title share.
        var start = 0
        var end = 0
        var upper = 0                // letters written in upper case
        var lower = 0                // letters written in lower case
        var firstUpper = false
        var letters = 0
        var digits = 0
        var cjk = false
        var boundary: Boundary = .space
        /// A question mark follows the word.
        var questionAfter = false
        /// A currency sign stands before the number, or a percent sign after it.
        var amount = false
        /// stableHash of `bytes` with HashSeed.word, set when the word is complete.
        var hash: UInt64 = 0
        /// TitleAnalyzer.wordInfo of the word, set with `hash`.
        var info: UInt32 = 0
        var number: Bool { digits > 0 && letters == 0 }
        var count: Int { end - start }
    }

    /// The words so far, the one being read, and the punctuation waiting for the next.
    struct WordBuilder {
        var words: [Word] = []
        /// The words' bytes: a plain growable buffer (an append is a store), made an array at
        /// the end.
        var bytes: UnsafeMutablePointer<UInt8>
        var count = 0
        var capacity: Int
        var current = Word()
        var pending: Boundary = .start
        let info = TitleAnalyzer.wordInfo

        init(capacity: Int) {
            self.capacity = max(16, capacity + 8)
            bytes = .allocate(capacity: self.capacity)
            words.reserveCapacity(capacity / 4 + 2)
        }

        /// The bytes as an array; the buffer is freed.
        mutating func finish() -> [UInt8] {
            let out = Array(UnsafeBufferPointer(start: bytes, count: count))
            bytes.deallocate()
            return out
        }

        /// Nothing read into the current word yet.
        var empty: Bool { count == current.start }

        @inline(__always) mutating func append(_ b: UInt8) {
            if count == capacity { grow() }
            bytes[count] = b
            count += 1
            current.end = count
        }

        mutating func appendScalar(_ c: Unicode.Scalar) {
            var tmp: [UInt8] = []
            TitleAnalyzer.appendScalarBytes(c, to: &tmp)
            for u in tmp { append(u) }
        }

        mutating func grow() {
            let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 2)
            bigger.update(from: bytes, count: count)
            bytes.deallocate()
            bytes = bigger
            capacity *= 2
        }

        mutating func flush() {
            if !empty {
                if current.boundary == .space, words.isEmpty { current.boundary = .start }
                current.end = count
                current.hash = stableHash(UnsafeRawBufferPointer(start: bytes + current.start, count: current.end - current.start), seed: TitleAnalyzer.wordSeed)
                current.info = info.get(current.hash) ?? 0
                words.append(current)
            }
            current = Word()
            current.start = count
            current.end = count
        }

        mutating func boundary(_ b: Boundary) {
            flush()
            // The strongest boundary since the last word wins.
            if TitleAnalyzer.rank(b) > TitleAnalyzer.rank(pending) { pending = b }
        }

        mutating func startWordIfNeeded() {
            if empty {
                current.boundary = pending
                pending = .space
            }
        }

        mutating func appendLetter(_ c: Unicode.Scalar) {
            if current.digits > 0, current.letters == 0 { flush() }
            startWordIfNeeded()
            let v = c.value
            if v < 0x80 {
                let isUpper = v >= 0x41 && v <= 0x5A
                if current.letters == 0 { current.firstUpper = isUpper }
                if isUpper { current.upper += 1 } else { current.lower += 1 }
                current.letters += 1
                append(UInt8(v) | (isUpper ? 0x20 : 0))
                return
            }
            let props = c.properties
            let isUpper = props.isUppercase
            if current.letters == 0 { current.firstUpper = isUpper }
            if isUpper { current.upper += 1 } else if props.isLowercase { current.lower += 1 }
            current.letters += 1
            if isUpper || props.changesWhenLowercased {
                for u in props.lowercaseMapping.utf8 { append(u) }
            } else {
                appendScalar(c)
            }
        }
    }

    /// Splits a title into words, recording the punctuation in front of each.
    static func tokenize(_ title: String) -> (words: [Word], buffer: [UInt8]) {
        var text = title
        var ampersand = false
        var scalars: [Unicode.Scalar] = text.withUTF8 { b in
            var ascii = true
            for c in b where c >= 0x80 || c == UInt8(ascii: "&") {
                if c == UInt8(ascii: "&") { ampersand = true } else { ascii = false; break }
            }
            guard ascii else { return [] }
            // ASCII (most titles): no decoding, nothing to map.
            return [Unicode.Scalar](unsafeUninitializedCapacity: b.count) { out, n in
                for k in 0..<b.count { out.initializeElement(at: k, to: Unicode.Scalar(b[k])) }
                n = b.count
            }
        }
        if scalars.isEmpty, !title.isEmpty {
            scalars.reserveCapacity(title.utf8.count)
            for s in title.unicodeScalars {
                if s == "&" { ampersand = true }
                scalars.append(mapScalar(s))
            }
        }
        if ampersand { scalars = decodeEntities(scalars).map(mapScalar) }

        var w = WordBuilder(capacity: scalars.count)
        var abbreviation = false
        var currencyNext = false
        var i = 0
        let n = scalars.count
        while i < n {
            let c = scalars[i]
            let v = c.value
            let prev: Unicode.Scalar? = i > 0 ? scalars[i - 1] : nil
            let next: Unicode.Scalar? = i + 1 < n ? scalars[i + 1] : nil

            if let fold = foldLatin(v) {
                if w.current.cjk { w.flush() }
                for f in fold.unicodeScalars { w.appendLetter(f) }
                i += 1
                continue
            }
            if isASCIILetter(v) || (v >= 0x80 && isLetter(c)) {
                if isCJK(v) {
                    if !w.current.cjk { w.flush() }
                    w.startWordIfNeeded()
                    w.current.cjk = true
                    w.appendScalar(c)
                    w.current.letters += 1
                    i += 1
                    continue
                }
                if w.current.cjk { w.flush() }
                if v < 0x80, w.current.letters > 0 {
                    // The common case: another ASCII letter of a word.
                    let isUpper = v <= 0x5A
                    if isUpper { w.current.upper += 1 } else { w.current.lower += 1 }
                    w.current.letters += 1
                    w.append(UInt8(v) | 0x20)
                    i += 1
                    continue
                }
                if w.current.digits > 0, w.current.letters == 0 {
                    // 4th, 21st, 1990s: the suffix is not a word of its own.
                    var j = i
                    var suffix: [UInt8] = []
                    while j < n, isASCIILetter(scalars[j].value), suffix.count < 3 {
                        suffix.append(UInt8(scalars[j].value) | 0x20)
                        j += 1
                    }
                    let after: Unicode.Scalar? = j < n ? scalars[j] : nil
                    if after.map({ !isLetter($0) && !isDigit($0.value) }) ?? true,
                       suffix == [0x73, 0x74] || suffix == [0x6E, 0x64] || suffix == [0x72, 0x64] || suffix == [0x74, 0x68] || suffix == [0x73] {
                        i = j
                        continue
                    }
                    w.flush()
                }
                w.appendLetter(c)
                i += 1
                continue
            }
            if isDigit(v) {
                if w.current.letters > 0 { w.flush() }
                w.startWordIfNeeded()
                if currencyNext { w.current.amount = true; currencyNext = false }
                w.append(UInt8(v))
                w.current.digits += 1
                i += 1
                continue
            }
            if v >= 0x80, c.properties.generalCategory == .nonspacingMark || c.properties.generalCategory == .enclosingMark || v == 0x200B || v == 0x200C || v == 0x200D || v == 0xFEFF || v == 0xAD {
                i += 1
                continue
            }
            switch c {
            case "'":
                // Biden's -> biden; don't -> dont; 'quoted' -> a quote.
                if w.current.letters > 0, let nx = next, isLetter(nx) {
                    let nx2: Unicode.Scalar? = i + 2 < n ? scalars[i + 2] : nil
                    if nx == "s" || nx == "S", nx2.map({ !isLetter($0) }) ?? true {
                        i += 2
                        continue
                    }
                    i += 1
                    continue
                }
                if w.empty { w.boundary(.quote) } else { w.flush() }
            case "\"":
                // An opening quote starts a phrase; a closing one only ends a word.
                if prev.map({ isSpace($0) || $0 == "(" || $0 == "[" || $0 == ":" }) ?? true { w.boundary(.quote) } else { w.flush() }
            case ".":
                if w.current.digits > 0, w.current.letters == 0, let nx = next, isDigit(nx.value),
                   !UnsafeBufferPointer(start: w.bytes + w.current.start, count: w.count - w.current.start).reversed()
                    .prefix(while: { $0 != UInt8(ascii: "-") }).contains(UInt8(ascii: ".")) {
                    w.append(UInt8(ascii: "."))
                } else if w.current.letters == 1 || abbreviation, w.current.digits == 0, let nx = next, isASCIILetter(nx.value),
                          i + 2 >= n || !isLetter(scalars[i + 2]) {
                    // U.S., U.K., e.g.: the letters are one word.
                    abbreviation = true
                } else if abbreviation {
                    abbreviation = false
                    w.flush()
                } else if w.current.letters > 0, let nx = next, isLetter(nx) {
                    // example.com, Amazon.com: a break, not a sentence end.
                    w.boundary(.hyphen)
                } else {
                    w.boundary(.sentence)
                }
            case ",":
                if w.current.digits > 0, w.current.letters == 0, i + 3 < n,
                   isDigit(scalars[i + 1].value), isDigit(scalars[i + 2].value), isDigit(scalars[i + 3].value),
                   i + 4 >= n || !isDigit(scalars[i + 4].value) {
                    // 1,000: a thousands separator.
                    i += 1
                    continue
                }
                w.boundary(.space)
            case ":":
                if w.current.digits > 0, let nx = next, isDigit(nx.value) {
                    // 10:30 is one number.
                    w.append(UInt8(ascii: ":"))
                } else {
                    w.boundary(.colon)
                }
            case "-", "/":
                if w.current.digits > 0, w.current.letters == 0, let nx = next, isDigit(nx.value), !(prev.map(isSpace) ?? true) {
                    // 110-102, 2-1, 24/7: a score or a fraction is one number.
                    w.append(UInt8(ascii: "-"))
                    break
                }
                if c == "/" {
                    w.boundary(.hyphen)
                    break
                }
                let spaced = (prev.map(isSpace) ?? true) || (next.map(isSpace) ?? true)
                w.boundary(spaced ? .dash : .hyphen)
            case "|", "\u{00A6}", "\u{00B7}", "\u{2022}", "\u{25CF}", "\u{25C6}", "\u{25AA}":
                w.boundary(.pipe)
            case "\u{00BB}", "\u{203A}", "\u{00AB}", "\u{2039}":
                let spaced = (prev.map(isSpace) ?? true) && (next.map(isSpace) ?? true)
                w.boundary(spaced ? .pipe : .quote)
            case "?", "!", ";":
                if c == "?", let last = w.empty ? w.words.indices.last : nil { w.words[last].questionAfter = true } else if c == "?" { w.current.questionAfter = true }
                w.boundary(.sentence)
            case "(", "[", "{":
                w.boundary(.open)
            case ")", "]", "}":
                w.boundary(.close)
            case "%":
                if w.current.digits > 0, w.current.letters == 0 { w.current.amount = true } else if let last = w.words.indices.last, w.empty, w.words[last].number { w.words[last].amount = true }
                w.flush()
                w.startWordIfNeeded()
                for u in "percent".utf8 { w.append(u) }
                w.current.letters = 7
                w.current.lower = 7
                w.flush()
            default:
                if isSpace(c) {
                    w.flush()
                    abbreviation = false
                } else {
                    w.boundary(.space)
                    if c == "$" || c == "\u{20AC}" || c == "\u{00A3}" || c == "\u{00A5}", let nx = next, isDigit(nx.value) { currencyNext = true }
                }
            }
            i += 1
        }
        w.flush()
        let buffer = w.finish()
        return (w.words, buffer)
    }

    @inline(__always) static func rank(_ b: Boundary) -> Int {
        switch b {
        case .space: return 0
        case .hyphen: return 1
        case .close: return 2
        case .quote: return 3
        case .sentence: return 4
        case .open: return 5
        case .colon, .dash, .pipe: return 6
        case .start: return 7
        }
    }

    @inline(__always) static func appendScalarBytes(_ c: Unicode.Scalar, to bytes: inout [UInt8]) {
        let v = c.value
        if v < 0x80 { bytes.append(UInt8(v)) } else if v < 0x800 {
            bytes.append(UInt8(0xC0 | (v >> 6))); bytes.append(UInt8(0x80 | (v & 0x3F)))
        } else if v < 0x10000 {
            bytes.append(UInt8(0xE0 | (v >> 12))); bytes.append(UInt8(0x80 | ((v >> 6) & 0x3F))); bytes.append(UInt8(0x80 | (v & 0x3F)))
        } else {
            bytes.append(UInt8(0xF0 | (v >> 18))); bytes.append(UInt8(0x80 | ((v >> 12) & 0x3F)))
            bytes.append(UInt8(0x80 | ((v >> 6) & 0x3F))); bytes.append(UInt8(0x80 | (v & 0x3F)))
        }
    }

    // MARK: - Labels and outlet names

    /// The length of the label that `words` start with at `from`, if any (`update 2` counts).
    static func labelLength(_ words: [Word], from: Int) -> Int? {
        var best: Int?
        let first = words[from].hash
        for label in labelHashes where label[0] == first && from + label.count <= words.count {
            var ok = true
            for k in 1..<label.count where words[from + k].hash != label[k] || words[from + k].boundary != .space {
                ok = false
                break
            }
            if ok, label.count > (best ?? 0) { best = label.count }
        }
        guard var length = best else { return nil }
        // "UPDATE 2-", "WRAPUP 1-": the wire's revision number belongs to the label.
        if from + length < words.count, words[from + length].number, words[from + length].boundary == .space,
           from + length + 1 < words.count, [.hyphen, .dash, .colon, .pipe].contains(words[from + length + 1].boundary) {
            length += 1
        }
        return length
    }

    static func stripLabels(_ words: inout [Word]) {
        // In front: "BREAKING: ...", "Live | ...", "UPDATE 2-...", "[VIDEO] ...".
        var changed = true
        while changed, words.count > 1 {
            changed = false
            if let n = labelLength(words, from: 0), n < words.count {
                let after = words[n].boundary
                let allCaps = words[0..<n].allSatisfy { $0.lower == 0 }
                if after == .colon || after == .pipe || after == .dash || (after == .hyphen && allCaps) || after == .close {
                    words.removeFirst(n)
                    words[0].boundary = .start
                    changed = true
                }
            }
        }
        // At the end: "... (video)", "... [Updated]", "... - live updates", "... | Opinion".
        changed = true
        while changed, words.count > 1 {
            changed = false
            for start in stride(from: words.count - 1, to: max(0, words.count - 4), by: -1) {
                let b = words[start].boundary
                guard b == .open || b == .pipe || b == .dash || b == .colon else { continue }
                if let n = labelLength(words, from: start), start + n == words.count, start >= 2 {
                    words.removeLast(n)
                    changed = true
                }
                break
            }
        }
    }

    /// Drops a trailing outlet name: ` - Example News`, ` | The Daily Ledger`, `: Reuters`.
    static func stripOutletNames(_ words: inout [Word], _ buffer: [UInt8], host: ArraySlice<UInt8>?) {
        var hostLabels: [ArraySlice<UInt8>]?
        for _ in 0..<2 {
            guard let start = words.lastIndex(where: { $0.boundary == .dash || $0.boundary == .pipe || $0.boundary == .colon || $0.boundary == .open }),
                  start > 0 else { return }
            let segment = words[start...]
            let head = start
            let kind = words[start].boundary
            if hostLabels == nil {
                hostLabels = host.map { h in
                    h.split(separator: UInt8(ascii: ".")).filter { $0.count >= 3 && !genericLabels.contains(wordHash($0)) }
                } ?? []
            }
            let matchesHost = !hostLabels!.isEmpty && segmentMatchesHost(segment, buffer, hostLabels!)
            var strip = false
            if matchesHost, segment.count <= 6, head >= 2 {
                strip = true
            } else if segment.contains(where: { $0.digits > 0 }) {
                strip = false
            } else if kind == .dash || kind == .pipe {
                strip = segment.count <= 5 && head >= 3 && head >= segment.count
            } else if kind == .colon {
                // "...: Reuters", "...: The Daily Ledger": capitalized, short, after a long head.
                strip = segment.count <= 3 && head >= 4 && segment.allSatisfy { $0.firstUpper || $0.cjk || stopTable.contains($0.hash) }
                    && segment.contains(where: { $0.firstUpper })
            } else if kind == .open {
                // "... (Reuters)", "... (AP)": a bracketed name at the very end.
                strip = segment.count <= 3 && head >= 3 && segment.allSatisfy { $0.firstUpper }
            }
            guard strip else { return }
            words.removeLast(segment.count)
        }
    }

    /// Host labels that say nothing of the outlet.
    static let genericLabels = HashTable(["com", "org", "net", "gov", "edu", "info", "news"].map { (wordHash($0), true) }, filler: false)
    static let theHash = wordHash("the")

    static func segmentMatchesHost(_ segment: ArraySlice<Word>, _ buffer: [UInt8], _ hostLabels: [ArraySlice<UInt8>]) -> Bool {
        var joined: [UInt8] = []
        for w in segment where !w.cjk { joined.append(contentsOf: buffer[w.start..<w.end]) }
        guard joined.count >= 3 else { return false }
        var withoutThe = joined
        if segment.first?.hash == theHash { withoutThe.removeFirst(3) }
        for label in hostLabels {
            if label.elementsEqual(joined) || label.elementsEqual(withoutThe) { return true }
            // "bbc" in "BBC News", "theguardian" for "The Guardian", "nytimes" for "New York Times"?
            // (not the last: the label must be a prefix or the whole of the name).
            if withoutThe.count >= 3, label.starts(with: withoutThe) || joined.starts(with: label) && label.count >= 3 { return true }
        }
        return false
    }

    // MARK: - Tokens

    static func finish(_ words: [Word], _ buffer: [UInt8], keepText: Bool, endsWithQuestionMark: Bool = false) -> TitleAnalysis {
        // Case style: a title with a lower-case content word outside the first position is in
        // sentence case, and there a capitalized word is a name; otherwise case says nothing.
        let numberValues = TitleAnalyzer.numberValues, irregularBases = TitleAnalyzer.irregularBases
        let directionTable = TitleAnalyzer.directionTable
        let tokenSeed = HashSeed.token
        var sentenceCase = false
        var allCaps = true
        var cased = 0
        for (k, w) in words.enumerated() where w.letters > 0 && !w.cjk {
            cased += 1
            if w.lower > 0 { allCaps = false }
            if k > 0, isInitial(w.boundary) == false, w.upper == 0, w.lower > 0, w.info & 0xFF01 == 0 {
                sentenceCase = true
            }
        }
        if cased < 2 { allCaps = false }

        var normalized: [String] = []
        var texts: [(String, TokenKind)] = []
        var signature = TitleSignature()
        buffer.withUnsafeBufferPointer { buf in
            for w in words {
                var kind: TokenKind
                if w.number {
                    kind = .number
                } else if w.info & 0xFF00 != 0 {
                    kind = .number
                } else if w.cjk {
                    kind = .common
                } else if allCaps {
                    kind = .unknown
                } else if w.letters > 1, w.upper > 0, w.lower > 0, !(w.firstUpper && w.upper == 1) {
                    kind = .name // iPhone, McDonald, eBay
                } else if w.letters > 1, w.lower == 0, w.upper > 1 {
                    kind = .name // NASA, FBI, UK
                } else if w.upper > 0 {
                    kind = isInitial(w.boundary) || !sentenceCase ? .unknown : .name
                } else {
                    kind = .common
                }
                if kind != .number {
                    // An acronym in capitals (WHO, IT, US) is not the stop word it spells.
                    let acronym = !allCaps && w.upper > 1 && w.lower == 0
                    if !acronym, w.info & 1 != 0 {
                        if keepText { normalized.append(String(decoding: buf[w.start..<w.end], as: UTF8.self)) }
                        continue
                    }
                    if w.letters < 2, !w.cjk {
                        if keepText { normalized.append(String(decoding: buf[w.start..<w.end], as: UTF8.self)) }
                        continue
                    }
                }
                if w.cjk {
                    if keepText { normalized.append(String(decoding: buf[w.start..<w.end], as: UTF8.self)) }
                    // Chinese, Japanese, Korean have no spaces: overlapping pairs of characters.
                    let text = String(decoding: buf[w.start..<w.end], as: UTF8.self)
                    let chars = Array(text.unicodeScalars)
                    if chars.count == 1 {
                        signature.add(tokenValue(Array(text.utf8), kind))
                        if keepText { texts.append((text, kind)) }
                    }
                    for k in 0..<max(0, chars.count - 1) {
                        var pair: [UInt8] = []
                        appendScalarBytes(chars[k], to: &pair)
                        appendScalarBytes(chars[k + 1], to: &pair)
                        signature.add(tokenValue(pair, kind))
                        if keepText { texts.append((String(decoding: pair, as: UTF8.self), kind)) }
                    }
                    continue
                }
                // The token's bytes in a stack buffer: normalized number, number word's value,
                // or the word (its present for an irregular past), stemmed.
                let len = w.end - w.start
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: len + 24) { tmp in
                    let p = tmp.baseAddress!
                    var n: Int
                    if w.number {
                        n = normalizeNumber(UnsafeBufferPointer(rebasing: buf[w.start..<w.end]), into: p)
                    } else if w.info & 0xFF00 != 0 {
                        let v = numberValues[Int((w.info >> 8) & 0xFF) - 1]
                        for (k, c) in v.enumerated() { p[k] = c }
                        n = v.count
                    } else {
                        if keepText { normalized.append(String(decoding: buf[w.start..<w.end], as: UTF8.self)) }
                        if w.info >> 16 != 0 {
                            let base = irregularBases[Int(w.info >> 16) - 1]
                            for (k, c) in base.enumerated() { p[k] = c }
                            n = base.count
                        } else {
                            p.update(from: buf.baseAddress! + w.start, count: len)
                            n = len
                        }
                        n = stem(p, n)
                    }
                    if kind == .number, keepText { normalized.append(String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)) }
                    var value = UInt32(truncatingIfNeeded: stableHash(UnsafeRawBufferPointer(start: p, count: n), seed: tokenSeed)) & ~3 | UInt32(kind.rawValue)
                    if kind != .number, let d = directionTable.get(fmix64(UInt64(value >> 2))) { signature.directions |= d }
                    if kind == .number {
                        // Bit 2 of a number says it is specific (isSpecificNumber). Equal
                        // specific numbers are evidence of one report.
                        value = value & ~4 | (isSpecificNumber(UnsafeBufferPointer(start: p, count: n), amount: w.amount) ? 4 : 0)
                    }
                    signature.add(value)
                    if keepText { texts.append((String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self), kind)) }
                }
            }
        }
        signature.sortTokens()
        if let first = words.first, first.info & 2 != 0 && (first.lower > 0 || allCaps) || endsWithQuestionMark { signature.flags |= 1 }
        return TitleAnalysis(normalized: keepText ? normalized.joined(separator: " ") : "", tokens: texts, signature: signature)
    }

    @inline(__always) static func isInitial(_ b: Boundary) -> Bool {
        b != .space && b != .hyphen && b != .close
    }

    @inline(__always) static func tokenValue(_ bytes: [UInt8], _ kind: TokenKind) -> UInt32 {
        let h = UInt32(truncatingIfNeeded: stableHash(bytes, seed: HashSeed.token))
        return h & ~3 | UInt32(kind.rawValue)
    }

    /// A number that states a fact of the report rather than part of a name (Boeing 737, iPhone
    /// 17) or a common count: a decimal (4.2, 7.1), a score (105-96), a time (10:30), an amount
    /// or a share ($17, 4%), or 1,000 and more that is not a year (177,000).
    static func isSpecificNumber(_ b: [UInt8], amount: Bool) -> Bool {
        b.withUnsafeBufferPointer { isSpecificNumber($0, amount: amount) }
    }

    static func isSpecificNumber(_ b: UnsafeBufferPointer<UInt8>, amount: Bool) -> Bool {
        if amount { return true }
        var v = 0
        for c in b {
            guard c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") else { return true } // . - :
            if v < 1_000_000_000 { v = v * 10 + Int(c - UInt8(ascii: "0")) }
        }
        return v >= 1000 && !(1900...2100).contains(v)
    }

    /// 007 -> 7, 6.20 -> 6.2, 3.0 -> 3; each part of a score (2-1) or a fraction alike.
    /// normalizeNumber into `out` (room for `b.count` bytes); the length written.
    static func normalizeNumber(_ b: UnsafeBufferPointer<UInt8>, into out: UnsafeMutablePointer<UInt8>) -> Int {
        let v = normalizeNumber(Array(b))
        for (k, c) in v.enumerated() { out[k] = c }
        return v.count
    }

    static func normalizeNumber(_ b: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        for (k, part) in b.split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false).enumerated() {
            if k > 0 { out.append(UInt8(ascii: "-")) }
            var s = Array(part)
            if s.contains(UInt8(ascii: ".")) {
                while s.last == UInt8(ascii: "0") { s.removeLast() }
                if s.last == UInt8(ascii: ".") { s.removeLast() }
            }
            var lead = 0
            while lead + 1 < s.count, s[lead] == UInt8(ascii: "0"), s[lead + 1] != UInt8(ascii: "."), s[lead + 1] != UInt8(ascii: ":") { lead += 1 }
            out.append(contentsOf: s[lead...])
        }
        return out
    }

    /// Words of direction (up: 1, down: 2), of level (4, 8, 16, 32) and of follow-up (64): a
    /// title that goes up where the other goes down, names another level, or reacts to what the
    /// other reports, is another story. English headline
    /// verbs and warning colours; keyed by the stemmed token's hash. Sports verbs (beat, top,
    /// down, lose) are left out: "Knicks down Celtics" is "Knicks beat Celtics".
    static let directionTable = HashTable(directions.map { (fmix64(UInt64($0.key)), $0.value) }, filler: 0)
    static let directions: [UInt32: UInt8] = {
        let up = ["rise", "rises", "rising", "rose", "gain", "gains", "climb", "climbs", "jump", "jumps", "surge", "surges",
                  "soar", "soars", "rally", "rallies", "rebound", "rebounds", "higher", "raise", "raises", "hike", "hikes",
                  "increase", "increases", "boost", "boosts", "lift", "lifts", "grow", "grows", "expand", "expands", "accelerate", "accelerates"]
        let down = ["fall", "falls", "fell", "drop", "drops", "slip", "slips", "slide", "slides", "sink", "sinks", "tumble",
                    "tumbles", "plunge", "plunges", "dip", "dips", "lower", "decline", "declines", "slump", "slumps", "shed",
                    "sheds", "cut", "cuts", "reduce", "reduces", "decrease", "decreases", "trim", "trims", "slash", "slashes", "shrink", "shrinks", "contract", "contracts",
                    "slow", "slows", "ease", "eases"]
        let levels: [(String, UInt8)] = [("yellow", 4), ("amber", 8), ("orange", 16), ("red", 32)]
        // Follow-up markers (64): the reaction to or the aftermath of a story, not its report.
        let followUp = ["appeal", "appeals", "respond", "responds", "response", "react", "reacts", "reaction", "reject",
                        "rejects", "deny", "denies", "challenge", "challenges", "sue", "sues", "condemn", "condemns",
                        "welcome", "welcomes", "vow", "vows", "defend", "defends", "criticise", "criticises", "criticize",
                        "criticizes", "slam", "slams", "apologise", "apologises", "apologize", "apologizes", "survive",
                        "survives", "restore", "restores", "restored", "resume", "resumes", "reopen", "reopens", "again",
                        "aftermath", "aftershock", "aftershocks", "fixed", "complete", "completes", "probe", "investigate",
                        "investigates", "investigation", "inquiry", "review", "reviews", "audit", "audits", "tribute", "tributes", "mourn", "mourns", "reacts"]
        var out: [UInt32: UInt8] = [:]
        func add(_ w: String, _ d: UInt8) {
            var bytes = Array(w.utf8)
            if let base = irregular[bytes] { bytes = base }
            bytes = stem(bytes)
            let h = tokenValue(bytes, .common) >> 2
            out[h, default: 0] |= d
        }
        for w in up { add(w, 1) }
        for w in down { add(w, 2) }
        for (w, d) in levels { add(w, d) }
        for w in followUp { add(w, 64) }
        // A stem both up and down says nothing.
        return out.filter { $0.value & 3 != 3 }
    }()

    /// Past forms of common headline verbs, to their present (English morphology, not names).
    static let irregular: [[UInt8]: [UInt8]] = {
        let pairs = ["grew": "grow", "rose": "rise", "risen": "rise", "fell": "fall", "fallen": "fall", "won": "win", "lost": "lose",
                     "took": "take", "taken": "take", "gave": "give", "given": "give", "made": "make", "sold": "sell",
                     "bought": "buy", "left": "leave", "held": "hold", "met": "meet", "paid": "pay", "struck": "strike",
                     "sank": "sink", "sunk": "sink", "shot": "shoot", "led": "lead", "saw": "see", "seen": "see",
                     "began": "begin", "begun": "begin", "fought": "fight", "froze": "freeze", "drew": "draw",
                     "spent": "spend", "sent": "send", "built": "build", "spoke": "speak", "broke": "break", "broken": "break",
                     "chose": "choose", "drove": "drive", "flew": "fly", "threw": "throw", "wrote": "write", "fled": "flee",
                     "sought": "seek", "slid": "slide", "stole": "steal", "swept": "sweep", "sped": "speed", "hung": "hang",
                     "told": "tell", "found": "find", "kept": "keep", "brought": "bring", "thought": "think", "came": "come",
                     "went": "go", "gone": "go", "ran": "run", "hit": "hit", "cut": "cut", "set": "set", "quit": "quit"]
        var out: [[UInt8]: [UInt8]] = [:]
        for (k, v) in pairs { out[Array(k.utf8)] = Array(v.utf8) }
        return out
    }()
    static let irregularTable = HashTable(irregular.map { (wordHash($0.key), $0.value) }, filler: [])

    /// A light English stemmer: plurals, -ed, -ing, a final e (raise, raises, raised, raising ->
    /// rais; cutting -> cut). Only ASCII words of four letters or more change.
    static func stem(_ s: inout [UInt8]) {
        guard s.count >= 4 else { return }
        for c in s where c < UInt8(ascii: "a") || c > UInt8(ascii: "z") { return }
        @inline(__always) func ends(_ s: [UInt8], _ a: UInt8, _ b: UInt8? = nil, _ c: UInt8? = nil) -> Bool {
            let n = s.count
            if let c {
                return n > 3 && s[n - 3] == a && s[n - 2] == b! && s[n - 1] == c
            } else if let b {
                return n > 2 && s[n - 2] == a && s[n - 1] == b
            }
            return n > 1 && s[n - 1] == a
        }
        let (a_, d_, e_, g_, i_, n_, s_, u_, y_) = (UInt8(ascii: "a"), UInt8(ascii: "d"), UInt8(ascii: "e"), UInt8(ascii: "g"), UInt8(ascii: "i"),
                                                    UInt8(ascii: "n"), UInt8(ascii: "s"), UInt8(ascii: "u"), UInt8(ascii: "y"))
        _ = a_
        if ends(s, i_, e_, s_), s.count > 4 {
            s.removeLast(3); s.append(y_)
        } else if s.count > 4 && s[s.count - 4] == s_ && ends(s, s_, e_, s_) {
            s.removeLast(2)
        } else if ends(s, s_, s_) || ends(s, u_, s_) || ends(s, i_, s_) {
        } else if ends(s, s_) {
            s.removeLast()
        }
        var suffixRemoved = false
        if ends(s, i_, n_, g_), s.count >= 6 {
            s.removeLast(3); suffixRemoved = true
        } else if ends(s, e_, d_), s.count >= 5 {
            s.removeLast(2); suffixRemoved = true
        }
        if suffixRemoved, s.count >= 3, s[s.count - 1] == s[s.count - 2], s[s.count - 1] != UInt8(ascii: "l"),
           s[s.count - 1] != s_, s[s.count - 1] != UInt8(ascii: "z"), !isVowel(s[s.count - 1]) {
            s.removeLast()
        }
        if s.last == e_, s.count >= 4 { s.removeLast() }
    }

    static func stem(_ w: [UInt8]) -> [UInt8] {
        var s = w
        stem(&s)
        return s
    }

    /// `stem` on `n` bytes at `p` (room for one more); the new length.
    static func stem(_ p: UnsafeMutablePointer<UInt8>, _ n0: Int) -> Int {
        var n = n0
        guard n >= 4 else { return n }
        for k in 0..<n where p[k] < UInt8(ascii: "a") || p[k] > UInt8(ascii: "z") { return n }
        @inline(__always) func ends(_ a: UInt8, _ b: UInt8) -> Bool { n > 2 && p[n - 2] == a && p[n - 1] == b }
        @inline(__always) func ends(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> Bool { n > 3 && p[n - 3] == a && p[n - 2] == b && p[n - 1] == c }
        let (d_, e_, g_, i_, n_, s_, u_, y_) = (UInt8(ascii: "d"), UInt8(ascii: "e"), UInt8(ascii: "g"), UInt8(ascii: "i"),
                                                UInt8(ascii: "n"), UInt8(ascii: "s"), UInt8(ascii: "u"), UInt8(ascii: "y"))
        if ends(i_, e_, s_), n > 4 {
            n -= 3; p[n] = y_; n += 1
        } else if n > 4 && p[n - 4] == s_ && ends(s_, e_, s_) {
            n -= 2
        } else if ends(s_, s_) || ends(u_, s_) || ends(i_, s_) {
        } else if n > 1, p[n - 1] == s_ {
            n -= 1
        }
        var suffixRemoved = false
        if ends(i_, n_, g_), n >= 6 {
            n -= 3; suffixRemoved = true
        } else if ends(e_, d_), n >= 5 {
            n -= 2; suffixRemoved = true
        }
        if suffixRemoved, n >= 3, p[n - 1] == p[n - 2], p[n - 1] != UInt8(ascii: "l"), p[n - 1] != s_, p[n - 1] != UInt8(ascii: "z"), !isVowel(p[n - 1]) {
            n -= 1
        }
        if n >= 4, p[n - 1] == e_ { n -= 1 }
        return n
    }

    @inline(__always) static func isVowel(_ c: UInt8) -> Bool { "aeiou".utf8.contains(c) }

    // MARK: - Characters

    @inline(__always) static func isASCIILetter(_ v: UInt32) -> Bool { (v | 0x20) >= 0x61 && (v | 0x20) <= 0x7A }
    @inline(__always) static func isDigit(_ v: UInt32) -> Bool { v >= 0x30 && v <= 0x39 }
    @inline(__always) static func isLetter(_ c: Unicode.Scalar) -> Bool {
        c.value < 0x80 ? isASCIILetter(c.value) : c.properties.isAlphabetic
    }
    @inline(__always) static func isSpace(_ c: Unicode.Scalar) -> Bool {
        c == " " || c == "\t" || c == "\n" || c == "\r" || (c.value >= 0x80 && c.properties.isWhitespace)
    }
    @inline(__always) static func isCJK(_ v: UInt32) -> Bool {
        v >= 0x3040 && isCJKSlow(v)
    }

    static func isCJKSlow(_ v: UInt32) -> Bool {
        (0x3040...0x30FF).contains(v) || (0x3400...0x4DBF).contains(v) || (0x4E00...0x9FFF).contains(v)
            || (0xAC00...0xD7AF).contains(v) || (0xF900...0xFAFF).contains(v) || (0x20000...0x2FFFF).contains(v)
    }

    /// Quotes, dashes, spaces and full-width forms to their plain ASCII selves.
    @inline(__always) static func mapScalar(_ c: Unicode.Scalar) -> Unicode.Scalar {
        let v = c.value
        if v < 0x80 { return c }
        switch v {
        case 0x2018, 0x2019, 0x201A, 0x201B, 0x2032, 0x02BC, 0x02B9, 0x0060, 0x00B4: return "'"
        case 0x201C, 0x201D, 0x201E, 0x201F, 0x2033, 0x300C, 0x300D, 0x300E, 0x300F: return "\""
        case 0x2010, 0x2011, 0x2012, 0x2013, 0x2014, 0x2015, 0x2212, 0xFE58, 0xFE63, 0xFF0D: return "-"
        case 0x00A0, 0x2000...0x200A, 0x202F, 0x205F, 0x3000: return " "
        case 0x2026: return "."
        case 0xFF01...0xFF5E: return Unicode.Scalar(v - 0xFEE0)!
        case 0x3001, 0x3002, 0xFF61: return "."
        default: return c
        }
    }

    static let latinFold: [String] = {
        // U+00C0 ... U+017F; "" where the character is not a letter to fold.
        let l1 = ["A", "A", "A", "A", "A", "A", "AE", "C", "E", "E", "E", "E", "I", "I", "I", "I",
                  "D", "N", "O", "O", "O", "O", "O", "", "O", "U", "U", "U", "U", "Y", "", "ss",
                  "a", "a", "a", "a", "a", "a", "ae", "c", "e", "e", "e", "e", "i", "i", "i", "i",
                  "d", "n", "o", "o", "o", "o", "o", "", "o", "u", "u", "u", "u", "y", "", "y"]
        let ext = "AaAaAaCcCcCcCcDdDdEeEeEeEeEeGgGgGgGgHhHhIiIiIiIiIi**JjKkkLlLlLlLlLlNnNnNnnNnOoOoOo**RrRrRrSsSsSsSsTtTtTtUuUuUuUuUuUuWwYyYZzZzZzs"
        var out = l1
        let chars = Array(ext)
        var k = 0
        var code = 0x100
        while k < chars.count {
            if chars[k] == "*" {
                out.append(code == 0x132 ? "IJ" : "OE")
                out.append(code == 0x132 ? "ij" : "oe")
                k += 2
                code += 2
            } else {
                out.append(String(chars[k]))
                k += 1
                code += 1
            }
        }
        return out
    }()

    @inline(__always) static func foldLatin(_ v: UInt32) -> String? {
        guard v >= 0xC0, v <= 0x17F else { return nil }
        let f = latinFold[Int(v - 0xC0)]
        return f.isEmpty ? nil : f
    }

    static let entities: [String: Unicode.Scalar] = [
        "amp": "&", "quot": "\"", "apos": "'", "lt": "<", "gt": ">", "nbsp": " ", "ndash": "-", "mdash": "-",
        "lsquo": "'", "rsquo": "'", "ldquo": "\"", "rdquo": "\"", "hellip": ".", "laquo": "\"", "raquo": "\"",
    ]

    /// `&amp;`, `&#39;`, `&#x2019;`, `&rsquo;`: entities that feeds leave escaped twice.
    static func decodeEntities(_ s: [Unicode.Scalar]) -> [Unicode.Scalar] {
        var out: [Unicode.Scalar] = []
        out.reserveCapacity(s.count)
        var i = 0
        while i < s.count {
            if s[i] == "&", let semi = s[(i + 1)..<min(s.count, i + 10)].firstIndex(of: ";") {
                let name = String(String.UnicodeScalarView(s[(i + 1)..<semi]))
                var decoded: Unicode.Scalar?
                if name.hasPrefix("#x") || name.hasPrefix("#X") {
                    decoded = UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init)
                } else if name.hasPrefix("#") {
                    decoded = UInt32(name.dropFirst(1)).flatMap(Unicode.Scalar.init)
                } else {
                    decoded = entities[name.lowercased()]
                }
                if let d = decoded {
                    out.append(d)
                    i = semi + 1
                    continue
                }
            }
            out.append(s[i])
            i += 1
        }
        return out
    }
}
