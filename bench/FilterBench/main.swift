// tributary-filter-bench: 10,000 item titles x 10 rules through three regular-expression
// engines, the measurement behind the choice of PCRE2 for `regex` filter rules (Docs/
// PERFORMANCE.md, "Filters"). Each round evaluates every rule on every title (no short cut);
// prints the median and best of the rounds, in ms, and checks the engines agree on the count.
import Foundation
import TributaryCore
#if canImport(Glibc)
import Glibc
#endif

let rounds = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 7
let count = 10_000

// Titles shaped like the bench corpus: words, numbers, some Cyrillic and CJK, some hashtags.
struct LCG { var seed: UInt64 = 42; mutating func next() -> UInt64 { seed = seed &* 6364136223846793005 &+ 1442695040888963407; return seed >> 33 } }
var lcg = LCG()
let words = ["Swift", "concurrency", "Breaking:", "Apple", "Google", "review", "live", "stream", "v2.3", "2026", "новости", "обзор", "東京", "#swiftlang", "deep", "dive", "into", "actors", "Microsoft", "release", "notes", "the", "a", "of", "and"]
var titles: [String] = []
for _ in 0..<count {
    var t: [String] = []
    for _ in 0..<(6 + Int(lcg.next() % 8)) { t.append(words[Int(lcg.next() % UInt64(words.count))]) }
    titles.append(t.joined(separator: " "))
}

// The same ten rules in each engine's syntax (POSIX ERE has no \d, \b or (?i): the classes and
// flags it has instead).
let pcre = ["(?i)swift", "\\bconcurrency\\b", "^Breaking:", "(?i)(apple|google|microsoft)", "\\d{4}", "[а-яА-Я]+", "(?i)review$", "v\\d+\\.\\d+", "#\\w+", "(?i)live stream"]
// glibc's regcomp rejects a range of Cyrillic letters (REG_ECOLLATE) even in C.utf8: the same
// letters, listed.
let cyrillic = "[" + String(String.UnicodeScalarView((0x410...0x44F).compactMap(Unicode.Scalar.init))) + "]+"
let posix: [(String, Int32)] = [("swift", REG_ICASE), ("(^|[^[:alnum:]_])concurrency([^[:alnum:]_]|$)", 0), ("^Breaking:", 0), ("(apple|google|microsoft)", REG_ICASE),
                                ("[0-9]{4}", 0), (cyrillic, 0), ("review$", REG_ICASE), ("v[0-9]+\\.[0-9]+", 0), ("#[[:alnum:]_]+", 0), ("live stream", REG_ICASE)]

func time(_ body: () -> Int) -> (ms: Double, hits: Int) {
    var t0 = timespec(), t1 = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t0)
    let hits = body()
    clock_gettime(CLOCK_MONOTONIC, &t1)
    return (Double(t1.tv_sec - t0.tv_sec) * 1000 + Double(t1.tv_nsec - t0.tv_nsec) / 1e6, hits)
}

func report(_ name: String, _ runs: [(ms: Double, hits: Int)]) {
    let sorted = runs.map(\.ms).sorted()
    print("\(name.padding(toLength: 12, withPad: " ", startingAt: 0)) median \(String(format: "%8.2f", sorted[sorted.count / 2])) ms  best \(String(format: "%8.2f", sorted[0])) ms  matches \(runs[0].hits)")
}

if setlocale(LC_ALL, "C.utf8") == nil { print("the C.utf8 locale is missing: POSIX regex would read bytes, not characters"); exit(1) }
let compiled = pcre.map { try! RegexPattern.compile($0).get() }
var regs = posix.map { p -> regex_t in
    var r = regex_t()
    let rc = regcomp(&r, p.0, REG_EXTENDED | REG_NOSUB | p.1)
    if rc != 0 { print("POSIX regcomp failed (\(rc)) for \(p.0)"); exit(1) }
    return r
}
let swiftRegexes = pcre.map { try! Regex($0) }

print("\(count) titles x \(pcre.count) rules, \(rounds) rounds")
var results: [String: [(ms: Double, hits: Int)]] = [:]
for round in 0..<rounds {
    // Alternate the order each round, so no engine always runs first (cold caches).
    let order = round % 2 == 0 ? ["pcre2", "posix", "swift"] : ["swift", "posix", "pcre2"]
    for engine in order {
        let r: (ms: Double, hits: Int)
        switch engine {
        case "pcre2": r = time { titles.reduce(0) { n, t in n + compiled.reduce(0) { $0 + ($1.match(t) == .match ? 1 : 0) } } }
        case "posix": r = time { titles.reduce(0) { n, t in n + regs.indices.reduce(0) { $0 + (regexec(&regs[$1], t, 0, nil, 0) == 0 ? 1 : 0) } } }
        default: r = time { titles.reduce(0) { n, t in n + swiftRegexes.reduce(0) { $0 + ((try? $1.firstMatch(in: t)) != nil ? 1 : 0) } } }
        }
        results[engine, default: []].append(r)
    }
}
report("PCRE2 (JIT)", results["pcre2"]!)
report("POSIX regex", results["posix"]!)
report("Swift Regex", results["swift"]!)
