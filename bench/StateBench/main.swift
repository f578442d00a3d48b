// State overhead benchmark: with 1,000,000 remembered ids, what state costs a 1,000-item run
// (target: at most 50 ms). The run is delivered the way sources deliver it, page by page (20
// batches of 50, one state transaction each, then the run's bookkeeping), through the real
// Delivery, once with state and once without; the difference is the state's cost.
// Run: swift run -c release tributary-state-bench [ids] [items] [batch]
import Foundation
import TributaryCore
import TributaryTestSupport
import TributaryState

func ms(_ start: UInt64) -> Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6 }

let args = CommandLine.arguments
let remembered = args.count > 1 ? Int(args[1]) ?? 1_000_000 : 1_000_000
let runSize = args.count > 2 ? Int(args[2]) ?? 1_000 : 1_000
let batchSize = args.count > 3 ? Int(args[3]) ?? 50 : 50
let dir = NSTemporaryDirectory() + "tributary-state-bench-\(getpid())"
try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: dir) }
let now = Timestamp.now().seconds

let store = try SQLiteState(path: dir + "/state.sqlite", lockTimeout: 5)
var t = DispatchTime.now().uptimeNanoseconds
func remember(_ ids: [EmittedID]) throws {
    let tx = try store.begin()
    _ = try tx.claim(ids, now: now)
    try tx.commit()
}
var chunk: [EmittedID] = []
for i in 0..<remembered {
    chunk.append(EmittedID(id: "youtube:video:\(String(i, radix: 36))-\(i % 997)", source: "bench", hash: "0123456789abcdef0123"))
    if chunk.count == 100_000 {
        try remember(chunk)
        chunk.removeAll(keepingCapacity: true)
    }
}
try remember(chunk)
print("built a state of \(remembered) ids in \(String(format: "%.1f", ms(t) / 1000)) s")

func items(_ round: Int) -> [Item] {
    (0..<runSize).map { j in
        // Half the run is already in state (ids from the bulk set, whatever its size), half is
        // new this round.
        let k = (j * 997 + round) % remembered
        let id = j % 2 == 0 ? "youtube:video:\(String(k, radix: 36))-\(k % 997)" : "youtube:video:new-\(round)-\(j)"
        var item = Item(id: id, source: "bench", type: "json", kind: "video", title: "A video title number \(j) — Видео 视频", fetched: Timestamp(seconds: now))
        item.summary = String(repeating: "Some description text. ", count: 8)
        item.url = "https://www.youtube.com/watch?v=\(j)"
        item.published = Timestamp(seconds: now - Double(j))
        item.data["channel_title"] = .string("Channel \(j % 17)")
        return item
    }
}

/// Delivers one run page by page and returns (milliseconds, items new).
func deliver(_ all: [Item], state: (any StateBackend)?) async -> (Double, Int) {
    let delivery = Delivery(sinks: [NullSink()], state: state)
    let settings = SourceSettings(name: "bench", type: "json")
    let start = DispatchTime.now().uptimeNanoseconds
    let previous = SourceState(lastRun: now - 60, lastSuccess: now - 60)
    let (run, _) = await delivery.begin(settings, previous: previous)
    var i = 0
    while i < all.count {
        do { try await delivery.deliver(Array(all[i..<min(i + batchSize, all.count)]), to: run, validators: []) } catch {
            fatalError("delivery failed: \(error)")
        }
        i += batchSize
    }
    let result = await delivery.finish(run, failure: nil, stopped: false, requests: runSize / batchSize, validators: [])
    return (ms(start), result.new)
}

// The copies of the write-ahead log into the file run on a thread of their own, beside the
// deliveries (WALCheckpointer): their time is reported beside the runs', not hidden.
func copies() -> (count: Int, ms: Double, writer: Int) {
    guard let c = store.checkpointer else { return (0, 0, 0) }
    let made = c.made
    return (made.posted, Double(made.postedNanoseconds) / 1e6, made.byWriter)
}
let copiesBefore = copies()
var withState: [Double] = []
var without: [Double] = []
for round in 0..<7 {
    let run = items(round)
    without.append(await deliver(run, state: nil).0)
    let (elapsed, new) = await deliver(run, state: store)
    withState.append(elapsed)
    precondition(new == runSize / 2, "expected \(runSize / 2) new, got \(new)")
}
let copiesAfter = copies()
let median = { (v: [Double]) -> Double in v.sorted()[v.count / 2] }
do {
    // Where the time goes: hashing the items, then one batch's claim and commit.
    let run = items(99)
    t = DispatchTime.now().uptimeNanoseconds
    let hashes = run.map(\.contentHash)
    let hashing = ms(t)
    let ids = zip(run, hashes).map { EmittedID(id: $0.id, source: "bench", hash: $1) }
    t = DispatchTime.now().uptimeNanoseconds
    let tx = try store.begin()
    _ = try tx.claim(Array(ids.prefix(batchSize)), now: now)
    let claim = ms(t)
    t = DispatchTime.now().uptimeNanoseconds
    try tx.commit()
    let commit = ms(t)
    print(String(format: "breakdown: hashing %d items %.2f ms; one batch of %d: claim %.2f ms, commit %.2f ms", runSize, hashing, batchSize, claim, commit))
}
let overhead = median(withState) - median(without)
print(String(format: "%d-item run in batches of %d, %d remembered ids: %.2f ms with state, %.2f ms without; state costs %.2f ms (target <= 50 ms)",
             runSize, batchSize, remembered, median(withState), median(without), overhead))
print(String(format: "beside the 7 runs: %d copies of the write-ahead log into the file, %.1f ms in all (%.1f ms a run), on their own thread; in the runs' own time: %d copies of the rest by the writer",
             copiesAfter.count - copiesBefore.count, copiesAfter.ms - copiesBefore.ms, (copiesAfter.ms - copiesBefore.ms) / 7, copiesAfter.writer - copiesBefore.writer))
exit(overhead <= 50 ? 0 : 1)
