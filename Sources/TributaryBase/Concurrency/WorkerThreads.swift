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
/// decode of 2,000 pages took 16% less CPU. Kept on their threads, the decode's CPU fell 3%
/// to 15% across the runs measured, with the same wall time; fetching and 10,000 small sources
/// stayed level (Docs/PERFORMANCE.md, "Source runs kept on their threads").
///
/// A long job (a jq program's second on an item, a large page's parse) must not hold up the
/// tasks queued behind it while another core idles: a thread with nothing of its own to run
/// takes, one at a time, the jobs that have waited `stealAfter` or longer in another's queue.
/// A job taken so runs as its own thread's (it keeps running on the taker until it suspends),
/// and its task resumes on its own thread after that wait. A thread runs its own jobs one at a
/// time too, so those still queued stay where a peer can take them. While every thread is busy
/// nothing moves, which is when keeping a task on its thread saves the most.
///
/// Threading rule (why `@unchecked Sendable` is sound): `queue`, `head`, `rest` and
/// `peersChanged` are touched only with the thread's own mutex held; `peers` is written before
/// the thread starts and only read afterwards.
public final class WorkerThread: TaskExecutor, @unchecked Sendable {
    /// How long a job may wait behind a busy thread before an idle one takes it, in
    /// nanoseconds: 250 µs, about one page of 45 items. At 2 ms, `fulltext` with 4 pages in
    /// flight left a core idle while a page waited behind another (its 1,000 pages took 0.62 s
    /// against 0.47 s); at 250 µs the decode spent at most 2% more CPU (Docs/PERFORMANCE.md,
    /// "Source runs kept on their threads"). Tests of where tasks run lengthen it, so that a
    /// slow machine does not move their tasks.
    static let stealAfter = Atomic<UInt64>(250_000)
    /// The longest a thread naps before it looks at its peers' queues again.
    static let longestNap: UInt64 = 2_000_000

    private struct Queued {
        let job: UnownedJob
        /// When it was queued (`MutexCondition.now()`).
        let at: UInt64
    }

    /// What the thread is doing, as an enqueue must know it: running jobs, waiting for a job
    /// of its own or for a peer's first queued job (`asleep`), or waiting until a peer's queued
    /// job is old enough to take (`napping`).
    private enum Rest { case running, asleep, napping }

    private let pair = MutexCondition()
    /// The jobs queued, from `head` on (those before it have run or were taken).
    private var queue: [Queued] = []
    private var head = 0
    private var rest = Rest.running
    /// Set by an enqueue on a busy peer while this thread is asleep: look at the peers again.
    private var peersChanged = false
    private var peers: [WorkerThread] = []
    private var thread = pthread_t()
    let name: String

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
        let first = head == queue.count
        queue.append(queued)
        let resting = rest != .running
        pthread_mutex_unlock(pair.mutex)
        if resting {
            pthread_cond_signal(pair.condition)
            return
        }
        // The first job waiting behind a running one: one peer asleep looks at this queue, and
        // naps until the job is old enough to take (a napping peer looks again by itself).
        guard first else { return }
        WorkerThreads.postedToBusy.add(1, ordering: .sequentiallyConsistent)
        for p in peers where p.wakeIfAsleep() { break }
    }

    /// Wakes the thread if it is asleep, to look at its peers' queues; whether it was.
    private func wakeIfAsleep() -> Bool {
        pthread_mutex_lock(pair.mutex)
        let asleep = rest == .asleep && !peersChanged
        if asleep { peersChanged = true }
        pthread_mutex_unlock(pair.mutex)
        if asleep { pthread_cond_signal(pair.condition) }
        return asleep
    }

    /// The next job of this queue (its oldest), if it was queued at or before `cutoff`; else
    /// when the oldest was queued (nil: none queued).
    private func next(queuedBy cutoff: UInt64) -> (job: Queued?, oldest: UInt64?) {
        pthread_mutex_lock(pair.mutex)
        defer { pthread_mutex_unlock(pair.mutex) }
        guard head < queue.count else { return (nil, nil) }
        let q = queue[head]
        guard q.at <= cutoff else { return (nil, q.at) }
        head += 1
        if head == queue.count {
            queue.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1024 && head * 2 >= queue.count {
            queue.removeFirst(head)
            head = 0
        }
        return (q, nil)
    }

    private func loop() {
        let me = asUnownedTaskExecutor()
        while true {
            // Its own jobs first, one at a time: the others stay where a peer can take them.
            if let q = next(queuedBy: UInt64.max).job {
                q.job.runSynchronously(on: me)
                continue
            }
            // None: a job that waited long enough behind a busy peer, run as the peer's.
            let posted = WorkerThreads.postedToBusy.load(ordering: .sequentiallyConsistent)
            let now = MutexCondition.now(), after = Self.stealAfter.load(ordering: .relaxed)
            var soonest = UInt64.max
            var taken: (Queued, WorkerThread)? = nil
            for p in peers {
                let (job, oldest) = p.next(queuedBy: now &- min(after, now))
                if let job {
                    taken = (job, p)
                    break
                }
                if let oldest { soonest = min(soonest, oldest &+ min(after, UInt64.max - oldest)) }
            }
            if let (q, owner) = taken {
                q.job.runSynchronously(on: owner.asUnownedTaskExecutor())
                continue
            }
            // Nothing to take yet: wait for a job of its own, for a peer's job to be old
            // enough (at most `longestNap`), or (asleep) for a job queued behind a busy peer.
            pthread_mutex_lock(pair.mutex)
            if head == queue.count && WorkerThreads.postedToBusy.load(ordering: .sequentiallyConsistent) == posted {
                if soonest == UInt64.max {
                    rest = .asleep
                    while head == queue.count && !peersChanged { pthread_cond_wait(pair.condition, pair.mutex) }
                } else {
                    rest = .napping
                    if head == queue.count { pair.wait(until: min(soonest, now &+ Self.longestNap)) }
                }
                peersChanged = false
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
    /// First jobs queued behind a running one, so far: a thread about to sleep that sees it
    /// change looks at its peers' queues again first.
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
