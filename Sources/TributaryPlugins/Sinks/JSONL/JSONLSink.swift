import TributaryPluginKit
#if canImport(Glibc)
import Glibc
#endif
import TributaryCore

/// `jsonl`: items as JSON Lines to a file (append or truncate) or `-` (stdout). Each batch is
/// written (and, for a regular file, fsynced) before `write` returns. A line cut short by an
/// earlier crash of ours is removed when a file is opened, so a file only ever holds whole
/// lines; text that is not ours is never cut (see `repairTail`). A path with `%Y`, `%m`, `%d`,
/// `%H` (`TimePath`) names a file per day or hour: each batch goes whole to the file of the
/// time it is written (UTC), and every such file is opened, repaired and created like a fixed one.
public final class JSONLSink: Sink {
    public static let descriptor = SinkDescriptor(type: "jsonl", summary: "JSON Lines to a file or stdout (-)", options: [path, mode], aliases: ["file", "json", "ndjson", "jsonlines"]) { reader in
        JSONLSink(path: reader[path], truncate: reader[mode] == .truncate)
    }

    static let path = Option.path("path", "file to write, relative to the config file; - for stdout; %Y %m %d %H (UTC) for daily or hourly files").aliases("file", "filename", "output")
        .required.checked { TimePath.problem($0) }
        .preflighted { path, _ in
            if path == "-" { return nil }
            // A timed path: its files come and go; the folder before the first % must be writable.
            if let percent = path.firstIndex(of: "%") {
                let fixed = path[..<percent]
                return FileAccess.folderProblem(fixed.lastIndex(of: "/").map { String(fixed[..<$0]) }.map { $0.isEmpty ? "/" : $0 } ?? ".")
            }
            return FileAccess.outputProblem(path, replaced: false)
        }
    static let mode = Option.choice("mode", Mode.self, "append to the file, or start it afresh each run").defaulted(.append)
    enum Mode: String, CaseIterable, Sendable { case append, truncate }

    let path: String
    let truncate: Bool
    let timePath: TimePath
    private let output: FDOutput?
    private let clock: @Sendable () -> Timestamp

    /// The file open now. Called from the delivery thread only (Sink contract); the lock keeps
    /// that sound without `@unchecked Sendable`.
    private struct OpenFile {
        var fd: Int32 = -1
        /// The path `fd` is open on (the template expanded at the time it was opened).
        var path = ""
        /// Only regular files are fsynced and repaired: a FIFO, a pipe (`/dev/stdout`) or
        /// `/dev/null` has no tail to repair, and a write to it is its delivery.
        var isRegularFile = false
        /// Paths opened in this run: `truncate` empties each only the first time.
        var opened: Set<String> = []
        var warn: @Sendable (String) -> Void = { _ in }
        /// The lines of a batch, kept between batches (up to a chunk and a line), and the
        /// writer of each line: made once per run, not once per batch. A reserve of a chunk
        /// for every batch was 1 MiB allocated a source in a run of 10,000 one-item sources.
        /// Both are let go after a line of more than about a chunk, which they would keep the
        /// room of for the rest of the run.
        var lines: [UInt8] = []
        var writer = ItemJSONWriter()
    }
    private let file = Locked(OpenFile())

    /// `clock` is the time of writing (tests pass a fixed one).
    public init(path: String, truncate: Bool = false, output: FDOutput = .standardOutput, clock: @escaping @Sendable () -> Timestamp = { Timestamp.now() }) {
        self.path = path
        self.truncate = truncate
        self.timePath = TimePath(path)
        self.output = path == "-" ? output : nil
        self.clock = clock
    }

    public func open(_ context: SinkContext) throws(SinkError) {
        file.withLock { $0.warn = { context.warn($0) } }
    }

    /// Makes `f` the file for `target`, closing another one first.
    private func openFile(_ f: inout OpenFile, _ target: String) throws(SinkError) {
        guard output == nil, f.fd < 0 || f.path != target else { return }
        if f.fd >= 0 { Glibc.close(f.fd); f.fd = -1 }
        if let slash = target.lastIndex(of: "/"), slash != target.startIndex { try AtomicFile.makeDirectories(String(target[..<slash])) }
        var st = stat()
        let exists = stat(target, &st) == 0
        f.isRegularFile = !exists || (st.st_mode & S_IFMT) == S_IFREG
        let empty = truncate && !f.opened.contains(target)
        // Not a regular file: open for writing only (a FIFO or a tty), never truncate or seek.
        let flags = f.isRegularFile ? O_RDWR | O_CREAT | O_CLOEXEC | (empty ? O_TRUNC : 0) : O_WRONLY | O_CLOEXEC
        let fd = Glibc.open(target, flags, 0o644)
        guard fd >= 0 else { throw SinkError("jsonl: cannot open \(target): \(String(cString: strerror(errno)))") }
        f.fd = fd
        f.path = target
        f.opened.insert(target)
        guard f.isRegularFile else { return }
        try repairTail(f)
        lseek(fd, 0, SEEK_END)
    }

