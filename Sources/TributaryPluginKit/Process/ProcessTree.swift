import TributaryCore
import CProcess
#if canImport(Glibc)
import Glibc
#endif

/// What `/proc/<pid>/stat` says about one process: enough to walk process trees.
struct ProcStat: Equatable, Sendable {
    var pid: pid_t
    /// R, S, D, T, Z...
    var state: UInt8
    var ppid: pid_t
    var pgrp: pid_t
    var session: pid_t
    /// Clock ticks after boot at which it started: with the pid, names one process (pids are reused).
    var startTime: UInt64

    var isZombie: Bool { state == UInt8(ascii: "Z") || state == UInt8(ascii: "X") }

    /// Parses the text of `/proc/<pid>/stat`. The command name (field 2) may hold spaces and
    /// parentheses, so the other fields are counted from its last `)`.
    static func parse(_ text: UnsafeRawBufferPointer) -> ProcStat? {
        guard let close = text.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        var i = text.startIndex
        guard let pid = number(text, &i), i < text.endIndex, text[i] == 0x20 else { return nil }
        i = close + 1
        while i < text.endIndex && text[i] == 0x20 { i += 1 }
        guard i < text.endIndex else { return nil }
        let state = text[i]
        i += 1
        // Fields 4 (ppid) to 22 (starttime).
        var fields: [Int64] = []
        fields.reserveCapacity(19)
        while fields.count < 19 {
            guard let v = number(text, &i) else { return nil }
            fields.append(v)
        }
        guard let pid32 = Int32(exactly: pid), let ppid = Int32(exactly: fields[0]), let pgrp = Int32(exactly: fields[1]),
              let session = Int32(exactly: fields[2]), fields[18] >= 0 else { return nil }
        return ProcStat(pid: pid32, state: state, ppid: ppid, pgrp: pgrp, session: session, startTime: UInt64(fields[18]))
    }

    static func parse(_ text: [UInt8]) -> ProcStat? {
        text.withUnsafeBytes { parse($0) }
    }

    /// The decimal number after the spaces at `i` (which it moves past it); nil when there is none.
    private static func number(_ bytes: UnsafeRawBufferPointer, _ i: inout Int) -> Int64? {
        while i < bytes.endIndex && bytes[i] == 0x20 { i += 1 }
        var negative = false
        if i < bytes.endIndex && bytes[i] == UInt8(ascii: "-") {
            negative = true
            i += 1
        }
        var v: Int64 = 0
        var digits = 0
        while i < bytes.endIndex, bytes[i] >= 0x30, bytes[i] <= 0x39, digits < 19 {
            v = v * 10 + Int64(bytes[i] - 0x30)
            i += 1
            digits += 1
        }
        guard digits > 0, i == bytes.endIndex || bytes[i] == 0x20 || bytes[i] == 0x0A else { return nil }
        return negative ? -v : v
    }
}

