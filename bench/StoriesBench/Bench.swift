#if canImport(Glibc)
import Glibc
#endif
import TributaryStories

// The cost of the story matcher per item with a million remembered stories.
//
// 1. Fill: STORIES synthetic stories (headline-like titles of 6 to 14 words drawn from a
//    50,000-word vocabulary with a Zipf-Mandelbrot distribution, some capitalized names and numbers; a URL
//    each), published over the last 48 hours, go through StoryMatcher.assign: the store then
//    remembers them all (retention 7 days).
// 2. Measure: ITEMS more items through assign, in rounds: 60% new stories, 20% copies of
//    remembered ones under a decorated URL (tracking parameters, m. host, /amp, fragment), 20%
//    copies with a decorated title (outlet suffix, BREAKING:, title case, a dropped word) under
//    another site's URL. Reports the median µs per item over the rounds.
// 3. Memory: peak RSS (getrusage) before the fill and after the measurement; MiB per million
//    stories is the difference over the stories remembered, times a million.

struct Rng {
    var s: UInt64
    mutating func next() -> UInt64 {
        s = s &* 6364136223846793005 &+ 1442695040888963407
        return fmix64(s)
    }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}

struct Synthetic {
    var vocabulary: [String] = []
    var names: [String] = []
    var cumulative: [Double] = []
    var rng = Rng(s: 42)

    init() {
        let consonants = Array("bcdfghjklmnprstvwz"), vowels = Array("aeiou")
        var seen = Set<String>()
        while vocabulary.count < 50_000 {
            var w = ""
            for _ in 0..<(2 + rng.below(3)) { w.append(consonants[rng.below(consonants.count)]); w.append(vowels[rng.below(vowels.count)]) }
            if rng.below(3) == 0 { w.append(consonants[rng.below(consonants.count)]) }
            if seen.insert(w).inserted { vocabulary.append(w) }
        }
        names = vocabulary.prefix(8000).map { $0.prefix(1).uppercased() + $0.dropFirst() }
        // Zipf-Mandelbrot (1 / (k + 50)) over the vocabulary: the most common word is in about
        // 2% of titles, as the most common content words of news headlines are.
        var total = 0.0
        for k in 1...vocabulary.count { total += 1 / Double(k + 50); cumulative.append(total) }
        cumulative = cumulative.map { $0 / total }
    }

    mutating func word() -> String {
        let u = Double(rng.next() >> 11) / Double(1 << 53)
        var lo = 0, hi = cumulative.count - 1
        while lo < hi { let mid = (lo + hi) / 2; if cumulative[mid] < u { lo = mid + 1 } else { hi = mid } }
        return vocabulary[lo]
    }

    mutating func title() -> String {
        var words: [String] = []
        let n = 6 + rng.below(9)
        for i in 0..<n {
            switch rng.below(10) {
            case 0, 1: words.append(names[rng.below(names.count)])
            case 2 where i > 2: words.append(String(1 + rng.below(2000)))
            default: words.append(word())
            }
        }
        words[0] = words[0].prefix(1).uppercased() + words[0].dropFirst()
        return words.joined(separator: " ")
    }

    mutating func url(_ k: Int) -> String {
        "https://www.site\(rng.below(500)).example/news/\(k)-\(vocabulary[rng.below(vocabulary.count)])-\(vocabulary[rng.below(vocabulary.count)])"
    }
}

func now() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

func cpuSeconds() -> Double {
    var u = rusage()
    getrusage(RUSAGE_SELF.rawValue, &u)
    return Double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + Double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6
}

func peakRSSMiB() -> Double {
    var u = rusage()
    getrusage(RUSAGE_SELF.rawValue, &u)
    return Double(u.ru_maxrss) / 1024
}

