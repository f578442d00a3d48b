import TributaryCore
import CProcess
#if canImport(Glibc)
import Glibc
#endif

/// A program that stays up while its owner needs it and is spoken to one line at a time: a
/// line written to its stdin, one line read back from its stdout (the `exec` processor's
/// protocol). Started as every exec plugin starts its program (`ProcessLaunch`: no shell, its
/// own process group, the reaper), ended with its whole tree by `ProcessReaper`.
///
/// Nothing here can hold its caller past a deadline: every pipe is non-blocking and waited on
/// with poll() against the exchange's deadline, so a program that stops reading its stdin,
/// never answers, or leaves a descendant holding its stdout costs at most `timeout`. Its
/// stderr is read all the while and handed over line by line (`StderrLines`: bounded).
///
/// Threading rule (why `@unchecked Sendable` is sound): `exchange` and `end` are called from
/// one thread at a time (the owner's `SerialThread`); only `cancel` may come from any thread,
/// and it touches nothing but the `RunControl`, which is locked.
public final class ProcessSession: @unchecked Sendable {
    /// What came back for one line.
    public enum Answer: Sendable, Equatable {
        /// One line of stdout (without its newline, and a `\r` before it).
        case line([UInt8])
        /// No whole line within the timeout.
        case timedOut
        /// The program can no longer answer (it exited, closed its stdin or its stdout).
        case ended(Cause)
        /// More than `maxLine` bytes without a newline.
        case tooLong(Int)
        /// `cancel()` was called.
        case cancelled
    }

    /// Why a program can no longer answer; `end()` then tells how it ended.
    public enum Cause: Sendable, Equatable {
        case exited
        case closedStdin
        case closedStdout
        case writeFailed(String)

        public var description: String {
            switch self {
            case .exited: return "exited"
            case .closedStdin: return "closed its stdin"
            case .closedStdout: return "closed its stdout"
            case .writeFailed(let why): return "could not be written to (\(why))"
            }
        }
    }

    /// How the program ended (`end()`).
    public struct Ending: Sendable {
        /// Exit status, or nil when killed by a signal (or not reaped in time).
        public var exitCode: Int32?
        public var signal: Int32?
        /// Processes other than the program still running, and killed.
        public var othersKilled: Int
        /// stderr lines not logged (over the cap of one program's lines).
        public var stderrDropped: Int

        /// `exited with status 1`, `was killed by signal 9 (SIGKILL)`.
        public var description: String {
            if let signal { return "was killed by signal \(signal)\(ChildProcess.signalName(signal).map { " (\($0))" } ?? "")" }
            if let exitCode { return "exited with status \(exitCode)" }
            return "ended (its status could not be read)"
        }
    }

    /// The longest answer line kept (16 MiB): a program that prints more without a newline
    /// is answered `.tooLong`.
    public static let defaultMaxLine = 16 << 20
    /// How long `end` waits for the program to exit by itself after its stdin is closed.
    public static let closeGrace = 2.0

    public let command: [String]
    let maxLine: Int
    private let stderrLine: @Sendable (String) -> Void
    private let run: ProcessReaper.Run
    private var stdinFD: Int32
    private var stdoutFD: Int32
    private var stderrFD: Int32
    private var pidfd: Int32
    private let control = RunControl()
    private let wake: Int32
    /// stdout read past the last answer.
    private var buffer: [UInt8] = []
    private var stderr = StderrLines()
    private let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
    private var exited = false
    private var ended = false
    /// Lines the program printed that answered nothing (more than one line for one input):
    /// dropped, and counted here.
    public private(set) var extraLines = 0

