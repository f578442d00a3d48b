#if canImport(Glibc)
import Glibc
#endif

/// A pthread mutex and a condition variable in memory of their own (a pthread object must not
/// move): what `SerialThread` and `WorkerThread` wait on. `destroy` frees them; the owner calls
/// it once, when no thread can use them any more.
struct MutexCondition {
    let mutex: UnsafeMutablePointer<pthread_mutex_t>
    let condition: UnsafeMutablePointer<pthread_cond_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        pthread_cond_init(condition, nil)
    }

    func destroy() {
        pthread_cond_destroy(condition)
        condition.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }
}
