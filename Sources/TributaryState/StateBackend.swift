import TributaryBase
import TributaryJSON
import TributaryOptions
import TributaryPostgres

/// Where Tributary remembers what it did: emitted ids (global across sources), HTTP validators,
/// sinks' windows of recent items, each source's run history and request quotas. Two
/// implementations: `SQLiteState` (one file, one process at a time) and a shared database.
///
/// Contract:
/// - Every call happens on the engine's delivery thread (`SerialThread`), never on the
///   cooperative pool: implementations may block.
/// - What one delivered batch changes is written in one transaction (`begin()`): its ids, the
///   validators of the responses it came from, the sinks' windows, and with the source's last
///   batch its run record. An id is claimed (`claim`) before the sinks write and committed only
///   after they have; a rollback leaves no trace, so an undelivered item is emitted again.
/// - `claim` is where a shared backend makes ids exclusive: until the transaction ends, no
///   other writer can claim the same id, so no item is emitted twice.
/// - Leases say which worker runs a source now (Docs/scale-out.md). A worker leases a source
///   before it runs it (`claimDue` in `watch`, `lease` in `run`), renews the lease about every
///   third of its duration while the source runs or waits to (`renewLeases`, all of them in one
///   call), and ends it with the run's record, in the same transaction
///   (`StateTransaction.releaseLease`). A lease that is not renewed expires, and then another
///   worker may take the source over. A backend that only one process can hold at a time
///   (`SQLiteState`: its file lock) grants every lease: it has nobody to share with.
public protocol StateBackend: AnyObject, Sendable {
    /// The state's location for messages: a path, or a URL without its password.
    var location: String { get }

    /// Starts a transaction for one batch.
    func begin() throws(StateError) -> any StateTransaction

    /// What is known about these sources (absent: never run).
    func sourceStates(_ names: [String]) throws(StateError) -> [String: SourceState]
    /// The validators (ETag / Last-Modified) stored for the requests of one scope (a source).
    func validators(scope: String) throws(StateError) -> [String: HTTPValidators]
    /// `validators(scope:)` of each of `scopes` (every one present, empty when it has none), in
    /// one read where the backend can: a shared state answers in one round trip what would
    /// take one per source (`StateGateway.prefetchValidators`).
    func validators(scopes: [String]) throws(StateError) -> [String: [String: HTTPValidators]]
    /// A read costs a round trip to a server: reading ahead for many sources at once pays
    /// (`StateGateway.prefetchValidators`). False for a state in this process.
    var readsCostRoundTrips: Bool { get }
    /// The body stored with a validator, to answer a 304.
    func cachedBody(_ key: String) throws(StateError) -> [UInt8]?
    /// A sink's remembered items as JSON lines, newest first.
    func window(sink: String) throws(StateError) -> [[UInt8]]
    /// Requests used in the current window of `per` seconds, and when the window resets.
    func quotaUsed(source: String, per: Double, now: Double) throws(StateError) -> (used: Int, resets: Double)
    /// The cumulative counters that are not a source's (HTTP answers by status, sinks' items
    /// and failures), over the life of the state.
    func counters() throws(StateError) -> [StateCounter]
    /// New items per day of these sources (`NewPerDay`: days since 1970 in UTC), from day
    /// `since` on, by source and day; days without new items are absent. The status page's
    /// charts; kept for `NewPerDay.keptDays` days.
    func newPerDay(_ names: [String], since day: Int) throws(StateError) -> [String: [Int: Int]]
    /// Marks the sources still in the config, so their records survive retention.
    func touchConfigured(_ names: [String], now: Double) throws(StateError)
    /// Forgets what retention says to forget; returns rows removed.
    @discardableResult
    func prune(retention: Double, now: Double) throws(StateError) -> Int
    /// The values kept under these keys of `namespace` (what processors remember: a page's
    /// extracted text, a story's record), by key; keys with none are absent.
    func values(namespace: String, keys: [String]) throws(StateError) -> [String: [UInt8]]
    /// Closes the state (for a file: checkpoints its journal and releases its lock). Idempotent;
    /// nothing may be called after it.
    func close()

