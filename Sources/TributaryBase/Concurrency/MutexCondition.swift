#if canImport(Glibc)
import Glibc
#endif

/// A pthread mutex and a condition variable in memory of their own (a pthread object must not
/// move): what `SerialThread`, `WorkerThread` and jq's watchdog wait on. `destroy` frees them;
/// the owner calls it once, when no thread can use them any more.
public struct MutexCondition: @unchecked Sendable {
    public let mutex: UnsafeMutablePointer<pthread_mutex_t>
    public let condition: UnsafeMutablePointer<pthread_cond_t>

    public init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        // Timed waits (`wait(until:)`) count on the monotonic clock, which no one sets.
        var attr = pthread_condattr_t()
        pthread_condattr_init(&attr)
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attr)
        pthread_condattr_destroy(&attr)
    }

    /// Waits (the mutex held) until signalled or until `deadline`, nanoseconds on the
    /// monotonic clock (`MutexCondition.now()`).
    public func wait(until deadline: UInt64) {
        var ts = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        _ = pthread_cond_timedwait(condition, mutex, &ts)
    }

    /// Nanoseconds on the monotonic clock.
    public static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    public func destroy() {
        pthread_cond_destroy(condition)
        condition.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }
}
