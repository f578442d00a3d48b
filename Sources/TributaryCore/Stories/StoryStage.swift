#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import TributaryStories

/// The `stories` stage (Docs/stories.md): one of the `Delivery`'s parts. Between the claim of
/// a batch's ids and the sinks' write (SPEC order: ids already emitted are dropped, then
/// stories, then the sinks), it gives every item the batch emits its `story`, and under
/// `action: drop` keeps back the items that are not their story's first (they are not
/// emitted; their ids, claimed with the batch, record them as seen; `duplicates` counts them).
///
/// With a state, stories are kept in it (`StateStoryStore`), inside the batch's transaction: a
/// story is remembered only if the batch commits, a second worker that sees a copy at the
/// same time waits for the first's batch and finds its story, and a dry run's transactions
/// keep what they claim in memory only. Without a state (`--no-state`, `test`) stories are
/// matched within the run, in memory.
///
/// Threading rule: used on the delivery thread only (as the sink set is), one batch at a time;
/// only the preparing of a large batch's items runs on other threads too, and it reads nothing
/// the stage or its matcher change (`prepare`).
final class StoryStage {
    let settings: StorySettings
    let matcher: StoryMatcher
    private let stateStore: StateStoryStore?

    /// `hasState`: the delivery keeps a state (stories go in its transactions); `retention`:
    /// how long a story is remembered (`state.retention`).
    init(settings: StorySettings, retention: Double, hasState: Bool) {
        self.settings = settings
        let store: any StoryStore
        if hasState {
            let s = StateStoryStore(retention: retention)
            stateStore = s
            store = s
        } else {
            stateStore = nil
            store = InMemoryStoryStore(retention: Int64(max(retention, settings.within).rounded()))
        }
        matcher = StoryMatcher(options: settings.matcherOptions, store: store)
    }

    /// What `tell` gives back: the items to emit, each with its story, and how many it kept back.
    struct Told {
        var items: [Item]
        var duplicates: Int
    }

    /// The batch's items (those the batch emits, in order) with their stories; `tx`: the
    /// batch's transaction (nil without a state).
    func tell(_ items: [Item], in tx: (any StateTransaction)?, now: Double) throws(StateError) -> Told {
        guard !items.isEmpty else { return Told(items: [], duplicates: 0) }
        let prepared = prepare(items, now: now)
        if let stateStore, let tx { try stateStore.load(keys: prepared.flatMap(\.keys), from: tx, now: now) }
        var out: [Item] = []
        out.reserveCapacity(items.count)
        var duplicates = 0
        for (item, p) in zip(items, prepared) {
            let (assignment, record) = matcher.match(p)
            matcher.remember(record)
            if settings.action == .drop && !assignment.isFirst {
                duplicates += 1
                continue
            }
            var told = item
            told.story = assignment.story.description
            out.append(told)
        }
        if let stateStore, let tx { try stateStore.save(to: tx, now: now) }
        return Told(items: out, duplicates: duplicates)
    }

    /// The fewest items a thread prepares: a batch of twice as many or more is prepared on every
    /// core (`CoreShares.count`). Preparing (the title's analysis and keys, the URL's canonical form)
    /// is most of the stage's work, about 5 µs an item, and reads nothing the matcher changes;
    /// matching and filing stay on the delivery thread, in the batch's order.
    static let preparedTogether = 16

    /// What each item is filed and looked up under, in order.
    private func prepare(_ items: [Item], now: Double) -> [PreparedStoryItem] {
        let seconds = Int64(now.rounded(.down))
        let options = matcher.options
        // One share per core (`CoreShares`), prepared in place: no share's array to join.
        let parts = CoreShares.count(of: items.count, atLeast: Self.preparedTogether)
        guard parts > 1 else { return items.map { Self.prepare($0, now: seconds, options: options) } }
        return [PreparedStoryItem](unsafeUninitializedCapacity: items.count) { out, initialized in
            items.withUnsafeBufferPointer { batch in
                let shares = Shares(items: batch, out: out.baseAddress!)
                DispatchQueue.concurrentPerform(iterations: parts) { part in
                    for i in CoreShares.range(part, of: parts, over: shares.items.count) {
                        (shares.out + i).initialize(to: Self.prepare(shares.items[i], now: seconds, options: options))
                    }
                }
            }
            initialized = items.count
        }
    }

    /// The batch and the results as the threads that prepare it see them: each thread reads
    /// and writes only the indices of its own share, and `concurrentPerform` returns after
    /// the last share is done.
    private struct Shares: @unchecked Sendable {
        let items: UnsafeBufferPointer<Item>
        let out: UnsafeMutablePointer<PreparedStoryItem>
    }

    private static func prepare(_ item: Item, now: Int64, options: StoryOptions) -> PreparedStoryItem {
        StoryMatcher.prepare(StoryItem(id: item.id, url: item.url, title: item.title, published: item.published.map { Int64($0.seconds.rounded(.down)) },
                                       tags: item.tags, source: item.source), now: now, options: options)
    }

    /// Which of `items` (those a batch would emit, in order) `tell` would emit now: under
    /// `action: drop` false for a copy of a story already told (in the state, or earlier in
    /// `items`), else true. It leaves nothing behind: it needs a state (`tx`: a transaction the
    /// caller rolls back; the store reads its view from the transaction afresh with each batch,
    /// the lists it claims here are released by the rollback, and it writes nothing), and the
    /// matcher's word sightings, which every look-up teaches, are put back as they were.
    /// Without a state the stories are the run's, in memory, which a look-up would change: the
    /// caller does not ask then.
    func wouldEmit(_ items: [Item], in tx: any StateTransaction, now: Double) throws(StateError) -> [Bool] {
        guard settings.action == .drop, let stateStore, !items.isEmpty else { return items.map { _ in true } }
        let saved = matcher.sightings.save()
        defer { matcher.sightings.restore(saved) }
        let prepared = prepare(items, now: now)
        try stateStore.load(keys: prepared.flatMap(\.keys), from: tx, now: now)
        return prepared.map { p in
            let (assignment, record) = matcher.match(p)
            matcher.remember(record)  // into this batch's view only: a copy later in `items` finds it
            return assignment.isFirst
        }
    }
}
