import CJQ
import TributaryBase
#if canImport(Glibc)
import Glibc
#endif

/// The time limit: one process-wide thread that stops runs past their deadline.
///
/// libjq 1.6 has no interruption API, but its interpreter loop (`jq_next` in execute.c) reads
/// `jq->halted` before every instruction and returns at once when it is set. `jq_halt` sets
/// it; the `halt` builtin uses it to end a program from anywhere in it, and the next
/// `jq_start` (or `jq_teardown`) unwinds whatever the program had on its stack. A run past its
/// deadline is stopped the same way: this thread calls `jq_halt` on its state, and the
/// program's own thread returns from `jq_next` before its next instruction, at an instruction
/// boundary, where the state is consistent. Nothing is unwound by force (no signal, no
/// longjmp, no thread cancelled), so no lock, allocation or reference count is left half done.
///
/// The rules that make this sound, each kept by this file or by JQProgram:
/// - `jq_halt` is called only between `begin` and `end` of that state's run, under `mutex`,
///   at most once per run. The run's thread calls `jq_start` (which clears the flag) before
///   `begin` and reads nothing this thread wrote until after `end`, which takes `mutex`.
/// - Nothing else calls `jq_halt` during a run: the prelude (JQProgram.prelude) replaces the
///   `halt` and `halt_error` builtins, the only ones that call it (jq_halt asserts that the
///   state is not halted already).
/// - While a run is in `jq_next`, this thread writes `halted` (and the exit code and message
///   fields, which `jq_next` never reads) while the run's thread reads `halted`: the one
///   unsynchronised access, an aligned int, set once, read in a loop. In Debian's libjq.so.1
///   the loop reloads it from memory before every instruction (objdump: `mov 0x88(%r15),%eax`
///   at the loop head); the tests show programs that loop in every way stopped within the
///   limit.
/// - A halted state is never reused: JQProgram tears it down and compiles a fresh one.
///
/// What it cannot bound: one builtin that runs long inside C (a string repeated a billion
/// times, a sort of a huge array) is stopped only when it returns to the interpreter.
final class JQWatchdog: @unchecked Sendable {
    static let shared = JQWatchdog()

    private struct Run {
        var state: OpaquePointer?
        var deadline: UInt64 = 0
        var halted = false
    }

    private let pair = MutexCondition()
    private var mutex: UnsafeMutablePointer<pthread_mutex_t> { pair.mutex }
    private var wake: UnsafeMutablePointer<pthread_cond_t> { pair.condition }
    // Everything below: only with `mutex` held.
    private var runs: [Run] = []
    private var free: [Int] = []
    /// The deadline the thread sleeps until; `.max` while it waits with nothing to time.
    private var wakeAt = UInt64.max
    private var started = false
    /// Runs stopped since the process started (tests read it).
    private var haltCount = 0

    private init() {}

    /// Nanoseconds on the monotonic clock (the clock `wake`'s timed waits count on).
    static func now() -> UInt64 { MutexCondition.now() }

    /// Starts timing a run of `state`, which its caller has just `jq_start`ed; the ticket goes
    /// to `end`.
    func begin(_ state: OpaquePointer, deadline: UInt64) -> Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        if !started {
            started = true
            DetachedThread.start(name: "jq-watchdog", stackSize: 256 << 10) { [self] in loop() }
        }
        let ticket: Int
        if let i = free.popLast() {
            ticket = i
            runs[i] = Run(state: state, deadline: deadline)
        } else {
            ticket = runs.count
            runs.append(Run(state: state, deadline: deadline))
        }
        if deadline < wakeAt { pthread_cond_signal(wake) }
        return ticket
    }

    /// Stops timing; true when the run was halted (its deadline passed). After `end`, this
    /// thread no longer touches the state.
    func end(_ ticket: Int) -> Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        let halted = runs[ticket].halted
        runs[ticket] = Run()
        free.append(ticket)
        return halted
    }

    /// How many runs have been halted so far.
    var halts: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return haltCount
    }

    private func loop() {
        guard case .success(let library) = JQLibrary.shared() else { return }
        pthread_mutex_lock(mutex)
        while true {
            let now = Self.now()
            var earliest = UInt64.max
            for i in runs.indices {
                guard let state = runs[i].state, !runs[i].halted else { continue }
                if runs[i].deadline <= now {
                    tributary_jq_halt(library.api, state)
                    runs[i].halted = true
                    haltCount += 1
                } else if runs[i].deadline < earliest {
                    earliest = runs[i].deadline
                }
            }
            wakeAt = earliest
            if earliest == .max {
                pthread_cond_wait(wake, mutex)
            } else {
                pair.wait(until: earliest)
            }
        }
    }
}
