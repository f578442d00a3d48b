import TributaryBase
import TributaryJSON
import TributaryOptions
import CCurl
import FoundationEssentials
import Glibc
import Dispatch
import Synchronization

/// The network transport: one dedicated thread owns a curl multi handle and drives every
/// transfer; callers `await` their response. A Swift-side admission queue keeps at most
/// `concurrency` transfers inside curl, and at most `perHost` per host, so curl's timeouts only
/// ever count time on the wire.
///
/// Nothing happens until the first request: then libcurl is loaded (`CurlLibrary.shared()`), the
/// multi handle made and the curl thread started (`CurlDriver`). A run that replays or fails
/// before fetching never loads libcurl. When libcurl cannot be loaded every request fails with
/// an `.other` error that names libcurl.so.4 and says why (the loader's message).
public final class CurlTransport: HTTPTransport, @unchecked Sendable {
    private enum Phase {
        case idle
        case running(CurlDriver)
        case unavailable(SharedLibrary.LoadError)
        case refusing  // refuseNewRequests() before the first request
        case stopped
    }

    private let settings: HTTPSettings
    private let library: @Sendable () -> Result<CurlLibrary, SharedLibrary.LoadError>
    private let phase = Locked(Phase.idle)
    /// The driver once started, read without a lock by every request (the lock is only for the
    /// first start and the other transitions): retained when stored, once, under the lock, and
    /// released in `deinit`. An `Atomic`, whose load and store are compiled into this module,
    /// not `AtomicLazyReference`, whose are compiled into the standard library: ThreadSanitizer
    /// cannot see their ordering there, and in one CI run it reported the driver's fields,
    /// written before the store and read after the load, as a race.
    private let running = Atomic<Unmanaged<CurlDriver>?>(nil)

    deinit { running.load(ordering: .acquiring)?.release() }

    public convenience init(settings: HTTPSettings) {
        self.init(settings: settings, library: CurlLibrary.shared)
    }

    /// `library` stands in for `CurlLibrary.shared` in tests (a library that does not exist).
    init(settings: HTTPSettings, library: @escaping @Sendable () -> Result<CurlLibrary, SharedLibrary.LoadError>) {
        self.settings = settings
        self.library = library
    }

    /// Told once, when the first request starts the transport, when `http.http2` is on and the
    /// loaded libcurl has no HTTP/2 (no nghttp2): requests use HTTP/1.1 then. The CLI logs it at
    /// debug level (`run --verbose`). Not `check`: it never loads libcurl (StartupTests), and
    /// the answer is the loaded library's.
    public var notice: (@Sendable (String) -> Void)?

    /// The version of the libcurl this process uses, or would use once it fetches, e.g. `7.88.1`.
    ///
    /// Once libcurl is loaded this is `curl_version_info(CURLVERSION_NOW)->version`. Before
    /// that, which is always the case for `tributary --version`, loading libcurl only to ask
    /// would cost the ~8 ms of dynamic loading this program avoids at start, so the version is
    /// read from the file the loader would open: `LibraryFile.locate` follows ld.so's order
    /// (its own search list from `dlinfo`: LD_LIBRARY_PATH, the program's RUNPATH; then
    /// /etc/ld.so.cache; then the system directories), and the version is the one in the
    /// `libcurl/<version>` string that libcurl keeps in its read-only data for `curl_version()`.
    /// That is a few small reads (the cache, about 60 KB of `.rodata`), well under a
    /// millisecond, and it names the library a later `dlopen` gets. The build-time
    /// `LIBCURL_VERSION` (the headers' version) is the fallback only when no such file or
    /// string is found, marked as such, because the installed library can differ from the
    /// headers (a security update, another machine). Rejected: `dlopen` just for this (the cost
    /// above), `dlopen(RTLD_NOLOAD)` (sees only loaded libraries), `ldconfig -p` (a process,
    /// and it ignores LD_LIBRARY_PATH). Tests compare the value with `curl_version_info`.
    public static var curlVersion: String {
        if let lib = CurlLibrary.ifLoaded { return lib.version }
        guard let path = LibraryFile.locate(CurlLibrary.soname) else {
            return "\(LIBCURL_VERSION) (build headers; \(CurlLibrary.soname) not found)"
        }
        return LibraryFile.embeddedVersion(after: "libcurl/", inFile: path) ?? "\(LIBCURL_VERSION) (build headers; no version in \(path))"
    }

    /// After this, new requests fail with `.cancelled` at once; transfers in flight continue.
    public func refuseNewRequests() {
        let driver = phase.withLock { p -> CurlDriver? in
            switch p {
            case .running(let d): return d
            case .idle: p = .refusing; return nil
            case .unavailable, .refusing, .stopped: return nil
            }
        }
        driver?.refuseNewRequests()
    }

    /// Stops the curl thread (cancelling what is left) and frees the multi handle. Idempotent.
    public func shutdown() {
        let driver = phase.withLock { p -> CurlDriver? in
            defer { p = .stopped }
            if case .running(let d) = p { return d }
            return nil
        }
        driver?.shutdown()
    }

    /// Easy handles the curl thread made so far (0 before the first request): tests.
    var handlesMade: Int { running.load(ordering: .acquiring)?.takeUnretainedValue().handlesMade.load(ordering: .relaxed) ?? 0 }

