import Foundation
import TributaryCore
#if canImport(Glibc)
import Glibc
#endif

// A small HTTP/1.1 server for tests. It listens on 127.0.0.1 only, on an
// ephemeral port, runs one thread per connection and never blocks without a
// timeout, so `stop()` can always end every thread within about a second.

// MARK: - Request

/// One HTTP request as the ``LoopbackServer`` received it. The server hands it
/// to the handler and keeps it in ``LoopbackServer/requests`` so tests can check
/// what the client really sent.
public struct LoopbackRequest: Sendable {
    /// The request method, e.g. `GET`.
    public let method: String
    /// The request target exactly as sent: path plus `?query`, if any.
    public let path: String
    /// The header fields in the order received, names as spelled by the client.
    public let headers: [(name: String, value: String)]
    /// The body (Content-Length or de-chunked); empty when there is none.
    public let body: [UInt8]

    public init(method: String, path: String, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
    }

    /// The value of the first header called `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }

    /// The body decoded as UTF-8 (invalid bytes are replaced).
    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}

// MARK: - Response

/// What a ``LoopbackServer`` handler answers: status, headers, body, and knobs
/// for misbehaving on purpose (a delay, chunked framing, an endless body).
public struct LoopbackResponse: Sendable {
    public var status: Int
    /// Sent exactly as given. The server adds only Content-Length (or
    /// Transfer-Encoding: chunked) and Connection when they are missing.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// Seconds to wait before sending anything (for timeout / concurrency tests).
    public var delay: Double
    /// Send the body with `Transfer-Encoding: chunked`.
    public var chunked: Bool
    /// If set, stream chunks of this many bytes (`x`) forever, until the client
    /// closes, `stop()` is called or 10 s pass (for body-cap tests). The
    /// connection is then reset, never finished with a final chunk.
    public var endlessChunks: Int?
    /// If set, send the head and this many body bytes, then nothing more (a stalled server),
    /// until the client hangs up, `stop()` is called or 30 s pass.
    public var stallAfter: Int?
    /// If set, answer nothing: after `delay`, reset the connection (RST), as a server that
    /// crashed mid-request does.
    public var reset: Bool

    public init(
        status: Int = 200,
        headers: [(name: String, value: String)] = [],
        body: [UInt8] = [],
        delay: Double = 0,
        chunked: Bool = false,
        endlessChunks: Int? = nil,
        stallAfter: Int? = nil,
        reset: Bool = false
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delay = delay
        self.chunked = chunked
        self.endlessChunks = endlessChunks
        self.stallAfter = stallAfter
        self.reset = reset
    }

    /// A response whose body is `s` in UTF-8, with a `Content-Type` header.
    public static func text(_ s: String, status: Int = 200, contentType: String = "application/json") -> LoopbackResponse {
        LoopbackResponse(status: status, headers: [(name: "Content-Type", value: contentType)], body: Array(s.utf8))
    }
}

// MARK: - Errors

/// Why ``LoopbackServer/init(handler:)`` could not start listening.
public struct LoopbackServerError: Error, CustomStringConvertible, Sendable {
    /// The system call that failed (`socket`, `bind`, ...).
    public let operation: String
    /// The `errno` it left.
    public let code: Int32

    public var description: String {
        "LoopbackServer: \(operation) failed: \(String(cString: strerror(code))) (errno \(code))"
    }
}

// MARK: - Server

/// An HTTP/1.1 test server on 127.0.0.1 (never any other address) with an
/// ephemeral port, for testing HTTP clients end to end. Each connection gets
/// its own thread, which runs the handler for every request on it (keep-alive
/// supported); counters and the request log are safe to read from any thread.
public final class LoopbackServer: Sendable {
    private let core: LoopbackServerCore

    /// Starts listening on 127.0.0.1 with an ephemeral port; `handler` runs on
    /// the server thread of the connection, once per request.
    public init(handler: @escaping @Sendable (LoopbackRequest) -> LoopbackResponse) throws {
        core = try LoopbackServerCore(handler: handler)
        core.start()
    }

    deinit {
        core.stop()
    }

    /// The TCP port the server listens on.
    public var port: Int { core.port }

    /// `http://127.0.0.1:<port>`, without a trailing slash.
    public var baseURL: String { "http://127.0.0.1:\(core.port)" }

    /// `baseURL` followed by `path` (which should start with `/`).
    public func url(_ path: String) -> String { baseURL + path }

