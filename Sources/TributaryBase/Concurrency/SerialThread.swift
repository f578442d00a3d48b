import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One dedicated thread that runs jobs one at a time, in the order they were submitted; async
/// callers suspend until their job has run. Blocking work (SQLite, fsync, a sink's file or
/// socket) runs here instead of on the cooperative thread pool, which has only as many threads
/// as cores, and whatever a job touches is confined to this thread.
///
/// Threading rule (why `@unchecked Sendable` is sound): `jobs` is touched only with `mutex`
/// held; `thread` is written before any job is submitted and only read afterwards.
public final class SerialThread: @unchecked Sendable {
    private struct Jobs {
        var queue: [() -> Void] = []
        var head = 0
        var stopping = false
        var finished = false
    }

    private let pair = MutexCondition()
    private var mutex: UnsafeMutablePointer<pthread_mutex_t> { pair.mutex }
    private var wake: UnsafeMutablePointer<pthread_cond_t> { pair.condition }
    private var jobs = Jobs()
    private var thread = pthread_t()
    private let name: String

    public init(name: String) {
        self.name = name
        // Detached: `stop` waits for the loop to finish through `jobs.finished`, so the thread
        // can also be stopped from itself (the owner released on it) without a join. The
        // thread holds a reference until its loop ends (after `stop()`).
        thread = DetachedThread.start(name: name, stackSize: 4 << 20) { [self] in loop() }
    }

    deinit { pair.destroy() }

    private func loop() {
        while true {
            pthread_mutex_lock(mutex)
            while jobs.head == jobs.queue.count && !jobs.stopping { pthread_cond_wait(wake, mutex) }
            if jobs.head == jobs.queue.count {
                jobs.finished = true
                pthread_cond_broadcast(wake)
                pthread_mutex_unlock(mutex)
                return
            }
            let job = jobs.queue[jobs.head]
            // The slot lets go of the job now, so what it captured (a batch of items, its
            // statements) is freed when it has run, not when the queue is next compacted: that
            // was up to 256 jobs later, 11 MB of delivered items at the peak of a 2,000-page run.
            jobs.queue[jobs.head] = {}
            jobs.head += 1
            if jobs.head >= 256 && jobs.head * 2 >= jobs.queue.count {
                jobs.queue.removeFirst(jobs.head)
                jobs.head = 0
            }
            pthread_mutex_unlock(mutex)
            job()
        }
    }

    /// glibc's `pthread_setname_np` (hidden behind _GNU_SOURCE from Swift), looked up once; the
    /// name shows in `top -H`, `perf` and gdb.
    private func submit(_ job: @escaping () -> Void) {
        pthread_mutex_lock(mutex)
        let stopping = jobs.stopping
        if !stopping {
            jobs.queue.append(job)
            pthread_cond_signal(wake)
        }
        pthread_mutex_unlock(mutex)
        precondition(!stopping, "a job was submitted to the \(name) thread after stop()")
    }

    /// Runs `body` on the thread and returns its result; the caller suspends meanwhile.
    ///
    /// The result travels through a `Handoff`, not through the continuation: the caller reads
    /// what the job wrote (a class the job created, say) after an acquiring load that pairs
    /// with the job's releasing store, an ordering ThreadSanitizer sees. Resuming a
    /// continuation orders them as well, but TSan does not always see that edge (it reported
    /// the engine reading a `SourceRun` that `Delivery.begin` had just created, and a result
    /// passed through `withUnsafeContinuation`), and a race report it cannot check is one that
    /// hides real ones.
    public func run<T: Sendable, E: Error>(_ body: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let handoff = Handoff<Result<T, E>>()
        await withCheckedContinuation { (cont: CheckedContinuation<Void, Never>) in
            submit {
                let result: Result<T, E>
                do throws(E) { result = .success(try body()) } catch { result = .failure(error) }
                handoff.put(result)
                cont.resume()
            }
        }
        return try handoff.take().get()
    }

    /// Runs `body` on the thread and blocks until it has run: for callers that are neither
    /// this thread nor the cooperative pool (the CLI's start-up and shutdown, tests).
    public func runAndWait<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T {
        precondition(!isCurrent, "runAndWait on the \(name) thread itself would deadlock")
        let box = Locked<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        submit {
            let value = body()
            box.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return box.withLock { $0! }
    }

    /// Runs `job` on the thread later, without waiting for it: work whose result nobody waits
    /// for (the state's copy of its write-ahead log into the database file).
    public func post(_ job: @escaping @Sendable () -> Void) { submit(job) }

    /// True on this thread.
    public var isCurrent: Bool { pthread_equal(pthread_self(), thread) != 0 }

    /// Traps in debug builds anywhere but on this thread: confinement checked, not agreed.
    @inline(__always)
    public func assertCurrent(_ what: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) {
        assert(isCurrent, "\(what()) must run on the \(name) thread", file: file, line: line)
    }

    /// Runs the jobs already submitted, then ends the thread; waits for that unless called on
    /// the thread itself. Idempotent.
    public func stop() {
        let wait = !isCurrent
        pthread_mutex_lock(mutex)
        jobs.stopping = true
        pthread_cond_broadcast(wake)
        while wait && !jobs.finished { pthread_cond_wait(wake, mutex) }
        pthread_mutex_unlock(mutex)
    }
}

/// A job's result on its way from the thread to the caller that awaited it: written before a
/// releasing store, read after an acquiring load. The continuation orders the two as well, but
/// inside the Swift runtime, where ThreadSanitizer does not see it; this says it where it does
/// (one allocation, where a `Locked` box took two and a mutex's setup).
final class Handoff<T>: @unchecked Sendable {
    // Why `@unchecked Sendable`: `value` is written once, before `ready` is set, and read only
    // after `ready` was seen set.
    private var value: T?
    private let ready = Atomic<Bool>(false)

    init() {}

    func put(_ v: T) {
        value = v
        ready.store(true, ordering: .releasing)
    }

    func take() -> T {
        precondition(ready.load(ordering: .acquiring), "Handoff.take before put")
        return value!
    }
}