    public func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        let driver = try start(for: request)
        return try await driver.send(request)
    }

    /// The running driver, started on the first request.
    private func start(for request: HTTPRequest) throws(HTTPError) -> CurlDriver {
        // After shutdown() this still returns the driver, which then refuses the request itself
        // ("not started: shutting down"), as before.
        if let d = running.load(ordering: .acquiring) { return d.takeUnretainedValue() }
        let outcome = phase.withLock { p -> Result<CurlDriver, HTTPError> in
            switch p {
            case .running(let d):
                return .success(d)
            case .unavailable(let e):
                return .failure(HTTPError(kind: .other, method: request.method, url: request.url, message: e.message))
            case .refusing, .stopped:
                return .failure(HTTPError(kind: .cancelled, method: request.method, url: request.url, message: "not started: shutting down"))
            case .idle:
                switch library() {
                case .success(let lib):
                    if settings.http2, !lib.hasHTTP2 { notice?(CurlDriver.noHTTP2Note(lib)) }
                    // Stored once: only the idle phase gets here, and it ends here.
                    let d: CurlDriver
                    do throws(CurlDriver.StartFailure) {
                        d = try CurlDriver(settings: settings, curl: lib)
                    } catch {
                        return .failure(HTTPError(kind: .other, method: request.method, url: request.url, message: error.message))
                    }
                    running.store(Unmanaged.passRetained(d), ordering: .releasing)
                    p = .running(d)
                    return .success(d)
                case .failure(let e):
                    p = .unavailable(e)
                    return .failure(HTTPError(kind: .other, method: request.method, url: request.url, message: e.message))
                }
            }
        }
        return try outcome.get()
    }
}

/// The curl thread and its multi handle, made by `CurlTransport` on its first request.
///
/// Threading rule: `multi`, `active`, `sockets`, `timerDue` and the easy handles are touched
/// only by the curl thread; `waiting`, `cancelled` and `stopping` live in `shared` (`Locked`) and
/// are how other threads talk to it, followed by a write to `wakeFD` (for a new transfer, only
/// while it sleeps: `polling`).
///
/// The loop is libcurl's socket interface: curl says which sockets it waits on and for what
/// (`CURLMOPT_SOCKETFUNCTION`, kept in an epoll set) and when its next timeout is due
/// (`CURLMOPT_TIMERFUNCTION`); the loop waits in `epoll_wait` and hands each ready socket, or the
/// due timeout, to `curl_multi_socket_action`, which runs only the transfers on that socket.
/// `curl_multi_perform` ran every transfer in flight on each pass, and libcurl polls a running
/// transfer's socket when it is not told it is ready: about 200 `poll` calls a pass at 200 in
/// flight, 19,500 for 1,000 requests.
final class CurlDriver: @unchecked Sendable {
    private struct Shared {
        var waiting: [Transfer] = []
        var cancelled: [Transfer] = []
        var stopping = false
        var refuseNew = false
        /// The curl thread is in (or about to enter) `epoll_wait` and must be woken for a new
        /// transfer. Cleared by the first sender that wakes it, and by the loop itself.
        var polling = false
        /// Transfers were added to `waiting` since the loop last looked.
        var arrived = false
    }

    private let settings: HTTPSettings
    private let curl: CurlLibrary
    private let api: UnsafePointer<tributary_curl>
    private let multi: UnsafeMutableRawPointer
    private let shared = Locked(Shared())
    private var active: [Transfer] = []      // curl thread only
    private var perHost: [String: Int] = [:]  // curl thread only
    /// Hosts whose last completed transfer came over HTTP/2 (curl thread only): they take up to
    /// `multiplexedPerHost` transfers in flight instead of `http.per_host`.
    private var multiplexed: Set<String> = []
    /// `http.http2` and a libcurl that has it.
    let http2: Bool
    /// `http.ca_file` with the system bundle (`CABundle`); nil without `ca_file`.
    private let caBundle: Result<CABundle, CABundleError>?
    /// The curl thread, set first thing in `loop` and read only there (debug assertions).
    private var loopThread = pthread_t()
    private let finished = DispatchSemaphore(value: 0)
    /// The epoll set of curl's sockets and `wakeFD`, and the eventfd other threads write to wake
    /// the loop.
    private let epollFD: Int32
    private let wakeFD: Int32
    /// The sockets in the epoll set (curl thread only).
    private var sockets: Set<Int32> = []
    /// When curl's timeout is due (`DispatchTime` nanoseconds), nil when it has none (curl
    /// thread only).
    private var timerDue: UInt64?
    /// Easy handles of finished transfers, reset to libcurl's defaults, for the next ones
    /// (curl thread only; at most `http.concurrency`). A new handle is a large zeroed block
    /// set up and torn down again: about 16,000 instructions a transfer, a tenth of what a
    /// small page costs the curl thread. A reset handle keeps only what `curl_easy_reset`
    /// documents it keeps (its TLS session ids, matched against each new transfer's TLS
    /// settings by libcurl); connections and DNS answers are the multi handle's anyway.
    private var spareHandles: [UnsafeMutableRawPointer] = []
    /// Easy handles made so far (tests: handles are reused).
    let handlesMade = Atomic<Int>(0)

    /// Why the curl thread could not start: the epoll set or the eventfd could not be made (the
    /// process is out of file descriptors).
    struct StartFailure: Error {
        let message: String
    }

