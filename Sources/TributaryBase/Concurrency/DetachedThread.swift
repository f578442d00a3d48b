#if canImport(Glibc)
import Glibc
#endif
import CSystem

/// A detached POSIX thread running one closure, named for `top` and the kernel (at most 15
/// bytes). Foundation's `Thread` did this before; it is the one piece of Foundation proper
/// (CoreFoundation and ICU behind it) the binary used for threads, and linking it costs every
/// start its relocations (Docs/PERFORMANCE.md, "Start-up").
public enum DetachedThread {
    /// Starts `body` on a new thread and returns it, with `stackSize` bytes of stack (the
    /// pthread default, `ulimit -s`, when nil). A thread that cannot start is a precondition
    /// failure: it means the process is out of threads or memory.
    @discardableResult
    public static func start(name: String, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) -> pthread_t {
        var attr = pthread_attr_t()
        pthread_attr_init(&attr)
        defer { pthread_attr_destroy(&attr) }
        if let stackSize { pthread_attr_setstacksize(&attr, stackSize) }
        pthread_attr_setdetachstate(&attr, Int32(PTHREAD_CREATE_DETACHED))
        let start = Unmanaged.passRetained(ThreadStart(name: name, body: body)).toOpaque()
        var t = pthread_t()
        let rc = pthread_create(&t, &attr, { arg in
            let start = Unmanaged<ThreadStart>.fromOpaque(arg!).takeRetainedValue()
            DetachedThread.setName(start.name)
            DetachedThread.takeProcessNice()
            start.body()
            return nil
        }, start)
        precondition(rc == 0, "cannot start the \(name) thread: \(String(cString: strerror(rc)))")
        return t
    }

    /// The process's nice value: its main thread's (on Linux each thread has its own, and the
    /// main thread's id is the process's). What `nice -n 10 tributary` or a unit's `Nice=`
    /// asked for.
    static let processNice: Int32 = {
        errno = 0
        let n = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(getpid()))
        return errno == 0 ? n : 0
    }()

    /// Gives the calling thread the process's nice value. libdispatch raises the priority of
    /// its own threads (nice -2 for user-initiated work, where it may: as root), and a thread
    /// inherits its creator's, so without this every thread Tributary starts from one of them
    /// (the workers, the curl and delivery threads, and the programs they spawn) ran at -2
    /// under `nice -n 10`: above every ordinary process, not below.
    static func takeProcessNice() {
        let tid = id_t(tributary_gettid())
        errno = 0
        let now = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), tid)
        if errno == 0 && now != processNice { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), tid, processNice) }
    }

    /// Names the calling thread. `pthread_setname_np` is looked up at run time: the Glibc
    /// module hides it behind _GNU_SOURCE.
    static func setName(_ name: String) {
        typealias Fn = @convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32
        guard let sym = dlsym(nil, "pthread_setname_np") else { return }  // nil is RTLD_DEFAULT
        let cname = Array(name.utf8.prefix(15)).map { CChar(bitPattern: $0) } + [0]
        _ = unsafeBitCast(sym, to: Fn.self)(pthread_self(), cname)
    }
}

/// What a new thread runs: handed to it once through `pthread_create`, then owned by it.
private final class ThreadStart: Sendable {
    let name: String
    let body: @Sendable () -> Void
    init(name: String, body: @escaping @Sendable () -> Void) {
        self.name = name
        self.body = body
    }
}
