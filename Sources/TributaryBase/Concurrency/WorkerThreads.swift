import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The threads source runs are kept on: one per core (`CoreShares.cores`), each a task executor
/// that runs its jobs in order. The engine gives each source run, and each step a source fans
/// out (`FanOut`), one of them in turn (`WorkerThreads.next`), as a task executor preference:
/// the task then resumes on that thread after every wait (a request, a delivery on the delivery
/// thread), where on the cooperative pool it resumed on whichever thread was free.
///
/// Why: a page's items are made on the thread that maps them and freed when the page's step
/// goes on after its delivery. Freed on the other thread (half the time, on the pool), every
/// string's free takes the arena lock of the thread that made it and its reference count's
/// cache line moves between the cores: with the same work on one core (`taskset -c 1`) a
/// decode of 2,000 pages took 16% less CPU. Kept on their threads, the decode's CPU fell 6%
/// and fetching's 2-7%, with the same wall time (Docs/PERFORMANCE.md, "Source runs kept on
/// their threads").
///
/// A long job (a jq program's second on an item, a large page's parse) must not hold up the
/// tasks queued behind it while another core idles: a thread with nothing of its own to run
/// takes the jobs that have waited `stealAfter` or longer in another's queue (a job taken so
/// runs there once; its task goes back to its own thread at its next wait). While every thread
/// is busy nothing moves, which is when keeping a task on its thread saves the most.
///
/// Threading rule (why `@unchecked Sendable` is sound): `queue`, `rest` and `peersChanged` are
/// touched only with the thread's own mutex held; `peers` is written before the thread starts
/// and only read afterwards; the loop's `batch` is its own.
public final class WorkerThread: TaskExecutor, @unchecked Sendable {
    /// How long a job may wait behind a busy thread before an idle one takes it, in
    /// nanoseconds (2 ms: the parse and mapping of about ten pages of 45 items). Tests of
    /// where tasks run lengthen it, so that a slow machine does not move their tasks.
    static let stealAfter = Atomic<UInt64>(2_000_000)

    private struct Queued {
        let job: UnownedJob
        /// When it was queued (`MutexCondition.now()`).
        let at: UInt64
    }

    /// What the thread is doing, as an enqueue must know it: running jobs, waiting for a job
    /// of its own or another's (`asleep`), or waiting until a job of another's is old enough
    /// to take (`napping`).
    private enum Rest { case running, asleep, napping }

    private let pair = MutexCondition()
    private var queue: [Queued] = []
    private var rest = Rest.running
    /// Set by an enqueue on a busy peer while this thread is asleep: look at the peers again.
    private var peersChanged = false
    private var peers: [WorkerThread] = []
    private var thread = pthread_t()
    private let name: String

    init(name: String) {
        self.name = name
        queue.reserveCapacity(256)
    }

    /// Starts the thread; `peers` are the threads it may take jobs from.
    func start(peers: [WorkerThread]) {
        self.peers = peers
        // A job runs a task's code synchronously on this stack (as a thread of the pool runs
        // it on its own): room for a parse 512 levels deep and libxml2's recursion.
        thread = DetachedThread.start(name: name, stackSize: 8 << 20) { [self] in loop() }
    }

    // The threads live as long as the process: no deinit frees what the loop uses.

    public func enqueue(_ job: consuming ExecutorJob) {
        let queued = Queued(job: UnownedJob(job), at: MutexCondition.now())
        pthread_mutex_lock(pair.mutex)
        let first = queue.isEmpty
        queue.append(queued)
        let resting = rest != .running
        pthread_mutex_unlock(pair.mutex)
        if resting {
            pthread_cond_signal(pair.condition)
            return
        }
        // The first job waiting behind a running one: a peer asleep looks at this queue again,
        // and takes what waits long (the jobs queued after it are seen by that look, or by the
        // next one the peer makes after its nap or its own jobs).
        guard first else { return }
        WorkerThreads.postedToBusy.add(1, ordering: .sequentiallyConsistent)
        for p in peers { p.lookAgain() }
    }

