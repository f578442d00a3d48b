/// The configured sinks of a run, written in config order: each with its filter, its name and
/// its notes (the windows it saved and the items it rejected during a write). It opens, writes
/// and closes them and tells what happened; what is recorded of it is the delivery's.
///
/// `watch` waits out a sink that fails (`waitsOutOutages`): a failed write stops only its
/// batch, and no sink is written again until a backoff (1 s, 2 s, 4 s ... 30 s) has passed.
///
/// Threading rule (why `@unchecked Sendable` is sound): used only on the delivery thread (the
/// `StateGateway`'s), one call at a time; `interruption` and `pausedUntil` may be touched from
/// any thread and are locked.
final class SinkSet: @unchecked Sendable {
    /// What one batch's write did: items written per sink (its filter may have taken fewer, it
    /// may have rejected some), the windows saved, the rejections.
    struct Written {
        var perSink: [Int]
        var windows: [(sink: String, items: [WindowItem])] = []
        var rejections: [SinkRejection] = []
    }

    /// Why a batch was not written: a sink failed (`index`), or its reader left.
    enum Failure: Error {
        case failed(index: Int, error: SinkError, waitedOut: Bool)
        case outputClosed
        /// A failure is being waited out: the batch was not offered to the sinks.
        case paused(message: String)
    }

    private struct Member {
        let sink: any Sink
        let filter: ItemFilter?
        let name: String
        let notes = SinkNotes()
    }

    private let members: [Member]
    let lines: ItemLines
    let waitsOutOutages: Bool
    /// The sinks' `SinkContext.interruption`: set from any thread (the delivery thread may be
    /// blocked in a sink's write, waiting for exactly this).
    let interruption = StopFlag()
    private var outage: Outage?
    private let pause = Locked<Double?>(nil)

    /// A sink failure being waited out.
    struct Outage {
        var sink: Int
        var message: String
        var since: Double
        var retryAt: Double
        var backoff = StateOutage()
    }

    init(sinks: [any Sink], filters: [ItemFilter?], names: [String], lines: ItemLines, waitsOutOutages: Bool,
         requestLog: (@Sendable (_ sink: String, _ record: HTTPRequestRecord) -> Void)? = nil) {
        members = sinks.enumerated().map { i, s in
            Member(sink: s, filter: i < filters.count ? filters[i] : nil, name: i < names.count ? names[i] : "sinks[\(i)]")
        }
        self.lines = lines
        self.waitsOutOutages = waitsOutOutages
        self.requestLog = requestLog
    }

    /// `Delivery.Options.requestLog`: given to each sink's context under its name.
    private let requestLog: (@Sendable (_ sink: String, _ record: HTTPRequestRecord) -> Void)?

    var count: Int { members.count }
    var names: [String] { members.map(\.name) }
    func name(_ index: Int) -> String { members[index].name }

    /// When the sinks are tried again after a failure that is waited out (nil: now). Any thread.
    var pausedUntil: Double? { pause.withLock { $0 } }

    /// Opens every sink; `windows` loads a window from the state (nil: no state). The index of a
    /// sink whose `open` failed comes with its error.
    func open(windows: (@Sendable (String) throws(StateError) -> [[UInt8]])?, warn: @escaping @Sendable (String) -> Void) throws(SinkSetOpenError) {
        for (i, m) in members.enumerated() {
            let notes = m.notes
            let store = windows.map { load in SinkWindowStore(load: load, save: { key, items in notes.saveWindow(key, items) }) }
            var sinkLog: (@Sendable (HTTPRequestRecord) -> Void)? = nil
            if let log = requestLog {
                let name = m.name
                sinkLog = { @Sendable record in log(name, record) }
            }
            let context = SinkContext(window: store, lines: lines, interruption: interruption, warn: warn,
                                      reject: { item, reason in notes.reject(item.id, reason) }, requestLog: sinkLog)
            do throws(SinkError) { try m.sink.open(context) } catch {
                throw SinkSetOpenError(index: i, error: error)
            }
        }
    }