    // MARK: leases

    /// Leases to `worker`, for `lease` seconds, the sources among `candidates` that are due at
    /// `now` (never run, or their next due time has passed) and that no other worker holds, at
    /// most `limit` of them, soonest due first, and returns them with their records. Atomic: two
    /// workers asking at once never get the same source. `nextCheck` says when one of the
    /// candidates not returned may be due next (its due time, or when another worker's lease
    /// on it runs out), and `later` says it of each candidate that is not due or is held.
    func claimDue(_ candidates: [SourceKey], worker: String, lease: Double, limit: Int, now: Double) throws(StateError) -> DueClaim
    /// Leases these sources to `worker` for `lease` seconds, due or not (`run`); returns the
    /// ones another worker holds, with that worker's name. The others are leased.
    func lease(_ sources: [SourceKey], worker: String, lease: Double) throws(StateError) -> [String: String]
    /// Extends `worker`'s leases on `sources` by `lease` seconds from now, in one statement.
    /// Returns the sources whose lease is no longer `worker`'s, each with the worker holding it
    /// now (the lease ran out and was taken over; `""` when nobody holds it): those are left
    /// unchanged.
    func renewLeases(_ sources: [String], worker: String, lease: Double) throws(StateError) -> [String: String]
}

extension StateBackend {
    public var readsCostRoundTrips: Bool { false }

    /// One `validators(scope:)` after another: for a state in this process, where a read costs
    /// no round trip.
    public func validators(scopes: [String]) throws(StateError) -> [String: [String: HTTPValidators]] {
        var out: [String: [String: HTTPValidators]] = [:]
        for scope in scopes { out[scope] = try validators(scope: scope) }
        return out
    }
}

/// A source as leases know it: a shared state registers the sources it has not seen yet.
public struct SourceKey: Sendable, Hashable {
    public var name: String
    public var type: String
    public init(name: String, type: String) {
        self.name = name
        self.type = type
    }
}

/// What `StateBackend.claimDue` leased, and when to ask again.
public struct DueClaim: Sendable {
    /// The sources leased to the asking worker, soonest due first, with their records (a source
    /// that never ran has an empty record).
    public var claimed: [(name: String, state: SourceState)]
    /// When one of the other candidates may be due (absolute seconds); nil: none is expected.
    public var nextCheck: Double?
    /// Each candidate not leased because it is not due yet or another worker holds it, with
    /// when it may be (its due time, or when that lease runs out, whichever is later). A
    /// candidate that is due and free but was left out by `limit` is not here: the worker offers
    /// it again at its next look, while one here waits for its time (`DueQueue.postpone`).
    public var later: [(name: String, at: Double)]
    public init(claimed: [(name: String, state: SourceState)], nextCheck: Double?, later: [(name: String, at: Double)] = []) {
        self.claimed = claimed
        self.nextCheck = nextCheck
        self.later = later
    }
}

