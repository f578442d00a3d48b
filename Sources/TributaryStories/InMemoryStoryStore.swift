#if canImport(Glibc)
import Glibc
#endif

/// A StoryStore in memory, bounded by a retention and a record count.
///
/// Records sit in chunks of 16,384 in the order they came; a chunk whose newest record is
/// older than the retention goes as a whole (and the oldest chunks go when there are more than
/// `maxRecords`), so memory follows what is remembered. The index is one open-addressing table
/// of 8-byte slots: the key's high 32 bits (which also choose its home slot, so the table can
/// be rebuilt without the keys) and a 32-bit record number. Slots of forgotten records are
/// skipped by lookups and dropped when the table is rebuilt, which happens when it is three
/// quarters full: at the same size if most slots were forgotten, else twice as large.
public final class InMemoryStoryStore: StoryStore, @unchecked Sendable {
    public let retention: Int64
    public let maxRecords: Int
    /// The records of the first `priorityKeys` keys of a lookup all come back; those of the
    /// others (MinHash bands) only while there are fewer than `maxCandidates`.
    public let maxCandidates: Int
    public let priorityKeys = 3
    /// At most this many records are filed under one key (the most recent): a key that many
    /// titles share (two very common words) stays cheap to look up.
    public let maxPerKey: Int

    static let chunkShift = 14
    static let chunkSize = 1 << chunkShift
    static let minimumBits = 12

    final class Chunk {
        let startSeq: UInt32
        var records: ContiguousArray<StoryRecord> = []
        var keyCount = 0
        var newestSeen = Int64.min
        init(startSeq: UInt32) {
            self.startSeq = startSeq
            records.reserveCapacity(InMemoryStoryStore.chunkSize)
        }
    }

    let lock = StoreLock()
    var slots: UnsafeMutablePointer<UInt64>
    var bits: Int
    var occupied = 0
    var chunks: [Chunk] = []
    var nextSeq: UInt32 = 1
    var liveKeys = 0
    var liveRecords = 0
    var seqBuffer: [UInt32] = []
    /// Keeps the loads above from being optimized away.
    var sink = 0

    /// `retention` in seconds; `maxRecords` bounds memory whatever the retention.
    public init(retention: Int64, maxRecords: Int = 50_000_000, maxCandidates: Int = 32, maxPerKey: Int = 16) {
        self.retention = retention
        self.maxRecords = max(maxRecords, InMemoryStoryStore.chunkSize)
        self.maxCandidates = maxCandidates
        self.maxPerKey = max(1, maxPerKey)
        bits = InMemoryStoryStore.minimumBits
        slots = InMemoryStoryStore.allocate(bits: bits)
    }

    deinit { InMemoryStoryStore.free(slots, bits: bits) }

    /// A pthread mutex (as SerialThread uses): ThreadSanitizer sees its ordering, which it does
    /// not see in Synchronization's Mutex (a futex over atomics built without TSan).
    final class StoreLock: @unchecked Sendable {
        let mutex: UnsafeMutablePointer<pthread_mutex_t>

        init() {
            mutex = .allocate(capacity: 1)
            mutex.initialize(to: pthread_mutex_t())
            pthread_mutex_init(mutex, nil)
        }

        deinit {
            pthread_mutex_destroy(mutex)
            mutex.deallocate()
        }

        @inline(__always) func withLock<R>(_ body: (()) throws -> R) rethrows -> R {
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(())
        }
    }

    /// Records remembered now.
    public var count: Int { lock.withLock { _ in liveRecords } }
    /// Slots in the index (8 bytes each).
    public var indexCapacity: Int { lock.withLock { _ in 1 << bits } }

    public func candidates(keys: [UInt64], _ visit: (UnsafePointer<StoryRecord>) -> Void) {
        lock.withLock { _ in collectLocked(keys: keys, visit) }
    }

