import Dispatch
import TributaryCore
#if canImport(Glibc)
import Glibc
#endif

/// Runs a program without a shell in its own process group, collects its stdout, hands each
/// stderr line to a callback, and kills the whole group on timeout or cancellation. The child
/// is always reaped (no zombie), whatever happens.
struct ChildProcess: Sendable {
    struct Outcome: Sendable {
        var stdout: [UInt8]
        /// Exit status, or nil when killed by a signal.
        var exitCode: Int32?
        var signal: Int32?
        var timedOut: Bool
        /// What was read from stderr: the last line, and how many lines were not logged.
        var stderr: StderrLines
    }

    struct LaunchError: Error, CustomStringConvertible {
        let description: String
    }

    let command: [String]
    let environment: [(String, String)]
    /// Working directory of the child (the config file's folder).
    let directory: String
    let timeout: Double
    /// Cap on stdout bytes kept (the rest is drained and dropped, and the run fails).
    let maxOutput: Int

    func run(stderrLine: @escaping @Sendable (String) -> Void) async throws -> Outcome {
        let pid = PidBox()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (cont: CheckedContinuation<Outcome, any Error>) in
                DispatchQueue.global().async {
                    do {
                        cont.resume(returning: try runBlocking(pidBox: pid, stderrLine: stderrLine))
                    } catch {
                        cont.resume(throwing: error)
                    }
                }
            }
        } onCancel: {
            let p = pid.get()
            if p > 0 { kill(-p, SIGKILL) }
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

    private func runBlocking(pidBox: PidBox, stderrLine: @escaping @Sendable (String) -> Void) throws -> Outcome {
        var outPipe: [Int32] = [0, 0], errPipe: [Int32] = [0, 0]
        guard pipe(&outPipe) == 0, pipe(&errPipe) == 0 else {
            throw LaunchError(description: "cannot create pipes: \(String(cString: strerror(errno)))")
        }
        // Only the child's copies (dup2'ed onto 1 and 2) may survive exec.
        for fd in outPipe + errPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        guard Self.addChdir(&actions, directory) == 0 else {
            throw LaunchError(description: "cannot set the working directory \(directory)")
        }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
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
        for (k, v) in environment {
            if env[k] == nil { order.append(k) }
            env[k] = v
        }
        let argv = command.map { strdup($0) } + [nil]
        let envp = order.map { strdup("\($0)=\(env[$0]!)") } + [nil]
        defer {
            for p in argv { free(p) }
            for p in envp { free(p) }
        }
        var pid: pid_t = 0
        let rc = posix_spawnp(&pid, command[0], &actions, &attr, argv, envp)
        close(outPipe[1])
        close(errPipe[1])
        guard rc == 0 else {
            close(outPipe[0])
            close(errPipe[0])
            throw LaunchError(description: "cannot start \(command[0]): \(String(cString: strerror(rc)))")
        }
        pidBox.set(pid)

        let timedOut = Locked(false)
        let finished = Locked(false)
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(deadline: .now() + timeout)
        timer.setEventHandler {
            let done = finished.withLock { $0 }
            if !done {
                timedOut.withLock { $0 = true }
                kill(-pid, SIGKILL)
            }
        }
        timer.resume()

        let errFD = errPipe[0]
        let errDone = DispatchSemaphore(value: 0)
        let errResult = Locked(StderrLines())
        DispatchQueue.global().async {
            var lines = StderrLines()
            let buf = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 1)
            defer { buf.deallocate() }
            while true {
                let n = read(errFD, buf.baseAddress, buf.count)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                lines.feed(UnsafeRawBufferPointer(rebasing: buf[0..<n]), emit: stderrLine)
            }
            lines.finish(emit: stderrLine)
            close(errFD)
            errResult.withLock { $0 = lines }
            errDone.signal()
        }

        var out: [UInt8] = []
        var overflow = false
        var buf = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buf.withUnsafeMutableBytes { read(outPipe[0], $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            if out.count + n > maxOutput { overflow = true; kill(-pid, SIGKILL); continue }
            out.append(contentsOf: buf[0..<n])
        }
        close(outPipe[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        finished.withLock { $0 = true }
        timer.cancel()
        // The group may still hold grandchildren that keep stderr open: end them too.
        kill(-pid, SIGKILL)
        _ = errDone.wait(timeout: .now() + 2)
        if overflow { throw LaunchError(description: "printed more than \(maxOutput / (1 << 20)) MiB on stdout") }
        let exited = status & 0x7F == 0
        return Outcome(stdout: out, exitCode: exited ? (status >> 8) & 0xFF : nil, signal: exited ? nil : status & 0x7F, timedOut: timedOut.withLock { $0 }, stderr: errResult.withLock { $0 })
    }
}

/// The running child's pid, shared with the cancellation handler.
final class PidBox: Sendable {
    private let value = Locked<pid_t>(0)
    func set(_ p: pid_t) { value.withLock { $0 = p } }
    func get() -> pid_t { value.withLock { $0 } }
}