    /// Requests answered so far: counted when the handler has returned,
    /// before any byte of the response is sent.
    public var requestCount: Int { core.state.withLock { $0.requestCount } }

    /// The highest number of requests that were in progress at the same moment,
    /// each counted from "request fully read" until its response was written
    /// (just before the last byte goes out) or aborted.
    public var maxConcurrent: Int { core.state.withLock { $0.maxActive } }

    /// Every request received (fully read), in order of arrival.
    public var requests: [LoopbackRequest] { core.state.withLock { $0.requests } }

    /// Closes the listener and ends every connection thread (normally within
    /// ~100 ms, bounded to 2 s unless a handler itself blocks). Idempotent;
    /// also called from `deinit`.
    public func stop() {
        core.stop()
    }
}

// MARK: - Implementation

private let sliceMilliseconds: Int32 = 50
private let idleTimeout: Double = 5
private let stallTimeout: Double = 10
private let endlessLimit: Double = 10
private let maxHeaderBytes = 64 * 1024
private let maxBodyBytes = 64 * 1024 * 1024
private let lingerSeconds: Double = 0.5

private func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1_000_000_000
}

private func isTransient(_ error: Int32) -> Bool {
    error == EAGAIN || error == EWOULDBLOCK || error == EINTR
}

private func setNonBlockingCloseOnExec(_ fd: Int32) {
    let flags = fcntl(fd, F_GETFL)
    if flags >= 0 { _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
    let fdFlags = fcntl(fd, F_GETFD)
    if fdFlags >= 0 { _ = fcntl(fd, F_SETFD, fdFlags | FD_CLOEXEC) }
}

/// Names the current thread for debuggers and `/proc/<pid>/task/*/comm`
/// (best effort; Foundation's `Thread.name` does not reach the kernel on Linux).
private func nameCurrentThread(_ name: String) {
    Thread.current.name = name
    #if os(Linux)
    let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
    guard fd >= 0 else { return }
    let bytes = Array(name.utf8.prefix(15))
    _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
    close(fd)
    #endif
}

private func reasonPhrase(_ status: Int) -> String {
    switch status {
    case 100: "Continue"
    case 101: "Switching Protocols"
    case 200: "OK"
    case 201: "Created"
    case 202: "Accepted"
    case 203: "Non-Authoritative Information"
    case 204: "No Content"
    case 205: "Reset Content"
    case 206: "Partial Content"
    case 300: "Multiple Choices"
    case 301: "Moved Permanently"
    case 302: "Found"
    case 303: "See Other"
    case 304: "Not Modified"
    case 307: "Temporary Redirect"
    case 308: "Permanent Redirect"
    case 400: "Bad Request"
    case 401: "Unauthorized"
    case 402: "Payment Required"
    case 403: "Forbidden"
    case 404: "Not Found"
    case 405: "Method Not Allowed"
    case 406: "Not Acceptable"
    case 407: "Proxy Authentication Required"
    case 408: "Request Timeout"
    case 409: "Conflict"
    case 410: "Gone"
    case 411: "Length Required"
    case 412: "Precondition Failed"
    case 413: "Content Too Large"
    case 414: "URI Too Long"
    case 415: "Unsupported Media Type"
    case 416: "Range Not Satisfiable"
    case 417: "Expectation Failed"
    case 418: "I'm a teapot"
    case 421: "Misdirected Request"
    case 422: "Unprocessable Content"
    case 425: "Too Early"
    case 426: "Upgrade Required"
    case 428: "Precondition Required"
    case 429: "Too Many Requests"
    case 431: "Request Header Fields Too Large"
    case 451: "Unavailable For Legal Reasons"
    case 500: "Internal Server Error"
    case 501: "Not Implemented"
    case 502: "Bad Gateway"
    case 503: "Service Unavailable"
    case 504: "Gateway Timeout"
    case 505: "HTTP Version Not Supported"
    default: "Status \(status)"
    }
}

/// Shared by the public object and all server threads (threads never retain
/// the `LoopbackServer` itself, so dropping it runs `deinit` and stops them).
private final class LoopbackServerCore: Sendable {
    struct State: Sendable {
        var stopped = false
        var requestCount = 0
        var active = 0
        var maxActive = 0
        var requests: [LoopbackRequest] = []
        /// Connection sockets not yet closed; `stop()` shuts them down to wake their threads.
        var openFDs: Set<Int32> = []
        /// Accept thread plus connection threads still running.
        var liveThreads = 0
        var listenerClosed = false
    }

    let listenFD: Int32
    let port: Int
    let handler: @Sendable (LoopbackRequest) -> LoopbackResponse
    let state = Locked(State())
    /// Key in `Thread.threadDictionary` marking this server's own threads.
    let threadKey: String

    init(handler: @escaping @Sendable (LoopbackRequest) -> LoopbackResponse) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw LoopbackServerError(operation: "socket", code: errno) }
        var ready = false
        defer { if !ready { close(fd) } }

        var one: Int32 = 1
        guard setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw LoopbackServerError(operation: "setsockopt(SO_REUSEADDR)", code: errno)
        }

        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)  // 127.0.0.1
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw LoopbackServerError(operation: "bind(127.0.0.1:0)", code: errno) }
        guard listen(fd, 512) == 0 else { throw LoopbackServerError(operation: "listen", code: errno) }

        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw LoopbackServerError(operation: "getsockname", code: errno) }
        setNonBlockingCloseOnExec(fd)

        ready = true
        self.listenFD = fd
        self.port = Int(UInt16(bigEndian: address.sin_port))
        self.handler = handler
        self.threadKey = "TributaryLoopbackServer.\(UUID().uuidString)"
    }

    var isStopped: Bool { state.withLock { $0.stopped } }

    func start() {
        state.withLock { $0.liveThreads += 1 }
        let thread = Thread { [self] in
            nameCurrentThread("LoopbackAccept")
            Thread.current.threadDictionary[threadKey] = true
            acceptLoop()
        }
        thread.start()
    }

    func stop() {
        state.withLock { s in
            guard !s.stopped else { return }
            s.stopped = true
            for fd in s.openFDs { shutdown(fd, Int32(SHUT_RDWR)) }
        }
        // Wait for the threads to notice (they poll in ≤50 ms slices). A server
        // thread calling stop() (e.g. from a handler) only waits for the listener.
        let onServerThread = Thread.current.threadDictionary[threadKey] != nil
        let deadline = monotonicSeconds() + 2
        while monotonicSeconds() < deadline {
            let done = state.withLock { onServerThread ? $0.listenerClosed : $0.liveThreads == 0 }
            if done { break }
            usleep(2_000)
        }
    }

    // MARK: Accept loop

    private func acceptLoop() {
        defer {
            state.withLock { s in
                close(listenFD)
                s.listenerClosed = true
                s.liveThreads -= 1
            }
        }
        while !isStopped {
            var pfd = pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, sliceMilliseconds) > 0 else { continue }
            while true {
                let fd = accept(listenFD, nil, nil)
                if fd < 0 {
                    let error = errno
                    if error == EINTR || error == ECONNABORTED { continue }
                    if !isTransient(error) { usleep(10_000) }  // EMFILE and friends: back off
                    break
                }
                setNonBlockingCloseOnExec(fd)
                var one: Int32 = 1
                _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                let registered = state.withLock { s -> Bool in
                    guard !s.stopped else { return false }
                    s.openFDs.insert(fd)
                    s.liveThreads += 1
                    return true
                }
                guard registered else {
                    close(fd)
                    return
                }
                let thread = Thread { [self] in
                    nameCurrentThread("LoopbackConn")
                    Thread.current.threadDictionary[threadKey] = true
                    serve(fd)
                }
                thread.start()
            }
        }
    }

    private func serve(_ fd: Int32) {
        var connection = LoopbackConnection(fd: fd, core: self)
        if connection.run() && !isStopped {
            connection.drainBeforeClose()
        } else {
            // Aborted response or stop(): reset, so unsent data is dropped and the client notices at once.
            var abortive = linger(l_onoff: 1, l_linger: 0)
            _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &abortive, socklen_t(MemoryLayout<linger>.size))
        }
        state.withLock { s in
            s.openFDs.remove(fd)
            close(fd)
            s.liveThreads -= 1
        }
    }

    // MARK: Statistics

    func requestStarted(_ request: LoopbackRequest) {
        state.withLock { s in
            s.requests.append(request)
            s.active += 1
            s.maxActive = max(s.maxActive, s.active)
        }
    }

    func requestAnswered() {
        state.withLock { $0.requestCount += 1 }
    }

    func requestEnded() {
        state.withLock { $0.active -= 1 }
    }
}

