#if canImport(Glibc)
import Glibc
#endif

/// A value behind a `pthread_mutex_t`, with the `withLock` shape of `Synchronization.Mutex`.
///
/// Used on the curl path instead of `Mutex` so that ThreadSanitizer can check it: on Linux,
/// `Mutex` waits with a futex when contended, which TSan does not model, so every contended
/// hand-over looks like a data race (a two-thread program that only touches a `Mutex`'s value
/// inside `withLock` is reported). TSan intercepts pthread mutexes. The cost is the same
/// uncontended and negligible next to a transfer.
final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
