#if canImport(Glibc)
import Glibc
#endif
import TributaryCore

/// `jsonl`: items as JSON Lines to a file (append or truncate) or `-` (stdout). Each batch is
/// written (and, for a regular file, fsynced) before `write` returns. A line cut short by an
/// earlier crash of ours is removed when the file is opened, so the file only ever holds whole
/// lines; text that is not ours is never cut (see `repairTail`).
public final class JSONLSink: Sink, @unchecked Sendable {
    // Called by the engine from one task at a time (Sink contract): `fd` needs no lock.
    public static let descriptor = SinkDescriptor(type: "jsonl", summary: "JSON Lines to a file or stdout (-)", options: [path, mode]) { reader in
        JSONLSink(path: reader[path], truncate: reader[mode] == .truncate)
    }

    static let path = Option.path("path", "file to write, relative to the config file; - for stdout").required
    static let mode = Option.choice("mode", Mode.self, "append to the file, or start it afresh each run").defaulted(.append)
    enum Mode: String, CaseIterable, Sendable { case append, truncate }

    let path: String
    let truncate: Bool
    private var fd: Int32 = -1
    /// Only regular files are fsynced and repaired: a FIFO, a pipe (`/dev/stdout`) or
    /// `/dev/null` has no tail to repair, and a write to it is its delivery.
    private var isRegularFile = false
    private let output: FDOutput?
    private var warn: @Sendable (String) -> Void = { _ in }

    public init(path: String, truncate: Bool = false, output: FDOutput = .standardOutput) {
        self.path = path
        self.truncate = truncate
        self.output = path == "-" ? output : nil
    }

    public func open(_ context: SinkContext) throws(SinkError) {
        warn = { context.warn($0) }
    }

    private func openFile() throws(SinkError) {
        guard fd < 0, output == nil else { return }
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex { try AtomicFile.makeDirectories(String(path[..<slash])) }
        var st = stat()
        let exists = stat(path, &st) == 0
        isRegularFile = !exists || (st.st_mode & S_IFMT) == S_IFREG
        // Not a regular file: open for writing only (a FIFO or a tty), never truncate or seek.
        let flags = isRegularFile ? O_RDWR | O_CREAT | O_CLOEXEC | (truncate ? O_TRUNC : 0) : O_WRONLY | O_CLOEXEC
        let f = Glibc.open(path, flags, 0o644)
        guard f >= 0 else { throw SinkError("jsonl: cannot open \(path): \(String(cString: strerror(errno)))") }
        fd = f
        guard isRegularFile else { return }
        try repairTail()
        lseek(fd, 0, SEEK_END)
    }

    /// What a line of ours starts with (`Item.appendJSON`): a trailing fragment that starts so is
    /// a line of ours cut short by a crash, and is removed. Anything else after the last newline
    /// (a file another program wrote, a hand-edited last line) is kept as it is, and a newline is
    /// added so our first line starts on a line of its own. Either way a warning says what
    /// happened; nothing is changed silently.
    static let linePrefix: [UInt8] = Array(#"{"id":""#.utf8)

    private func repairTail() throws(SinkError) {
        let size = lseek(fd, 0, SEEK_END)
        guard size > 0 else { return }
        var byte: UInt8 = 0
        guard pread(fd, &byte, 1, size - 1) == 1 else { throw readError() }
        if byte == 0x0A { return }
        // Find the start of the last line, reading backwards in chunks.
        let chunk = 4096
        var buf = [UInt8](repeating: 0, count: chunk)
        var lineStart: off_t = 0
        var pos = size
        search: while pos > 0 {
            let start = max(0, pos - off_t(chunk))
            let n = buf.withUnsafeMutableBytes { pread(fd, $0.baseAddress, Int(pos - start), start) }
            guard n == Int(pos - start) else { throw readError() }
            if let i = buf[0..<n].lastIndex(of: 0x0A) {
                lineStart = start + off_t(i) + 1
                break search
            }
            pos = start
        }
        var head = [UInt8](repeating: 0, count: Self.linePrefix.count)
        let got = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, lineStart) }
        let fragment = Int(size - lineStart)
        if got == head.count && head == Self.linePrefix {
            guard ftruncate(fd, lineStart) == 0 else { throw SinkError("jsonl: cannot remove the partial last line of \(path): \(String(cString: strerror(errno)))") }
            warn("jsonl: \(path): removed a partial last line (\(fragment) bytes) left by an interrupted run; its items are written again")
        } else {
            let newline: [UInt8] = [0x0A]
            guard pwrite(fd, newline, 1, size) == 1 else { throw SinkError("jsonl: cannot write \(path): \(String(cString: strerror(errno)))") }
            warn("jsonl: \(path): the file did not end with a newline and its last line (\(fragment) bytes) is not one of ours; kept it and started on a new line")
        }
    }

    private func readError() -> SinkError {
        SinkError("jsonl: cannot read \(path) to check its last line: \(String(cString: strerror(errno)))")
    }

    /// Lines are written in chunks of about this many bytes, so a large batch never needs one
    /// buffer the size of all its output; chunks always end at a line end.
    static let chunkSize = 1 << 20

    public func write(_ items: [Item]) throws(SinkError) {
        if output == nil { try openFile() }
        var buf: [UInt8] = []
        buf.reserveCapacity(Self.chunkSize + 4096)
        for item in items {
            item.appendJSON(into: &buf)
            buf.append(0x0A)
            if buf.count >= Self.chunkSize {
                try flush(buf)
                buf.removeAll(keepingCapacity: true)
            }
        }
        if !buf.isEmpty { try flush(buf) }
        if output == nil && isRegularFile {
            guard fsync(fd) == 0 else { throw SinkError("jsonl: cannot fsync \(path): \(String(cString: strerror(errno)))") }
        }
    }

    private func flush(_ buf: [UInt8]) throws(SinkError) {
        if let output {
            try output.write(buf)
            return
        }
        let ok = buf.withUnsafeBytes { raw -> Bool in
            var off = 0
            while off < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + off, raw.count - off)
                if n < 0 { if errno == EINTR { continue }; return false }
                off += n
            }
            return true
        }
        guard ok else { throw SinkError("jsonl: cannot write \(path): \(String(cString: strerror(errno)))") }
    }

    public func close() throws(SinkError) {
        if output == nil && fd < 0 { try openFile() }  // truncate mode empties the file even when nothing is new
        if fd >= 0 { Glibc.close(fd); fd = -1 }
    }
}
