#if canImport(Glibc)
import Glibc
#endif

/// The CPU time the calling thread has used, in seconds. What a bound on work done on one
/// thread (no quadratic scan, a limit that holds) should measure: unlike the wall clock it does
/// not grow when the tests run beside builds, benchmarks or other test classes.
public enum ThreadCPU {
    public static func seconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    /// Runs `body` and returns its result with the thread's CPU seconds it took.
    public static func measure<T>(_ body: () throws -> T) rethrows -> (result: T, seconds: Double) {
        let before = seconds()
        let result = try body()
        return (result, seconds() - before)
    }
}
