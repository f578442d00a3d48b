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

    /// The tributary binary next to the test bundle, else in .build/debug.
    public static let binary: String = {
        let dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
        for candidate in [dir + "/tributary", packageRoot + "/.build/debug/tributary"] where FileManager.default.isExecutableFile(atPath: candidate) {
            return candidate
        }
        return packageRoot + "/.build/debug/tributary"
    }()

    /// Runs `tributary args...` in `cwd` with extra environment; kills it after `timeout` s.
    public static func run(_ args: [String], cwd: String? = nil, env: [String: String] = [:], stdin: String? = nil, timeout: Double = 60) throws -> Result {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = args
        if let cwd { p.currentDirectoryURL = URL(fileURLWithPath: cwd) }
        var environment = ProcessInfo.processInfo.environment
        // Never touch the user's state: each run gets a fresh state folder unless the test
        // passes --state or its own XDG_STATE_HOME.
        let scratchState = NSTemporaryDirectory() + "tributary-state-" + UUID().uuidString
        environment["XDG_STATE_HOME"] = scratchState
        for (k, v) in env { environment[k] = v }
        p.environment = environment
        defer { try? FileManager.default.removeItem(atPath: scratchState) }
        let outPipe = Pipe(), errPipe = Pipe(), inPipe = Pipe()
        p.standardOutput = outPipe
        p.standardError = errPipe
        p.standardInput = inPipe
        try p.run()
        if let stdin { inPipe.fileHandleForWriting.write(Data(stdin.utf8)) }
        try? inPipe.fileHandleForWriting.close()
        let collector = OutputCollector()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async { collector.setOut(outPipe.fileHandleForReading.readDataToEndOfFile()); group.leave() }
        group.enter()
        DispatchQueue.global().async { collector.setErr(errPipe.fileHandleForReading.readDataToEndOfFile()); group.leave() }
        let deadline = Date().addingTimeInterval(timeout)
        while p.isRunning && Date() < deadline { usleep(10_000) }
        if p.isRunning {
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            _ = group.wait(timeout: .now() + 5)
            throw RunnerError(message: "tributary \(args.joined(separator: " ")) did not finish within \(timeout) s; stderr: \(collector.errText)")
        }
        p.waitUntilExit()
        _ = group.wait(timeout: .now() + 10)
        return Result(status: p.terminationStatus, stdout: collector.outText, stderr: collector.errText)
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
}

final class OutputCollector: @unchecked Sendable {
    // Each field is written once by its reader thread, read after both finished (DispatchGroup).
    private let lock = NSLock()
    private var out = Data(), err = Data()
    func setOut(_ d: Data) { lock.lock(); out = d; lock.unlock() }
    func setErr(_ d: Data) { lock.lock(); err = d; lock.unlock() }
    var outText: String { lock.lock(); defer { lock.unlock() }; return String(decoding: out, as: UTF8.self) }
    var errText: String { lock.lock(); defer { lock.unlock() }; return String(decoding: err, as: UTF8.self) }
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
