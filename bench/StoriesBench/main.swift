import Foundation
import TributaryStories

let args = Array(CommandLine.arguments.dropFirst())
switch args.first {
case "analyze":
    for t in args.dropFirst() {
        let a = TitleAnalyzer.analyze(t)
        print(t)
        print("  normalized: \(a.normalized)")
        print("  tokens: " + a.tokens.map { "\($0.text)/\($0.kind)" }.joined(separator: " "))
    }
case "canon":
    for u in args.dropFirst() { print(URLCanonicalizer.canonicalize(u)?.string ?? "nil") }
case "quality":
    let items = try Corpus.load(args.count > 1 ? args[1] : "Tests/Fixtures/stories/corpus.json")
    let verbose = args.contains("-v")
    let bands = args.firstIndex(of: "--bands").flatMap { Int(args[$0 + 1]) } ?? StoryOptions().bands
    let options = StoryOptions(bands: bands)
    let result = args.contains("--brute") ? Corpus.assignBrute(items, options: options) : Corpus.assign(items, options: options)
    let score = PairwiseScore(truth: items.map(\.truth), predicted: result.map(\.story))
    print("\(items.count) items, \(Set(items.map(\.truth)).count) stories: \(score)")
    let kept = items.indices.filter { items[$0].edit != "rewrite" }
    let withoutRewrites = PairwiseScore(truth: kept.map { items[$0].truth }, predicted: kept.map { result[$0].story })
    print("  without the \(items.count - kept.count) rewritten headlines: \(withoutRewrites)")
    if verbose {
        var byStory: [StoryID: [Int]] = [:]
        for (k, r) in result.enumerated() { byStory[r.story, default: []].append(k) }
        print("== merged stories that are not one")
        for (_, ks) in byStory.sorted(by: { $0.value[0] < $1.value[0] }) where Set(ks.map { items[$0].truth }).count > 1 {
            for k in ks { print("  \(items[k].truth) \(items[k].family ?? "-") [\(result[k].match)] \(items[k].title)") }
            print("")
        }
        print("== stories split")
        var byTruth: [String: [Int]] = [:]
        for (k, i) in items.enumerated() { byTruth[i.truth, default: []].append(k) }
        for (_, ks) in byTruth.sorted(by: { $0.key < $1.key }) where Set(ks.map { result[$0].story }).count > 1 {
            for k in ks { print("  \(result[k].story) [\(result[k].match)] {\(items[k].edit)} \(items[k].title)  <\(items[k].url ?? "")> \(items[k].published.map { String(($0 - 1_777_852_800) / 3600) + "h" } ?? "-")") }
            print("")
        }
    }
case "grid":
    // grid CORPUS...: every setting on every corpus; the worst precision and recall of each.
    let corpora = try args.dropFirst().map { try Corpus.load($0) }
    var rows: [(String, Double, Double)] = []
    for j in [0.45, 0.5, 0.55, 0.6] {
        for jn in [0.25, 0.3, 0.35] {
            for (soon, js) in [(0, 1.0), (3, 0.4), (3, 0.45), (6, 0.45), (6, 0.5)] as [(Int64, Double)] {
                for c in [0.8, 0.9] {
                    let o = StoryOptions(jaccard: j, jaccardSameNumbers: jn, soon: soon * 3600, jaccardSoon: js, containment: c)
                    var p = 1.0, r = 1.0
                    for items in corpora {
                        let s = PairwiseScore(truth: items.map(\.truth), predicted: Corpus.assign(items, options: o).map(\.story))
                        p = min(p, s.precision); r = min(r, s.recall)
                    }
                    rows.append(("J \(j) JN \(jn) soon \(soon)h JS \(js) C \(c)", p, r))
                }
            }
        }
    }
    for (name, p, r) in rows.sorted(by: { $0.2 > $1.2 }) where p >= 0.99 { print("min precision \(p)  min recall \(r)  \(name)") }
case "why":
    Corpus.whyApart(try Corpus.load(args.count > 1 ? args[1] : "Tests/Fixtures/stories/corpus.json"), show: args.count > 2 ? args[2] : nil)
case "pairs":
    Corpus.pairTable(try Corpus.load(args.count > 1 ? args[1] : "Tests/Fixtures/stories/corpus.json"))
case "export":
    // One JSON line per item: its id, canonical URL and normalized title (bench/stories_peers.py).
    let items = try Corpus.load(args.count > 1 ? args[1] : "Tests/Fixtures/stories/corpus.json")
    for i in items {
        let c = i.url.flatMap { URLCanonicalizer.canonicalize($0) }
        let line: [String: String] = ["id": i.id, "url": c?.string ?? "", "title": TitleAnalyzer.analyze(i.title, host: c?.host).normalized]
        print(String(decoding: try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys]), as: UTF8.self))
    }
case "micro":
    runMicro(items: 100_000)
case "bench":
    func arg(_ name: String, _ d: Int) -> Int {
        if let i = args.firstIndex(of: name), i + 1 < args.count, let v = Int(args[i + 1].replacingOccurrences(of: "_", with: "")) { return v }
        return d
    }
    runBench(stories: arg("--stories", 1_000_000), items: arg("--items", 100_000), rounds: arg("--rounds", 5), bands: arg("--bands", 8))
default:
    print("usage: tributary-stories-bench bench [--stories N] [--items N] [--rounds N] [--bands N] | analyze TITLE... | canon URL... | quality [CORPUS] [-v] [--brute] | export [CORPUS] | grid CORPUS... | why CORPUS [RULE] | pairs CORPUS")
}
