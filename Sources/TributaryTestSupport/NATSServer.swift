import Foundation
import TributaryCore

/// A real `nats-server` with JetStream (Debian package nats-server) for tests: it listens on a
/// free port of 127.0.0.1 only, keeps its store in a temporary folder, and can be stopped,
/// killed, paused and started again on the same port and store (a restart keeps the streams
/// and their messages). `remove()` (or deinit) stops it and deletes the folder. No mocks: the
/// sink under test talks to the server, and `NATSReader` reads back what it stored.
///
/// Used from one test thread; not `Sendable`.
public final class NATSServer {
    public let port: Int
    /// The folder holding the store (`store/`) and the server's log (`server.log`).
    public let folder: String
    public let user: String?
    public let password: String?
    /// The server's `max_payload` when not its default (1 MiB): the largest message, headers
    /// and payload, it takes. Set through a config file (`server.conf`), as nats-server has no
    /// flag for it.
    public let maxPayload: Int?
    private var process: Process?

    /// Starts a server (with `user`/`password`, clients must authenticate; with `maxPayload`,
    /// it takes no larger message).
    public init(user: String? = nil, password: String? = nil, maxPayload: Int? = nil) throws {
        port = try Self.freePort()
        folder = NSTemporaryDirectory() + "tributary-nats-" + UUID().uuidString
        self.user = user
        self.password = password
        self.maxPayload = maxPayload
        try FileManager.default.createDirectory(atPath: folder + "/store", withIntermediateDirectories: true)
        if let maxPayload {
            try "max_payload: \(maxPayload)\n".write(toFile: folder + "/server.conf", atomically: true, encoding: .utf8)
        }
        try start()
    }

    deinit { remove() }

    /// `nats://127.0.0.1:<port>` (no credentials).
    public var url: String { "nats://127.0.0.1:\(port)" }

    /// The server's program: `$NATS_SERVER`, else `nats-server` in PATH or /usr/bin, /usr/sbin.
    public static var program: String? {
        if let p = ProcessInfo.processInfo.environment["NATS_SERVER"], !p.isEmpty { return p }
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        return (path + ["/usr/bin", "/usr/sbin"]).map { $0 + "/nats-server" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    public var isRunning: Bool { process?.isRunning ?? false }

    /// Starts the server (again) on the same port and store; returns once it accepts clients.
    public func start() throws {
        guard process == nil else { return }
        guard let program = Self.program else {
            throw RunnerError(message: "nats-server not found (Debian package nats-server: `make test-tools` installs it)")
        }
        var args = ["-js", "-a", "127.0.0.1", "-p", String(port), "-sd", folder + "/store", "-l", folder + "/server.log", "--server_name", "tributary-test"]
        if let user { args += ["--user", user] }
        if let password { args += ["--pass", password] }
        if maxPayload != nil { args += ["-c", folder + "/server.conf"] }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: program)
        p.arguments = args
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        process = p
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            // The listener must be this process's: on a shared machine another program can take
            // the port between freePort() and the server's bind (or after a kill), and a greeting
            // from someone else's server would send the test's clients there.
            if Self.greets(port), Self.listens(pid: p.processIdentifier, port: port) { return }
            guard p.isRunning else { break }
            usleep(20_000)
        }
        let log = (try? String(contentsOfFile: folder + "/server.log", encoding: .utf8)) ?? ""
        stop()
        throw RunnerError(message: "nats-server did not start on 127.0.0.1:\(port) (or another process holds the port): \(log.suffix(2000))")
    }

    /// SIGTERM, then waits for the process (SIGKILL after 5 s).
    public func stop() { end(SIGTERM) }

    /// SIGKILL: what a crash looks like (no goodbye to clients, unflushed store writes lost).
    public func kill() { end(SIGKILL) }

