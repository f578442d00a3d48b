import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The threads source runs are kept on: one per core (`CoreShares.cores`), each a task executor
/// that runs its jobs one at a time, in order. The engine gives each source run, and each step
/// a source fans out (`FanOut`), one of them in turn (`next`), as a task executor preference:
/// the task then resumes on that thread after every wait (a request, a delivery on the
/// delivery thread), where on the cooperative pool it resumed on whichever thread was free.
///
/// Why: a page's items are made on the thread that maps them and freed when the page's step
/// goes on after its delivery. Freed on the other thread (half the time, on the pool), every
/// string's free takes the arena lock of the thread that made it and its reference count's
/// cache line moves between the cores: with the same work on one core (`taskset -c 1`) a
/// decode of 2,000 pages took 16% less CPU. Kept on their threads, the decode's CPU fell 6%
/// and fetching's 2-7%, with the same wall time (Docs/PERFORMANCE.md, "Source runs kept on
/// their threads").
///
/// What runs here must not block: a job that waits holds up every task kept on its thread,
/// where the pool would have run them on another. Blocking work goes to a `SerialThread`, as
/// it already must (the pool has only as many threads as cores too).
///
/// Threading rule (why `@unchecked Sendable` is sound): `queue` and `sleeping` are touched only
/// with `mutex` held; the loop's `batch` is its own.
public final class WorkerThread: TaskExecutor, @unchecked Sendable {
    private let pair = MutexCondition()
    private var mutex: UnsafeMutablePointer<pthread_mutex_t> { pair.mutex }
    private var wake: UnsafeMutablePointer<pthread_cond_t> { pair.condition }
    private var queue: [UnownedJob] = []
    /// The thread waits on `wake`: an enqueue must signal it (otherwise it finds the job when
    /// its batch is done, without a futex call).
    private var sleeping = false
    private var thread = pthread_t()

    init(name: String) {
        queue.reserveCapacity(256)
        // A job runs a task's code synchronously on this stack (as a thread of the pool runs
        // it on its own): room for a parse 512 levels deep and libxml2's recursion.
        thread = DetachedThread.start(name: name, stackSize: 8 << 20) { [self] in loop() }
    }

    // The threads live as long as the process: no deinit frees what the loop uses.

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        pthread_mutex_lock(mutex)
        queue.append(job)
        let signal = sleeping
        pthread_mutex_unlock(mutex)
        if signal { pthread_cond_signal(wake) }
    }

    /// Takes every job queued so far in one go and runs them, then the next lot.
    private func loop() {
        let me = asUnownedTaskExecutor()
        var batch: [UnownedJob] = []
        batch.reserveCapacity(256)
        while true {
            pthread_mutex_lock(mutex)
            while queue.isEmpty {
                sleeping = true
                pthread_cond_wait(wake, mutex)
                sleeping = false
            }
            swap(&batch, &queue)
            pthread_mutex_unlock(mutex)
            for job in batch { job.runSynchronously(on: me) }
            batch.removeAll(keepingCapacity: true)
        }
    }

    /// True on this thread.
    public var isCurrent: Bool { pthread_equal(pthread_self(), thread) != 0 }
}

public enum WorkerThreads {
    /// Started at the first `next()`: a command that runs no source (`check`, `--version`)
    /// starts none.
    static let all: [WorkerThread] = (0..<CoreShares.cores).map { WorkerThread(name: "tributary-w\($0)") }
    private static let turn = Atomic<Int>(0)

    /// The threads in turn: a source run, or one step of a source's fan-out, is kept on the one
    /// this gives.
    public static func next() -> WorkerThread {
        let i = turn.add(1, ordering: .relaxed).oldValue
        return all[i % all.count]
    }

    /// The thread the caller runs on, if it is one of these.
    public static var current: WorkerThread? { all.first { $0.isCurrent } }
}
