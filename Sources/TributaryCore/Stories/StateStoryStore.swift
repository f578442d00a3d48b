import TributaryStories

/// The story matcher's store over one batch's state transaction (`StoryStore`), in the `kv`
/// values of the namespace `stories`:
///
/// - `k<16 hex>`: a key of the matcher's index (`StoryKeys`: an identity, an exact title, the
///   title's numbers, a MinHash band) -> the records filed under it, newest last: a version
///   byte (1), then each record's reference (the hash of its item's id, 8 bytes, little
///   endian), at most `maxPerKey`;
/// - `r<16 hex>`: a record's reference -> the record (`StoryRecord.encoded`).
///
/// A batch `load`s the keys of all its items at once: the lists are claimed
/// (`StateTransaction.claimValues`: exclusive, so a worker that files a copy under a key
/// another worker's open batch holds waits for that batch and then finds its record) and the
/// records they name are read. The matcher then looks up and files the batch's items in that
/// view, one after the other (a copy in the same batch finds the first), and `save` writes the
/// new records and the lists that grew in the same transaction: they commit with the batch,
/// or not at all. Retention: the state forgets a value not set for longer than
/// `state.retention` (a record; a list not added to), and a list drops the references whose
/// record is gone or older than that when it is written again.
///
/// Threading rule: used by one `StoryStage`, on the delivery thread.
final class StateStoryStore: StoryStore {
    static let namespace = "stories"
    /// The records a key keeps (the most recent): a key that many titles share stays cheap.
    let maxPerKey = 16
    /// The records of the first `priorityKeys` keys of a lookup all come back; those of the
    /// others (the MinHash bands) only while there are fewer than `maxCandidates`.
    let priorityKeys = 3
    let maxCandidates = 32
    /// Seconds a record is kept (`state.retention`).
    let retention: Int64

    /// The batch's view: each loaded key's references (oldest first), the records they name
    /// (and those the batch filed), where each record is in `records`.
    private var lists: [UInt64: [UInt64]] = [:]
    private var records: [StoryRecord] = []
    private var index: [UInt64: Int] = [:]
    private var grown: Set<UInt64> = []
    private var filed: [Int] = []
    private var now: Int64 = 0

    init(retention: Double) {
        self.retention = Int64(retention.rounded())
    }

    static func listKey(_ key: UInt64) -> String { "k" + hex(key) }
    static func recordKey(_ ref: UInt64) -> String { "r" + hex(ref) }

    static func hex(_ v: UInt64) -> String {
        let digits = String(v, radix: 16)
        return String(repeating: "0", count: 16 - digits.utf8.count) + digits
    }

    /// Claims the lists of `keys` in `tx` and reads the records they name: the view the
    /// batch's lookups see.
    func load(keys: [UInt64], from tx: any StateTransaction, now: Double) throws(StateError) {
        lists = [:]
        records = []
        index = [:]
        grown = []
        filed = []
        self.now = Int64(now)
        var unique: [UInt64] = []
        var seen = Set<UInt64>()
        for k in keys where seen.insert(k).inserted { unique.append(k) }
        guard !unique.isEmpty else { return }
        // A list is claimed with an empty one: a key no batch filed a record under yet is held
        // all the same, so a second worker filing a copy under it waits for this batch.
        let found = try tx.claimValues(namespace: Self.namespace, unique.map { (Self.listKey($0), [1]) }, now: now)
        var refs: [UInt64] = []
        var wanted = Set<UInt64>()
        for (k, bytes) in zip(unique, found) {
            let list = bytes.map(Self.decodeList) ?? []
            lists[k] = list
            for r in list where wanted.insert(r).inserted { refs.append(r) }
        }
        guard !refs.isEmpty else { return }
        let values = try tx.values(namespace: Self.namespace, keys: refs.map(Self.recordKey))
        let oldest = self.now &- retention
        for r in refs {
            guard let bytes = values[Self.recordKey(r)], let record = StoryRecord(encoded: bytes), record.seen >= oldest else { continue }
            index[r] = records.count
            records.append(record)
        }
    }

    func candidates(keys: [UInt64], _ visit: (UnsafePointer<StoryRecord>) -> Void) {
        var picked: [Int] = []
        var priority = 0
        for (n, key) in keys.enumerated() {
            if n == priorityKeys { priority = picked.count }
            // Newest first, so the bands' cap keeps the most recent.
            for r in (lists[key] ?? []).reversed() {
                guard let i = index[r], !picked.contains(i) else { continue }
                if n >= priorityKeys && picked.count >= max(maxCandidates, priority) { break }
                picked.append(i)
            }
        }
        records.withUnsafeBufferPointer { b in
            for i in picked { visit(b.baseAddress! + i) }
        }
    }

    func insert(_ record: StoryRecord, keys: [UInt64]) {
        let ref = record.item
        if let i = index[ref] {
            records[i] = record
        } else {
            index[ref] = records.count
            records.append(record)
        }
        filed.append(index[ref]!)
        for k in keys {
            var list = lists[k] ?? []
            list.removeAll { $0 == ref }
            list.append(ref)
            lists[k] = list
            grown.insert(k)
        }
    }

    /// Writes the records the batch filed and the lists that grew, in `tx`.
    func save(to tx: any StateTransaction, now: Double) throws(StateError) {
        guard !filed.isEmpty else { return }
        var values: [(key: String, value: [UInt8])] = []
        var written = Set<Int>()
        for i in filed where written.insert(i).inserted {
            values.append((Self.recordKey(records[i].item), records[i].encoded))
        }
        for k in grown.sorted() {
            // References to records forgotten (or never read back) go; the newest stay.
            let kept = (lists[k] ?? []).filter { index[$0] != nil }.suffix(maxPerKey)
            values.append((Self.listKey(k), Self.encodeList(kept)))
        }
        try tx.putValues(namespace: Self.namespace, values, now: now)
        filed = []
        grown = []
    }

    static func encodeList<C: Collection<UInt64>>(_ refs: C) -> [UInt8] {
        var out: [UInt8] = [1]
        out.reserveCapacity(1 + 8 * refs.count)
        for r in refs { withUnsafeBytes(of: r.littleEndian) { out.append(contentsOf: $0) } }
        return out
    }

    static func decodeList(_ bytes: [UInt8]) -> [UInt64] {
        guard bytes.first == 1, (bytes.count - 1) % 8 == 0 else { return [] }
        var out: [UInt64] = []
        out.reserveCapacity((bytes.count - 1) / 8)
        var at = 1
        while at < bytes.count {
            var v: UInt64 = 0
            for i in 0..<8 { v |= UInt64(bytes[at + i]) << (8 * UInt64(i)) }
            out.append(v)
            at += 8
        }
        return out
    }
}