    func collectLocked(keys: [UInt64], _ visit: (UnsafePointer<StoryRecord>) -> Void) {
        guard let firstChunk = chunks.first else { return }
        let firstSeq = firstChunk.startSeq
        let shift = UInt32(32 - bits)
        let mask = (1 << bits) - 1
        let slots = self.slots
        var seqs = seqBuffer
        seqBuffer = []
        seqs.removeAll(keepingCapacity: true)
        // The first keys (identity, exact title, numbers) bring all their records; the bands
        // add their most recent ones while there are fewer than maxCandidates.
        // The keys' home slots are far apart in a large table: load them all first, so the
        // processor waits for the misses side by side instead of one after the other.
        var touched: UInt64 = 0
        for key in keys { touched ^= slots[Int(UInt32(truncatingIfNeeded: key >> 32) >> shift)] }
        var priority = 0
        for (n, key) in keys.enumerated() {
            if n == priorityKeys { priority = seqs.count }
            let fp = UInt32(truncatingIfNeeded: key >> 32)
            var pos = Int(fp >> shift)
            while true {
                let e = slots[pos]
                if e == 0 { break }
                if UInt32(truncatingIfNeeded: e >> 32) == fp {
                    let seq = UInt32(truncatingIfNeeded: e)
                    if seq >= firstSeq, !seqs.contains(seq) { seqs.append(seq) }
                }
                pos = (pos + 1) & mask
            }
        }
        if keys.count <= priorityKeys { priority = seqs.count }
        let room = max(0, maxCandidates - priority)
        if seqs.count - priority > room {
            seqs[priority...].sort(by: >)
            seqs.removeLast(seqs.count - priority - room)
        }
        seqBuffer = seqs
        // The same for the records' first cache lines.
        for seq in seqs {
            let offset = Int(seq - firstSeq)
            touched ^= chunks[offset >> InMemoryStoryStore.chunkShift].records.withUnsafeBufferPointer {
                $0[offset & (InMemoryStoryStore.chunkSize - 1)].identity
            }
        }
        if touched == 0x5EED { sink &+= 1 }
        for seq in seqs {
            let offset = Int(seq - firstSeq)
            let chunk = chunks[offset >> InMemoryStoryStore.chunkShift]
            chunk.records.withUnsafeBufferPointer { visit($0.baseAddress! + (offset & (InMemoryStoryStore.chunkSize - 1))) }
        }
    }

    public func insert(_ record: StoryRecord, keys: [UInt64]) {
        lock.withLock { _ in
            if chunks.isEmpty || chunks[chunks.count - 1].records.count == InMemoryStoryStore.chunkSize {
                expireLocked(now: record.seen)
                if nextSeq > UInt32.max - UInt32(2 * InMemoryStoryStore.chunkSize) { rebuildLocked(renumber: true) }
                chunks.append(Chunk(startSeq: nextSeq))
            }
            let chunk = chunks[chunks.count - 1]
            chunk.records.append(record)
            chunk.keyCount += keys.count
            if record.seen > chunk.newestSeen { chunk.newestSeen = record.seen }
            let seq = nextSeq
            nextSeq += 1
            liveRecords += 1
            liveKeys += keys.count
            if (occupied + keys.count) * 4 > (1 << bits) * 3 { rebuildLocked(renumber: false) }
            let shift = 32 - bits
            let mask = (1 << bits) - 1
            let firstSeq = chunks[0].startSeq
            for key in keys {
                let fp = UInt32(truncatingIfNeeded: key >> 32)
                var pos = Int(fp >> UInt32(shift))
                // A key keeps its `maxPerKey` most recent records: past that, the new entry
                // takes the place of the key's oldest. A forgotten record's slot is taken first.
                var same = 0
                var oldestPos = -1
                var oldestSeq = UInt32.max
                var target = -1
                while true {
                    let e = slots[pos]
                    if e == 0 { break }
                    let eseq = UInt32(truncatingIfNeeded: e)
                    if eseq < firstSeq { target = pos; break }
                    if UInt32(truncatingIfNeeded: e >> 32) == fp {
                        same += 1
                        if eseq < oldestSeq { oldestSeq = eseq; oldestPos = pos }
                    }
                    pos = (pos + 1) & mask
                }
                if target < 0, same >= maxPerKey { target = oldestPos }
                if target >= 0 {
                    slots[target] = UInt64(fp) << 32 | UInt64(seq)
                } else {
                    slots[pos] = UInt64(fp) << 32 | UInt64(seq)
                    occupied += 1
                }
            }
        }
    }

