#if canImport(Glibc)
import Glibc
#endif

/// SIGPIPE on one thread, for writes to a pipe whose reader may be gone. Blocked on the writing
/// thread, a write to a pipe without a reader fails with EPIPE and the signal the kernel raises
/// stays pending on that thread instead of ending the process; it is discarded before the mask
/// is restored, so it is never delivered. The disposition of SIGPIPE is untouched: only the
/// calling thread's mask changes, for as long as the caller holds it. The tributary binary
/// ignores SIGPIPE anyway; a process that does not (a test runner) needs this.
public enum PipeSignal {
    /// Blocks SIGPIPE on the calling thread and returns the mask to hand to `restore`.
    public static func block() -> sigset_t {
        var block = sigset_t()
        sigemptyset(&block)
        sigaddset(&block, SIGPIPE)
        var old = sigset_t()
        pthread_sigmask(SIG_BLOCK, &block, &old)
        return old
    }

    /// Restores the mask `block` returned, after discarding a SIGPIPE still pending.
    public static func restore(_ old: sigset_t) {
        discardPending()
        var mask = old
        pthread_sigmask(SIG_SETMASK, &mask, nil)
    }

    /// Takes a SIGPIPE pending on this thread, if there is one, without waiting.
    public static func discardPending() {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGPIPE)
        var pending = sigset_t()
        sigpending(&pending)
        guard sigismember(&pending, SIGPIPE) == 1 else { return }
        var now = timespec(tv_sec: 0, tv_nsec: 0)
        _ = sigtimedwait(&set, nil, &now)
    }
}
