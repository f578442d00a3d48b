import Foundation
import TributaryCore

/// The external programs the tests run, found in PATH before use, so that a missing one fails
/// its test with its own name and the Debian package that has it, not with what a script or
/// `env` makes of its absence ("nats-server did not start" when `curl` was missing, a test
/// bundle ended by SIGPIPE when `sqlite3` was).
public enum Tool {
    /// The Debian package of each program the tests run (what `make test-tools` or `make deps`
    /// installs; the Makefile's TOOL_PACKAGES), for the message.
    public static let packages: [String: String] = [
        "sqlite3": "sqlite3", "curl": "curl", "openssl": "openssl",
        "readelf": "binutils", "nm": "binutils", "systemd-analyze": "systemd",
        "dpkg-shlibdeps": "dpkg-dev", "dpkg-deb": "dpkg", "dpkg": "dpkg",
        "zsh": "zsh", "fish": "fish", "man": "man-db", "groff": "groff-base",
        "python3": "python3-venv", "psql": "postgresql", "nats-server": "nats-server",
        "unshare": "util-linux", "runuser": "util-linux", "script": "bsdutils",
        "pkg-config": "pkg-config", "git": "git", "make": "make", "bash": "bash",
        "ldconfig": "libc-bin", "nginx": "nginx", "promtool": "prometheus", "chromium": "chromium", "gzip": "gzip", "head": "coreutils", "chown": "coreutils",
    ]

    /// The full path of `name` (looked up in `PATH`, or `path` when given), or nil.
    public static func find(_ name: String, path: String? = nil) -> String? {
        if name.contains("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
        let folders = (path ?? ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":", omittingEmptySubsequences: true)
        return folders.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The full path of `name`, or an error that names it and its package.
    @discardableResult
    public static func require(_ name: String, path: String? = nil) throws -> String {
        if let found = find(name, path: path) { return found }
        throw missing(name)
    }

    /// Checks every program in `names` (the ones a script the test runs calls); the error names
    /// all that are missing.
    public static func require(all names: [String]) throws {
        let absent = names.filter { find($0) == nil }
        guard !absent.isEmpty else { return }
        if absent.count == 1 { throw missing(absent[0]) }
        throw RunnerError(message: "the test needs programs that are not installed: "
            + absent.map { "\($0) (Debian package \(packages[$0] ?? $0))" }.joined(separator: ", ") + "; `make test-tools` installs them")
    }

    static func missing(_ name: String) -> RunnerError {
        if name.contains("/") {
            let venv = name.contains("/.build/test-tools/") ? " (the test tools' venv: `make test-tools` makes it)" : ""
            return RunnerError(message: "the test needs \(name), which is not there or not executable\(venv)")
        }
        return RunnerError(message: "the test needs `\(name)`, which is not installed or not in PATH (Debian package \(packages[name] ?? name); `make test-tools` installs it)")
    }
}

/// Writes a child's stdin without letting the child's exit end the test process: SIGPIPE is
/// blocked on the writing thread for the write (the signal the kernel raises stays pending on
/// that thread and is taken before the mask is restored), so a child that exits or closes its
/// stdin without reading makes the write fail with EPIPE, which means the child left and ends
/// the write. Nothing changes for the rest of the process or for the children it starts (the
/// disposition of SIGPIPE is untouched; only this thread's mask changes, for the write).
public enum ChildInput {
    /// Writes `bytes` to `fd` until done or the reader is gone; closes `fd` when `close`.
    /// Returns the number of bytes the child never got (0 when it took everything).
    @discardableResult
    public static func write(_ bytes: [UInt8], to fd: Int32, close: Bool = true) -> Int {
        let old = PipeSignal.block()
        defer { PipeSignal.restore(old) }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, bytes.count - offset) }
            if n > 0 {
                offset += n
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                break  // EPIPE: the child left (or closed its stdin); anything else: it cannot take more
            }
        }
        if close { Glibc.close(fd) }
        return bytes.count - offset
    }

    /// `write` on the file handle's descriptor; the handle is closed when `close`.
    @discardableResult
    public static func write(_ data: Data, to handle: FileHandle, close: Bool = true) -> Int {
        let unwritten = write([UInt8](data), to: handle.fileDescriptor, close: false)
        if close { try? handle.close() }
        return unwritten
    }
}
