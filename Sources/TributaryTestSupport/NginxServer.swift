import Foundation

/// Debian's nginx serving a folder over TLS (HTTP/2 offered by ALPN) on 127.0.0.1, in the
/// foreground (`daemon off`, `master_process off`: one process, this test's child), with every
/// path it writes (pid, logs, temp folders) in its own folder. Each request is a line of
/// `accessLog`: the connection's serial number, the request's number on that connection, the
/// protocol, the status and the URI (`$connection $connection_requests $server_protocol
/// $status $request_uri`), which is how tests see multiplexing.
///
/// nginx 1.22 (Debian 12) syntax: `listen PORT ssl http2;` (`http2 on;` is 1.25+).
public final class NginxServer: @unchecked Sendable {
    public let port: Int
    public let folder: String
    private var process: Process?

    /// One line of the access log.
    public struct Request: Sendable, Equatable {
        public let connection: Int
        public let connectionRequests: Int
        public let proto: String
        public let status: Int
        public let uri: String
    }

    /// nginx from PATH or /usr/sbin, or an error saying how to install it (Debian package
    /// nginx; `make test-tools`).
    public static func executable() throws -> String {
        if let found = Tool.find("nginx") ?? Tool.find("/usr/sbin/nginx") { return found }
        throw Tool.missing("nginx")
    }

    /// Starts nginx serving `root` with TLS from `certificates`, in `folder` (made if needed).
    public init(root: String, certificates: TestCertificates, folder: String) throws {
        let exe = try Self.executable()
        self.folder = folder
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        port = try NATSServer.freePort()
        let conf = folder + "/nginx.conf"
        try """
        daemon off;
        master_process off;
        worker_processes 1;
        pid \(folder)/nginx.pid;
        error_log \(folder)/error.log;
        events { worker_connections 2048; }
        http {
            log_format conns '$connection $connection_requests $server_protocol $status $request_uri';
            access_log \(folder)/access.log conns;
            client_body_temp_path \(folder)/body;
            proxy_temp_path \(folder)/proxy;
            fastcgi_temp_path \(folder)/fastcgi;
            uwsgi_temp_path \(folder)/uwsgi;
            scgi_temp_path \(folder)/scgi;
            keepalive_requests 100000;
            keepalive_timeout 300s;
            types { application/rss+xml xml; application/feed+json json; }
            server {
                listen 127.0.0.1:\(port) ssl http2;
                ssl_certificate \(certificates.certificate);
                ssl_certificate_key \(certificates.key);
                root \(root);
            }
        }

        """.write(toFile: conf, atomically: true, encoding: .utf8)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: exe)
        p.arguments = ["-c", conf, "-p", folder + "/", "-e", folder + "/error.log"]
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        process = p
        let deadline = Date().addingTimeInterval(10)
        while !Self.accepts(port) {
            if !p.isRunning || Date() > deadline {
                let log = (try? String(contentsOfFile: folder + "/error.log", encoding: .utf8)) ?? ""
                stop()
                throw RunnerError(message: "nginx did not start on 127.0.0.1:\(port): \(log)")
            }
            usleep(20_000)
        }
    }

    deinit { stop() }

    public var baseURL: String { "https://127.0.0.1:\(port)" }

    /// The access log's lines so far, parsed (nginx writes each line when its request ends).
    public var accessLog: [Request] {
        let text = (try? String(contentsOfFile: folder + "/access.log", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let f = line.split(separator: " ", maxSplits: 4)
            guard f.count == 5, let c = Int(f[0]), let n = Int(f[1]), let s = Int(f[3]) else { return nil }
            return Request(connection: c, connectionRequests: n, proto: String(f[2]), status: s, uri: String(f[4]))
        }
    }

    /// The access log once it has at least `count` lines, or after `within` seconds whatever
    /// it has: nginx writes a request's line after the response's last byte went out, so a
    /// client can hold the response a moment before the line is there.
    public func accessLog(atLeast count: Int, within: Double = 3) -> [Request] {
        let deadline = Date().addingTimeInterval(within)
        var log = accessLog
        while log.count < count && Date() < deadline {
            usleep(10_000)
            log = accessLog
        }
        return log
    }

    /// Stops nginx. Idempotent. SIGKILL at once: a test's threads (Dispatch's, the
    /// cooperative pool's) block most signals and a spawned child inherits that mask, and
    /// nginx in single-process mode never unblocks them, so SIGTERM would stay pending. Nothing
    /// is lost: nginx writes each access log line when its request ends, unbuffered.
    public func stop() {
        guard let p = process else { return }
        process = nil
        if p.isRunning { kill(p.processIdentifier, SIGKILL) }
        p.waitUntilExit()
    }

    /// Whether something accepts a TCP connection on 127.0.0.1:`port`.
    static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = UInt16(port).bigEndian
        addr.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } } == 0
    }
}