/// Reads `/proc` with plain system calls and few allocations: it runs at the end of every exec run.
enum ProcFS {
    /// Up to `limit` bytes of a file, nil when it cannot be read.
    static func read(_ path: String, limit: Int) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: min(limit, 4096))
        while out.count < limit {
            let n = buf.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, min($0.count, limit - out.count)) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            out.append(contentsOf: buf[0..<n])
        }
        return out
    }

    static func stat(_ pid: pid_t) -> ProcStat? {
        let fd = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return withUnsafeTemporaryAllocation(byteCount: 1024, alignment: 1) { buf -> ProcStat? in
            var n = 0
            repeat { n = Glibc.read(fd, buf.baseAddress, buf.count) } while n < 0 && errno == EINTR
            return n > 0 ? ProcStat.parse(UnsafeRawBufferPointer(rebasing: buf[0..<n])) : nil
        }
    }

    /// Every process now (thread-group leaders: /proc lists no threads at its top).
    static func all() -> [ProcStat] {
        guard let dir = opendir("/proc") else { return [] }
        defer { closedir(dir) }
        var out: [ProcStat] = []
        while let entry = readdir(dir) {
            let pid: pid_t? = withUnsafePointer(to: entry.pointee.d_name) { p in
                p.withMemoryRebound(to: UInt8.self, capacity: 256) { name in
                    var v: Int32 = 0
                    var i = 0
                    while name[i] != 0 {
                        guard name[i] >= 0x30 && name[i] <= 0x39, v < 100_000_000 else { return nil }
                        v = v * 10 + Int32(name[i] - 0x30)
                        i += 1
                    }
                    return i > 0 ? v : nil
                }
            }
            if let pid, let s = stat(pid) { out.append(s) }
        }
        return out
    }

    /// The inode of the pipe behind `fd` (as `/proc/<pid>/fd/<n>` shows it: `pipe:[inode]`).
    static func inode(ofFD fd: Int32) -> UInt64? {
        var st = Glibc.stat()
        guard fstat(fd, &st) == 0 else { return nil }
        return UInt64(st.st_ino)
    }

    /// Whether process `pid` has a descriptor open on one of the pipes `inodes`.
    static func holdsPipe(_ pid: pid_t, inodes: Set<UInt64>) -> Bool {
        guard !inodes.isEmpty, let dir = opendir("/proc/\(pid)/fd") else { return false }
        defer { closedir(dir) }
        var link = [CChar](repeating: 0, count: 64)
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { p in
                p.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name.first == "." { continue }
            let n = readlink("/proc/\(pid)/fd/\(name)", &link, link.count - 1)
            guard n > 6 else { continue }
            let target = String(decoding: link[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if target.hasPrefix("pipe:["), let ino = UInt64(target.dropFirst(6).dropLast()), inodes.contains(ino) { return true }
        }
        return false
    }

    /// Whether process `pid`'s environment (as it was at exec) has the entry `entry` (`K=V`).
    static func environmentHas(_ pid: pid_t, _ entry: [UInt8]) -> Bool {
        guard let env = read("/proc/\(pid)/environ", limit: 1 << 20) else { return false }
        return env.split(separator: 0).contains { $0.elementsEqual(entry) }
    }
}

/// Ends everything an `exec` program leaves behind, and only that.
///
/// Tributary makes itself a child subreaper (prctl PR_SET_CHILD_SUBREAPER) on first use, so a
/// program's descendants orphaned by their parent's death (after `setsid`, a double fork, or
/// simply the program exiting first) are reparented to Tributary instead of init and can still
/// be found and reaped.
///
/// When a run ends (timeout, cancellation, stdout over its cap, or the program exited), its
/// *tree* is killed with SIGKILL and reaped. The tree is, from one scan of /proc:
/// 1. the program itself, unreaped until the very end (so its pid, and with it its process
///    group id, cannot be reused by another process in the meantime);
/// 2. every member of its process group (a process can only join a group of its own session,
///    and the group was created for this program);
/// 3. every orphan reparented to Tributary (parent is Tributary, and it is not one of the
///    programs Tributary started) that holds this run's stdout or stderr pipe (pipe inodes are
///    unique while open), or whose environment carries this run's `TRIBUTARY_EXEC_TOKEN`,
///    which every program gets and its descendants inherit;
/// 4. when the process claims all its children (`claimAllChildren`, which the tributary binary
///    does: it starts no process but exec programs) and no other exec run is active, every
///    other orphan too: it can only come from an exec run that has ended;
/// 5. every descendant of the above, by parent chain.
///
/// Everything found is first stopped (SIGSTOP, after checking its start time so a reused pid
/// is never signalled), then /proc is scanned again for children forked meanwhile, until a
/// scan finds nothing new: a stopped process cannot fork, so the tree is complete. Then all
/// get SIGKILL, and Tributary reaps the ones that are (or, as their parents die, become) its
/// children.
///
/// Why this is safe with several exec sources running at once: each run kills only what
/// belongs to it by 1-3 and 5. Another run's program is never a candidate (it is excluded by
/// pid), and its descendants are in no other run's group, hold no other run's pipe and carry
/// their own token; an orphan nothing attributes is killed (4) only once no other run is left
/// that it could belong to. The scans and kills of all runs, and the starting of programs,
/// are serialized by one lock, so no program starts during a sweep and none is mistaken for
/// an orphan. Processes Tributary did not start and that descend from none of its programs
/// are never touched.
public final class ProcessReaper: Sendable {
    static let shared = ProcessReaper()

    /// One started program, registered until it is reaped.
    struct Run: Sendable {
        let id: Int
        let pid: pid_t
        let token: [UInt8]
        let pipeInodes: Set<UInt64>
    }

    /// How a run's end went.
    struct Ended: Sendable {
        /// The program's wait status, nil when it could not be reaped in time.
        var status: Int32?
        /// Processes other than the program that were still there and were killed.
        var othersKilled: Int
    }

    private struct State {
        /// Started programs, until reaped: never taken for orphans.
        var runs: [Int: Run] = [:]
        /// Runs reserved or started whose tree has not been killed yet: while another one is
        /// active, an orphan nothing attributes might be its, so there is no sweep.
        var active: Set<Int> = []
        var nextID = 1
        var claimsAllChildren = false
        var subreaper = false
    }

    private let state = Locked(State())

    /// Name of the environment variable that marks a run's processes.
    static let tokenVariable = "TRIBUTARY_EXEC_TOKEN"

    /// Declares that every child of this process is an exec program or an orphan of one: true
    /// for the tributary binary, which starts no other process. Lets the last run to end kill
    /// orphans nothing else attributes (see the type's comment). Tests in a shared test process
    /// do not claim, so children started by the test harness are never touched.
    public static func claimAllChildren() {
        shared.state.withLock { $0.claimsAllChildren = true }
    }

    /// A new run's id and its token (`TRIBUTARY_EXEC_TOKEN=<tributary pid>-<id>-<random>`).
    func reserve() -> (id: Int, token: String) {
        let id = state.withLock { s -> Int in
            if !s.subreaper {
                s.subreaper = tributary_set_child_subreaper() == 0
            }
            let id = s.nextID
            s.nextID += 1
            s.active.insert(id)
            return id
        }
        let random = (0..<4).map { _ in String(UInt16.random(in: 0...UInt16.max), radix: 16) }.joined()
        return (id, "\(Self.tokenVariable)=\(getpid())-\(id)-\(random)")
    }

    /// Starts the program with `spawn` (returning its pid, or throwing) while no run is
    /// scanning or sweeping, and registers it.
    func start<E: Error>(id: Int, token: String, pipeInodes: Set<UInt64>, spawn: () throws(E) -> pid_t) throws(E) -> Run {
        try state.withLock { (s: inout State) throws(E) -> Run in
            let pid: pid_t
            do throws(E) { pid = try spawn() } catch {
                s.active.remove(id)
                throw error
            }
            let run = Run(id: id, pid: pid, token: Array(token.utf8), pipeInodes: pipeInodes)
            s.runs[id] = run
            return run
        }
    }

    /// Gives up a reserved id whose program was never started.
    func release(id: Int) {
        state.withLock { _ = $0.active.remove(id) }
    }

    /// Kills the run's tree (see the type's comment) and reaps it, the program included, whose
    /// wait status is returned. Waits at most `reapLimit` seconds for the killed to die.
    func end(_ run: Run, reapLimit: Double = 10) -> Ended {
        let me = getpid()
        // pid -> start time of everything found; `alive`: the ones that were not zombies yet;
        // `own`: the ones attributed to this run (not only swept).
        var targets: [pid_t: UInt64] = [:]
        var alive = Set<pid_t>()
        var own = Set<pid_t>()
        state.withLock { s in
            let others = Set(s.runs.values.filter { $0.id != run.id }.map(\.pid))
            let sweep = s.claimsAllChildren && s.active == [run.id]
            var procs: [ProcStat] = []
            for _ in 0..<100 {
                var fresh = false
                procs = ProcFS.all()
                for (p, attributed) in Self.tree(of: run, in: procs, me: me, others: others, sweep: sweep) where targets[p.pid] != p.startTime {
                    // Stopped, it can neither fork nor exit: the next scan sees all its children.
                    if !p.isZombie, ProcFS.stat(p.pid)?.startTime == p.startTime {
                        kill(p.pid, SIGSTOP)
                        alive.insert(p.pid)
                        fresh = true
                    }
                    targets[p.pid] = p.startTime
                    if attributed { own.insert(p.pid) }
                }
                if !fresh { break }  // zombies fork no more
            }
            for pid in alive where pid > 1 && pid != me && ProcFS.stat(pid)?.startTime == targets[pid] { kill(pid, SIGKILL) }
            kill(-run.pid, SIGKILL)  // the program is unreaped, so its group id is still its own
            s.active.remove(run.id)  // its tree is dead: it can no longer own a new orphan
            if s.claimsAllChildren {
                // Zombies among our children that no run waits for: dead, so reaping them harms no one.
                for p in procs where p.ppid == me && p.isZombie && p.pid != run.pid && !others.contains(p.pid) && targets[p.pid] == nil {
                    var st: Int32 = 0
                    _ = waitpid(p.pid, &st, WNOHANG)
                }
            }
        }
        if targets[run.pid] == nil { targets[run.pid] = 0 }
        let othersKilled = alive.intersection(own).subtracting([run.pid]).count
        var status: Int32? = nil
        var pending = targets
        let limit = Monotonic.now() + reapLimit
        var pause: UInt32 = 200
        while !pending.isEmpty {
            state.withLock { s in
                for (pid, start) in pending {
                    var st: Int32 = 0
                    if pid == run.pid {
                        let r = waitpid(pid, &st, WNOHANG)
                        if r == pid { status = st }
                        if r == pid || (r < 0 && errno == ECHILD) {
                            pending[pid] = nil
                            s.runs[run.id] = nil
                        }
                        continue
                    }
                    guard let p = ProcFS.stat(pid), p.startTime == start else {
                        pending[pid] = nil  // gone: reaped by its parent, itself killed
                        continue
                    }
                    if p.ppid == me && p.isZombie && waitpid(pid, &st, WNOHANG) == pid { pending[pid] = nil }
                }
            }
            if pending.isEmpty || Monotonic.now() > limit { break }
            usleep(pause)
            pause = min(pause * 2, 20_000)
        }
        if pending[run.pid] != nil { state.withLock { _ = $0.runs.removeValue(forKey: run.id) } }
        return Ended(status: status, othersKilled: othersKilled)
    }

    /// The run's tree in the scan `procs` (points 1 to 5 of the type's comment), each with
    /// whether it is attributed to the run (false: only swept, point 4).
    static func tree(of run: Run, in procs: [ProcStat], me: pid_t, others: Set<pid_t>, sweep: Bool) -> [(ProcStat, attributed: Bool)] {
        var children: [pid_t: [ProcStat]] = [:]
        var roots: [(ProcStat, Bool)] = []
        for p in procs where p.pid > 1 && p.pid != me && !others.contains(p.pid) {
            children[p.ppid, default: []].append(p)
            if p.pid == run.pid || p.pgrp == run.pid {
                roots.append((p, true))
            } else if p.ppid == me {
                if !p.isZombie && (ProcFS.holdsPipe(p.pid, inodes: run.pipeInodes) || ProcFS.environmentHas(p.pid, run.token)) {
                    roots.append((p, true))
                } else if sweep {
                    roots.append((p, false))
                }
            }
        }
        var seen = Set<pid_t>()
        var out: [(ProcStat, attributed: Bool)] = []
        var queue = roots
        while let (p, attributed) = queue.popLast() {
            guard seen.insert(p.pid).inserted else { continue }
            out.append((p, attributed))
            queue.append(contentsOf: (children[p.pid] ?? []).map { ($0, attributed) })
        }
        return out
    }
}

/// Seconds on the monotonic clock.
enum Monotonic {
    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