    init(settings: HTTPSettings, curl: CurlLibrary) throws(StartFailure) {
        let ep = epoll_create1(Int32(EPOLL_CLOEXEC))
        let wake = ep >= 0 ? eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC)) : -1
        guard ep >= 0, wake >= 0 else {
            let failure = StartFailure(message: "cannot start the HTTP thread: \(ep < 0 ? "epoll_create1" : "eventfd"): \(String(cString: strerror(errno)))")
            if ep >= 0 { close(ep) }
            throw failure
        }
        var ev = epoll_event()
        ev.events = EPOLLIN.rawValue
        ev.data.fd = wake
        _ = epoll_ctl(ep, EPOLL_CTL_ADD, wake, &ev)
        epollFD = ep
        wakeFD = wake
        self.settings = settings
        self.curl = curl
        self.api = curl.api
        self.multi = tributary_curl_multi_init(curl.api)!
        tributary_multi_setopt_long(api, multi, CURLMOPT_MAXCONNECTS, Int(max(settings.concurrency, 8)))
        // libcurl 7.62+ multiplexes by default; say it either way, so `http2: false` means it.
        http2 = settings.http2 && curl.hasHTTP2
        tributary_multi_setopt_long(api, multi, CURLMOPT_PIPELINING, http2 ? Int(CURLPIPE_MULTIPLEX) : Int(CURLPIPE_NOTHING))
        caBundle = settings.caFile.map { CABundle.make(system: Self.systemCAFile(curl), extra: $0) }
        // The callbacks run inside curl calls on the curl thread (and in `multi_cleanup`, after
        // the loop ended); the driver outlives the multi handle.
        let me = Unmanaged.passUnretained(self).toOpaque()
        tributary_multi_setopt_socket_cb(api, multi, { _, fd, what, me, _ in
            Unmanaged<CurlDriver>.fromOpaque(me!).takeUnretainedValue().watch(fd, what)
            return 0
        }, me)
        tributary_multi_setopt_timer_cb(api, multi, { _, ms, me in
            Unmanaged<CurlDriver>.fromOpaque(me!).takeUnretainedValue().setTimer(ms)
            return 0
        }, me)
        DetachedThread.start(name: "tributary-curl") { [unowned self] in self.loop() }
    }

    /// The sentence of `CurlTransport.notice`.
    static func noHTTP2Note(_ curl: CurlLibrary) -> String {
        "http.http2: libcurl \(curl.version) was built without HTTP/2 (no nghttp2): requests use HTTP/1.1"
    }

    /// The CA bundle this libcurl verifies against by default (`CURLINFO_CAINFO`, libcurl
    /// 7.84+), or nil when it does not say (then `CABundle` takes Debian's).
    static func systemCAFile(_ curl: CurlLibrary) -> String? {
        guard let h = tributary_curl_easy_init(curl.api) else { return nil }
        defer { tributary_curl_easy_cleanup(curl.api, h) }
        var path: UnsafeMutablePointer<CChar>? = nil
        guard tributary_easy_getinfo_string(curl.api, h, CURLINFO_CAINFO, &path) == CURLE_OK, let path else { return nil }
        return String(cString: path)
    }

    /// The most transfers in flight to a host that answers over HTTP/2: they are streams of
    /// one connection, not connections, so the default `http.per_host` (meant for HTTP/1.1
    /// connections) does not bound them; `http.concurrency` and 100 (libcurl's default
    /// `CURLMOPT_MAX_CONCURRENT_STREAMS`, and below nginx's 128) do. A `per_host` written in
    /// the config is the user's limit for the host whatever the protocol, and stays.
    var multiplexedPerHost: Int { settings.perHostIsSet ? settings.perHost : max(settings.perHost, min(settings.concurrency, 100)) }

    func refuseNewRequests() {
        shared.withLock { $0.refuseNew = true }
        wake()
    }

    /// Wakes the loop from `epoll_wait` (the eventfd stays readable until the loop reads it).
    private func wake() {
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    func shutdown() {
        let wasStopping = shared.withLock { s -> Bool in
            let was = s.stopping
            s.stopping = true
            return was
        }
        if wasStopping { return }
        wake()
        finished.wait()
        tributary_curl_multi_cleanup(api, multi)
    }

    /// The descriptors live as long as the driver, not only until `shutdown`: a send cancelled
    /// after it (its task not yet run again) or a signal's `refuseNewRequests` racing it still
    /// calls `wake()`, whose write would otherwise land in whatever file took the number next.
    /// Every caller of `wake()` holds the driver.
    deinit {
        close(epollFD)
        close(wakeFD)
    }

    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        let limit = request.bodyLimit.map { $0.bytes < settings.maxBody ? $0 : nil } ?? nil
        let transfer = Transfer(request: request, maxBody: limit?.bytes ?? settings.maxBody, limitName: limit?.option ?? "http.max_body", curl: curl)
        let result: Result<HTTPResponse, HTTPError> = await withTaskCancellationHandler {
            await withCheckedContinuation { (cont: CheckedContinuation<Result<HTTPResponse, HTTPError>, Never>) in
                transfer.continuation = cont
                // Woken only when it sleeps: a thread busy in `perform` sees `arrived` before it
                // polls (a wakeup costs a syscall and a reschedule, per request).
                let accepted = shared.withLock { s -> (Bool, wake: Bool) in
                    if s.stopping || s.refuseNew || transfer.isCancelled { return (false, false) }
                    s.waiting.append(transfer)
                    s.arrived = true
                    let wake = s.polling
                    s.polling = false
                    return (true, wake)
                }
                if accepted.0 {
                    if accepted.wake { wake() }
                } else {
                    transfer.finish(.failure(transfer.error(.cancelled, transfer.isCancelled ? "cancelled" : "not started: shutting down")))
                }
            }
        } onCancel: {
            transfer.markCancelled()
            shared.withLock { $0.cancelled.append(transfer) }
            wake()
        }
        return try result.get()
    }

    // MARK: curl thread

    /// Everything below `loop` touches `active`, `perHost` and the multi handle: the curl
    /// thread's alone. Checked in debug builds.
    @inline(__always) private func assertCurlThread(_ what: StaticString) {
        assert(pthread_equal(pthread_self(), loopThread) != 0, "\(what) off the curl thread")
    }

    private func loop() {
        loopThread = pthread_self()
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        var running: Int32 = 0
        while true {
            let (cancels, stopping) = shared.withLock { s -> ([Transfer], Bool) in
                let c = s.cancelled
                s.cancelled.removeAll()
                s.polling = false
                return (c, s.stopping)
            }
            for t in cancels { cancel(t) }
            if stopping { break }
            admit()
            // A handle just added is due at once in curl's timers: this starts it.
            if let due = timerDue, due <= DispatchTime.now().uptimeNanoseconds {
                timerDue = nil
                tributary_curl_multi_socket_action(api, multi, CURL_SOCKET_TIMEOUT, 0, &running)
            }
            // Finished transfers free slots: go round again at once so waiting ones are admitted
            // now, not after the wait.
            if drainMessages() > 0 { continue }
            // Sleep only if nothing arrived since `admit` looked; from here on a sender wakes us.
            let sleep = shared.withLock { s -> Bool in
                if s.arrived || s.stopping || !s.cancelled.isEmpty { return false }
                s.polling = true
                return true
            }
            if !sleep { continue }
            let n = events.withUnsafeMutableBufferPointer { e in
                epoll_wait(epollFD, e.baseAddress, Int32(e.count), waitMilliseconds())
            }
            guard n > 0 else { continue }
            for i in 0..<Int(n) {
                let fd = events[i].data.fd
                if fd == wakeFD {
                    var count: UInt64 = 0
                    _ = read(wakeFD, &count, 8)
                    continue
                }
                let got = events[i].events
                var bits: Int32 = 0
                if got & EPOLLIN.rawValue != 0 { bits |= CURL_CSELECT_IN }
                if got & EPOLLOUT.rawValue != 0 { bits |= CURL_CSELECT_OUT }
                if got & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 { bits |= CURL_CSELECT_ERR }
                tributary_curl_multi_socket_action(api, multi, fd, bits, &running)
            }
        }
        // Curl's callbacks off: `multi_cleanup` (on the thread that shuts down) closes the
        // connections without telling the epoll set, which is closed after it.
        tributary_multi_setopt_socket_cb(api, multi, nil, nil)
        tributary_multi_setopt_timer_cb(api, multi, nil, nil)
        // Shutdown: fail everything still waiting or running.
        let leftovers = shared.withLock { s -> [Transfer] in
            let w = s.waiting
            s.waiting.removeAll()
            return w
        }
        for t in leftovers { t.finish(.failure(t.error(.cancelled, "cancelled: shutting down"))) }
        for t in active {
            if let h = t.easy { tributary_curl_multi_remove_handle(api, multi, h) }
            recycle(t)  // one path for every handle: the spares are freed below
            t.finish(.failure(t.error(.cancelled, "cancelled: shutting down")))
        }
        active.removeAll()
        for h in spareHandles { tributary_curl_easy_cleanup(api, h) }
        spareHandles.removeAll()
        finished.signal()
    }

    /// Curl's `CURLMOPT_SOCKETFUNCTION`: wait on `fd` for what `what` says, or no longer.
    private func watch(_ fd: Int32, _ what: Int32) {
        assertCurlThread("watch")
        if what == CURL_POLL_REMOVE {
            if sockets.remove(fd) != nil { _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, nil) }
            return
        }
        var ev = epoll_event()
        ev.events = (what & CURL_POLL_IN != 0 ? EPOLLIN.rawValue : 0) | (what & CURL_POLL_OUT != 0 ? EPOLLOUT.rawValue : 0)
        ev.data.fd = fd
        // A socket curl closed without a REMOVE left the set with its close; its number may
        // come back for a new socket: either call falls back to the other.
        let known = !sockets.insert(fd).inserted
        if epoll_ctl(epollFD, known ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &ev) != 0 {
            _ = epoll_ctl(epollFD, known ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &ev)
        }
    }

    /// Curl's `CURLMOPT_TIMERFUNCTION`: its timeout is due in `ms` milliseconds (-1: none).
    private func setTimer(_ ms: Int) {
        timerDue = ms < 0 ? nil : DispatchTime.now().uptimeNanoseconds &+ UInt64(ms) &* 1_000_000
    }

    /// How long `epoll_wait` may sleep: until curl's timeout, at most a second.
    private func waitMilliseconds() -> Int32 {
        guard let due = timerDue else { return 1000 }
        let now = DispatchTime.now().uptimeNanoseconds
        if due <= now { return 0 }
        return Int32(min(1000, (due - now + 999_999) / 1_000_000))
    }

    /// Moves waiting transfers into curl while the global and per-host limits allow.
    private func admit() {
        assertCurlThread("admit")
        let ready = shared.withLock { s -> [Transfer] in
            s.arrived = false
            // With every slot taken nothing can move: the list is not looked through (it was on
            // every pass of the loop, each waiting transfer's host hashed, and the counts by host
            // copied), and it stops being looked through once the last free slot is given.
            var inFlight = active.count
            guard inFlight < settings.concurrency, !s.waiting.isEmpty else { return [] }
            var taken: [Transfer] = []
            var keep: [Transfer] = []
            var hostCounts = perHost
            var i = 0
            while i < s.waiting.count && inFlight < settings.concurrency {
                let t = s.waiting[i]
                let host = t.host
                let hostLimit = multiplexed.contains(host) ? multiplexedPerHost : settings.perHost
                if hostCounts[host, default: 0] < hostLimit {
                    taken.append(t)
                    inFlight += 1
                    hostCounts[host, default: 0] += 1
                } else {
                    keep.append(t)
                }
                i += 1
            }
            guard !taken.isEmpty else { return [] }
            keep.append(contentsOf: s.waiting[i...])
            s.waiting = keep
            return taken
        }
        for t in ready {
            if t.isCancelled {
                t.finish(.failure(t.error(.cancelled, "cancelled")))
                continue
            }
            var caFile: String? = nil
            switch caBundle {
            case .failure(let e)?:
                t.finish(.failure(t.error(.other, e.message)))
                continue
            case .success(let bundle)?: caFile = bundle.path
            case nil: break
            }
            guard let easy = spareHandles.popLast() ?? newHandle() else {
                t.finish(.failure(t.error(.other, "could not create a curl handle")))
                continue
            }
            t.configure(easy, settings: settings, http2: http2, caFile: caFile)
            perHost[t.host, default: 0] += 1
            t.started = DispatchTime.now().uptimeNanoseconds
            active.append(t)
            tributary_curl_multi_add_handle(api, multi, easy)
        }
    }

    @discardableResult
    private func drainMessages() -> Int {
        assertCurlThread("drainMessages")
        var finished = 0
        var left: Int32 = 0
        while let msg = tributary_curl_multi_info_read(api, multi, &left) {
            guard msg.pointee.msg == CURLMSG_DONE, let easy = msg.pointee.easy_handle else { continue }
            let code = tributary_msg_result(msg)
            guard let idx = active.firstIndex(where: { $0.easy == easy }) else { continue }
            let t = active.remove(at: idx)
            release(t)
            tributary_curl_multi_remove_handle(api, multi, easy)
            let result = t.complete(code: code)
            if http2, code == CURLE_OK { noteProtocol(t, easy) }
            recycle(t)
            t.finish(result)
            finished += 1
        }
        return finished
    }

    /// Marks the transfer's host as multiplexed when it answered over HTTP/2, and as not when
    /// it answered over HTTP/1.x (a server can stop offering h2). A response from elsewhere
    /// (a redirect to another host) says nothing about this host.
    private func noteProtocol(_ t: Transfer, _ easy: UnsafeMutableRawPointer) {
        var effective: UnsafeMutablePointer<CChar>? = nil
        if tributary_easy_getinfo_string(api, easy, CURLINFO_EFFECTIVE_URL, &effective) == CURLE_OK, let effective,
           URLEncoding.hostKey(String(cString: effective)) != URLEncoding.hostKey(t.request.url) { return }
        var version = 0
        guard tributary_easy_getinfo_long(api, easy, CURLINFO_HTTP_VERSION, &version) == CURLE_OK, version != 0 else { return }
        if version == Int(CURL_HTTP_VERSION_2_0) {
            multiplexed.insert(t.host)
        } else if version == Int(CURL_HTTP_VERSION_1_0) || version == Int(CURL_HTTP_VERSION_1_1) {
            multiplexed.remove(t.host)
        }
    }

    private func release(_ t: Transfer) {
        perHost[t.host, default: 1] -= 1
        if perHost[t.host] == 0 { perHost[t.host] = nil }
    }

    private func cancel(_ t: Transfer) {
        assertCurlThread("cancel")
        let wasWaiting = shared.withLock { s -> Bool in
            guard let i = s.waiting.firstIndex(where: { $0 === t }) else { return false }
            s.waiting.remove(at: i)
            return true
        }
        if wasWaiting {
            t.finish(.failure(t.error(.cancelled, "cancelled")))
            return
        }
        if let idx = active.firstIndex(where: { $0 === t }) {
            active.remove(at: idx)
            release(t)
            if let h = t.easy { tributary_curl_multi_remove_handle(api, multi, h) }
            recycle(t)
            t.finish(.failure(t.error(.cancelled, "cancelled")))
        }
    }

    private func newHandle() -> UnsafeMutableRawPointer? {
        handlesMade.add(1, ordering: .relaxed)
        return tributary_curl_easy_init(api)
    }

    /// Frees a transfer's curl resources once curl is done with it (removed from the multi
    /// handle): its handle, reset, is kept for the next transfer while there is room.
    private func recycle(_ t: Transfer) {
        guard let h = t.detachHandle() else { return }
        if spareHandles.count < settings.concurrency {
            tributary_curl_easy_reset(api, h)
            spareHandles.append(h)
        } else {
            tributary_curl_easy_cleanup(api, h)
        }
    }
}

