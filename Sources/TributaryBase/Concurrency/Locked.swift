#if canImport(Glibc)
import Glibc
#endif

/// A value shared between threads, reachable only while its lock is held.
///
/// Why not `Synchronization.Mutex`: on Linux it locks with raw futex calls, which
/// ThreadSanitizer cannot see, so every access under it is reported as a race and real races
/// drown in the noise (a four-thread counter under `Mutex` is correct and still reported). This
/// lock is a `pthread_mutex_t`, which TSan intercepts, so `make sanitize` checks our locking
/// instead of flagging it. Uncontended, both cost about the same.
///
/// Threading rule (why `@unchecked Sendable` is sound): `value` is read and written only inside
/// `withLock`, with `mutex` held; the mutex lives at a fixed heap address for the object's life.
///
/// Not for a lock with nothing in it (`Locked(())`): ThreadSanitizer reports a zero-sized value
/// as accessed outside the lock (CI's sanitizer pass failed on it twice, in `LibraryLoader` and
/// in `WALCheckpointer`); keep something the lock guards in it, a count at least.
public final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// Not checked for exclusive access at run time: the mutex already makes every access
    /// exclusive, and the check (an access set entered and left per call) cost more than the
    /// lock on paths taken for every request and item.
    @exclusivity(unchecked) private var value: Value

    public init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with the lock held. `body` must not call `withLock` on the same object.
    @inline(__always)
    public func withLock<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