/// One batch's changes; nothing is visible to other readers before `commit`.
public protocol StateTransaction: AnyObject {
    /// Records these ids as emitted (new ones inserted; known ones' last-seen time refreshed,
    /// and their content hash updated when the same source sends them) and returns, for each,
    /// what was known before: nil when the id is new to this state.
    func claim(_ ids: [EmittedID], now: Double) throws(StateError) -> [KnownID?]
    func storeValidators(_ validators: [(key: String, response: CachedResponse)], now: Double) throws(StateError)
    func replaceWindow(sink: String, items: [WindowItem]) throws(StateError)
    /// A finished run of a source: success resets the failure count, a failure raises it and
    /// the total of failed runs; the run's duration is kept.
    func recordRun(_ run: RunRecord) throws(StateError)
    /// Adds one batch's counts to its source's cumulative counters, creating the source's
    /// record when it has none (a first run's first batch): items fetched, items delivered, and,
    /// when it delivered any, `now` as the time of its newest delivery and the new items added
    /// to its count of the day of `now` (`newPerDay`).
    func addSourceCounts(_ counts: SourceCounts) throws(StateError)
    /// Adds to cumulative counters that are not a source's (`StateCounter.Name`); a counter not seen
    /// before starts at 0.
    func addCounters(_ deltas: [StateCounter]) throws(StateError)
    /// When a source is next due, without recording a run (a quota skip).
    func setNextDue(source: String, type: String, due: Double, now: Double) throws(StateError)
    /// Ends `worker`'s lease on `source` (another worker's lease is left alone).
    func releaseLease(source: String, worker: String) throws(StateError)
    /// Sets these values of `namespace` (inserted or replaced), as of `now` (retention forgets
    /// a value not set for longer than `state.retention`). Keys may be of any length: the state
    /// keys them on their SHA-256, as it does ids.
    func putValues(namespace: String, _ values: [(key: String, value: [UInt8])], now: Double) throws(StateError)
    /// Inserts the values whose keys `namespace` does not hold yet and returns, for each, the
    /// value already there (nil: this one was inserted). Like `claim`, exclusive: until this
    /// transaction ends, another one claiming a key it claimed (inserted or found) waits, then
    /// finds what this one committed, so a transaction may replace a value it claimed
    /// (`putValues`) without another one reading the old value meanwhile. Claim all the keys a
    /// transaction needs in one call: each call takes them in one order (the keys' hashes), so
    /// two transactions cannot wait for each other.
    func claimValues(namespace: String, _ values: [(key: String, value: [UInt8])], now: Double) throws(StateError) -> [[UInt8]?]
    /// The values under these keys of `namespace` as this transaction sees them (what it set or
    /// claimed itself, else what is committed), by key; keys with none are absent. Takes no
    /// claim.
    func values(namespace: String, keys: [String]) throws(StateError) -> [String: [UInt8]]
    func commit() throws(StateError)
    /// Undoes everything since `begin`; never fails (a failed rollback leaves the transaction
    /// to the database, which discards it).
    func rollback()
}

/// What the state store remembers about one source. The totals count from the source's first
/// record to now (they survive as long as the record does: retention drops the records of
/// sources removed from the config), so `rate()` over them works across runs.
public struct SourceState: Sendable, Equatable {
    public var lastRun: Double?
    public var lastSuccess: Double?
    /// Failed runs in a row (0 after a success).
    public var failures: Int
    public var nextDue: Double?
    public var lastError: String?
    /// The source's type when it was last recorded.
    public var type: String?
    /// Items fetched, in total (after `max_items`).
    public var fetchedTotal: Int
    /// Items delivered to the sinks, in total (`status`'s `emitted`).
    public var emittedTotal: Int
    /// Failed runs, in total.
    public var failuresTotal: Int
    /// When the source last delivered a new item.
    public var lastNew: Double?
    /// When the source was first recorded (its first batch or run).
    public var firstRecorded: Double?
    /// How long its last recorded run took, seconds.
    public var lastDuration: Double?

    public init(lastRun: Double? = nil, lastSuccess: Double? = nil, failures: Int = 0, nextDue: Double? = nil, lastError: String? = nil,
                type: String? = nil, fetchedTotal: Int = 0, emittedTotal: Int = 0, failuresTotal: Int = 0,
                lastNew: Double? = nil, firstRecorded: Double? = nil, lastDuration: Double? = nil) {
        self.lastRun = lastRun
        self.lastSuccess = lastSuccess
        self.failures = failures
        self.nextDue = nextDue
        self.lastError = lastError
        self.type = type
        self.fetchedTotal = fetchedTotal
        self.emittedTotal = emittedTotal
        self.failuresTotal = failuresTotal
        self.lastNew = lastNew
        self.firstRecorded = firstRecorded
        self.lastDuration = lastDuration
    }
}

