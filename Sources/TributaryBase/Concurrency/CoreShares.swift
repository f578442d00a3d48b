import Glibc
import CSystem
import Dispatch

/// Pure work over a list, split into one consecutive share per core and done on
/// `concurrentPerform`'s threads: a config's sources are built this way, and a batch's items
/// are prepared for the stories stage. A share per core and not more, since every share past
/// the first wakes a thread of the pool, which costs CPU when the cores are busy elsewhere.
public enum CoreShares {
    /// The cores this process may run on, read at first use: its CPU affinity (`taskset`, a
    /// container's cpuset), else the cores online. More shares than that would only wait.
    public static let cores: Int = {
        let allowed = Int(tributary_cpus_allowed())
        return max(1, allowed > 0 ? allowed : Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }()

    /// How many shares `count` elements make with at least `minimum` in each: one per core at
    /// most, and 1 (the caller's thread alone) below twice `minimum`.
    public static func count(of count: Int, atLeast minimum: Int) -> Int {
        // Below two shares' worth `cores` is not read (its first read asks the kernel).
        let most = count / max(1, minimum)
        return most < 2 ? 1 : min(cores, most)
    }

    /// Share `k` of `parts` over `0..<count`: `k * count / parts ..< (k + 1) * count / parts`.
    public static func range(_ k: Int, of parts: Int, over count: Int) -> Range<Int> {
        (k * count / parts)..<((k + 1) * count / parts)
    }

    /// `body` of each share of `0..<count` (at least `minimum` elements a share), in the shares'
    /// order. With one share, `body` runs on the caller's thread; with more, each runs on a
    /// thread of its own, and this returns when the last is done. `body` must touch nothing
    /// another share writes.
    public static func map<Result>(_ count: Int, atLeast minimum: Int, _ body: (Range<Int>) -> Result) -> [Result] {
        let parts = Self.count(of: count, atLeast: minimum)
        guard parts > 1 else { return [body(0..<count)] }
        return withoutActuallyEscaping(body) { body in
            [Result](unsafeUninitializedCapacity: parts) { out, initialized in
                let shared = Shared(out: out.baseAddress!, body: body)
                DispatchQueue.concurrentPerform(iterations: parts) { k in
                    (shared.out + k).initialize(to: shared.body(range(k, of: parts, over: count)))
                }
                initialized = parts
            }
        }
    }

    /// What the threads of `map` see: each initializes only its own place of `out`, and
    /// `concurrentPerform` returns after the last one has.
    private struct Shared<Result>: @unchecked Sendable {
        let out: UnsafeMutablePointer<Result>
        let body: (Range<Int>) -> Result
    }
}
