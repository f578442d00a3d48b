import TributaryCore
import CProcess
#if canImport(Glibc)
import Glibc
#endif

/// The run's two read ends, non-blocking, read as data comes: stdout kept up to `maxOutput`
/// (then `overflow`, and the rest dropped) or, when `keepsStdout` is false, read and dropped
/// whatever its size; stderr split by `StderrLines`.
struct PipeReader {
    let stdoutFD: Int32
    let stderrFD: Int32
    let maxOutput: Int
    let keepsStdout: Bool
    let emit: @Sendable (String) -> Void
    private(set) var stdout: [UInt8] = []
    private(set) var lines = StderrLines()
    private(set) var outOpen = true
    private(set) var errOpen = true
    private(set) var overflow = false
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)

    init(stdoutFD: Int32, stderrFD: Int32, maxOutput: Int, keepsStdout: Bool = true, emit: @escaping @Sendable (String) -> Void) {
        self.stdoutFD = stdoutFD
        self.stderrFD = stderrFD
        self.maxOutput = maxOutput
        self.keepsStdout = keepsStdout
        self.emit = emit
    }

    func deallocate() { buffer.deallocate() }

    /// Waits up to `milliseconds` for data on the open pipes, for one of `also` to be readable or
    /// for `writable` (the program's stdin, -1 for none) to take bytes; reads what came, and
    /// returns the descriptors of `also` and `writable` that are ready (a closed reader counts
    /// as ready: the write then fails with EPIPE).
    mutating func wait(milliseconds: Int32, also: [Int32], writable: Int32 = -1) -> [Int32] {
        var fds: [pollfd] = []
        if outOpen { fds.append(pollfd(fd: stdoutFD, events: Int16(POLLIN), revents: 0)) }
        if errOpen { fds.append(pollfd(fd: stderrFD, events: Int16(POLLIN), revents: 0)) }
        for fd in also { fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
        if writable >= 0 { fds.append(pollfd(fd: writable, events: Int16(POLLOUT), revents: 0)) }
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
                } else if keepsStdout && !overflow {
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
    package mutating func finish() {
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