/// What one delivered batch adds to its source's totals.
public struct SourceCounts: Sendable, Equatable {
    public var source: String
    public var type: String
    public var fetched: Int
    public var new: Int
    public var now: Double
    public init(source: String, type: String, fetched: Int, new: Int, now: Double) {
        self.source = source
        self.type = type
        self.fetched = fetched
        self.new = new
        self.now = now
    }
}

/// A cumulative counter that is not a source's: its name, its one label's value, its count.
public struct StateCounter: Sendable, Equatable, Hashable {
    public enum Name: String, Sendable, CaseIterable {
        /// HTTP answers by status code (`"200"`, `"304"`), `"error"` for a transfer that got no
        /// answer (refused, timed out, reset).
        case httpRequests = "http_requests"
        /// Items a sink wrote; the label is the sink's name (`Delivery.Options.sinkNames`).
        case sinkWritten = "sink_written"
        /// Times a sink failed (open, write or close).
        case sinkFailures = "sink_failures"
        /// Items a sink rejected for good (`SinkContext.reject`: too large for its server) and
        /// that were recorded as delivered; the label is the sink's name.
        case sinkRejected = "sink_rejected"
        /// Times a filter rule could not tell whether an item matches (a `regex` that reached
        /// PCRE2's match limit); the label is the rule's key path (`FilterRule.path`).
        case filterErrors = "filter_errors"
        /// Copies of a story already emitted that `stories` kept back (`action: drop`); the
        /// label is the source that fetched them.
        case storyDuplicates = "story_duplicates"
        /// What a source's processors counted with `ProcessorContext.count` (`no content`):
        /// the label is `<source>\n<what>` (`Processed.label`).
        case processed = "processed"
    }
    public var name: Name
    public var label: String
    public var value: Int
    public init(_ name: Name, _ label: String, _ value: Int) {
        self.name = name
        self.label = label
        self.value = value
    }
}

/// One id with the source that sent it and the hash of its content.
public struct EmittedID: Sendable {
    public var id: String
    public var source: String
    public var hash: String
    public init(id: String, source: String, hash: String) {
        self.id = id
        self.source = source
        self.hash = hash
    }
}

/// What state knew about an id: the source that first emitted it, its content hash then.
public struct KnownID: Sendable, Equatable {
    public var source: String
    public var hash: String
    public init(source: String, hash: String) {
        self.source = source
        self.hash = hash
    }
}

/// One item of a sink's window: its id, the time it sorts by, its JSON line.
public struct WindowItem: Sendable {
    public var id: String
    public var sortTime: Double
    public var line: [UInt8]
    public init(id: String, sortTime: Double, line: [UInt8]) {
        self.id = id
        self.sortTime = sortTime
        self.line = line
    }
}

/// The bookkeeping of one finished source run.
public struct RunRecord: Sendable {
    public var source: String
    public var type: String
    public var success: Bool
    public var error: String?
    public var nextDue: Double
    public var now: Double
    /// Attempts sent to the network, counted against `quotaPer` when the source has a quota.
    public var requests: Int
    public var quotaPer: Double?
    /// How long the run took, seconds.
    public var seconds: Double?

    public init(source: String, type: String, success: Bool, error: String?, nextDue: Double, now: Double, requests: Int = 0, quotaPer: Double? = nil, seconds: Double? = nil) {
        self.source = source
        self.type = type
        self.success = success
        self.error = error
        self.nextDue = nextDue
        self.now = now
        self.requests = requests
        self.quotaPer = quotaPer
        self.seconds = seconds
    }
}

/// The days of `StateBackend.newPerDay`: whole days since 1970-01-01 in UTC, so every worker
/// and every reader agrees on them whatever its time zone.
public enum NewPerDay {
    /// Days a count is kept: `prune` forgets older ones, whatever `state.retention` says.
    public static let keptDays = 30

    /// The UTC day of `seconds` since 1970.
    public static func day(_ seconds: Double) -> Int { Int((seconds / 86400).rounded(.down)) }
}
