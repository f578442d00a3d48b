import Foundation
import TributaryCore

/// Runs any program (the tributary binary, swiftc, python3, psql...) with a hard time limit,
/// capturing stdout, stderr and the exit status, so a hung child fails its test instead of CI.
public enum Shell {
    /// `argv[0]` is looked up in PATH unless it contains a slash; a program that is not there
    /// throws an error naming it and its Debian package (`Tool.require`), before anything runs.
    /// `env` is added to this process's environment. `stdin` is written on a thread of its own
    /// with SIGPIPE blocked there (`ChildInput`): a child that exits without reading it ends
    /// the write, never the test process. A child still running after `timeout` s is killed
    /// (SIGKILL).
    public static func run(_ argv: [String], cwd: String? = nil, env: [String: String] = [:], stdin: String? = nil, timeout: Double = 60) throws -> BinaryRunner.Result {
        try Tool.require(argv[0], path: env["PATH"])
        let p = Process()
        if argv[0].contains("/") {
            p.executableURL = URL(fileURLWithPath: argv[0])
            p.arguments = Array(argv.dropFirst())
        } else {
            p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            p.arguments = argv
        }
        if let cwd { p.currentDirectoryURL = URL(fileURLWithPath: cwd) }
        var environment = ProcessInfo.processInfo.environment
        for (k, v) in env { environment[k] = v }
        p.environment = environment
        let outPipe = Pipe(), errPipe = Pipe(), inPipe = Pipe()
        p.standardOutput = outPipe
        p.standardError = errPipe
        p.standardInput = inPipe
        try p.run()
        let collector = OutputCollector()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async { collector.setOut(outPipe.fileHandleForReading.readDataToEndOfFile()); group.leave() }
        group.enter()
        DispatchQueue.global().async { collector.setErr(errPipe.fileHandleForReading.readDataToEndOfFile()); group.leave() }
        if let stdin {
            let writer = inPipe.fileHandleForWriting
            DispatchQueue.global().async {
                // A child that exits without reading must not kill the test with SIGPIPE/EPIPE.
                ChildInput.write(Data(stdin.utf8), to: writer)
            }
        } else {
            try? inPipe.fileHandleForWriting.close()
        }
        let deadline = Date().addingTimeInterval(timeout)
        while p.isRunning && Date() < deadline { usleep(5_000) }
        if p.isRunning {
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            _ = group.wait(timeout: .now() + 5)
            throw RunnerError(message: "\(argv.joined(separator: " ")) did not finish within \(timeout) s; stderr: \(collector.errText)")
        }
        p.waitUntilExit()
        _ = group.wait(timeout: .now() + 10)
        let status = p.terminationReason == .uncaughtSignal ? 128 + p.terminationStatus : p.terminationStatus
        return BinaryRunner.Result(status: status, stdout: collector.outText, stderr: collector.errText)
    }
}

/// What a child printed; each field is written once by its reader thread and read after both
/// finished (a DispatchGroup), the lock makes that visible across threads.
final class OutputCollector: Sendable {
    private let state = Locked<(out: Data, err: Data)>((Data(), Data()))
    func setOut(_ d: Data) { state.withLock { $0.out = d } }
    func setErr(_ d: Data) { state.withLock { $0.err = d } }
    var outText: String { state.withLock { String(decoding: $0.out, as: UTF8.self) } }
    var errText: String { state.withLock { String(decoding: $0.err, as: UTF8.self) } }
}
