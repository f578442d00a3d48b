#if canImport(Glibc)
import Glibc
#endif

/// Writes bytes to a file descriptor with a `write(2)` loop. EPIPE (the reader left) becomes
/// `SinkError.readerGone` instead of a crash; SIGPIPE is ignored by the program at start.
public final class FDOutput: Sendable {
    /// How much a sink gathers before one `write` (1 MiB of whole lines): big enough that large
    /// batches cost few system calls, small enough that memory stays bounded.
    public static let chunkSize = 1 << 20

    public let fd: Int32
    private let lock = Locked(false)  // true once the reader has gone
    /// What is drawn on the same terminal that this output's writes must go around.
    private let overlay = Locked<(any TerminalOverlay)?>(nil)

    /// How messages name it: `stdout`, `stderr`, `fd 5`.
    public let name: String

    public init(fd: Int32) {
        self.fd = fd
        name = fd == 1 ? "stdout" : fd == 2 ? "stderr" : "fd \(fd)"
    }

    public static let standardOutput = FDOutput(fd: 1)
    public static let standardError = FDOutput(fd: 2)

    public var isTerminal: Bool { isatty(fd) == 1 }

    /// Something drawn on this output's terminal (the command line's progress line, on stderr)
    /// that every write here goes around: it is taken off before and put back after, so an
    /// item is never written after the progress text on one line. Set before the first write.
    public func setOverlay(_ o: (any TerminalOverlay)?) { overlay.withLock { $0 = o } }

    public func write(_ bytes: [UInt8]) throws(SinkError) {
        guard let o = overlay.withLock({ $0 }) else { return try writeNow(bytes) }
        o.hide()
        defer { o.show() }
        try writeNow(bytes)
    }

    private func writeNow(_ bytes: [UInt8]) throws(SinkError) {
        let failure: SinkError? = lock.withLock { closed -> SinkError? in
            if closed { return .readerGone(name) }
            return bytes.withUnsafeBytes { raw -> SinkError? in
                var off = 0
                while off < raw.count {
                    let n = Glibc.write(fd, raw.baseAddress! + off, raw.count - off)
                    if n < 0 {
                        let e = errno
                        if e == EINTR || e == EAGAIN { continue }
                        if e == EPIPE { closed = true; return .readerGone(name) }
                        return SinkError("write to \(name) failed: \(String(cString: strerror(e)))")
                    }
                    off += n
                }
                return nil
            }
        }
        if let failure { throw failure }
    }

    public func write(_ text: String) throws(SinkError) { try write(Array(text.utf8)) }

    /// For logs: never throws.
    public func log(_ text: String) { try? write(Array(text.utf8)) }
}

/// A line drawn on a terminal that other writes to that terminal go around (`FDOutput.setOverlay`).
public protocol TerminalOverlay: Sendable {
    /// Takes the line off the terminal: something else is about to write there.
    func hide()
    /// Puts it back.
    func show()
}

/// Writes a whole file so readers never see a partial one: temp file in the same folder,
/// write, fsync, keep the old file's mode, rename over, fsync the folder.
public enum AtomicFile {
    public static func write(_ bytes: [UInt8], to path: String) throws(SinkError) {
        let dir: String
        if let slash = path.lastIndex(of: "/") { dir = slash == path.startIndex ? "/" : String(path[..<slash]) } else { dir = "." }
        try makeDirectories(dir)
        var mode: mode_t = 0o644
        var st = stat()
        if stat(path, &st) == 0 { mode = st.st_mode & 0o7777 }
        var template = Array((path + ".tmp.XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw SinkError("cannot create a temporary file next to \(path): \(String(cString: strerror(errno)))") }
        let tmp = String(decoding: template.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        func fail(_ what: String) -> SinkError {
            let msg = "\(what) \(path): \(String(cString: strerror(errno)))"
            close(fd)
            unlink(tmp)
            return SinkError(msg)
        }
        let ok = bytes.withUnsafeBytes { raw -> Bool in
            var off = 0
            while off < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + off, raw.count - off)
                if n < 0 { if errno == EINTR { continue }; return false }
                off += n
            }
            return true
        }
        guard ok else { throw fail("cannot write") }
        guard fchmod(fd, mode) == 0 else { throw fail("cannot set the mode of") }
        guard fsync(fd) == 0 else { throw fail("cannot fsync") }
        close(fd)
        guard rename(tmp, path) == 0 else {
            let msg = "cannot rename into place \(path): \(String(cString: strerror(errno)))"
            unlink(tmp)
            throw SinkError(msg)
        }
        let dfd = open(dir, O_RDONLY | O_DIRECTORY)
        if dfd >= 0 { fsync(dfd); close(dfd) }
    }

    /// `mkdir -p`.
    public static func makeDirectories(_ dir: String) throws(SinkError) {
        if dir.isEmpty || dir == "." || dir == "/" { return }
        var st = stat()
        if stat(dir, &st) == 0 { return }
        if let slash = dir.lastIndex(of: "/"), slash != dir.startIndex { try makeDirectories(String(dir[..<slash])) }
        if mkdir(dir, 0o755) != 0 && errno != EEXIST {
            throw SinkError("cannot create folder \(dir): \(String(cString: strerror(errno)))")
        }
    }
}