/// One connection's state; lives on (and only on) its connection thread.
private struct LoopbackConnection {
    enum Incoming {
        case request(LoopbackRequest, keepAlive: Bool)
        case reject(Int)
    }

    enum Outcome {
        case keepOpen
        /// Response complete; close gracefully.
        case close
        /// Response cut short (client gone, endless stream ended, stall, stop).
        case abort
    }

    let fd: Int32
    let core: LoopbackServerCore
    var buffer: [UInt8] = []
    var scratch = [UInt8](repeating: 0, count: 64 * 1024)

    init(fd: Int32, core: LoopbackServerCore) {
        self.fd = fd
        self.core = core
    }

    /// Serves requests until the connection should end. Returns true for a
    /// graceful close, false when the last response was aborted.
    mutating func run() -> Bool {
        while !core.isStopped {
            guard let incoming = readRequest() else { return true }
            switch incoming {
            case .reject(let status):
                var head = "HTTP/1.1 \(status) \(reasonPhrase(status))\r\n"
                head += "Content-Length: 0\r\nConnection: close\r\n\r\n"
                return write(Array(head.utf8)[...])
            case .request(let request, let keepAlive):
                switch respond(to: request, clientKeepAlive: keepAlive) {
                case .keepOpen: continue
                case .close: return true
                case .abort: return false
                }
            }
        }
        return false
    }

