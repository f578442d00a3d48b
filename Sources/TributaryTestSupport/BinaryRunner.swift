import Foundation

/// Runs the built `tributary` binary the way a user does, capturing stdout, stderr and the
/// exit code, with a hard time limit so a hung run fails the test instead of CI.
public struct BinaryRunner {
    public struct Result: Sendable {
        public let status: Int32
        public let stdout: String
        public let stderr: String
        public var stdoutLines: [String] { stdout.split(separator: "\n").map(String.init) }
    }

    /// The package root (where Package.swift is).
    public static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// The binary under test: `$TRIBUTARY_BIN` (what `make test` sets: the release build users
    /// run), else the one next to the test bundle, else .build/debug.
    public static let binary: String = {
        if let given = ProcessInfo.processInfo.environment["TRIBUTARY_BIN"], !given.isEmpty {
            return given.hasPrefix("/") ? given : packageRoot + "/" + given
        }
        let dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
        for candidate in [dir + "/tributary", packageRoot + "/.build/debug/tributary"] where FileManager.default.isExecutableFile(atPath: candidate) {
            return candidate
        }
        return packageRoot + "/.build/debug/tributary"
    }()

    /// Runs `tributary args...` in `cwd` with extra environment; kills it after `timeout` s.
    public static func run(_ args: [String], cwd: String? = nil, env: [String: String] = [:], stdin: String? = nil, timeout: Double = 60) throws -> Result {
        // Never touch the user's state: each run gets a fresh state folder unless the test
        // passes --state or its own XDG_STATE_HOME.
        let scratchState = NSTemporaryDirectory() + "tributary-state-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: scratchState) }
        var environment = ["XDG_STATE_HOME": scratchState]
        for (k, v) in env { environment[k] = v }
        return try Shell.run([binary] + args, cwd: cwd, env: environment, stdin: stdin, timeout: timeout)
    }

    /// Starts the binary and returns the process (for signal tests); output goes to the given files.
    public static func start(_ args: [String], cwd: String? = nil, env: [String: String] = [:], stdoutPath: String, stderrPath: String) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = args
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_STATE_HOME"] = stdoutPath + ".state"
        for (k, v) in env { environment[k] = v }
        p.environment = environment
        if let cwd { p.currentDirectoryURL = URL(fileURLWithPath: cwd) }
        _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        p.standardOutput = FileHandle(forWritingAtPath: stdoutPath)
        p.standardError = FileHandle(forWritingAtPath: stderrPath)
        p.standardInput = FileHandle.nullDevice
        try p.run()
        return p
    }
}

public struct RunnerError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
    public init(message: String) { self.message = message }
}

/// A scratch folder per test, removed by `remove()`.
public struct TempDir {
    public let path: String
    public init() {
        path = NSTemporaryDirectory() + "tributary-test-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    public func write(_ name: String, _ text: String) -> String {
        let p = path + "/" + name
        try? FileManager.default.createDirectory(atPath: (p as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: p, contents: Data(text.utf8))
        return p
    }
    public func read(_ name: String) -> String? {
        FileManager.default.contents(atPath: path + "/" + name).map { String(decoding: $0, as: UTF8.self) }
    }
    public func remove() { try? FileManager.default.removeItem(atPath: path) }
}
