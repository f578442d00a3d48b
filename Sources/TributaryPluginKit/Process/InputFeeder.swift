import TributaryCore
#if canImport(Glibc)
import Glibc
#endif

/// Hands a program its input on stdin as fast as the pipe takes it, from the run's poll loop:
/// the write end is non-blocking, so a program that does not read cannot hold the run (the
/// deadline still comes), and one that closes its stdin or exits ends the feeding with EPIPE
/// instead of killing Tributary with SIGPIPE (see `PipeSignal`).
///
/// When every byte is written the write end is closed, so the program reads end of file.
struct InputFeeder {
    private(set) var fd: Int32
    private let bytes: [UInt8]
    private var offset = 0
    /// The program closed its stdin (every process holding the read end did) before taking it all.
    private(set) var refused = false

    init(fd: Int32, bytes: [UInt8]) {
        self.fd = fd
        self.bytes = bytes
    }

    var isOpen: Bool { fd >= 0 }
    /// Bytes the program was never handed (they did not fit into the pipe before it closed or exited).
    var unwritten: Int { bytes.count - offset }

    /// Writes until the pipe is full (EAGAIN), everything is written (then closes: end of file),
    /// or the reader is gone (EPIPE: closes). At most 1 MiB per call, so the output pipes and the
    /// deadline get their turn.
    mutating func pump() {
        guard isOpen else { return }
        var budget = 1 << 20
        while offset < bytes.count && budget > 0 {
            let n = bytes.withUnsafeBytes { raw in
                write(fd, raw.baseAddress! + offset, min(raw.count - offset, 1 << 16))
            }
            if n > 0 {
                offset += n
                budget -= n
                continue
            }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return }
            if n < 0 && errno == EPIPE {
                refused = true
                PipeSignal.discardPending()
            }
            close()
            return
        }
        if offset == bytes.count { close() }
    }

    /// Stops feeding (the program exited, or the run ended): the rest is never written.
    mutating func close() {
        guard fd >= 0 else { return }
        Glibc.close(fd)
        fd = -1
    }
}