func currentRSSMiB() -> Double {
    guard let f = fopen("/proc/self/statm", "r") else { return 0 }
    defer { fclose(f) }
    var size = 0, resident = 0
    withUnsafeMutablePointer(to: &size) { s in
        withUnsafeMutablePointer(to: &resident) { r in
            _ = withVaList([s, r]) { vfscanf(f, "%ld %ld", $0) }
        }
    }
    return Double(resident) * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
}

func runBench(stories: Int, items: Int, rounds: Int, bands: Int) {
    var synth = Synthetic()
    let start: Int64 = 1_780_000_000
    let store = InMemoryStoryStore(retention: 7 * 86400)
    let matcher = StoryMatcher(options: StoryOptions(bands: bands), store: store)

    // Titles and URLs are made before the clock starts: the bench times the matcher only.
    var titles: [String] = []
    var urls: [String] = []
    titles.reserveCapacity(stories)
    urls.reserveCapacity(stories)
    for k in 0..<stories { titles.append(synth.title()); urls.append(synth.url(k)) }

    // The measured items too: then the baseline holds all the bench's own data.
    var batch: [(StoryItem, Int64)] = []
    var expectCopy = 0
    let end = start + 172_800
    batch.reserveCapacity(items * rounds)
    for k in 0..<(items * rounds) {
        let published = end + Int64(k / 100)
        let r = synth.rng.below(10)
        if r < 6 {
            batch.append((StoryItem(id: "new:\(k)", url: synth.url(stories + k), title: synth.title(), published: published, source: "n\(k % 300)"), published))
        } else if r < 8 {
            let j = synth.rng.below(stories)
            let decorated = urls[j].replacingFirst("https://www.", with: synth.rng.below(2) == 0 ? "http://m." : "https://")
                + (synth.rng.below(2) == 0 ? "/amp?utm_source=rss&utm_medium=feed" : "?fbclid=IwAR\(k)#comments")
            batch.append((StoryItem(id: "url:\(k)", url: decorated, title: titles[j], published: published, source: "c\(k % 300)"), published))
            expectCopy += 1
        } else {
            let j = stories - 1 - synth.rng.below(stories / 4)
            var t = titles[j]
            switch synth.rng.below(4) {
            case 0: t = "BREAKING: " + t
            case 1: t += " - Example News"
            case 2: t = t.split(separator: " ").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: " ")
            default: t += " | The Daily Example"
            }
            batch.append((StoryItem(id: "title:\(k)", url: "https://copy\(synth.rng.below(50)).example/\(k)", title: t, published: published, source: "t\(k % 300)"), published))
            expectCopy += 1
        }
    }
    let baseline = currentRSSMiB()

    print("filling \(stories) stories (bands \(bands)) ...")
    let fillStart = now()
    let chunk = max(1, stories / 10)
    var last = fillStart
    for k in 0..<stories {
        let published = start + Int64(k) * 172_800 / Int64(stories)
        _ = matcher.assign(StoryItem(id: "bench:\(k)", url: urls[k], title: titles[k], published: published, source: "s\(k % 300)"), now: published)
        if (k + 1) % chunk == 0 {
            let t = now()
            print("  \(k + 1): \(String(format: "%.2f", (t - last) * 1e6 / Double(chunk))) µs per item for the last \(chunk)")
            last = t
        }
    }
    let fillSeconds = now() - fillStart
    let afterFill = currentRSSMiB()
    print("fill: \(String(format: "%.2f", fillSeconds * 1e6 / Double(stories))) µs per item (wall), RSS \(String(format: "%.1f", afterFill)) MiB (\(String(format: "%.1f", baseline)) before), store \(store.count) records, index \(store.indexCapacity) slots")

    let candidatesBefore = matcher.candidatesSeen
    var perItem: [Double] = []
    var cpuPerItem: [Double] = []
    var copies = 0
    for round in 0..<rounds {
        let t0 = now(), c0 = cpuSeconds()
        for (item, seen) in batch[(round * items)..<((round + 1) * items)] {
            if !matcher.assign(item, now: seen).isFirst { copies += 1 }
        }
        perItem.append((now() - t0) * 1e6 / Double(items))
        cpuPerItem.append((cpuSeconds() - c0) * 1e6 / Double(items))
    }
    let sorted = perItem.sorted()
    let cpuSorted = cpuPerItem.sorted()
    let afterRun = currentRSSMiB()
    let peak = peakRSSMiB()
    print("measure: \(rounds) rounds of \(items) items: median \(String(format: "%.2f", sorted[sorted.count / 2])) µs per item (wall), best \(String(format: "%.2f", sorted[0])), worst \(String(format: "%.2f", sorted[sorted.count - 1])); CPU median \(String(format: "%.2f", cpuSorted[cpuSorted.count / 2])), best \(String(format: "%.2f", cpuSorted[0])) µs per item")
    print("  copies found \(copies) of \(expectCopy) made; \(String(format: "%.1f", Double(matcher.candidatesSeen - candidatesBefore) / Double(items * rounds))) candidates per item")
    print("memory: RSS \(String(format: "%.1f", afterRun)) MiB, peak \(String(format: "%.1f", peak)) MiB, \(String(format: "%.1f", baseline)) MiB before the fill (the bench's own titles and URLs); \(String(format: "%.1f", (peak - baseline) * 1_000_000 / Double(store.count))) MiB per million stories remembered (\(store.count), peak over the baseline)")
}

