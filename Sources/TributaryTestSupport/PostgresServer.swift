import Foundation
import TributaryCore

/// A real PostgreSQL server for tests, from the Debian `postgresql` package: `initdb` into a
/// scratch folder, `pg_ctl start` on a free port listening on 127.0.0.1 only (no Unix socket),
/// password authentication (SCRAM) for one superuser, fsync off (a test server need not survive
/// a power cut). PostgreSQL refuses to run as root, so as root every server command runs as
/// the `postgres` user (`runuser`), which owns the folder. `remove()` stops the server and
/// deletes the folder; `shared` is one server per test process, removed when the process exits.
public final class PostgresServer: @unchecked Sendable {
    // Why `@unchecked Sendable`: `port`, `folder`, `password` never change; `running` is read
    // and written under `lock` only.
    public let folder: String
    public let port: Int
    public let user = "tributary"
    public let password: String
    private let lock = NSLock()
    private var running = false

    /// The server's programs (`initdb`, `pg_ctl`, `psql`): the newest installed major version.
    public static var binDirectory: String? {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).sorted()
        return versions.last.map { "\(root)/\($0)/bin" }.flatMap { FileManager.default.isExecutableFile(atPath: $0 + "/initdb") ? $0 : nil }
    }

    /// The one server of this test process, started on first use. Throws (the tests that need
    /// it fail, naming the reason) when PostgreSQL is not installed or will not start.
    public static func shared() throws -> PostgresServer {
        try sharedServer.withLock { s in
            if let s { return try s.get() }
            let r = Result { try PostgresServer() }
            s = r
            if case .success = r { atexit { PostgresServer.removeShared() } }
            return try r.get()
        }
    }
    private static let sharedServer = Locked<Result<PostgresServer, any Error>?>(nil)
    private static func removeShared() {
        if case .success(let server)? = sharedServer.withLock({ $0 }) { server.remove() }
    }

    /// `postgres://tributary:<password>@127.0.0.1:<port>/<database>`.
    public func url(database: String = "postgres") -> String { "postgres://\(user):\(password)@127.0.0.1:\(port)/\(database)" }

    static var isRoot: Bool { getuid() == 0 }

    public init() throws {
        guard let bin = Self.binDirectory else {
            throw RunnerError(message: "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb; apt-get install postgresql)")
        }
        folder = NSTemporaryDirectory() + "tributary-pg-" + UUID().uuidString
        password = "pw-" + UUID().uuidString.prefix(8).lowercased()
        port = try Self.freePort()
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let pwfile = folder + "/pwfile"
        _ = FileManager.default.createFile(atPath: pwfile, contents: Data((password + "\n").utf8))
        if Self.isRoot { _ = try Shell.run(["chown", "-R", "postgres:postgres", folder]) }
        let initdb = try asServerUser([bin + "/initdb", "-D", folder + "/data", "-U", user, "--pwfile=" + pwfile, "--auth=scram-sha-256",
                                            "-E", "UTF8", "--locale=C", "--no-sync"], timeout: 120)
        guard initdb.status == 0 else { throw RunnerError(message: "initdb failed (\(initdb.status)): \(initdb.stderr) \(initdb.stdout)") }
        try start()
    }

    /// Runs a server command as the user who owns the folder, its output appended to
    /// `<folder>/commands.log`. Spawned and waited for here rather than through Foundation's
    /// `Process`, which here never saw `runuser` exit once `pg_ctl start` had left the server
    /// running (the test hung on a zombie).
    func asServerUser(_ argv: [String], timeout: Double = 60) throws -> BinaryRunner.Result {
        let full = Self.isRoot ? ["/usr/sbin/runuser", "-u", "postgres", "--"] + argv : argv
        let log = folder + "/commands.log"
        let before = (try? FileManager.default.attributesOfItem(atPath: log)[.size] as? Int) ?? 0
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var cargs = full.map { strdup($0) }
        cargs.append(nil)
        defer { for a in cargs { free(a) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, full[0], &actions, nil, cargs, environ)
        guard rc == 0 else { throw RunnerError(message: "cannot run \(full[0]): \(String(cString: strerror(rc)))") }
        let deadline = Date().addingTimeInterval(timeout)
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            if Date() > deadline {
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                throw RunnerError(message: "\(argv.joined(separator: " ")) did not finish within \(timeout) s")
            }
            usleep(10_000)
        }
        let output = (FileManager.default.contents(atPath: log).map { String(decoding: $0.dropFirst(before), as: UTF8.self) }) ?? ""
        let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return BinaryRunner.Result(status: code, stdout: output, stderr: output)
    }

    /// Starts the server (again, after `stopServer`); waits until it accepts connections.
    public func start() throws {
        guard let bin = Self.binDirectory else { throw RunnerError(message: "PostgreSQL is not installed") }
        let options = "-c listen_addresses=127.0.0.1 -p \(port) -c unix_socket_directories='' -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        let r = try asServerUser([bin + "/pg_ctl", "-D", folder + "/data", "-l", folder + "/server.log", "-w", "-t", "60", "-o", options, "start"], timeout: 90)
        guard r.status == 0 else {
            throw RunnerError(message: "pg_ctl start failed (\(r.status)): \(r.stderr) \(r.stdout); log: \((try? String(contentsOfFile: folder + "/server.log", encoding: .utf8)) ?? "")")
        }
        lock.withLock { running = true }
    }

    /// Stops the server (`fast`: connections are closed; `immediate`: as if it crashed).
    public func stopServer(mode: String = "fast") throws {
        guard let bin = Self.binDirectory else { return }
        let r = try asServerUser([bin + "/pg_ctl", "-D", folder + "/data", "-m", mode, "-w", "-t", "60", "stop"], timeout: 90)
        lock.withLock { running = false }
        guard r.status == 0 else { throw RunnerError(message: "pg_ctl stop failed (\(r.status)): \(r.stderr)") }
    }

    /// Stops the server if it runs and deletes its folder.
    public func remove() {
        if lock.withLock({ running }) { try? stopServer(mode: "immediate") }
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// The real `psql` (tuples only, unaligned, `|` between columns, stop on error): its stdout.
    public func psql(_ sql: String, database: String = "postgres") throws -> String {
        let psql = (Self.binDirectory.map { $0 + "/psql" }).flatMap { FileManager.default.isExecutableFile(atPath: $0) ? $0 : nil } ?? "psql"
        let r = try Shell.run([psql, "-X", "-At", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", String(port), "-U", user, "-d", database, "-c", sql],
                              env: ["PGPASSWORD": password, "PGCONNECT_TIMEOUT": "10"], timeout: 60)
        guard r.status == 0 else { throw RunnerError(message: "psql failed (\(r.status)): \(r.stderr)") }
        return r.stdout
    }

    /// A fresh database for one test (dropped with the server).
    public func createDatabase(_ prefix: String = "t") throws -> String {
        let name = prefix + "_" + UUID().uuidString.prefix(8).lowercased()
        _ = try psql("CREATE DATABASE \(name)")
        return name
    }

    /// A port nobody listens on now (bound to 127.0.0.1:0, then released).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RunnerError(message: "socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0 }
        }
        guard bound else { throw RunnerError(message: "bind 127.0.0.1:0: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: addr.sin_port))
    }
}
