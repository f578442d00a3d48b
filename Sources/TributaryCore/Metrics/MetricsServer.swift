import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// `watch`'s HTTP endpoint for Prometheus: `GET /metrics` answers the latest `Metrics` text,
/// `GET /healthz` answers `ok` (also `HEAD`); anything else is 404 or 405. One thread runs one
/// `poll(2)` loop over the listening socket and at most `maxConnections` connections, all
/// non-blocking: no thread per request, and a slow or idle client is dropped after
/// `clientTimeout` seconds. The engine only ever calls `update`, which swaps the text under a
/// lock, so the server can never hold it up. Every answer closes its connection.
public final class MetricsServer: Sendable {
    /// The address actually bound (the port is the kernel's choice when 0 was asked for).
    public let host: String
    public let port: Int
    public static let maxConnections = 16
    public static let clientTimeout = 5.0
    /// A request's head larger than this is refused (431).
    static let maxRequest = 8192

    private let listenFD: Int32
    /// `poll` watches its read end; `stop` writes a byte to the other.
    private let wakeFDs: (read: Int32, write: Int32)
    private let text = Locked<[UInt8]>([])
    private let finished = DispatchSemaphore(value: 0)
    private let running = Locked(false)

    /// Binds `host:port` (an IPv4 or IPv6 literal) and listens; `start` serves.
    public init(host: String, port: Int) throws(MetricsServerError) {
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
        guard bound == 0, listen(fd, 64) == 0 else {
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
    }

    /// `http://127.0.0.1:9464` (IPv6 hosts in brackets).
    public var url: String { "http://" + (host.contains(":") ? "[\(host)]" : host) + ":\(port)" }

    /// The text `GET /metrics` answers from now on.
    public func update(_ metrics: String) {
        let bytes = Array(metrics.utf8)
        text.withLock { $0 = bytes }
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

    /// One client: what it sent so far, then what is left to send.
    struct Client {
        var fd: Int32
        let deadline: Double
        var request: [UInt8] = []
        var reply: [UInt8]? = nil
        var sent = 0
    }

    private func serve() {
        var clients: [Client] = []
        while true {
            var fds = [pollfd(fd: wakeFDs.read, events: Int16(POLLIN), revents: 0)]
            // At the limit, new connections wait in the listen backlog.
            if clients.count < Self.maxConnections { fds.append(pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0)) }
            let first = fds.count
            for c in clients { fds.append(pollfd(fd: c.fd, events: Int16(c.reply == nil ? POLLIN : POLLOUT), revents: 0)) }
            let now = Self.monotonic()
            let nearest = clients.map(\.deadline).min().map { max(0, $0 - now) } ?? 60
            let n = poll(&fds, nfds_t(fds.count), Int32(min(nearest, 60) * 1000) + 1)
            if n < 0 && errno != EINTR { break }
            if fds[0].revents != 0 { break }
            for (i, f) in fds[first...].enumerated() where f.revents != 0 {
                step(&clients[i], events: f.revents)
            }
            let later = Self.monotonic()
            clients.removeAll { c in
                let done = c.fd < 0 || later >= c.deadline
                if done && c.fd >= 0 { close(c.fd) }
                return done
            }
            if first > 1, fds[1].revents & Int16(POLLIN) != 0 { accept(into: &clients) }
        }
        for c in clients where c.fd >= 0 { close(c.fd) }
    }

    private func accept(into clients: inout [Client]) {
        while clients.count < Self.maxConnections {
            let fd = Glibc.accept(listenFD, nil, nil)
            if fd < 0 { return }  // EAGAIN: none left (or a client that already left)
            Self.makeNonBlocking(fd)
            clients.append(Client(fd: fd, deadline: Self.monotonic() + Self.clientTimeout))
        }
    }

    /// Reads the request or writes the reply; sets `fd` to -1 (after closing it) when done.
    private func step(_ c: inout Client, events: Int16) {
        if c.reply == nil {
            var buf = [UInt8](repeating: 0, count: 4096)
            let n = buf.withUnsafeMutableBytes { read(c.fd, $0.baseAddress, $0.count) }
            if n < 0 && (errno == EAGAIN || errno == EINTR) { return }
            if n <= 0 { finish(&c); return }
            c.request += buf[0..<n]
            if let head = Self.head(c.request) {
                c.reply = reply(to: head)
            } else if c.request.count > Self.maxRequest {
                c.reply = Self.response(431, "Request Header Fields Too Large", body: Array("request too large\n".utf8))
            }
            return
        }
        guard let reply = c.reply else { return }
        let n = reply.withUnsafeBytes { send(c.fd, $0.baseAddress! + c.sent, $0.count - c.sent, Int32(MSG_NOSIGNAL)) }
        if n < 0 && (errno == EAGAIN || errno == EINTR) { return }
        if n <= 0 { finish(&c); return }
        c.sent += n
        if c.sent >= reply.count { finish(&c) }
    }

    private func finish(_ c: inout Client) {
        close(c.fd)
        c.fd = -1
    }

    /// The request line of a complete head (`GET /metrics HTTP/1.1`), or nil while incomplete.
    static func head(_ bytes: [UInt8]) -> String? {
        guard bytes.count >= 4 else { return nil }
        for i in 3..<bytes.count where bytes[i] == 10 && (bytes[i - 1] == 10 || (bytes[i - 1] == 13 && bytes[i - 2] == 10)) {
            let line = bytes.prefix { $0 != 13 && $0 != 10 }
            return String(decoding: line, as: UTF8.self)
        }
        return nil
    }

    func reply(to requestLine: String) -> [UInt8] {
        let parts = requestLine.split(separator: " ")
        guard parts.count >= 2 else { return Self.response(400, "Bad Request", body: Array("bad request\n".utf8)) }
        let method = parts[0], path = parts[1].split(separator: "?", maxSplits: 1).first.map(String.init) ?? ""
        guard method == "GET" || method == "HEAD" else {
            return Self.response(405, "Method Not Allowed", body: Array("only GET and HEAD\n".utf8), extra: "Allow: GET, HEAD\r\n")
        }
        let headOnly = method == "HEAD"
        switch path {
        case "/metrics":
            return Self.response(200, "OK", body: text.withLock { $0 }, type: "text/plain; version=0.0.4; charset=utf-8", headOnly: headOnly)
        case "/healthz":
            return Self.response(200, "OK", body: Array("ok".utf8), headOnly: headOnly)
        default:
            return Self.response(404, "Not Found", body: Array("not found: try /metrics or /healthz\n".utf8), headOnly: headOnly)
        }
    }

    static func response(_ status: Int, _ reason: String, body: [UInt8], type: String = "text/plain; charset=utf-8", extra: String = "", headOnly: Bool = false) -> [UInt8] {
        let head = "HTTP/1.1 \(status) \(reason)\r\nContent-Type: \(type)\r\nContent-Length: \(body.count)\r\n\(extra)Connection: close\r\n\r\n"
        return Array(head.utf8) + (headOnly ? [] : body)
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