    /// Starts `command` (in `directory`, with `environment` on top of this process's); each
    /// complete stderr line goes to `stderrLine`.
    public init(command: [String], environment: [(String, String)], directory: String, maxLine: Int = ProcessSession.defaultMaxLine,
                stderrLine: @escaping @Sendable (String) -> Void) throws(ChildProcess.LaunchError) {
        self.command = command
        self.maxLine = maxLine
        self.stderrLine = stderrLine
        var inPipe: [Int32] = [-1, -1], outPipe: [Int32] = [-1, -1], errPipe: [Int32] = [-1, -1]
        func closeAll() { for fd in inPipe + outPipe + errPipe where fd >= 0 { close(fd) } }
        // Close-on-exec from birth: a program started meanwhile by another run cannot inherit them.
        guard tributary_pipe_cloexec(&inPipe) == 0, tributary_pipe_cloexec(&outPipe) == 0, tributary_pipe_cloexec(&errPipe) == 0 else {
            let e = errno
            closeAll()
            chunk.deallocate()
            throw ChildProcess.LaunchError(description: "cannot create pipes: \(String(cString: strerror(e)))")
        }
        for fd in [inPipe[1], outPipe[0], errPipe[0]] { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        let inodes = Set([inPipe[0], outPipe[0], errPipe[0]].compactMap { ProcFS.inode(ofFD: $0) })
        do {
            run = try ProcessLaunch.spawn(command: command, environment: environment, directory: directory,
                                          stdin: inPipe[0], stdout: outPipe[1], stderr: errPipe[1], pipeInodes: inodes)
        } catch {
            closeAll()
            chunk.deallocate()
            throw error
        }
        // The program's ends are its own now: when it closes its stdin (or exits), writes fail
        // with EPIPE; when it and everything it started close stdout, reads end.
        close(inPipe[0])
        close(outPipe[1])
        close(errPipe[1])
        stdinFD = inPipe[1]
        stdoutFD = outPipe[0]
        stderrFD = errPipe[0]
        pidfd = tributary_pidfd_open(run.pid)
        wake = control.open()
    }

    deinit {
        if !ended { _ = end(grace: 0) }
        chunk.deallocate()
    }

    /// The program's pid (tests).
    public var pid: Int32 { run.pid }

    /// Makes the exchange in progress (or the next one) return `.cancelled`. Any thread.
    public func cancel() { control.cancel() }

    /// Writes `line` and a newline to the program's stdin and waits, at most `timeout` seconds
    /// in all, for one line on its stdout. Lines it printed before (answering nothing) are
    /// dropped and counted in `extraLines`.
    public func exchange(_ line: [UInt8], timeout: Double) -> Answer {
        if ended || exited || stdinFD < 0 { return .ended(.exited) }
        if !buffer.isEmpty {
            extraLines += max(1, buffer.count(where: { $0 == 0x0A }))
            buffer.removeAll(keepingCapacity: true)
        }
        var pending = line
        pending.append(0x0A)
        var offset = 0
        // Once the line is written, stdin is polled too: POLLERR says every reader has gone.
        // The write succeeds whenever some process still holds the read end (a child the
        // program started with its stdin, any transient holder), so a program that closed its
        // stdin is not always told by EPIPE; what it left unread it can never answer.
        var watchStdin = true
        var stdinGone = false
        let deadline = Monotonic.now() + timeout
        // A write to a stdin the program closed must fail with EPIPE, never end this process.
        let mask = PipeSignal.block()
        defer { PipeSignal.restore(mask) }
        while true {
            if control.isCancelled { return .cancelled }
            while offset < pending.count {
                let n = pending.withUnsafeBytes { raw in write(stdinFD, raw.baseAddress! + offset, min(raw.count - offset, 1 << 16)) }
                if n > 0 { offset += n; continue }
                if n < 0 && errno == EINTR { continue }
                if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { break }
                let e = errno
                PipeSignal.discardPending()
                return .ended(e == EPIPE ? .closedStdin : .writeFailed(String(cString: strerror(e))))
            }
            if let nl = buffer.firstIndex(of: 0x0A) {
                var answer = Array(buffer[..<nl])
                if answer.last == 0x0D { answer.removeLast() }
                buffer.removeFirst(nl + 1)
                return .line(answer)
            }
            if buffer.count > maxLine { return .tooLong(buffer.count) }
            if stdinGone {
                // No reader is left: if part of the line was never read, no answer can come.
                stdinGone = false
                watchStdin = false
                if tributary_pipe_unread(stdinFD) != 0 { return .ended(.closedStdin) }
            }
            if stdoutFD < 0 { return .ended(exitedSoon() ? .exited : .closedStdout) }
            if exited {
                // It exited and left no answer: what it printed is read (stdout may still be
                // held by something it started, so it is not waited for).
                return .ended(.exited)
            }
            let now = Monotonic.now()
            if now >= deadline { return .timedOut }
            var fds: [pollfd] = [pollfd(fd: stdoutFD, events: Int16(POLLIN), revents: 0)]
            if stderrFD >= 0 { fds.append(pollfd(fd: stderrFD, events: Int16(POLLIN), revents: 0)) }
            if offset < pending.count {
                fds.append(pollfd(fd: stdinFD, events: Int16(POLLOUT), revents: 0))
            } else if watchStdin {
                fds.append(pollfd(fd: stdinFD, events: 0, revents: 0))  // POLLERR only
            }
            if wake >= 0 { fds.append(pollfd(fd: wake, events: Int16(POLLIN), revents: 0)) }
            if pidfd >= 0 { fds.append(pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)) }
            var ms = Int32(min((deadline - now) * 1000, 60_000).rounded(.up))
            // Without a pidfd or a wake pipe, an exit or a cancellation is noticed by polling.
            if pidfd < 0 || wake < 0 { ms = min(ms, 50) }
            let n = poll(&fds, nfds_t(fds.count), max(ms, 1))
            if n < 0 && errno != EINTR { usleep(1000) }
            if pidfd < 0 && tributary_child_exited(run.pid) == 1 { exited = true }
            for f in fds where f.revents != 0 {
                if f.fd == stdoutFD {
                    if !drain(stdout: true) { close(stdoutFD); stdoutFD = -1 }
                } else if f.fd == stderrFD {
                    if !drain(stdout: false) { close(stderrFD); stderrFD = -1 }
                } else if f.fd == stdinFD {
                    // Polled for nothing: only POLLERR (no reader left) is reported here.
                    if offset == pending.count { stdinGone = true }
                } else if f.fd == wake {
                    control.drainWake(wake)
                } else if f.fd == pidfd {
                    exited = true
                    // Whatever it printed before it exited is in the pipe: read it now.
                    if stdoutFD >= 0, !drain(stdout: true) { close(stdoutFD); stdoutFD = -1 }
                    if stderrFD >= 0, !drain(stdout: false) { close(stderrFD); stderrFD = -1 }
                }
            }
        }
    }