    /// Wakes the thread if it waits, to look at its peers' queues again (napping too: its
    /// deadline came from a threshold that may have changed since).
    private func lookAgain() {
        pthread_mutex_lock(pair.mutex)
        let waiting = rest != .running
        if waiting { peersChanged = true }
        pthread_mutex_unlock(pair.mutex)
        if waiting { pthread_cond_signal(pair.condition) }
    }

    /// Up to all jobs of this queue queued at or before `cutoff`, oldest first; and when the
    /// oldest left was queued (nil: none left).
    private func take(queuedBy cutoff: UInt64, into out: inout [Queued]) -> UInt64? {
        pthread_mutex_lock(pair.mutex)
        defer { pthread_mutex_unlock(pair.mutex) }
        var n = 0
        while n < queue.count && queue[n].at <= cutoff { n += 1 }
        if n > 0 {
            out.append(contentsOf: queue[0..<n])
            queue.removeFirst(n)
        }
        return queue.first?.at
    }

    private func loop() {
        let me = asUnownedTaskExecutor()
        var batch: [Queued] = []
        batch.reserveCapacity(256)
        while true {
            // Its own jobs first, all of them.
            pthread_mutex_lock(pair.mutex)
            if !queue.isEmpty {
                swap(&batch, &queue)
                pthread_mutex_unlock(pair.mutex)
                for q in batch { q.job.runSynchronously(on: me) }
                batch.removeAll(keepingCapacity: true)
                continue
            }
            pthread_mutex_unlock(pair.mutex)
            // None: the jobs that waited long enough behind a busy peer.
            let posted = WorkerThreads.postedToBusy.load(ordering: .sequentiallyConsistent)
            let now = MutexCondition.now(), after = Self.stealAfter.load(ordering: .relaxed)
            var soonest = UInt64.max
            for p in peers {
                if let oldest = p.take(queuedBy: now &- min(after, now), into: &batch) {
                    let due = oldest.addingReportingOverflow(after)
                    soonest = min(soonest, due.overflow ? UInt64.max - 1 : due.partialValue)
                }
            }
            if !batch.isEmpty {
                for q in batch { q.job.runSynchronously(on: me) }
                batch.removeAll(keepingCapacity: true)
                continue
            }
            // Nothing to take yet: wait for a job of its own, for the soonest peer job to be
            // old enough, or (asleep) for an enqueue on a busy peer.
            pthread_mutex_lock(pair.mutex)
            if queue.isEmpty && WorkerThreads.postedToBusy.load(ordering: .sequentiallyConsistent) == posted {
                if soonest == UInt64.max {
                    rest = .asleep
                    while queue.isEmpty && !peersChanged { pthread_cond_wait(pair.condition, pair.mutex) }
                    peersChanged = false
                } else {
                    rest = .napping
                    if queue.isEmpty && !peersChanged { pair.wait(until: soonest) }
                    peersChanged = false
                }
                rest = .running
            }
            pthread_mutex_unlock(pair.mutex)
        }
    }

    /// True on this thread.
    public var isCurrent: Bool { pthread_equal(pthread_self(), thread) != 0 }
}

public enum WorkerThreads {
    /// Started at the first `next()`: a command that runs no source (`check`, `--version`)
    /// starts none.
    static let all: [WorkerThread] = {
        let threads = (0..<CoreShares.cores).map { WorkerThread(name: "tributary-w\($0)") }
        for t in threads { t.start(peers: threads.filter { $0 !== t }) }
        return threads
    }()
    private static let turn = Atomic<Int>(0)
    /// Enqueues on a thread that was running jobs, so far: a thread about to sleep that sees
    /// it change looks at its peers' queues again first.
    static let postedToBusy = Atomic<Int>(0)

    /// The threads in turn: a source run, or one step of a source's fan-out, is kept on the one
    /// this gives.
    public static func next() -> WorkerThread {
        let i = turn.add(1, ordering: .relaxed).oldValue
        return all[i % all.count]
    }

    /// The thread the caller runs on, if it is one of these (tests).
    public static var current: WorkerThread? { all.first { $0.isCurrent } }
}
