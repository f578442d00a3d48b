/// `watch`'s own schedule of its sources (`Scheduler`): which may be offered to the state now
/// (never run by this worker, or their next time reached, and not running) and the soonest next
/// time of the others. Every change costs O(log n) and a look costs a pass over a flat array of
/// flags, not a dictionary built from every source's next time after each run (with 10,000
/// sources that was O(n²) hashing per cycle: 25 s of CPU a minute). Sources are indices into
/// the engine's source list; the next times sit in a min-heap whose entries are checked
/// against the latest time of their source when they surface (lazy deletion).
struct DueQueue {
    /// Each source's next time as this worker knows it (nil: it has not run here yet).
    private(set) var notBefore: [Double?]
    private var ready: [Bool]
    private var running: [Bool]
    private(set) var readyCount: Int
    private var heap: [(time: Double, index: Int)] = []

    init(count: Int) {
        notBefore = Array(repeating: nil, count: count)
        ready = Array(repeating: true, count: count)
        running = Array(repeating: false, count: count)
        readyCount = count
    }

    /// The sources that may be offered now, in config order: `advance(to:)` first.
    var candidates: [Int] {
        guard readyCount > 0 else { return [] }
        var out: [Int] = []
        out.reserveCapacity(readyCount)
        for i in ready.indices where ready[i] { out.append(i) }
        return out
    }

    /// Moves every source whose next time is `now` or earlier to the ready ones.
    mutating func advance(to now: Double) {
        while let top = heap.first, top.time <= now {
            pop()
            if isCurrent(top) {
                ready[top.index] = true
                readyCount += 1
            }
        }
    }

    /// The soonest next time after the last `advance(to:)` of a source neither running nor
    /// ready (so later than that time), or nil.
    mutating func soonest() -> Double? {
        while let top = heap.first, !isCurrent(top) { pop() }
        return heap.first?.time
    }

    /// A run of source `i` started: it is no longer a candidate.
    mutating func started(_ i: Int) {
        running[i] = true
        if ready[i] {
            ready[i] = false
            readyCount -= 1
        }
    }

    /// A run of source `i` ended; it may run again at `next`.
    mutating func finished(_ i: Int, next: Double) {
        running[i] = false
        notBefore[i] = next
        if ready[i] {   // not while it ran; kept consistent all the same
            ready[i] = false
            readyCount -= 1
        }
        push((next, i))
    }

    /// Whether a heap entry is still its source's next time, for a source waiting for it.
    private func isCurrent(_ e: (time: Double, index: Int)) -> Bool {
        notBefore[e.index] == e.time && !running[e.index] && !ready[e.index]
    }

    private mutating func push(_ e: (time: Double, index: Int)) {
        heap.append(e)
        var c = heap.count - 1
        while c > 0 {
            let p = (c - 1) / 2
            guard heap[c].time < heap[p].time else { break }
            heap.swapAt(c, p)
            c = p
        }
    }

    private mutating func pop() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        var p = 0
        while true {
            let l = 2 * p + 1, r = l + 1
            var m = p
            if l < heap.count && heap[l].time < heap[m].time { m = l }
            if r < heap.count && heap[r].time < heap[m].time { m = r }
            if m == p { break }
            heap.swapAt(p, m)
            p = m
        }
    }
}
