import TributaryCore
import CProcess
import FoundationEssentials
import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Runs a program without a shell, in its own process group, optionally feeds it `input` on
/// stdin (`InputFeeder`; else stdin is /dev/null), collects its stdout (capped) or drops it,
/// hands each stderr line to a callback (`StderrLines`), and ends on time whatever the program
/// and its descendants do: the pipes are read with poll() against the run's deadline, never
/// with a blocking read, so a descendant that keeps a pipe open cannot hold the run.
///
/// When the run ends (timeout, cancellation, stdout over its cap, the program exited and its
/// output ended, or `linger` after its exit if something it started still holds a pipe) the
/// program's whole tree is killed and reaped by `ProcessReaper`, which also says what exactly
/// is killed and why that is safe with several programs at once.
/// Nothing is left behind: no zombie, no orphan, including descendants that called `setsid`
/// or double-forked. (Only a SIGKILL of Tributary itself leaves no chance to clean up.)
public struct ChildProcess: Sendable {
    public struct Outcome: Sendable {
        public var stdout: [UInt8]
        /// Exit status, or nil when killed by a signal.
        public var exitCode: Int32?
        public var signal: Int32?
        public var ending: Ending
        public var timedOut: Bool { ending == .timedOut }
        /// With `.lingered`: the pipes still open when the linger ended ("stdout", "stderr").
        public var heldOpen: [String]
        /// What was read from stderr: the last line, and how many lines were not logged.
        public var stderr: StderrLines
        /// Processes other than the program still running when the run ended, and killed.
        public var othersKilled: Int
        /// Bytes of `input` the program was never handed: it closed its stdin or exited before
        /// the pipe took them all (0 without input).
        public var inputUnwritten: Int
    }

    /// Why the run ended.
    public enum Ending: Sendable, Equatable {
        /// The program exited and its stdout and stderr were closed.
        case exited
        /// The program exited but something it started kept stdout or stderr open past the
        /// linger; that was killed.
        case lingered
        /// The deadline came first; the program was killed.
        case timedOut
        /// The task was cancelled (SIGINT/SIGTERM of Tributary after the grace period).
        case cancelled
        /// stdout went over `maxOutput`; the program was killed.
        case overflow
    }

    public struct LaunchError: Error, CustomStringConvertible {
        public let description: String
    }

    let command: [String]
    let environment: [(String, String)]
    /// Working directory of the child (the config file's folder).
    let directory: String
    let timeout: Double
    /// Cap on stdout bytes kept (the rest is drained and dropped, and the run fails).
    let maxOutput: Int
    /// What the program reads on stdin (then closed: end of file); nil: stdin is /dev/null.
    let input: [UInt8]?
    /// False: stdout is read as it comes and dropped, whatever its size (`maxOutput` unused).
    let keepsStdout: Bool

    public init(command: [String], environment: [(String, String)], directory: String, timeout: Double, maxOutput: Int,
                input: [UInt8]? = nil, keepsStdout: Bool = true) {
        self.command = command
        self.environment = environment
        self.directory = directory
        self.timeout = timeout
        self.maxOutput = maxOutput
        self.input = input
        self.keepsStdout = keepsStdout
    }

    /// How long, after the program exited, its pipes are still read when a process it started
    /// keeps them open: what that process prints meanwhile is kept, then it is killed. The
    /// timeout still bounds the whole run.
    public static let linger = 1.0