    // MARK: Reading

    /// Reads more bytes into `buffer`. Returns false on EOF, error, stop, or
    /// when nothing arrived for `idleTimeout` seconds.
    mutating func fill() -> Bool {
        let deadline = monotonicSeconds() + idleTimeout
        while !core.isStopped {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, sliceMilliseconds)
            if ready > 0 {
                let count = scratch.count
                let n = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, count, Int32(MSG_DONTWAIT)) }
                if n > 0 {
                    buffer.append(contentsOf: scratch[0..<n])
                    return true
                }
                if n == 0 || !isTransient(errno) { return false }
            } else if ready < 0 && errno != EINTR {
                return false
            }
            if monotonicSeconds() >= deadline { return false }
        }
        return false
    }

    func find(_ pattern: [UInt8], from start: Int) -> Int? {
        let last = buffer.count - pattern.count
        guard start <= last else { return nil }
        var i = max(0, start)
        while i <= last {
            if buffer[i] == pattern[0] {
                var j = 1
                while j < pattern.count && buffer[i + j] == pattern[j] { j += 1 }
                if j == pattern.count { return i }
            }
            i += 1
        }
        return nil
    }

    /// Reads one request; nil when the connection ended (EOF, idle, stop).
    mutating func readRequest() -> Incoming? {
        let crlf: [UInt8] = [13, 10]
        let headerEnd: Int
        var searchFrom = 0
        while true {
            // Tolerate stray CRLFs between requests.
            while let first = buffer.first, first == 13 || first == 10 { buffer.removeFirst() }
            if let end = find([13, 10, 13, 10], from: searchFrom) {
                headerEnd = end
                break
            }
            if buffer.count > maxHeaderBytes { return .reject(431) }
            searchFrom = max(0, buffer.count - 3)
            guard fill() else { return nil }
        }

        let head = String(decoding: buffer[0..<headerEnd], as: UTF8.self)
        buffer.removeFirst(headerEnd + 4)
        let lines = head.components(separatedBy: "\r\n")
        let requestLine = lines[0].split(separator: " ", omittingEmptySubsequences: true)
        guard requestLine.count == 3 else { return .reject(400) }
        let method = String(requestLine[0])
        let target = String(requestLine[1])
        let version = String(requestLine[2])
        guard version.hasPrefix("HTTP/1.") else { return .reject(505) }

        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { return .reject(400) }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else { return .reject(400) }
            headers.append((name: name, value: value))
        }
        let partial = LoopbackRequest(method: method, path: target, headers: headers)

        let connectionTokens = (partial.header("Connection") ?? "").lowercased()
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let keepAlive = version == "HTTP/1.0"
            ? connectionTokens.contains("keep-alive")
            : !connectionTokens.contains("close")
        let expectsContinue = partial.header("Expect")?.lowercased() == "100-continue"

        var body: [UInt8] = []
        if let encoding = partial.header("Transfer-Encoding"), encoding.lowercased().contains("chunked") {
            if expectsContinue && buffer.isEmpty {
                guard write(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)[...]) else { return nil }
            }
            var pos = 0
            while true {
                var lineEnd: Int
                while true {
                    if let end = find(crlf, from: pos) { lineEnd = end; break }
                    if buffer.count - pos > 4096 { return .reject(400) }
                    guard fill() else { return nil }
                }
                let sizeLine = String(decoding: buffer[pos..<lineEnd], as: UTF8.self)
                let sizeText = sizeLine.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)
                    .first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
                guard let size = Int(sizeText, radix: 16), size >= 0 else { return .reject(400) }
                pos = lineEnd + 2
                if size == 0 {
                    // Trailer fields until an empty line; ignored.
                    while true {
                        while true {
                            if let end = find(crlf, from: pos) { lineEnd = end; break }
                            if buffer.count - pos > 4096 { return .reject(400) }
                            guard fill() else { return nil }
                        }
                        let empty = lineEnd == pos
                        pos = lineEnd + 2
                        if empty { break }
                    }
                    break
                }
                guard body.count + size <= maxBodyBytes else { return .reject(413) }
                while buffer.count < pos + size + 2 {
                    guard fill() else { return nil }
                }
                body.append(contentsOf: buffer[pos..<(pos + size)])
                pos += size + 2
            }
            buffer.removeFirst(pos)
        } else if let lengthText = partial.header("Content-Length") {
            guard let length = Int(lengthText.trimmingCharacters(in: .whitespaces)), length >= 0 else {
                return .reject(400)
            }
            guard length <= maxBodyBytes else { return .reject(413) }
            if expectsContinue && buffer.count < length {
                guard write(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)[...]) else { return nil }
            }
            while buffer.count < length {
                guard fill() else { return nil }
            }
            body = Array(buffer[0..<length])
            buffer.removeFirst(length)
        }
        return .request(LoopbackRequest(method: method, path: target, headers: headers, body: body), keepAlive: keepAlive)
    }

    // MARK: Writing

    /// Sends all of `bytes`. False when the client went away (EPIPE, ECONNRESET…),
    /// on stop, when the overall `deadline` passes, or when the client read
    /// nothing for `stallTimeout` seconds.
    func write(_ bytes: ArraySlice<UInt8>, deadline: Double = .infinity) -> Bool {
        var offset = 0
        var lastProgress = monotonicSeconds()
        while offset < bytes.count {
            if core.isStopped { return false }
            let remaining = bytes.count - offset
            let n = bytes.withUnsafeBytes {
                send(fd, $0.baseAddress! + offset, remaining, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
            }
            if n > 0 {
                offset += n
                lastProgress = monotonicSeconds()
                continue
            }
            guard n < 0, isTransient(errno) else { return false }
            let now = monotonicSeconds()
            if now >= deadline || now - lastProgress >= stallTimeout { return false }
            var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            if poll(&pfd, 1, sliceMilliseconds) > 0, pfd.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 {
                return false
            }
        }
        return true
    }

    /// Sends `bytes`, running `beforeLastByte` just before the final byte goes
    /// out, so the request is no longer counted as active by the time the
    /// client can possibly have the whole response.
    func writeFinal(_ bytes: [UInt8], beforeLastByte: () -> Void) -> Bool {
        guard !bytes.isEmpty else {
            beforeLastByte()
            return true
        }
        guard write(bytes.dropLast()) else { return false }
        beforeLastByte()
        return write(bytes.suffix(1))
    }

    /// Waits `seconds` in slices, checking for stop and for the client hanging
    /// up. False if the wait was cut short.
    func waitDelay(_ seconds: Double) -> Bool {
        let end = monotonicSeconds() + seconds
        while !core.isStopped {
            let remaining = end - monotonicSeconds()
            if remaining <= 0 { return true }
            let slice = Int32(min(Double(sliceMilliseconds), (remaining * 1000).rounded(.up)))
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, slice)
            guard ready > 0 else { continue }
            if pfd.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { return false }
            var byte: UInt8 = 0
            let n = recv(fd, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT))
            if n == 0 { return false }  // orderly shutdown by the client
            if n < 0 && !isTransient(errno) { return false }
            usleep(useconds_t(slice) * 1000)  // pipelined data pending: just sleep
        }
        return false
    }

    /// Answers one request and says how the connection goes on.
    mutating func respond(to request: LoopbackRequest, clientKeepAlive: Bool) -> Outcome {
        core.requestStarted(request)
        var ended = false
        defer { if !ended { core.requestEnded() } }

        let response = core.handler(request)
        core.requestAnswered()

        if response.delay > 0 {
            guard waitDelay(response.delay) else { return .abort }
        }
        if response.reset { return .abort }

        let status = response.status
        let statusForbidsBody = (100..<200).contains(status) || status == 204 || status == 304
        let sendsBody = !statusForbidsBody && request.method != "HEAD"
        let endless = statusForbidsBody ? nil : response.endlessChunks.map { max(1, $0) }
        let chunked = !statusForbidsBody && (response.chunked || endless != nil)

        func has(_ name: String) -> Bool {
            response.headers.contains { $0.name.caseInsensitiveCompare(name) == .orderedSame }
        }
        func value(_ name: String) -> String? {
            response.headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }

        var keepAlive = clientKeepAlive && endless == nil
        if let connection = value("Connection"), connection.lowercased().contains("close") { keepAlive = false }
        if !chunked {
            // Handler-made framing we cannot vouch for: close afterwards so the client sees the end.
            if let length = value("Content-Length"), Int(length.trimmingCharacters(in: .whitespaces)) != response.body.count,
               !statusForbidsBody, request.method != "HEAD" {
                keepAlive = false
            }
            if has("Transfer-Encoding") { keepAlive = false }
        }

        var head = "HTTP/1.1 \(status) \(reasonPhrase(status))\r\n"
        for header in response.headers { head += "\(header.name): \(header.value)\r\n" }
        if chunked {
            if !has("Transfer-Encoding") { head += "Transfer-Encoding: chunked\r\n" }
        } else if !statusForbidsBody && !has("Content-Length") {
            head += "Content-Length: \(response.body.count)\r\n"
        }
        if !has("Connection") { head += keepAlive ? "Connection: keep-alive\r\n" : "Connection: close\r\n" }
        head += "\r\n"

        var out = Array(head.utf8)
        if sendsBody {
            if chunked {
                var offset = 0
                while offset < response.body.count {
                    let size = min(16 * 1024, response.body.count - offset)
                    out += Array("\(String(size, radix: 16))\r\n".utf8)
                    out += response.body[offset..<(offset + size)]
                    out += [13, 10]
                    offset += size
                }
                if endless == nil { out += Array("0\r\n\r\n".utf8) }
            } else {
                out += response.body
            }
        }

        if let stall = response.stallAfter, sendsBody, !chunked {
            let keep = out.count - response.body.count + min(stall, response.body.count)
            guard write(out[..<keep], deadline: monotonicSeconds() + 5) else { return .abort }
            _ = waitDelay(30)
            return .abort
        }

        guard let chunkSize = endless, sendsBody else {
            let written = writeFinal(out) {
                ended = true
                core.requestEnded()
            }
            guard written, !core.isStopped else { return .abort }
            return keepAlive ? .keepOpen : .close
        }

        // Endless body: until the client hangs up, stop(), or `endlessLimit` seconds.
        let deadline = monotonicSeconds() + endlessLimit
        guard write(out[...], deadline: deadline) else { return .abort }
        var chunk = Array("\(String(chunkSize, radix: 16))\r\n".utf8)
        chunk += repeatElement(UInt8(ascii: "x"), count: chunkSize)
        chunk += [13, 10]
        var batch: [UInt8] = []
        for _ in 0..<max(1, (16 * 1024) / chunk.count) { batch += chunk }
        while !core.isStopped && monotonicSeconds() < deadline {
            guard write(batch[...], deadline: deadline) else { break }
        }
        return .abort
    }

    /// Before closing: half-close and read what the client still sends (briefly),
    /// so unread request bytes do not turn our close into a reset that could
    /// destroy the response in flight.
    mutating func drainBeforeClose() {
        shutdown(fd, Int32(SHUT_WR))
        let deadline = monotonicSeconds() + lingerSeconds
        var drained = 0
        while !core.isStopped && monotonicSeconds() < deadline && drained < 1 << 20 {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, sliceMilliseconds) > 0 else { continue }
            let count = scratch.count
            let n = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, count, Int32(MSG_DONTWAIT)) }
            if n > 0 {
                drained += n
            } else if n == 0 || !isTransient(errno) {
                return
            }
        }
    }
}