    /// Writes `items` to every sink, each through its filter. Throws at the first sink that
    /// fails (the sinks after it are not written).
    func write(_ items: [Item], warn: (String) -> Void, filterFailed: (FilterRuleError, Item, String) -> Void) throws(Failure) -> Written {
        var written = Written(perSink: Array(repeating: 0, count: members.count))
        for m in members { m.notes.clear() }
        guard !items.isEmpty else { return written }
        if let outage, Timestamp.now().seconds < outage.retryAt { throw .paused(message: outage.message) }
        let now = Timestamp.now().seconds
        for (i, m) in members.enumerated() {
            // A sink's filter decides which of the batch it receives; the others still get all.
            let mine = m.filter.map { f in
                f.isEmpty ? items : items.filter { item in f.passes(item, now: now) { filterFailed($0, item, m.name) } }
            } ?? items
            guard !mine.isEmpty else { continue }
            m.notes.begin()
            do throws(SinkError) { try m.sink.write(mine) } catch {
                m.notes.clear()
                if error.isOutputClosed { throw .outputClosed }
                if waitsOutOutages { wait(out: i, error, warn: warn) }
                throw .failed(index: i, error: error, waitedOut: waitsOutOutages)
            }
            let rejected = m.notes.rejections(of: mine)
            written.perSink[i] = mine.count - rejected.count
            written.rejections += rejected.map { SinkRejection(sink: m.name, id: $0.id, reason: $0.reason) }
            written.windows += m.notes.windows
            m.notes.clear()
        }
        if let outage {
            self.outage = nil
            pause.withLock { $0 = nil }
            let seconds = Timestamp.now().seconds - outage.since
            warn("\(name(outage.sink)): written again after \(outage.backoff.failures) failed attempt\(outage.backoff.failures == 1 ? "" : "s") (\(Durations.format(seconds.rounded(.up))))")
        }
        return written
    }

    /// A sink failed and failures are waited out: says so, and pauses the sinks for the next
    /// step of the backoff.
    private func wait(out index: Int, _ error: SinkError, warn: (String) -> Void) {
        let now = Timestamp.now().seconds
        var o = outage ?? Outage(sink: index, message: error.message, since: now, retryAt: now)
        o.sink = index
        o.message = error.message
        let wait = o.backoff.failed()
        o.retryAt = now + wait
        outage = o
        let retryAt = o.retryAt
        pause.withLock { $0 = retryAt }
        warn("\(name(index)) failed (attempt \(o.backoff.failures)), trying again in \(Durations.format(wait)); the batch is not recorded and comes again: \(error.message)")
    }

    /// Closes every sink; returns the failures, by sink.
    func close() -> [(index: Int, error: SinkError)] {
        var out: [(Int, SinkError)] = []
        for (i, m) in members.enumerated() {
            do throws(SinkError) { try m.sink.close() } catch { out.append((i, error)) }
        }
        return out
    }
}

/// A sink's `open` failed.
struct SinkSetOpenError: Error {
    let index: Int
    let error: SinkError
}

/// What one sink handed back while it was written: the windows it saved and the items it
/// rejected. The sink only adds to its notes (through its `SinkContext`); the sink set reads
/// them after the write, on the same thread.
final class SinkNotes: @unchecked Sendable {
    private var writing = false
    private(set) var windows: [(sink: String, items: [WindowItem])] = []
    private var rejected: [(id: String, reason: String)] = []

    func begin() { writing = true }

    func clear() {
        writing = false
        windows.removeAll()
        rejected.removeAll()
    }

    /// A window's new contents (the last save of a key wins), committed with the batch.
    func saveWindow(_ key: String, _ items: [WindowItem]) {
        windows.removeAll { $0.sink == key }
        windows.append((key, items))
    }

    /// A rejection counts only during a write.
    func reject(_ id: String, _ reason: String) {
        guard writing else { return }
        rejected.append((id, reason))
    }

    /// The rejections that name an item of the batch the sink was given, once each.
    func rejections(of batch: [Item]) -> [(id: String, reason: String)] {
        guard !rejected.isEmpty else { return [] }
        let ids = Set(batch.map(\.id))
        var seen = Set<String>()
        return rejected.filter { ids.contains($0.id) && seen.insert($0.id).inserted }
    }
}