/// One transfer's buffers and handle. Touched by the curl thread only, except `finish`,
/// which resumes the continuation exactly once. The buffers the callbacks write, for every
/// chunk and header line, are not checked for exclusive access at run time: one thread
/// touches them, and the check (an access set entered and left per write) cost more than
/// reading a header line.
final class Transfer: @unchecked Sendable {
    let request: HTTPRequest
    let host: String
    let maxBody: Int
    /// The option that set `maxBody`, for the error.
    let limitName: String
    /// libcurl's table (`CurlLibrary.api`), for the handle's calls.
    let api: UnsafePointer<tributary_curl>
    var continuation: CheckedContinuation<Result<HTTPResponse, HTTPError>, Never>?
    var easy: UnsafeMutableRawPointer?
    @exclusivity(unchecked) var body: [UInt8] = []
    @exclusivity(unchecked) var headers: [(name: String, value: String)] = []
    /// The final response's `Content-Length` (0 when it has none): room the body takes at its
    /// first bytes, up to `bodyRoomLimit`, instead of growing to it by doubling (a body of 25
    /// KB was copied five times on the way, 1% of a `json` source's instructions).
    @exclusivity(unchecked) var announcedLength = 0
    /// The most room taken ahead for an announced length: a server may announce more than it
    /// sends, so anything longer grows as it comes.
    static let bodyRoomLimit = 1 << 20
    var tooLarge = false
    /// The status of the response whose head is being read or was read (the last status line).
    @exclusivity(unchecked) var headStatus = 0
    /// When the head of a final (not 1xx) response was complete (uptime ns), 0 before: where a
    /// `peek` transfer's body deadline starts, and what makes a failure after it a response.
    @exclusivity(unchecked) var headDone: UInt64 = 0
    /// A `peek` transfer ended by us once it had what it wanted (bytes or time).
    var cut = false
    var headerList: UnsafeMutablePointer<curl_slist>?
    /// When curl got the handle (uptime ns), to tell the stall rule from the timeout.
    var started: UInt64 = 0
    let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    private let done = Locked(false)
    private let cancelFlag = Locked(false)

