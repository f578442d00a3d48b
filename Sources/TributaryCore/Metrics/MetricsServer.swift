import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// `watch`'s HTTP endpoint for Prometheus and people: `GET /metrics` answers the latest
/// `Metrics` text, `GET /healthz` answers `ok`, `GET /` the status page (`StatusPage`) and
/// `GET /status.json` the status records as one JSON array, all built from the latest
/// `updateStatus` as of the request (also `HEAD`: the same headers, no body); another path is
/// 404, another method 405 (with `Allow`). One thread runs one
/// `poll(2)` loop over the listening socket and up to `maxConnections` connections, all
/// non-blocking: no thread per request. The engine only ever calls `update`, which swaps the
/// text under a lock, so the server can never hold it up. Every answer closes its connection.
///
/// Clients cannot starve it (a liveness probe must get through while others misbehave): a
/// connection has `headTimeout` (1 s) to send its request head, `replyTimeout` to take the
/// answer, and up to 1,024 are served at once (as many as the open-file limit leaves room for
/// beside the engine's own); a head over 8 KiB is answered 431; after the answer the server
/// stops sending and reads what the client still sends for up to `lingerTimeout` before it
/// closes, so the client reads the answer rather than a reset; and when accept fails for want of
/// descriptors (EMFILE, ENFILE) it stops accepting for 5 ms, doubling up to 1 s (as Go's
/// net/http does), instead of spinning on a listening socket that stays readable.
public final class MetricsServer: Sendable {
    /// The address actually bound (the port is the kernel's choice when 0 was asked for).
    public let host: String
    public let port: Int
    /// Connections served at once, at most `connectionCap`: as many as fit under the open-file
    /// limit beside the rest of the process (`FileDescriptorLimit.room`), and never fewer than 8.
    public let maxConnections: Int
    public static let connectionCap = 1024
    /// Seconds from accepting a connection to having its whole request head.
    public static let headTimeout = 1.0
    /// Seconds to send the answer once the head is in.
    public static let replyTimeout = 10.0
    /// Seconds the server keeps reading (and dropping) what a client still sends after its
    /// answer, so closing does not reset the connection before the client has read it.
    public static let lingerTimeout = 1.0
    /// Bytes read and dropped at most while lingering.
    static let maxLinger = 1 << 20
    /// A request's head larger than this is refused (431).
    static let maxRequest = 8192
    /// The backoff after accept found no descriptor: the first pause, and the longest.
    static let acceptBackoff = (first: 0.005, longest: 1.0)

    private let listenFD: Int32
    /// `poll` watches its read end; `stop` writes a byte to the other.
    private let wakeFDs: (read: Int32, write: Int32)
    private let text = Locked<[UInt8]>([])
    /// The sources and what the state said of them (`updateStatus`), with a generation that
    /// grows with each update.
    private let status = Locked<(sources: [ConfiguredSource], inputs: StatusInputs, generation: Int)?>(nil)
    /// Pages rendered from the current generation, by request target, for up to `pageReuse`
    /// seconds: a burst of requests renders each page once (at most `pagesKept` kept).
    private let pages = Locked<[String: (generation: Int, at: Double, body: [UInt8])]>([:])
    static let pageReuse = 1.0
    static let pagesKept = 16
    /// Before this (monotonic seconds) no page is rendered that is not kept: after a render
    /// that took d seconds (over `cheapRender`: thousands of sources), the next one waits d
    /// seconds (requests meanwhile are answered 503 with `Retry-After: 1`), so rendering takes
    /// at most half the serving thread's time, and `/healthz` and `/metrics` get the rest
    /// however many distinct pages clients ask for.
    private let renderResumes = Locked(0.0)
    static let cheapRender = 0.01
    private let finished = DispatchSemaphore(value: 0)
    private let running = Locked(false)

