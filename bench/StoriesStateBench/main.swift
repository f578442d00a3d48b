// The `stories` stage through a state (Docs/stories.md#costs): with N stories remembered in a
// SQLite state file, what the stage adds to a 1,000-item run delivered as sources deliver it
// (20 batches of 50, one state transaction each), through the real Delivery, beside the same
// run without `stories`. Items are headline-like titles of 6 to 14 words drawn from a
// 50,000-word vocabulary (skewed toward the common words), each with its own link: 60% new
// stories, 20% copies behind a decorated link (tracking parameters, m., /amp) and 20% copies
// under a decorated title (an outlet name, BREAKING:) and another outlet's link.
// The deliveries are not shut down: that would close the state they share.
// Run: swift run -c release tributary-stories-state-bench [stories] [items] [rounds] [sqlite|postgres]
// (postgres: a server of its own on 127.0.0.1, started by the test kit's PostgresServer)
import Foundation
import TributaryCore
import TributaryTestSupport
import TributaryPostgres

func ms(_ start: UInt64) -> Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6 }

let args = CommandLine.arguments
let remembered = args.count > 1 ? Int(args[1]) ?? 1_000_000 : 1_000_000
let runSize = args.count > 2 ? Int(args[2]) ?? 1_000 : 1_000
let rounds = args.count > 3 ? Int(args[3]) ?? 5 : 5
let batchSize = 50
let dir = NSTemporaryDirectory() + "tributary-stories-state-bench-\(getpid())"
try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: dir) }
let now = Timestamp.now().seconds

let syllables = ["ka", "lo", "mi", "ren", "tu", "sa", "vor", "el", "dan", "pri", "ko", "mar", "ist", "ul", "fen", "ta", "gro", "bel", "nu", "sh"]
let vocabulary: [String] = (0..<50_000).map { i in
    var w = ""
    var n = i
    repeat {
        w += syllables[n % syllables.count]
        n /= syllables.count
    } while n > 0
    return i % 7 == 0 ? w.prefix(1).uppercased() + w.dropFirst() : w
}

/// The title of story `k`: 6 to 14 words, the common words more likely (a square skew).
func title(_ k: Int) -> String {
    var r = SeededGenerator(seed: UInt64(k) &* 0x1000_0001 &+ 7)
    let count = 6 + r.below(9)
    var words: [String] = []
    for _ in 0..<count {
        let u = Double(r.below(1 << 20)) / Double(1 << 20)
        words.append(vocabulary[Int(u * u * Double(vocabulary.count - 1))])
    }
    words[0] = words[0].prefix(1).uppercased() + words[0].dropFirst()
    return words.joined(separator: " ")
}

func item(_ id: String, _ url: String, _ title: String, published: Double) -> Item {
    var item = Item(id: id, source: "bench", type: "feed", kind: "entry", title: title, fetched: Timestamp(seconds: now))
    item.url = url
    item.published = Timestamp(seconds: published)
    item.summary = String(repeating: "Some teaser text. ", count: 8)
    return item
}

/// Story `k` as its wire published it.
func original(_ k: Int) -> Item {
    item("wire:\(k)", "https://www.wire.example/news/\(k)-story/", title(k), published: now - 3600 - Double(k % 86400))
}

/// One round: 60% new stories, 20% URL copies and 20% title copies of stories remembered.
func runItems(_ round: Int) -> [Item] {
    var random = SeededGenerator(seed: UInt64(round) &+ 42)
    return (0..<runSize).map { j in
        let k = remembered + round * runSize + j
        switch j % 5 {
        case 0: let old = random.below(max(remembered, 1))
            return item("portal:\(round):\(j)", "http://m.wire.example/news/\(old)-story/amp?utm_source=rss&fbclid=\(j)", title(old) + " - Wire News", published: now - 600)
        case 1: let old = random.below(max(remembered, 1))
            return item("other:\(round):\(j)", "https://other.example/a/\(k)", "BREAKING: " + title(old) + " | Other Outlet", published: now - 600)
        default: return original(k)
        }
    }
}