    /// Set by the cancellation handler, possibly before the transfer was queued.
    var isCancelled: Bool { cancelFlag.withLock { $0 } }
    func markCancelled() { cancelFlag.withLock { $0 = true } }

    init(request: HTTPRequest, maxBody: Int, limitName: String, curl: CurlLibrary) {
        self.limitName = limitName
        self.request = request
        self.api = curl.api
        // Through a proxy, another path to the host: counted apart.
        self.host = request.proxy.map { URLEncoding.hostKey(request.url) + " via " + Redactor.redactURL($0) } ?? URLEncoding.hostKey(request.url)
        self.maxBody = maxBody
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    }

    deinit { errorBuffer.deallocate() }

    func error(_ kind: HTTPError.Kind, _ message: String, status: Int? = nil) -> HTTPError {
        HTTPError(kind: kind, method: request.method, url: request.url, message: message, status: status)
    }

    func finish(_ result: Result<HTTPResponse, HTTPError>) {
        let first = done.withLock { d -> Bool in
            if d { return false }
            d = true
            return true
        }
        guard first, let c = continuation else { return }
        continuation = nil
        c.resume(returning: result)
    }

    /// Sets up `h`, a new easy handle or one `curl_easy_reset` put back to libcurl's defaults,
    /// for this transfer, which owns it from here. `http2`: offer HTTP/2 over TLS (ALPN) and,
    /// for an https URL, wait for a connection that may multiplex (`CURLOPT_PIPEWAIT`) rather
    /// than open another; else HTTP/1.1 only. `caFile`: the CA bundle to verify against (nil:
    /// libcurl's default).
    func configure(_ h: UnsafeMutableRawPointer, settings: HTTPSettings, http2: Bool, caFile: String?) {
        easy = h
        let timeoutSeconds = request.timeout ?? 20
        let timeoutMs = max(1, Int(timeoutSeconds * 1000))
        tributary_easy_setopt_string(api, h, CURLOPT_URL, request.url)
        tributary_easy_setopt_long(api, h, CURLOPT_NOSIGNAL, 1)
        tributary_easy_setopt_long(api, h, CURLOPT_TIMEOUT_MS, timeoutMs)
        tributary_easy_setopt_long(api, h, CURLOPT_CONNECTTIMEOUT_MS, min(timeoutMs, 10_000))
        tributary_easy_setopt_long(api, h, CURLOPT_LOW_SPEED_LIMIT, 1)
        tributary_easy_setopt_long(api, h, CURLOPT_LOW_SPEED_TIME, Self.stallSeconds(timeoutSeconds))
        tributary_easy_setopt_long(api, h, CURLOPT_FOLLOWLOCATION, request.followRedirects ? 1 : 0)
        tributary_easy_setopt_long(api, h, CURLOPT_MAXREDIRS, HTTPSettings.maxRedirects)
        tributary_easy_setopt_string(api, h, CURLOPT_PROTOCOLS_STR, request.allowFile ? "http,https,file" : "http,https")
        tributary_easy_setopt_string(api, h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        tributary_easy_setopt_string(api, h, CURLOPT_ACCEPT_ENCODING, "")
        tributary_easy_setopt_long(api, h, CURLOPT_SSL_VERIFYPEER, 1)
        tributary_easy_setopt_long(api, h, CURLOPT_SSL_VERIFYHOST, 2)
        tributary_easy_setopt_string(api, h, CURLOPT_USERAGENT, settings.userAgent)
        if http2 {
            tributary_easy_setopt_long(api, h, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
            // Only where HTTP/2 can be had: a plain http:// URL gets HTTP/1.1 anyway, and waiting
            // would hold its first transfers until the first connection is up.
            if request.url.utf8.count > 8, request.url.prefix(8).lowercased() == "https://" { tributary_easy_setopt_long(api, h, CURLOPT_PIPEWAIT, 1) }
        } else {
            tributary_easy_setopt_long(api, h, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_1_1))
        }
        if let caFile { tributary_easy_setopt_string(api, h, CURLOPT_CAINFO, caFile) }
        if let proxy = request.proxy { tributary_easy_setopt_string(api, h, CURLOPT_PROXY, proxy) }
        // A peek reads a few KiB whatever the body's announced length: no size refusal then.
        if request.peek == nil { tributary_easy_setopt_off(api, h, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(maxBody)) }
        tributary_easy_setopt_pointer(api, h, CURLOPT_ERRORBUFFER, errorBuffer)
        let me = Unmanaged.passUnretained(self).toOpaque()
        tributary_easy_setopt_write_cb(api, h, CURLOPT_WRITEFUNCTION, { ptr, size, n, ctx in
            let t = Unmanaged<Transfer>.fromOpaque(ctx!).takeUnretainedValue()
            let count = size * n
            if let peek = t.request.peek {
                // Keep up to `peek.bytes`, then end the transfer (a write error curl reports,
                // which `complete` turns into the response); also once the body's time is up.
                let room = max(0, peek.bytes - t.body.count)
                if let ptr, room > 0 { t.body.append(contentsOf: UnsafeRawBufferPointer(start: ptr, count: min(room, count))) }
                if t.body.count >= peek.bytes || t.bodyTimeIsUp(peek) {
                    t.cut = true
                    return 0
                }
                return count
            }
            if t.body.count + count > t.maxBody {
                t.tooLarge = true
                return 0
            }
            if t.body.isEmpty && t.announcedLength > count {
                t.body.reserveCapacity(min(t.announcedLength, t.maxBody, Transfer.bodyRoomLimit))
            }
            if let ptr { t.body.append(contentsOf: UnsafeRawBufferPointer(start: ptr, count: count)) }
            return count
        })
        if request.peek != nil {
            // Called about once a second even when nothing arrives: ends a body that stalls.
            tributary_easy_setopt_long(api, h, CURLOPT_NOPROGRESS, 0)
            tributary_easy_setopt_xferinfo_cb(api, h, { ctx, _, _, _, _ in
                let t = Unmanaged<Transfer>.fromOpaque(ctx!).takeUnretainedValue()
                guard let peek = t.request.peek, t.bodyTimeIsUp(peek) else { return 0 }
                t.cut = true
                return 1
            })
            tributary_easy_setopt_pointer(api, h, CURLOPT_XFERINFODATA, me)
        }
        tributary_easy_setopt_pointer(api, h, CURLOPT_WRITEDATA, me)
        tributary_easy_setopt_write_cb(api, h, CURLOPT_HEADERFUNCTION, { ptr, size, n, ctx in
            let t = Unmanaged<Transfer>.fromOpaque(ctx!).takeUnretainedValue()
            let count = size * n
            guard let ptr else { return count }
            t.addHeaderLine(UnsafeRawBufferPointer(start: ptr, count: count))
            return count
        })
        tributary_easy_setopt_pointer(api, h, CURLOPT_HEADERDATA, me)
        for header in request.headers {
            headerList = tributary_curl_slist_append(api, headerList, "\(header.name): \(header.value)")
        }
        if let headerList { tributary_easy_setopt_pointer(api, h, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(headerList)) }
        switch request.method {
        case "GET": break
        case "HEAD": tributary_easy_setopt_long(api, h, CURLOPT_NOBODY, 1)
        case "POST": tributary_easy_setopt_long(api, h, CURLOPT_POST, 1)
        default: tributary_easy_setopt_string(api, h, CURLOPT_CUSTOMREQUEST, request.method)
        }
        if let body = request.body {
            tributary_easy_setopt_off(api, h, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
            body.withUnsafeBytes { raw in
                _ = tributary_easy_setopt_pointer(api, h, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!))
            }
        }
    }

    func complete(code: CURLcode) -> Result<HTTPResponse, HTTPError> {
        guard let h = easy else { return .failure(error(.other, "no handle")) }
        var status = 0
        tributary_easy_getinfo_long(api, h, CURLINFO_RESPONSE_CODE, &status)
        var effective: UnsafeMutablePointer<CChar>? = nil
        tributary_easy_getinfo_string(api, h, CURLINFO_EFFECTIVE_URL, &effective)
        let finalURL = effective.map { String(cString: $0) } ?? request.url
        // A peek decides on the head: whatever ended the body (we did, the server hung up, the
        // timeout), a response whose head is in is the response.
        if code != CURLE_OK, request.peek != nil, headDone > 0, status > 0 {
            return .success(HTTPResponse(status: status, headers: headers, body: body, url: finalURL))
        }
        if code == CURLE_OK {
            if request.url.hasPrefix("file:") && status == 0 { status = 200 }
            return .success(HTTPResponse(status: status, headers: headers, body: body, url: finalURL))
        }
        let detail = String(cString: errorBuffer)
        let text = detail.isEmpty ? String(cString: tributary_curl_easy_strerror(api, code)) : detail
        switch code {
        case CURLE_WRITE_ERROR where tooLarge, CURLE_FILESIZE_EXCEEDED:
            return .failure(error(.bodyTooLarge, "response body larger than \(ByteSizes.format(maxBody)) (\(limitName))"))
        case CURLE_OPERATION_TIMEDOUT:
            let timeout = request.timeout ?? 20
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds &- started) / 1e9
            let stall = Self.stallSeconds(timeout)
            // The stall rule (less than 1 byte/s for `stall` seconds) ends a transfer before its
            // timeout; say which limit it was.
            if elapsed < timeout - 0.5 && Double(stall) < timeout {
                return .failure(error(.timeout, "stalled: less than 1 byte/s for \(stall)s, after \(Durations.format(elapsed.rounded())) (the timeout is \(Durations.format(timeout)))"))
            }
            return .failure(error(.timeout, "timed out after \(Durations.format(timeout)): \(text)"))
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_RECV_ERROR,
             CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE, CURLE_SSL_CONNECT_ERROR:
            return .failure(error(.connection, text))
        case CURLE_PEER_FAILED_VERIFICATION:
            // Not retried: the same certificate fails the same way.
            return .failure(error(.other, "TLS certificate not trusted: \(text) (a private CA's certificates go in http.ca_file)"))
        case CURLE_TOO_MANY_REDIRECTS:
            return .failure(error(.tooManyRedirects, "too many redirects: \(text)"))
        case CURLE_UNSUPPORTED_PROTOCOL:
            return .failure(error(.protocolRefused, "protocol not allowed (only http and https; file only for a URL written in the config): \(text)"))
        case CURLE_URL_MALFORMAT:
            return .failure(error(.invalidURL, "malformed URL: \(text)"))
        default:
            return .failure(error(.other, "curl error \(code.rawValue): \(text)"))
        }
    }

