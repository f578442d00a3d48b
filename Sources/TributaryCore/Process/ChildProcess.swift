import CProcess
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs a program without a shell, in its own process group, collects its stdout (capped),
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

    public init(command: [String], environment: [(String, String)], directory: String, timeout: Double, maxOutput: Int) {
        self.command = command
        self.environment = environment
        self.directory = directory
        self.timeout = timeout
        self.maxOutput = maxOutput
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
                let thread = Thread {
                    do {
                        cont.resume(returning: try runBlocking(control: control, stderrLine: stderrLine))
                    } catch {
                        cont.resume(throwing: error)
                    }
                }
                thread.name = "tributary exec"
                thread.start()
            }
        } onCancel: {
            control.cancel()
        }
    }

    /// glibc's `posix_spawn_file_actions_addchdir_np` (2.29+), which the Glibc module hides
    /// behind _GNU_SOURCE; looked up once at run time.
    private static func addChdir(_ actions: inout posix_spawn_file_actions_t, _ dir: String) -> Int32 {
        typealias Fn = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
        guard let sym = dlsym(nil, "posix_spawn_file_actions_addchdir_np") else { return -1 }  // nil is RTLD_DEFAULT on glibc
        let fn = unsafeBitCast(sym, to: Fn.self)
        return fn(&actions, dir)
    }

    /// This process's environment with `environment` and the run's token on top, in order.
    private func childEnvironment(token: String) -> [String] {
        var env: [String: String] = [:]
        var order: [String] = []
        var e = environ
        while let p = e.pointee {
            let s = String(cString: p)
            if let eq = s.firstIndex(of: "=") {
                let k = String(s[..<eq])
                if env[k] == nil { order.append(k) }
                env[k] = String(s[s.index(after: eq)...])
            }
            e += 1
        }
        let eq = token.firstIndex(of: "=")!
        for (k, v) in environment + [(String(token[..<eq]), String(token[token.index(after: eq)...]))] {
            if env[k] == nil { order.append(k) }
            env[k] = v
        }
        return order.map { "\($0)=\(env[$0]!)" }
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

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        guard Self.addChdir(&actions, directory) == 0 else {
            throw LaunchError(description: "cannot set the working directory \(directory)")
        }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        // Nothing else of Tributary's (state database, sink files, sockets) reaches the program.
        _ = tributary_spawn_closefrom(&actions, 3)
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        posix_spawnattr_setpgroup(&attr, 0)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for s in [SIGPIPE, SIGINT, SIGTERM, SIGCHLD] { sigaddset(&defaults, s) }
        posix_spawnattr_setsigdefault(&attr, &defaults)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attr, &empty)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let reaper = ProcessReaper.shared
        let (id, token) = reaper.reserve()
        let argv = command.map { strdup($0) } + [nil]
        let envp = childEnvironment(token: token).map { strdup($0) } + [nil]
        defer {
            for p in argv { free(p) }
            for p in envp { free(p) }
        }
        let inodes = Set([ProcFS.inode(ofFD: outPipe[0]), ProcFS.inode(ofFD: errPipe[0])].compactMap { $0 })
        let program = command[0]
        let run = try reaper.start(id: id, token: token, pipeInodes: inodes) { () throws(LaunchError) -> pid_t in
            var pid: pid_t = 0
            let rc = posix_spawnp(&pid, program, &actions, &attr, argv, envp)
            guard rc == 0 else { throw LaunchError(description: "cannot start \(program): \(String(cString: strerror(rc)))") }
            return pid
        }
        close(outPipe[1])
        close(errPipe[1])
        writeEndsOpen = false

        let pidfd = tributary_pidfd_open(run.pid)
        let wake = control.open()
        defer {
            if pidfd >= 0 { close(pidfd) }
            control.close()
        }
        var reader = PipeReader(stdoutFD: outPipe[0], stderrFD: errPipe[0], maxOutput: maxOutput, emit: stderrLine)
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
            let ready = reader.wait(milliseconds: max(ms, 1), also: extra)
            if ready.contains(wake) { control.drainWake(wake) }
        }
        var heldOpen: [String] = []
        if ending == .lingered {
            if reader.outOpen { heldOpen.append("stdout") }
            if reader.errOpen { heldOpen.append("stderr") }
        }
        let ended = reaper.end(run)
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
                       ending: ending, heldOpen: heldOpen, stderr: reader.lines, othersKilled: ended.othersKilled)
    }
}

