// State overhead benchmark (issue: "a state file of 1,000,000 remembered ids keeps a
// 1,000-item run's state overhead under 50 ms"). Builds a state file with 1,000,000 remembered
// ids, then delivers 1,000-item batches (half new, half already known) through the real
// Delivery with state and without, and reports the difference: the time state costs a run.
// Run: swift run -c release tributary-state-bench [ids] [items]
import Foundation
import TributaryCore

final class NullSink: Sink, @unchecked Sendable {
    var count = 0
    func write(_ items: [Item]) throws(SinkError) { count += items.count }
    func close() throws(SinkError) {}
}

func ms(_ start: UInt64) -> Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6 }

let args = CommandLine.arguments
let remembered = args.count > 1 ? Int(args[1]) ?? 1_000_000 : 1_000_000
let batchSize = args.count > 2 ? Int(args[2]) ?? 1_000 : 1_000
let dir = NSTemporaryDirectory() + "tributary-state-bench-\(getpid())"
try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: dir) }
let now = Timestamp.now().seconds

let store = try StateStore(path: dir + "/state.sqlite", lockTimeout: 5)
var t = DispatchTime.now().uptimeNanoseconds
var chunk: [EmittedID] = []
for i in 0..<remembered {
    chunk.append(EmittedID(id: "youtube:video:\(String(i, radix: 36))-\(i % 997)", source: "bench", hash: "0123456789abcdef0123"))
    if chunk.count == 100_000 { try store.bulkRemember(chunk, lastSeen: now); chunk.removeAll(keepingCapacity: true) }
}
try store.bulkRemember(chunk, lastSeen: now)
print("built a state of \(store.emittedCount) ids in \(String(format: "%.1f", ms(t) / 1000)) s")

func batch(_ round: Int) -> [Item] {
    (0..<batchSize).map { j in
        // Half the batch is already in state (ids from the bulk set), half is new this round.
        let id = j % 2 == 0 ? "youtube:video:\(String(j * 997 + round, radix: 36))-\((j * 997 + round) % 997)" : "youtube:video:new-\(round)-\(j)"
        var item = Item(id: id, source: "bench", type: "json", kind: "video", title: "A video title number \(j) — Видео 视频", fetched: Timestamp(seconds: now))
        item.summary = String(repeating: "Some description text. ", count: 8)
        item.url = "https://www.youtube.com/watch?v=\(j)"
        item.published = Timestamp(seconds: now - Double(j))
        item.data["channel_title"] = .string("Channel \(j % 17)")
        return item
    }
}

let settings = SourceSettings(name: "bench", type: "json")
var withState: [Double] = []
var without: [Double] = []
for round in 0..<7 {
    let items = batch(round)
    let plain = Delivery(sinks: [NullSink()], state: nil, emitAll: false)
    t = DispatchTime.now().uptimeNanoseconds
    _ = plain.deliver(items, settings: settings, firstRun: false, validators: [], now: now)
    without.append(ms(t))
    let stateful = Delivery(sinks: [NullSink()], state: store, emitAll: false)
    t = DispatchTime.now().uptimeNanoseconds
    let out = stateful.deliver(items, settings: settings, firstRun: false, validators: [], now: now)
    withState.append(ms(t))
    precondition(out.failure == nil && out.new == batchSize / 2, "expected \(batchSize / 2) new, got \(out.new)")
}
let median = { (v: [Double]) -> Double in v.sorted()[v.count / 2] }
do {
    // Where the time goes: hashing the items, looking ids up, and the commit.
    let items = batch(99)
    t = DispatchTime.now().uptimeNanoseconds
    let hashes = items.map(\.contentHash)
    let hashing = ms(t)
    t = DispatchTime.now().uptimeNanoseconds
    _ = try store.knownHashes(items.map(\.id))
    let lookup = ms(t)
    t = DispatchTime.now().uptimeNanoseconds
    try store.commit(source: "bench", type: "json", remember: zip(items, hashes).map { EmittedID(id: $0.id, source: "bench", hash: $1) }, validators: [], now: now)
    let commit = ms(t)
    print(String(format: "breakdown for one batch: hashing %.2f ms, lookups %.2f ms, commit %.2f ms", hashing, lookup, commit))
}
let overhead = median(withState) - median(without)
print(String(format: "%d-item run, %d remembered ids: delivery %.2f ms with state, %.2f ms without; state overhead %.2f ms (target < 50 ms)",
             batchSize, store.emittedCount, median(withState), median(without), overhead))
exit(overhead < 50 ? 0 : 1)