    /// One header line as curl hands it over (`Name: value\r\n`, or a status line that starts a
    /// new response after a redirect or a 100-continue). Parsed on the bytes: header names and
    /// the separators are ASCII, and values keep whatever bytes they hold (invalid UTF-8 is
    /// replaced, never trusted).
    func addHeaderLine(_ line: UnsafeRawBufferPointer) {
        if line.count >= 5, line[0] == 0x48, line[1] == 0x54, line[2] == 0x54, line[3] == 0x50, line[4] == 0x2F {  // "HTTP/"
            // Room for a usual head at once (growing from empty reallocated it four times).
            headers.removeAll(keepingCapacity: true)
            headers.reserveCapacity(16)
            announcedLength = 0
            headDone = 0
            headStatus = Self.statusCode(line)
            return
        }
        // The blank line ending a head: a final response's (not a 100 Continue's) is complete.
        if line.count <= 2, line.allSatisfy({ $0 == 0x0D || $0 == 0x0A }) {
            if headStatus >= 200 { headDone = max(1, DispatchTime.now().uptimeNanoseconds) }
            return
        }
        // The blank line, or junk. (memchr: the generic search cost a tenth of the line.)
        guard let base = line.baseAddress, let hit = memchr(base, 0x3A, line.count) else { return }
        let colon = UnsafeRawPointer(hit) - base
        @inline(__always) func isBlank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0D || b == 0x0A }
        var nameStart = line.startIndex, nameEnd = colon
        while nameStart < nameEnd && isBlank(line[nameStart]) { nameStart += 1 }
        while nameEnd > nameStart && isBlank(line[nameEnd - 1]) { nameEnd -= 1 }
        var valueStart = colon + 1, valueEnd = line.endIndex
        while valueStart < valueEnd && isBlank(line[valueStart]) { valueStart += 1 }
        while valueEnd > valueStart && isBlank(line[valueEnd - 1]) { valueEnd -= 1 }
        headers.append((String(decoding: UnsafeRawBufferPointer(rebasing: line[nameStart..<nameEnd]), as: UTF8.self),
                        String(decoding: UnsafeRawBufferPointer(rebasing: line[valueStart..<valueEnd]), as: UTF8.self)))
        if nameEnd - nameStart == 14, Self.isContentLength(UnsafeRawBufferPointer(rebasing: line[nameStart..<nameEnd])) {
            announcedLength = Self.decimal(UnsafeRawBufferPointer(rebasing: line[valueStart..<valueEnd])) ?? 0
        }
    }

    /// Whether the 14 bytes of `name` are `content-length` in any case.
    static func isContentLength(_ name: UnsafeRawBufferPointer) -> Bool {
        let expected: StaticString = "content-length"
        let e = expected.utf8Start
        for i in 0..<14 {
            let c = name[i]
            if (c >= 0x41 && c <= 0x5A ? c | 0x20 : c) != e[i] { return false }
        }
        return true
    }

    /// The value of 1 to 18 decimal digits, else nil (a length that cannot be trusted: no room
    /// is taken for it).
    static func decimal(_ text: UnsafeRawBufferPointer) -> Int? {
        guard !text.isEmpty, text.count <= 18 else { return nil }
        var v = 0
        for b in text {
            guard b >= 0x30 && b <= 0x39 else { return nil }
            v = v * 10 + Int(b - 0x30)
        }
        return v
    }

    /// The code of a status line (`HTTP/1.1 200 OK`, `HTTP/2 204`): the three digits after the
    /// first space; 0 when there are none.
    static func statusCode(_ line: UnsafeRawBufferPointer) -> Int {
        guard let space = line.firstIndex(of: 0x20), space + 3 < line.count else { return 0 }
        var code = 0
        for i in (space + 1)...(space + 3) {
            guard line[i] >= 0x30, line[i] <= 0x39 else { return 0 }
            code = code * 10 + Int(line[i] - 0x30)
        }
        return code
    }

    /// Whether a peek's time for the body is over (its head came `peek.seconds` ago or more).
    func bodyTimeIsUp(_ peek: HTTPRequest.BodyPeek) -> Bool {
        guard headDone > 0 else { return false }
        return Double(DispatchTime.now().uptimeNanoseconds &- headDone) / 1e9 >= peek.seconds
    }

    /// How long a transfer may move less than 1 byte/s before it is ended (at most 15 s, and
    /// never longer than its timeout).
    static func stallSeconds(_ timeout: Double) -> Int { max(1, min(Int(timeout), 15)) }

    /// Frees the header list and hands the easy handle back to the driver (nil: it had none).
    func detachHandle() -> UnsafeMutableRawPointer? {
        let h = easy
        easy = nil
        if let l = headerList { tributary_curl_slist_free_all(api, l) }
        headerList = nil
        return h
    }
}
