#if canImport(Glibc)
import Glibc
#endif
import TributaryCore

/// `jsonl`: items as JSON Lines to a file (append or truncate) or `-` (stdout). Each batch is
/// written and fsynced before `write` returns; a line cut short by an earlier crash is removed
/// when the file is opened, so the file only ever holds whole lines.
public final class JSONLSink: Sink, @unchecked Sendable {
    // Called by the engine from one task at a time (Sink contract): `fd` needs no lock.
    public static let descriptor = SinkDescriptor(type: "jsonl", summary: "JSON Lines to a file or stdout (-)", options: [
        OptionSpec("path", .string, required: true, "file to write, relative to the config file; - for stdout"),
        OptionSpec("mode", .enumeration(["append", "truncate"]), default: "append", "append to the file, or start it afresh each run"),
    ]) { reader in
        JSONLSink(path: reader.resolvePath(reader.string("path") ?? "-"), truncate: reader.string("mode") == "truncate")
    }

    let path: String
    let truncate: Bool
    private var fd: Int32 = -1
    private let output: FDOutput?

    public init(path: String, truncate: Bool = false, output: FDOutput = .standardOutput) {
        self.path = path
        self.truncate = truncate
        self.output = path == "-" ? output : nil
    }

    private func open() throws(SinkError) {
        guard fd < 0, output == nil else { return }
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex { try AtomicFile.makeDirectories(String(path[..<slash])) }
        let flags = O_RDWR | O_CREAT | O_CLOEXEC | (truncate ? O_TRUNC : 0)
        let f = Glibc.open(path, flags, 0o644)
        guard f >= 0 else { throw SinkError("jsonl: cannot open \(path): \(String(cString: strerror(errno)))") }
        fd = f
        try dropPartialLine()
        lseek(fd, 0, SEEK_END)
    }

    /// Cuts the file back to its last newline (a previous run killed mid-write).
    private func dropPartialLine() throws(SinkError) {
        let size = lseek(fd, 0, SEEK_END)
        guard size > 0 else { return }
        var pos = size
        var byte: UInt8 = 0
        let chunk = 4096
        var buf = [UInt8](repeating: 0, count: chunk)
        guard pread(fd, &byte, 1, size - 1) == 1 else { throw readError() }
        if byte == 0x0A { return }
        while pos > 0 {
            let start = max(0, pos - off_t(chunk))
            let n = buf.withUnsafeMutableBytes { pread(fd, $0.baseAddress, Int(pos - start), start) }
            guard n == Int(pos - start) else { throw readError() }
            if let i = buf[0..<n].lastIndex(of: 0x0A) {
                _ = ftruncate(fd, start + off_t(i) + 1)
                return
            }
            pos = start
        }
        _ = ftruncate(fd, 0)  // no newline at all: the whole file is one cut-off line
    }

    private func readError() -> SinkError {
        SinkError("jsonl: cannot read \(path) to check its last line: \(String(cString: strerror(errno)))")
    }

    /// Lines are written in chunks of about this many bytes, so a large batch never needs one
    /// buffer the size of all its output; chunks always end at a line end.
    static let chunkSize = 1 << 20

    public func write(_ items: [Item]) throws(SinkError) {
        if output == nil { try open() }
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
        if output == nil {
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
        if output == nil && fd < 0 { try open() }  // truncate mode empties the file even when nothing is new
        if fd >= 0 { Glibc.close(fd); fd = -1 }
    }
}