    /// What a line of ours starts with (`Item.appendJSON`): a trailing fragment that starts so is
    /// a line of ours cut short by a crash, and is removed. Anything else after the last newline
    /// (a file another program wrote, a hand-edited last line) is kept as it is, and a newline is
    /// added so our first line starts on a line of its own. Either way a warning says what
    /// happened; nothing is changed silently.
    static let linePrefix: [UInt8] = Array(#"{"id":""#.utf8)

    private func repairTail(_ f: OpenFile) throws(SinkError) {
        let fd = f.fd, path = f.path
        let size = lseek(fd, 0, SEEK_END)
        guard size > 0 else { return }
        var byte: UInt8 = 0
        guard pread(fd, &byte, 1, size - 1) == 1 else { throw readError(path) }
        if byte == 0x0A { return }
        // Find the start of the last line, reading backwards in chunks.
        let chunk = 4096
        var buf = [UInt8](repeating: 0, count: chunk)
        var lineStart: off_t = 0
        var pos = size
        search: while pos > 0 {
            let start = max(0, pos - off_t(chunk))
            let n = buf.withUnsafeMutableBytes { pread(fd, $0.baseAddress, Int(pos - start), start) }
            guard n == Int(pos - start) else { throw readError(path) }
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
            f.warn("jsonl: \(path): removed a partial last line (\(fragment) bytes) left by an interrupted run; its items are written again")
        } else {
            let newline: [UInt8] = [0x0A]
            guard pwrite(fd, newline, 1, size) == 1 else { throw SinkError("jsonl: cannot write \(path): \(String(cString: strerror(errno)))") }
            f.warn("jsonl: \(path): the file did not end with a newline and its last line (\(fragment) bytes) is not one of ours; kept it and started on a new line")
        }
    }

    private func readError(_ path: String) -> SinkError {
        SinkError("jsonl: cannot read \(path) to check its last line: \(String(cString: strerror(errno)))")
    }

    /// Writes the whole batch to the file of the time of writing (one file, however long the
    /// batch takes), then fsyncs it. Lines are written in chunks of about `FDOutput.chunkSize`
    /// bytes, so a large batch never needs one buffer the size of all its output; chunks always
    /// end at a line end.
    ///
    /// A regular file gets the batch at its end, and a batch that cannot be written whole (a
    /// full disk, a failed fsync) is cut off again: the file is truncated back to its size
    /// before the batch, so it keeps no line, and no part of one, of a batch the engine does
    /// not record. The next run then writes those items once.
    public func write(_ items: [Item]) throws(SinkError) {
        let target = timePath.path(at: clock())
        try file.withLock { (f: inout OpenFile) throws(SinkError) in
            if output == nil { try openFile(&f, target) }
            let start: off_t = output == nil && f.isRegularFile ? lseek(f.fd, 0, SEEK_END) : -1
            // The kept buffer, taken out for the batch (so that `flush`'s copy of `f` does not
            // share it) and put back, emptied, whatever happens.
            var buf: [UInt8] = []
            swap(&buf, &f.lines)
            defer {
                if buf.capacity > 2 * FDOutput.chunkSize {
                    buf = []
                    f.writer = ItemJSONWriter()
                } else {
                    buf.removeAll(keepingCapacity: true)
                }
                swap(&buf, &f.lines)
            }
            let writer = f.writer
            do throws(SinkError) {
                // Each item read in place (`ItemJSONWriter`): an array subscript handed
                // `appendJSON` a copy, a retain and a release of every field.
                try items.withUnsafeBufferPointer { (p) throws(SinkError) in
                    guard let base = p.baseAddress else { return }
                    for i in 0..<p.count {
                        writer.append(base + i, into: &buf)
                        buf.append(0x0A)
                        if buf.count >= FDOutput.chunkSize {
                            try flush(buf, f)
                            buf.removeAll(keepingCapacity: true)
                        }
                    }
                }
                if !buf.isEmpty { try flush(buf, f) }
                if output == nil && f.isRegularFile {
                    guard fsync(f.fd) == 0 else { throw SinkError("jsonl: cannot fsync \(f.path): \(String(cString: strerror(errno)))") }
                }
            } catch {
                guard start >= 0 else { throw error }
                throw cutBack(f, to: start, after: error)
            }
        }
    }

    /// Truncates the file back to `start` (where the failed batch began) and says so in the
    /// error; or says the file may keep part of the batch when even that fails.
    private func cutBack(_ f: OpenFile, to start: off_t, after error: SinkError) -> SinkError {
        guard ftruncate(f.fd, start) == 0 else {
            return SinkError(error.message + "; and the file could not be cut back to where the batch started (byte \(start)): \(String(cString: strerror(errno))), so it may hold part of the batch, which the next run writes again")
        }
        lseek(f.fd, start, SEEK_SET)
        _ = fsync(f.fd)
        return SinkError(error.message + "; the file was cut back to its \(start) bytes from before the batch, so it holds none of it")
    }

    private func flush(_ buf: [UInt8], _ f: OpenFile) throws(SinkError) {
        if let output {
            try output.write(buf)
            return
        }
        let ok = buf.withUnsafeBytes { raw -> Bool in
            var off = 0
            while off < raw.count {
                let n = Glibc.write(f.fd, raw.baseAddress! + off, raw.count - off)
                if n < 0 { if errno == EINTR { continue }; return false }
                off += n
            }
            return true
        }
        guard ok else { throw SinkError("jsonl: cannot write \(f.path): \(String(cString: strerror(errno)))") }
    }

    /// A fixed path is opened even when nothing came, so `truncate` empties it and `append`
    /// creates it; a rotating path creates no file for a run that wrote nothing.
    public func close() throws(SinkError) {
        try file.withLock { (f: inout OpenFile) throws(SinkError) in
            if output == nil && f.fd < 0 && !timePath.rotates { try openFile(&f, path) }
            if f.fd >= 0 { Glibc.close(f.fd); f.fd = -1 }
        }
    }
}
