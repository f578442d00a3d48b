/// `watch`'s own schedule of its sources (`Scheduler`): which may be offered to the state now
/// (never run by this worker, or their next time reached, and not running) and the soonest next
/// time of the others. Every change costs O(log n), and a look costs what it offers: the ready
/// sources wait in a first-in first-out line (config order at the start, then the order their
/// next times came), and a look takes the first few of it (`candidates(max:)`), not a pass over
/// every source (with 10,000 sources a pass per look was O(n²) per cycle). A source the state
/// says is not due yet leaves the line until then (`postpone`). Sources are indices into the
/// engine's source list; the next times sit in a min-heap whose entries are checked against the
/// latest time of their source when they surface, and the line's entries against the stamp of
/// the source's latest entry (lazy deletion, both).
struct DueQueue {
    /// Each source's next time as this worker knows it (nil: it has not run here yet).
    private(set) var notBefore: [Double?]
    private var ready: [Bool]
    private var running: [Bool]
    private(set) var readyCount: Int
    private var heap: [(time: Double, index: Int)] = []
    /// The ready sources in the order they became ready, from `head`; an entry counts while
    /// its source is ready and its stamp is the source's latest.
    private var line: [(index: Int, stamp: UInt32)] = []
    private var head = 0
    private var stamps: [UInt32]

    init(count: Int) {
        notBefore = Array(repeating: nil, count: count)
        ready = Array(repeating: true, count: count)
        running = Array(repeating: false, count: count)
        stamps = Array(repeating: 0, count: count)
        readyCount = count
        line = (0..<count).map { ($0, 0) }
    }

    /// Every source that may be offered now, in line order (`advance(to:)` first).
    var candidates: [Int] { mutating get { candidates(max: readyCount) } }

    /// The first `max` sources of the line: what a look offers the state. Costs about `max`
    /// steps: the entries it skips are the ones earlier looks took or put off, which sit at the
    /// front and are dropped here.
    mutating func candidates(max: Int) -> [Int] {
        guard readyCount > 0, max > 0 else { return [] }
        while head < line.count && !inLine(line[head]) { head += 1 }
        if head >= 1024 && head * 2 >= line.count {
            line.removeFirst(head)
            head = 0
        }
        var out: [Int] = []
        out.reserveCapacity(Swift.min(max, readyCount))
        var k = head
        while k < line.count && out.count < max {
            if inLine(line[k]) { out.append(line[k].index) }
            k += 1
        }
        return out
    }

    /// Moves every source whose next time is `now` or earlier to the ready ones.
    mutating func advance(to now: Double) {
        while let top = heap.first, top.time <= now {
            pop()
            if isCurrent(top) { makeReady(top.index) }
        }
    }

    /// Source `i`, offered, is not due before `time` by the state (another worker ran it, or
    /// holds it): it leaves the line until then.
    mutating func postpone(_ i: Int, until time: Double) {
        guard ready[i] else { return }
        ready[i] = false
        readyCount -= 1
        notBefore[i] = time
        push((time, i))
    }

    private mutating func makeReady(_ i: Int) {
        ready[i] = true
        readyCount += 1
        stamps[i] &+= 1
        line.append((i, stamps[i]))
    }

    private func inLine(_ e: (index: Int, stamp: UInt32)) -> Bool { ready[e.index] && stamps[e.index] == e.stamp }

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