    /// Binds `host:port` (an IPv4 or IPv6 literal) and listens; `start` serves. `reserved`: the
    /// descriptors the rest of the process needs (transfers, state, sinks), which connections
    /// must leave free.
    public init(host: String, port: Int, reserved: Int = FileDescriptorLimit.reserve) throws(MetricsServerError) {
        var v4 = sockaddr_in(), v6 = sockaddr_in6()
        let isV6 = host.contains(":")
        let parsed = isV6 ? inet_pton(AF_INET6, host, &v6.sin6_addr) : inet_pton(AF_INET, host, &v4.sin_addr)
        guard parsed == 1, (0...65535).contains(port) else { throw MetricsServerError("metrics.listen: \(host):\(port) is not an IP address and port") }
        let fd = socket(isV6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw MetricsServerError("metrics.listen: cannot open a socket: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound: Int32
        if isV6 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = in_port_t(UInt16(port).bigEndian)
            bound = withUnsafePointer(to: &v6) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) } }
        } else {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = in_port_t(UInt16(port).bigEndian)
            bound = withUnsafePointer(to: &v4) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        }
        // A deep backlog (the kernel caps it at net.core.somaxconn): a burst of connections
        // waits there, not in SYN retransmits.
        guard bound == 0, listen(fd, 1024) == 0 else {
            let why = String(cString: strerror(errno))
            close(fd)
            throw MetricsServerError("metrics.listen: cannot listen on \(isV6 ? "[\(host)]" : host):\(port): \(why)")
        }
        var actual = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &actual) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        let netPort = withUnsafePointer(to: &actual) { p -> UInt16 in
            isV6 ? p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_port } : p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_port }
        }
        var pipeFDs: [Int32] = [0, 0]
        guard pipe(&pipeFDs) == 0 else {
            close(fd)
            throw MetricsServerError("metrics.listen: cannot create a pipe: \(String(cString: strerror(errno)))")
        }
        for p in pipeFDs { Self.makeNonBlocking(p) }
        self.host = host
        self.port = Int(UInt16(bigEndian: netPort))
        self.listenFD = fd
        self.wakeFDs = (pipeFDs[0], pipeFDs[1])
        self.maxConnections = max(8, FileDescriptorLimit.room(for: Self.connectionCap, besides: reserved))
    }

    /// `http://127.0.0.1:9464` (IPv6 hosts in brackets).
    public var url: String { "http://" + (host.contains(":") ? "[\(host)]" : host) + ":\(port)" }

    /// The text `GET /metrics` answers from now on.
    public func update(_ metrics: String) {
        let bytes = Array(metrics.utf8)
        text.withLock { $0 = bytes }
    }

    /// What `GET /` and `GET /status.json` are built from from now on.
    public func updateStatus(sources: [ConfiguredSource], inputs: StatusInputs) {
        status.withLock { s in
            let generation = (s?.generation ?? 0) + 1
            s = (sources, inputs, generation)
        }
    }

    /// Starts the serving thread (once).
    public func start() {
        guard running.withLock({ r -> Bool in defer { r = true }; return !r }) else { return }
        DetachedThread.start(name: "tributary-metric") { [self] in
            serve()
            finished.signal()
        }
    }

    /// Stops serving, closes every connection and the socket, and returns once the thread has.
    public func stop() {
        let wasRunning = running.withLock { r -> Bool in defer { r = false }; return r }
        if wasRunning {
            var b: UInt8 = 1
            _ = write(wakeFDs.write, &b, 1)
            finished.wait()
        }
        close(listenFD)
        close(wakeFDs.read)
        close(wakeFDs.write)
    }

    /// An answer: its head, and its body, which every client sent the same page or metrics
    /// shares (one copy, however many clients are still taking it).
    struct Reply {
        var head: [UInt8]
        var body: [UInt8]
        var count: Int { head.count + body.count }
    }

    /// One client: what it sent so far, then what is left to send, then what it still sends.
    struct Client {
        var fd: Int32
        var deadline: Double
        var request: [UInt8] = []
        var reply: Reply? = nil
        var sent = 0
        /// The answer is out and the sending side shut down: reading until the client closes.
        var lingering = false
        var drained = 0

        var events: Int16 { Int16(reply == nil || lingering ? POLLIN : POLLOUT) }
    }

    private func serve() {
        var clients: [Client] = []
        var buffer = [UInt8](repeating: 0, count: 16384)
        // Accepting resumes at `acceptResumes` after accept found no descriptor; `acceptDelay`
        // doubles with each such failure and is 0 again after an accepted connection.
        var acceptDelay = 0.0, acceptResumes = 0.0
        while true {
            let now = Self.monotonic()
            var fds = [pollfd(fd: wakeFDs.read, events: Int16(POLLIN), revents: 0)]
            // At the limit, or backing off, new connections wait in the listen backlog.
            let accepting = clients.count < maxConnections && now >= acceptResumes
            if accepting { fds.append(pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0)) }
            let first = fds.count
            for c in clients { fds.append(pollfd(fd: c.fd, events: c.events, revents: 0)) }
            var wait = clients.map(\.deadline).min().map { $0 - now } ?? 60
            if !accepting && clients.count < maxConnections { wait = min(wait, acceptResumes - now) }
            let n = poll(&fds, nfds_t(fds.count), Int32(max(0, min(wait, 60)) * 1000) + 1)
            if n < 0 && errno != EINTR { break }
            if fds[0].revents != 0 { break }
            for (i, f) in fds[first...].enumerated() where f.revents != 0 {
                step(&clients[i], events: f.revents, buffer: &buffer)
            }
            let later = Self.monotonic()
            clients.removeAll { c in
                let done = c.fd < 0 || later >= c.deadline
                if done && c.fd >= 0 { close(c.fd) }
                return done
            }
            if accepting, fds[1].revents & Int16(POLLIN) != 0 {
                let (accepted, outOfDescriptors) = accept(into: &clients)
                if accepted > 0 { acceptDelay = 0 }
                if outOfDescriptors {
                    acceptDelay = acceptDelay == 0 ? Self.acceptBackoff.first : min(acceptDelay * 2, Self.acceptBackoff.longest)
                    acceptResumes = Self.monotonic() + acceptDelay
                }
            }
        }
        for c in clients where c.fd >= 0 { close(c.fd) }
    }

    /// Accepts what the backlog holds, up to `maxConnections`: how many, and whether accept
    /// then failed for want of resources (EMFILE, ENFILE, ENOBUFS, ENOMEM: pause, do not spin).
    private func accept(into clients: inout [Client]) -> (accepted: Int, outOfDescriptors: Bool) {
        var accepted = 0
        while clients.count < maxConnections {
            let fd = Glibc.accept(listenFD, nil, nil)
            if fd < 0 {
                switch errno {
                case EINTR, ECONNABORTED, EPROTO: continue  // that client left; the next one may be there
                case EAGAIN, EWOULDBLOCK: return (accepted, false)  // none left
                default: return (accepted, true)
                }
            }
            Self.makeNonBlocking(fd)
            clients.append(Client(fd: fd, deadline: Self.monotonic() + Self.headTimeout))
            accepted += 1
        }
        return (accepted, false)
    }

    /// Reads the request, writes the reply, or drains what is left; sets `fd` to -1 (after
    /// closing it) when done.
    private func step(_ c: inout Client, events: Int16, buffer: inout [UInt8]) {
        if c.lingering {
            while true {
                let n = buffer.withUnsafeMutableBytes { read(c.fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n < 0 && errno == EAGAIN { return }
                c.drained += max(n, 0)
                if n <= 0 || c.drained > Self.maxLinger { finish(&c) }  // closed by the client, or enough
                return
            }
        }
        if c.reply == nil {
            let n = buffer.withUnsafeMutableBytes { read(c.fd, $0.baseAddress, $0.count) }
            if n < 0 && (errno == EAGAIN || errno == EINTR) { return }
            if n <= 0 { finish(&c); return }
            c.request += buffer[0..<n]
            if let (line, length) = Self.head(c.request), length <= Self.maxRequest {
                c.reply = answer(to: line)
            } else if c.request.count > Self.maxRequest {
                c.reply = Self.response(431, "Request Header Fields Too Large", body: Array("request head over 8 KiB\n".utf8))
            } else {
                return
            }
            c.deadline = Self.monotonic() + Self.replyTimeout
            // The socket is almost always writable now: send without another poll.
        }
        guard let reply = c.reply else { return }
        // The head, then the body (the kernel holds the head back for it: MSG_MORE), as far
        // as the socket takes them now.
        while c.sent < reply.count {
            let inHead = c.sent < reply.head.count
            let part = inHead ? reply.head : reply.body, from = inHead ? c.sent : c.sent - reply.head.count
            let flags = Int32(MSG_NOSIGNAL) | (inHead && !reply.body.isEmpty ? Int32(MSG_MORE) : 0)
            let n = part.withUnsafeBytes { send(c.fd, $0.baseAddress! + from, $0.count - from, flags) }
            if n < 0 && (errno == EAGAIN || errno == EINTR) { return }
            if n <= 0 { finish(&c); return }
            c.sent += n
            if n < part.count - from { return }  // the socket's buffer is full: wait for POLLOUT
        }
        if c.sent >= reply.count {
            // Done sending; closing now, with unread bytes from the client, would reset the
            // connection and could discard the answer before the client reads it.
            _ = shutdown(c.fd, Int32(SHUT_WR))
            c.lingering = true
            c.deadline = Self.monotonic() + Self.lingerTimeout
        }
    }

    private func finish(_ c: inout Client) {
        close(c.fd)
        c.fd = -1
    }

    /// The request line of a complete head (`GET /metrics HTTP/1.1`) and the head's length in
    /// bytes (up to its blank line), or nil while incomplete.
    static func head(_ bytes: [UInt8]) -> (line: String, length: Int)? {
        guard bytes.count >= 2 else { return nil }
        for i in 1..<bytes.count where bytes[i] == 10 && (bytes[i - 1] == 10 || (i >= 2 && bytes[i - 1] == 13 && bytes[i - 2] == 10)) {
            let line = bytes.prefix { $0 != 13 && $0 != 10 }
            return (String(decoding: line, as: UTF8.self), i + 1)
        }
        return nil
    }

    /// The answer to `requestLine`, head and body in one (tests).
    func reply(to requestLine: String) -> [UInt8] {
        let r = answer(to: requestLine)
        return r.head + r.body
    }

    func answer(to requestLine: String) -> Reply {
        let parts = requestLine.split(separator: " ")
        guard parts.count >= 2 else { return Self.response(400, "Bad Request", body: Array("bad request\n".utf8)) }
        let target = parts[1].split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let method = parts[0], path = String(target[0]), query = target.count > 1 ? String(target[1]) : ""
        guard method == "GET" || method == "HEAD" else {
            return Self.response(405, "Method Not Allowed", body: Array("only GET and HEAD\n".utf8), extra: "Allow: GET, HEAD\r\n")
        }
        let headOnly = method == "HEAD"
        switch path {
        case "/metrics":
            return Self.response(200, "OK", body: text.withLock { $0 }, type: "text/plain; version=0.0.4; charset=utf-8", headOnly: headOnly)
        case "/healthz":
            return Self.response(200, "OK", body: Array("ok".utf8), headOnly: headOnly)
        case "/", "/status.json":
            let (rendered, busy) = statusPage(path: path, query: query)
            if busy {
                return Self.response(503, "Service Unavailable", body: Array("busy rendering another page; try again in a second\n".utf8), extra: "Retry-After: 1\r\n", headOnly: headOnly)
            }
            guard let page = rendered else {
                return Self.response(503, "Service Unavailable", body: Array("the state has not been read yet; try again in a moment\n".utf8), headOnly: headOnly)
            }
            return Self.response(200, "OK", body: page, type: path == "/" ? "text/html; charset=utf-8" : "application/json",
                                 extra: Self.pageHeaders, headOnly: headOnly)
        default:
            return Self.response(404, "Not Found", body: Array("not found: try /, /status.json, /metrics or /healthz\n".utf8), headOnly: headOnly)
        }
    }

    /// No script, no outside resource, no caching, no sniffing: the page is text and inline
    /// SVG, and its values are escaped besides.
    static let pageHeaders = "Content-Security-Policy: default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'\r\n"
        + "X-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\n"

    /// The status page (`/`, with its query) or `/status.json`, from the latest status as of
    /// now; nil before the first `updateStatus`, or when `busy` (`renderResumes`).
    private func statusPage(path: String, query: String) -> (page: [UInt8]?, busy: Bool) {
        guard let current = status.withLock({ $0 }) else { return (nil, false) }
        let key = path == "/" ? "/?" + query : path
        let at = Self.monotonic()
        if let kept = pages.withLock({ $0[key] }), kept.generation == current.generation, at - kept.at < Self.pageReuse { return (kept.body, false) }
        if at < renderResumes.withLock({ $0 }) { return (nil, true) }
        let now = Timestamp.now().seconds
        let records = StatusRecord.build(current.sources, current.inputs, now: now)
        let body = Array((path == "/" ? StatusPage.html(records, query: StatusPage.Query(query), now: now) : StatusRecord.jsonArray(records)).utf8)
        let done = Self.monotonic()
        renderResumes.withLock { $0 = done - at > Self.cheapRender ? done + (done - at) : 0 }
        pages.withLock { p in
            p = p.filter { $0.value.generation == current.generation && done - $0.value.at < Self.pageReuse }
            if p.count < Self.pagesKept { p[key] = (current.generation, done, body) }
        }
        return (body, false)
    }

    static func response(_ status: Int, _ reason: String, body: [UInt8], type: String = "text/plain; charset=utf-8", extra: String = "", headOnly: Bool = false) -> Reply {
        let head = "HTTP/1.1 \(status) \(reason)\r\nContent-Type: \(type)\r\nContent-Length: \(body.count)\r\n\(extra)Connection: close\r\n\r\n"
        return Reply(head: Array(head.utf8), body: headOnly ? [] : body)
    }

    static func makeNonBlocking(_ fd: Int32) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }

    static func monotonic() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
}

/// The metrics endpoint could not be set up (a bad address, a port in use).
public struct MetricsServerError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