extension String {
    func replacingFirst(_ a: String, with b: String) -> String {
        guard let r = range(of: a) else { return self }
        return replacingCharacters(in: r, with: b)
    }
}

/// Each stage alone over the same items: canonical URL, title signature, keys.
func runMicro(items: Int) {
    var synth = Synthetic()
    var titles: [String] = [], urls: [String] = []
    for k in 0..<items {
        var t = synth.title()
        if k % 3 == 0 { t = "BREAKING: " + t + " - Example News" }
        titles.append(t)
        urls.append(synth.url(k) + (k % 2 == 0 ? "?utm_source=rss&utm_medium=feed&id=\(k)" : "/amp"))
    }
    func stage(_ name: String, _ body: () -> Int) {
        var best = Double.infinity
        var sink = 0
        for _ in 0..<5 {
            let c0 = cpuSeconds()
            sink &+= body()
            best = min(best, (cpuSeconds() - c0) * 1e6 / Double(items))
        }
        print("\(name.padding(toLength: 28, withPad: " ", startingAt: 0)) \(String(format: "%.3f", best)) µs per item (CPU, best of 5) [\(sink & 1)]")
    }
    stage("canonical URL") { urls.reduce(0) { $0 &+ (URLCanonicalizer.canonicalize($1)?.bytes.count ?? 0) } }
    stage("canonical URL + hash") { urls.reduce(0) { $0 &+ Int(truncatingIfNeeded: URLCanonicalizer.canonicalize($1)?.hash ?? 0) } }
    stage("title signature") { titles.reduce(0) { $0 &+ TitleAnalyzer.signature($1).count } }
    stage("title signature + host") { titles.reduce(0) { $0 &+ TitleAnalyzer.signature($1, host: "www.example.com").count } }
    let sigs = titles.map { TitleAnalyzer.signature($0) }
    stage("keys (exact, numbers, 8 bands)") {
        var keys: [UInt64] = []
        var n = 0
        for s in sigs {
            keys.removeAll(keepingCapacity: true)
            keys.append(StoryKeys.exactTitle(s))
            if let k = StoryKeys.numbers(s) { keys.append(k) }
            StoryKeys.appendBands(s, bands: 8, to: &keys)
            n &+= keys.count
        }
        return n
    }
    stage("compare with 8 others") {
        var n = 0
        for (k, s) in sigs.enumerated() {
            for d in 1...8 { n &+= TitleComparison(s, sigs[(k + d * 7919) % sigs.count]).shared }
        }
        return n
    }
}