    public func run(stderrLine: @escaping @Sendable (String) -> Void) async throws -> Outcome {
        let control = RunControl()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (cont: CheckedContinuation<Outcome, any Error>) in
                // Its own thread: the run blocks in poll() for up to `timeout`, which must not
                // hold one of the few threads of the concurrency pool or of Dispatch.
                DetachedThread.start(name: "tributary exec") {
                    do {
                        cont.resume(returning: try runBlocking(control: control, stderrLine: stderrLine))
                    } catch {
                        cont.resume(throwing: error)
                    }
                }
            }
        } onCancel: {
            control.cancel()
        }
    }

    private func runBlocking(control: RunControl, stderrLine: @escaping @Sendable (String) -> Void) throws -> Outcome {
        if control.isCancelled { throw CancellationError() }
        var outPipe: [Int32] = [-1, -1], errPipe: [Int32] = [-1, -1]
        // Close-on-exec from birth: a program started meanwhile by another run cannot inherit them.
        guard tributary_pipe_cloexec(&outPipe) == 0 else {
            throw LaunchError(description: "cannot create pipes: \(String(cString: strerror(errno)))")
        }
        guard tributary_pipe_cloexec(&errPipe) == 0 else {
            let e = errno
            for fd in outPipe { close(fd) }
            throw LaunchError(description: "cannot create pipes: \(String(cString: strerror(e)))")
        }
        var writeEndsOpen = true
        defer {
            close(outPipe[0])
            close(errPipe[0])
            if writeEndsOpen { close(outPipe[1]); close(errPipe[1]) }
        }
        for fd in [outPipe[0], errPipe[0]] { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        // stdin: a pipe whose write end is fed from the poll loop, when there is input.
        var inPipe: [Int32] = [-1, -1]
        if input != nil {
            guard tributary_pipe_cloexec(&inPipe) == 0 else {
                throw LaunchError(description: "cannot create pipes: \(String(cString: strerror(errno)))")
            }
            _ = fcntl(inPipe[1], F_SETFL, fcntl(inPipe[1], F_GETFL) | O_NONBLOCK)
        }
        var feeder = InputFeeder(fd: inPipe[1], bytes: input ?? [])
        defer {
            if inPipe[0] >= 0 { close(inPipe[0]) }
            feeder.close()
        }
        // A write to a stdin the program closed must fail with EPIPE, never end this process.
        let signalMask = input != nil ? PipeSignal.block() : nil
        defer { if let signalMask { PipeSignal.restore(signalMask) } }

        let inodes = Set([ProcFS.inode(ofFD: outPipe[0]), ProcFS.inode(ofFD: errPipe[0]), inPipe[0] >= 0 ? ProcFS.inode(ofFD: inPipe[0]) : nil].compactMap { $0 })
        let run = try ProcessLaunch.spawn(command: command, environment: environment, directory: directory,
                                          stdin: inPipe[0], stdout: outPipe[1], stderr: errPipe[1], pipeInodes: inodes)
        close(outPipe[1])
        close(errPipe[1])
        writeEndsOpen = false
        if inPipe[0] >= 0 {
            close(inPipe[0])  // the program's now: when it closes it (or exits), writes fail with EPIPE
            inPipe[0] = -1
        }

        let pidfd = tributary_pidfd_open(run.pid)
        let wake = control.open()
        defer {
            if pidfd >= 0 { close(pidfd) }
            control.close()
        }
        var reader = PipeReader(stdoutFD: outPipe[0], stderrFD: errPipe[0], maxOutput: maxOutput, keepsStdout: keepsStdout, emit: stderrLine)
        defer { reader.deallocate() }
        let deadline = Monotonic.now() + timeout
        // When the program has exited: the end of the linger (never past the deadline).
        var lingerEnd: Double? = nil
        let ending: Ending
        while true {
            if control.isCancelled { ending = .cancelled; break }
            if reader.overflow { ending = .overflow; break }
            if lingerEnd == nil && tributary_child_exited(run.pid) == 1 {
                let t = Monotonic.now()
                lingerEnd = max(t, min(t + Self.linger, deadline))
            }
            let exited = lingerEnd != nil
            // Input goes to the program only: once it has exited, the rest is never written.
            if exited { feeder.close() } else { feeder.pump() }
            if exited && !reader.outOpen && !reader.errOpen { ending = .exited; break }
            let now = Monotonic.now()
            if let lingerEnd, now >= lingerEnd { ending = .lingered; break }
            if now >= deadline { ending = .timedOut; break }
            var ms = Int32(min(((lingerEnd ?? deadline) - now) * 1000, 60_000).rounded(.up))
            // Without a pidfd or a wake pipe the exit or a cancellation is noticed by polling.
            if (pidfd < 0 && !exited) || wake < 0 { ms = min(ms, 50) }
            var extra: [Int32] = []
            if wake >= 0 { extra.append(wake) }
            if pidfd >= 0 && !exited { extra.append(pidfd) }
            let ready = reader.wait(milliseconds: max(ms, 1), also: extra, writable: feeder.fd)
            if ready.contains(wake) { control.drainWake(wake) }
        }
        feeder.close()
        var heldOpen: [String] = []
        if ending == .lingered {
            if reader.outOpen { heldOpen.append("stdout") }
            if reader.errOpen { heldOpen.append("stderr") }
        }
        let ended = ProcessReaper.shared.end(run)
        // The writers are dead now: read what they left in the pipes. Bounded, in case a
        // process out of reach (another user's, or stuck in the kernel) still holds one.
        let drainEnd = Monotonic.now() + 0.5
        while (reader.outOpen || reader.errOpen) && Monotonic.now() < drainEnd {
            _ = reader.wait(milliseconds: 50, also: [])
        }
        reader.finish()
        if ending == .overflow {
            throw LaunchError(description: "printed more than \(maxOutput / (1 << 20)) MiB on stdout")
        }
        let status = ended.status
        let normal = status.map { $0 & 0x7F == 0 } ?? false
        return Outcome(stdout: reader.stdout, exitCode: normal ? (status! >> 8) & 0xFF : nil,
                       signal: normal ? nil : status.map { $0 & 0x7F },
                       ending: ending, heldOpen: heldOpen, stderr: reader.lines, othersKilled: ended.othersKilled,
                       inputUnwritten: feeder.unwritten)
    }
}

/// How failure messages name what happened to a program.
extension ChildProcess {
    /// `SIGSEGV` for 11: the signals a program is commonly killed by (Linux numbers).
    public static func signalName(_ sig: Int32) -> String? {
        let names: [Int32: String] = [
            SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGILL: "SIGILL", SIGTRAP: "SIGTRAP",
            SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE", SIGKILL: "SIGKILL", SIGUSR1: "SIGUSR1",
            SIGSEGV: "SIGSEGV", SIGUSR2: "SIGUSR2", SIGPIPE: "SIGPIPE", SIGALRM: "SIGALRM", SIGTERM: "SIGTERM",
            SIGXCPU: "SIGXCPU", SIGXFSZ: "SIGXFSZ", SIGSYS: "SIGSYS",
        ]
        return names[sig]
    }

    /// Longest last stderr line quoted in a failure message, in characters.
    public static let maxQuotedLine = 300

    /// `line`, cut to `maxQuotedLine` characters for a failure message.
    public static func bounded(_ line: String) -> String {
        line.count <= maxQuotedLine ? line : String(line.prefix(maxQuotedLine)) + "..."
    }
}