/// The run's two read ends, non-blocking, read as data comes: stdout kept up to `maxOutput`
/// (then `overflow`, and the rest dropped), stderr split by `StderrLines`.
struct PipeReader {
    let stdoutFD: Int32
    let stderrFD: Int32
    let maxOutput: Int
    let emit: @Sendable (String) -> Void
    private(set) var stdout: [UInt8] = []
    private(set) var lines = StderrLines()
    private(set) var outOpen = true
    private(set) var errOpen = true
    private(set) var overflow = false
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)

    init(stdoutFD: Int32, stderrFD: Int32, maxOutput: Int, emit: @escaping @Sendable (String) -> Void) {
        self.stdoutFD = stdoutFD
        self.stderrFD = stderrFD
        self.maxOutput = maxOutput
        self.emit = emit
    }

    func deallocate() { buffer.deallocate() }

    /// Waits up to `milliseconds` for data on the open pipes or for one of `also`, reads what
    /// came, and returns the descriptors of `also` that are ready.
    mutating func wait(milliseconds: Int32, also: [Int32]) -> [Int32] {
        var fds: [pollfd] = []
        if outOpen { fds.append(pollfd(fd: stdoutFD, events: Int16(POLLIN), revents: 0)) }
        if errOpen { fds.append(pollfd(fd: stderrFD, events: Int16(POLLIN), revents: 0)) }
        for fd in also { fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
        guard !fds.isEmpty else {
            usleep(UInt32(milliseconds) * 1000)
            return []
        }
        let n = poll(&fds, nfds_t(fds.count), milliseconds)
        guard n > 0 else { return [] }
        var ready: [Int32] = []
        for f in fds where f.revents != 0 {
            if f.fd == stdoutFD && outOpen {
                outOpen = drain(f.fd, stdout: true)
            } else if f.fd == stderrFD && errOpen {
                errOpen = drain(f.fd, stdout: false)
            } else {
                ready.append(f.fd)
            }
        }
        return ready
    }

    /// Reads `fd` until it would block (true: still open) or ends (false), at most 1 MiB at a
    /// time so the other pipe and the deadline get their turn.
    private mutating func drain(_ fd: Int32, stdout isStdout: Bool) -> Bool {
        var budget = 1 << 20
        while budget > 0 {
            let n = read(fd, buffer.baseAddress, buffer.count)
            if n > 0 {
                budget -= n
                let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<n])
                if !isStdout {
                    lines.feed(chunk, emit: emit)
                } else if !overflow {
                    if stdout.count + n > maxOutput { overflow = true } else { stdout.append(contentsOf: chunk) }
                }
                continue
            }
            if n == 0 { return false }
            if errno == EINTR { continue }
            return errno == EAGAIN || errno == EWOULDBLOCK
        }
        return true
    }

    /// End of the run: a last stderr line without a newline is logged too.
    mutating func finish() {
        lines.finish(emit: emit)
    }
}

/// Cancellation of one run from any thread: sets a flag and wakes the run's poll() through a
/// pipe. The write end is used and closed only under the lock, so a late cancel never writes
/// to a descriptor number that was closed and reused.
final class RunControl: Sendable {
    private let state = Locked<(cancelled: Bool, wakeWrite: Int32)>((false, -1))

    var isCancelled: Bool { state.withLock { $0.cancelled } }

    func cancel() {
        state.withLock { s in
            s.cancelled = true
            if s.wakeWrite >= 0 {
                var b: UInt8 = 1
                _ = write(s.wakeWrite, &b, 1)
            }
        }
    }

    /// Makes the wake pipe and returns its read end (-1 when it cannot: the flag is then polled).
    func open() -> Int32 {
        var fds: [Int32] = [-1, -1]
        guard tributary_pipe_cloexec(&fds) == 0 else { return -1 }
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        state.withLock { $0.wakeWrite = fds[1] }
        readEnd.withLock { $0 = fds[0] }
        return fds[0]
    }

    func drainWake(_ fd: Int32) {
        var buf = [UInt8](repeating: 0, count: 64)
        while read(fd, &buf, buf.count) > 0 {}
    }

    func close() {
        state.withLock { s in
            if s.wakeWrite >= 0 { Glibc.close(s.wakeWrite) }
            s.wakeWrite = -1
        }
        readEnd.withLock { fd in
            if fd >= 0 { Glibc.close(fd) }
            fd = -1
        }
    }

    private let readEnd = Locked<Int32>(-1)
}
