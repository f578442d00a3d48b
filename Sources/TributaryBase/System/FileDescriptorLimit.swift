#if canImport(Glibc)
import Glibc
#endif

/// The process's open-file limit, raised to fit the configured concurrency. The soft limit is
/// often 1,024 while each transfer holds a socket; running out shows up as bogus "Couldn't
/// resolve host" errors from curl, so the need is checked before anything is fetched.
public enum FileDescriptorLimit {
    /// Descriptors needed besides the transfers: stdio, the state database and its WAL, sink
    /// files, curl's wakeup pipe, exec pipes, a metrics listener.
    public static let reserve = 64

    /// Raises the soft limit (up to the hard limit) so `transfers` sockets fit beside the
    /// reserve; returns a readable reason when the hard limit is too low.
    public static func ensure(transfers: Int) -> String? {
        let needed = rlim_t(transfers + reserve)
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        if limit.rlim_cur >= needed { return nil }
        let target = min(needed, limit.rlim_max)
        var raised = limit
        raised.rlim_cur = target
        if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 && target >= needed { return nil }
        return "http.concurrency \(transfers) needs about \(needed) open files, but this process may open at most \(limit.rlim_max) (ulimit -Hn); lower http.concurrency or raise the limit (LimitNOFILE= in a systemd unit)"
    }

    /// Makes room for up to `wanted` more descriptors (the metrics listener's connections)
    /// beside the `needed` ones the rest of the process counts on: raises the soft limit towards
    /// `needed + wanted` (never past the hard limit) and returns how many of `wanted` fit.
    public static func room(for wanted: Int, besides needed: Int) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return wanted }
        let target = rlim_t(needed + wanted)
        if limit.rlim_cur < target {
            var raised = limit
            raised.rlim_cur = min(target, limit.rlim_max)
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        if limit.rlim_cur >= target { return wanted }
        return max(0, Int(limit.rlim_cur) - needed)
    }
}
