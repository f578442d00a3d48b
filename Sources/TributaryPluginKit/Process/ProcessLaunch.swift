import TributaryCore
import CProcess
#if canImport(Glibc)
import Glibc
#endif

/// How every exec plugin starts its program: `posix_spawnp` without a shell, in the given
/// folder, in a process group of its own, with SIGPIPE, SIGINT, SIGTERM and SIGCHLD at their
/// defaults and no signal blocked, stdin/stdout/stderr on the given descriptors and nothing
/// else of Tributary's open in it; registered with the `ProcessReaper` (which then ends its
/// whole tree) and marked with the run's `TRIBUTARY_EXEC_TOKEN`.
enum ProcessLaunch {
    /// Starts `command`; `stdin` -1 means /dev/null. `pipeInodes`: the pipes the program holds
    /// (the reaper finds orphans that keep one open).
    static func spawn(command: [String], environment: [(String, String)], directory: String,
                      stdin: Int32, stdout: Int32, stderr: Int32, pipeInodes: Set<UInt64>) throws(ChildProcess.LaunchError) -> ProcessReaper.Run {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        guard addChdir(&actions, directory) == 0 else {
            throw ChildProcess.LaunchError(description: "cannot set the working directory \(directory)")
        }
        if stdin >= 0 {
            posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
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
        let envp = childEnvironment(environment, token: token).map { strdup($0) } + [nil]
        defer {
            for p in argv { free(p) }
            for p in envp { free(p) }
        }
        let program = command[0]
        return try reaper.start(id: id, token: token, pipeInodes: pipeInodes) { () throws(ChildProcess.LaunchError) -> pid_t in
            var pid: pid_t = 0
            let rc = posix_spawnp(&pid, program, &actions, &attr, argv, envp)
            guard rc == 0 else { throw ChildProcess.LaunchError(description: "cannot start \(program): \(String(cString: strerror(rc)))") }
            return pid
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
    private static func childEnvironment(_ environment: [(String, String)], token: String) -> [String] {
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
}