func deliver(_ all: [Item], state: any StateBackend, stories: StorySettings?) async -> Double {
    let delivery = Delivery(sinks: [NullSink()], state: state, options: Delivery.Options(stories: stories, retention: 30 * 86400))
    let settings = SourceSettings(name: "bench", type: "feed")
    let start = DispatchTime.now().uptimeNanoseconds
    let (run, _) = await delivery.begin(settings, previous: SourceState(lastRun: now - 60, lastSuccess: now - 60))
    var i = 0
    while i < all.count {
        do { try await delivery.deliver(Array(all[i..<min(i + batchSize, all.count)]), to: run, validators: []) } catch {
            fatalError("delivery failed: \(error)")
        }
        i += batchSize
    }
    _ = await delivery.finish(run, failure: nil, stopped: false, requests: 1, validators: [])
    return ms(start)
}

let tag = StorySettings(action: .tag)
let backendName = args.count > 4 ? args[4] : "sqlite"
let pg: PostgresServer? = backendName == "postgres" ? try PostgresServer() : nil
defer { pg?.remove() }
let store: any StateBackend
if let pg {
    guard let url = PostgresURL(pg.url()) else { fatalError("no PostgreSQL URL") }
    store = try PostgresState(url: url, schema: "bench")
} else {
    store = try SQLiteState(path: dir + "/state.sqlite", lockTimeout: 5)
}
var t = DispatchTime.now().uptimeNanoseconds
// Filling: the stories go through the stage, 10,000 to a batch.
do {
    let delivery = Delivery(sinks: [NullSink()], state: store, options: Delivery.Options(stories: tag, retention: 30 * 86400))
    let (run, _) = await delivery.begin(SourceSettings(name: "fill", type: "feed"), previous: SourceState(lastRun: now - 60, lastSuccess: now - 60))
    var k = 0
    while k < remembered {
        let batch = (k..<min(k + 10_000, remembered)).map(original)
        do { try await delivery.deliver(batch, to: run, validators: []) } catch { fatalError("filling failed: \(error)") }
        k += batch.count
    }
    _ = await delivery.finish(run, failure: nil, stopped: false, requests: 1, validators: [])
}
let fill = ms(t)
let fileMiB: Double
if let pg {
    let bytes = try pg.psql("SELECT pg_total_relation_size('bench.kv')").filter { $0.isNumber }
    fileMiB = (Double(bytes) ?? 0) / 1_048_576
} else {
    fileMiB = Double((try? FileManager.default.attributesOfItem(atPath: dir + "/state.sqlite")[.size] as? Int) ?? 0) / 1_048_576
}
print(backendName + ": " + String(format: "remembered %d stories in %.1f s (%.1f µs per story); the state's values take %.0f MiB on disk", remembered, fill / 1000, fill * 1000 / Double(max(remembered, 1)), fileMiB))

var with: [Double] = []
var without: [Double] = []
for round in 0..<rounds {
    let run = runItems(round)
    // Alternating order; each run's ids are new to the state either way (the copies too).
    let plain = run.map { var i = $0; i.id = "plain:" + i.id; return i }
    if round % 2 == 0 {
        without.append(await deliver(plain, state: store, stories: nil))
        with.append(await deliver(run, state: store, stories: tag))
    } else {
        with.append(await deliver(run, state: store, stories: tag))
        without.append(await deliver(plain, state: store, stories: nil))
    }
}
let median = { (v: [Double]) -> Double in v.sorted()[v.count / 2] }
var usage = rusage()
getrusage(RUSAGE_SELF.rawValue, &usage)
let perItem = (median(with) - median(without)) * 1000 / Double(runSize)
let each = zip(with, without).map { ($0 - $1) * 1000 / Double(runSize) }
print(String(format: "%d-item run in batches of %d, %d stories remembered: %.2f ms with stories, %.2f ms without; stories cost %.1f µs per item (rounds %.1f..%.1f); peak RSS %.0f MiB",
             runSize, batchSize, remembered, median(with), median(without), perItem, each.min() ?? 0, each.max() ?? 0, Double(usage.ru_maxrss) / 1024))