    /// Whether the program has exited, or does within a moment: a program that exits closes
    /// its stdout first, and the exit is seen a little later (the pidfd, or waitid), so an end
    /// of file on stdout is not taken for "closed its stdout" before that moment has passed.
    private func exitedSoon(within: Double = 0.2) -> Bool {
        let until = Monotonic.now() + within
        while !exited {
            if pidfd >= 0 {
                var fd = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
                let left = Int32(max(1, ((until - Monotonic.now()) * 1000).rounded(.up)))
                if poll(&fd, 1, left) > 0 && fd.revents != 0 { exited = true }
            } else if tributary_child_exited(run.pid) == 1 {
                exited = true
            } else {
                usleep(10_000)
            }
            if Monotonic.now() >= until { break }
        }
        return exited
    }

    /// Reads what is there (true: still open, false: end of file), at most 1 MiB at a time.
    private func drain(stdout isStdout: Bool) -> Bool {
        let fd = isStdout ? stdoutFD : stderrFD
        var budget = 1 << 20
        while budget > 0 {
            let n = read(fd, chunk.baseAddress, chunk.count)
            if n > 0 {
                budget -= n
                let bytes = UnsafeRawBufferPointer(rebasing: chunk[0..<n])
                if isStdout {
                    // Past the cap the rest is not kept: `exchange` answers `.tooLong`.
                    if buffer.count <= maxLine { buffer.append(contentsOf: bytes) }
                } else {
                    stderr.feed(bytes, emit: stderrLine)
                }
                continue
            }
            if n == 0 { return false }
            if errno == EINTR { continue }
            return errno == EAGAIN || errno == EWOULDBLOCK
        }
        return true
    }

    /// Ends the program: closes its stdin (end of file), waits up to `grace` seconds for it to
    /// exit (logging its stderr, dropping its stdout), then kills and reaps its whole tree
    /// (`ProcessReaper`). `grace` 0: at once (a program that did not answer in time).
    public func end(grace: Double) -> Ending {
        guard !ended else { return Ending(exitCode: nil, signal: nil, othersKilled: 0, stderrDropped: 0) }
        ended = true
        if stdinFD >= 0 { close(stdinFD); stdinFD = -1 }
        let until = Monotonic.now() + max(0, grace)
        while !exited && !control.isCancelled {
            if pidfd < 0 { exited = tributary_child_exited(run.pid) == 1 }
            let now = Monotonic.now()
            if exited || now >= until { break }
            var fds: [pollfd] = []
            if stdoutFD >= 0 { fds.append(pollfd(fd: stdoutFD, events: Int16(POLLIN), revents: 0)) }
            if stderrFD >= 0 { fds.append(pollfd(fd: stderrFD, events: Int16(POLLIN), revents: 0)) }
            if pidfd >= 0 { fds.append(pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)) }
            if wake >= 0 { fds.append(pollfd(fd: wake, events: Int16(POLLIN), revents: 0)) }
            let ms = Int32(min((until - now) * 1000, 60_000).rounded(.up))
            _ = poll(&fds, nfds_t(fds.count), pidfd < 0 ? min(max(ms, 1), 50) : max(ms, 1))
            for f in fds where f.revents != 0 {
                if f.fd == stdoutFD {
                    if !drain(stdout: true) { close(stdoutFD); stdoutFD = -1 }
                    buffer.removeAll(keepingCapacity: true)
                } else if f.fd == stderrFD {
                    if !drain(stdout: false) { close(stderrFD); stderrFD = -1 }
                } else if f.fd == pidfd {
                    exited = true
                } else if f.fd == wake {
                    control.drainWake(wake)
                }
            }
        }
        let result = ProcessReaper.shared.end(run)
        // The writers are dead now: read what they left in stderr. Bounded, in case a process
        // out of reach still holds it.
        let drainEnd = Monotonic.now() + 0.5
        while stderrFD >= 0 && Monotonic.now() < drainEnd {
            var fd = pollfd(fd: stderrFD, events: Int16(POLLIN), revents: 0)
            if poll(&fd, 1, 50) > 0, !drain(stdout: false) { close(stderrFD); stderrFD = -1 }
        }
        stderr.finish(emit: stderrLine)
        for fd in [stdoutFD, stderrFD, pidfd] where fd >= 0 { close(fd) }
        stdoutFD = -1
        stderrFD = -1
        pidfd = -1
        control.close()
        let status = result.status
        let normal = status.map { $0 & 0x7F == 0 } ?? false
        return Ending(exitCode: normal ? (status! >> 8) & 0xFF : nil, signal: normal ? nil : status.map { $0 & 0x7F },
                      othersKilled: result.othersKilled, stderrDropped: stderr.dropped)
    }
}