    /// SIGSTOP: the server holds its connections but answers nothing, until `resume()`.
    /// Returns once every thread of the server has stopped (bounded: 10 s). kill(2) only starts
    /// a stop: one thread takes the signal and then stops the others, so until it is scheduled
    /// the rest keep serving. On a loaded machine that took long enough for a starved server to
    /// acknowledge 8 of 20 JetStream messages published right after kill(2) returned.
    public func pause() {
        guard let p = process else { return }
        let pid = p.processIdentifier
        Foundation.kill(pid, SIGSTOP)
        let deadline = Date().addingTimeInterval(10)
        while !Self.isStopped(pid: pid) && p.isRunning && Date() < deadline { usleep(1_000) }
    }

    /// Whether every thread of `pid` is stopped (state T in /proc/<pid>/task/<tid>/stat).
    static func isStopped(pid: Int32) -> Bool {
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task"), !tasks.isEmpty else { return false }
        return tasks.allSatisfy { tid in
            // "tid (comm) S ...": the state follows the last ')' (comm may hold spaces).
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/task/\(tid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return false }
            return stat[stat.index(after: close)...].split(separator: " ").first == "T"
        }
    }
    public func resume() { if let p = process { Foundation.kill(p.processIdentifier, SIGCONT) } }

    /// Bytes clients sent that the server has not read yet: the receive queues of the
    /// established TCP connections to its port (/proc/net/tcp). Nonzero while the server is
    /// paused means a client's messages reached it and wait unread (no acknowledgement can
    /// come for them from this process).
    public func unreadBytes() -> Int {
        let table = Self.tcpTable()
        let local = String(format: ":%04X", port)
        return table.split(separator: "\n").dropFirst().reduce(0) { sum, line in
            // sl local_address rem_address st tx_queue:rx_queue ...
            let f = line.split(separator: " ")
            guard f.count > 4, f[1].hasSuffix(local), f[3] == "01", let rx = f[4].split(separator: ":").last.flatMap({ Int($0, radix: 16) }) else { return sum }
            return sum + rx
        }
    }

    /// Whether the socket listening on 127.0.0.1:`port` is one of `pid`'s open files.
    static func listens(pid: Int32, port: Int) -> Bool {
        let local = String(format: "0100007F:%04X", port)
        let inodes = tcpTable().split(separator: "\n").compactMap { line -> Substring? in
            let f = line.split(separator: " ")
            return f.count > 9 && f[1] == local && f[3] == "0A" ? f[9] : nil
        }
        guard let inode = inodes.first else { return false }
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        return fds.contains { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")) == "socket:[\(inode)]" }
    }

    /// /proc/net/tcp read to its end (a proc file has no size: one read returns one page).
    public static func tcpTable() -> String {
        let fd = open("/proc/net/tcp", O_RDONLY)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(fd, &buf, buf.count)
            if n <= 0 { break }
            bytes += buf[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private func end(_ signal: Int32) {
        guard let p = process else { return }
        process = nil
        Foundation.kill(p.processIdentifier, signal)
        // A paused server handles SIGTERM once continued; SIGKILL needs no SIGCONT, and must not
        // let a paused server run (it would read and acknowledge what waited in its socket).
        if signal != SIGKILL { Foundation.kill(p.processIdentifier, SIGCONT) }
        let deadline = Date().addingTimeInterval(5)
        while p.isRunning && Date() < deadline { usleep(10_000) }
        if p.isRunning { Foundation.kill(p.processIdentifier, SIGKILL) }
        p.waitUntilExit()
    }

    /// Stops the server and deletes its folder.
    public func remove() {
        stop()
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// A port on 127.0.0.1 that nothing listens on now (the kernel's pick for port 0).
    public static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RunnerError(message: "socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var addr = loopback(0)
        let bound = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard bound == 0 else { throw RunnerError(message: "bind: \(String(cString: strerror(errno)))") }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        return Int(UInt16(bigEndian: addr.sin_port))
    }

    private static func loopback(_ port: Int) -> sockaddr_in {
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = UInt16(port).bigEndian
        addr.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return addr
    }

    /// Whether something on 127.0.0.1:`port` sends a NATS `INFO` line on connect.
    static func greets(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var tv = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var addr = loopback(port)
        let ok = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard ok == 0 else { return false }
        var buf = [UInt8](repeating: 0, count: 4)
        return recv(fd, &buf, 4, 0) == 4 && buf == Array("INFO".utf8)
    }
}