    /// Forgets the records seen before `now - retention` (whole chunks: a chunk goes when its
    /// newest record is that old) and the oldest beyond `maxRecords`.
    public func expire(now: Int64) {
        lock.withLock { _ in expireLocked(now: now) }
    }

    func expireLocked(now: Int64) {
        let cutoff = now &- retention
        while let oldest = chunks.first, oldest.newestSeen < cutoff || liveRecords - oldest.records.count >= maxRecords {
            liveRecords -= oldest.records.count
            liveKeys -= oldest.keyCount
            chunks.removeFirst()
        }
        if chunks.isEmpty, occupied > 0 {
            // Everything is forgotten: start over with an empty table.
            InMemoryStoryStore.free(slots, bits: bits)
            bits = InMemoryStoryStore.minimumBits
            slots = InMemoryStoryStore.allocate(bits: bits)
            occupied = 0
        }
    }

    /// A new table holding the live slots only, sized for twice the live keys.
    func rebuildLocked(renumber: Bool) {
        let firstSeq = chunks.first?.startSeq ?? nextSeq
        var newBits = InMemoryStoryStore.minimumBits
        while (1 << newBits) < (liveKeys + 1) * 2, newBits < 32 { newBits += 1 }
        let delta: UInt32 = renumber ? firstSeq - 1 : 0
        let newSlots = InMemoryStoryStore.allocate(bits: newBits)
        let newShift = 32 - newBits
        let newMask = (1 << newBits) - 1
        var newOccupied = 0
        for i in 0..<(1 << bits) {
            let e = slots[i]
            guard e != 0 else { continue }
            let seq = UInt32(truncatingIfNeeded: e)
            guard seq >= firstSeq else { continue }
            let fp = UInt32(truncatingIfNeeded: e >> 32)
            var pos = Int(fp >> UInt32(newShift))
            while newSlots[pos] != 0 { pos = (pos + 1) & newMask }
            newSlots[pos] = UInt64(fp) << 32 | UInt64(seq - delta)
            newOccupied += 1
        }
        InMemoryStoryStore.free(slots, bits: bits)
        slots = newSlots
        bits = newBits
        occupied = newOccupied
        if renumber, delta > 0 {
            chunks = chunks.map { old in
                let c = Chunk(startSeq: old.startSeq - delta)
                c.records = old.records
                c.keyCount = old.keyCount
                c.newestSeen = old.newestSeen
                return c
            }
            nextSeq -= delta
        }
    }

    /// The table's memory: anonymous pages (zero, touched as used), with transparent huge pages
    /// asked for when it is large (fewer TLB misses on lookups that land anywhere in it).
    static func allocate(bits: Int) -> UnsafeMutablePointer<UInt64> {
        let bytes = (1 << bits) * 8
        #if canImport(Glibc)
        if bytes >= 4 << 20 {
            let p = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
            if let p, p != MAP_FAILED {
                _ = madvise(p, bytes, 14) // MADV_HUGEPAGE
                return p.bindMemory(to: UInt64.self, capacity: 1 << bits)
            }
        }
        #endif
        let p = UnsafeMutablePointer<UInt64>.allocate(capacity: 1 << bits)
        p.initialize(repeating: 0, count: 1 << bits)
        return p
    }

    static func free(_ p: UnsafeMutablePointer<UInt64>, bits: Int) {
        let bytes = (1 << bits) * 8
        #if canImport(Glibc)
        if bytes >= 4 << 20 {
            munmap(UnsafeMutableRawPointer(p), bytes)
            return
        }
        #endif
        p.deallocate()
    }
}
