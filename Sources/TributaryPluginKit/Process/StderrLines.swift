import TributaryCore
#if canImport(Glibc)
import Glibc
#endif

/// Splits a program's stderr into log lines in bounded memory and time, whatever it prints.
///
/// - A line longer than `lineCap` bytes keeps its first `lineCap` bytes (cut on a UTF-8
///   character boundary) and gets a marker with its real length; the rest is counted, not kept.
/// - At most `lineLimit` lines of a run are handed to the log; later ones are counted
///   (`dropped`, `droppedBytes`) so the caller can say so.
/// - Blank lines are skipped; a trailing `\r` is removed.
/// - `last` is the last line (cut the same way), logged or not, for the failure message.
///
/// Each byte is looked at once (memchr), so 100 MiB without a newline is read at pipe speed
/// in `lineCap` bytes of memory.
public struct StderrLines: Sendable {
    /// Longest line logged as is (4 KiB).
    static let defaultLineCap = 4096
    /// Lines of one run handed to the log.
    static let defaultLineLimit = 1000

    let lineCap: Int
    public let lineLimit: Int
    /// The current line's first `lineCap` bytes.
    private var line: [UInt8] = []
    /// The current line's length so far, cut part included.
    private var length = 0
    public private(set) var logged = 0
    public private(set) var dropped = 0
    public private(set) var droppedBytes = 0
    public private(set) var last: String?

    init(lineCap: Int = StderrLines.defaultLineCap, lineLimit: Int = StderrLines.defaultLineLimit) {
        self.lineCap = max(1, lineCap)
        self.lineLimit = max(0, lineLimit)
        line.reserveCapacity(self.lineCap)
    }

    /// Takes the next bytes read; calls `emit` with each complete line to log.
    mutating func feed(_ bytes: UnsafeRawBufferPointer, emit: (String) -> Void) {
        guard let base = bytes.baseAddress else { return }
        var start = 0
        while start < bytes.count {
            guard let nl = memchr(base + start, 0x0A, bytes.count - start) else {
                take(base + start, bytes.count - start)
                return
            }
            let end = UnsafeRawPointer(nl) - base
            take(base + start, end - start)
            endLine(emit)
            start = end + 1
        }
    }

    mutating func feed(_ bytes: [UInt8], emit: (String) -> Void) {
        bytes.withUnsafeBytes { feed($0, emit: emit) }
    }

    /// End of stream: a last line without a newline is a line too.
    mutating func finish(emit: (String) -> Void) {
        if length > 0 { endLine(emit) }
    }

    private mutating func take(_ p: UnsafeRawPointer, _ n: Int) {
        let room = lineCap - line.count
        if room > 0 { line.append(contentsOf: UnsafeRawBufferPointer(start: p, count: min(room, n))) }
        length += n
    }

    private mutating func endLine(_ emit: (String) -> Void) {
        defer {
            line.removeAll(keepingCapacity: true)
            length = 0
        }
        var kept = line[...]
        var total = length
        if total == kept.count, kept.last == 0x0D {
            kept = kept.dropLast()
            total -= 1
        }
        guard total > 0 else { return }
        let text: String
        if total > kept.count {
            text = String(decoding: Self.wholeCharacters(kept), as: UTF8.self) + "... [line of \(total) bytes cut to \(lineCap)]"
        } else {
            text = String(decoding: kept, as: UTF8.self)
        }
        last = text
        if logged < lineLimit {
            logged += 1
            emit(text)
        } else {
            dropped += 1
            droppedBytes += total
        }
    }

    /// `bytes` without a UTF-8 sequence cut short at its end.
    static func wholeCharacters(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var i = bytes.endIndex
        // Step back over continuation bytes (10xxxxxx) to the lead byte of the last character.
        while i > bytes.startIndex && bytes.endIndex - i < 4 && bytes[i - 1] & 0xC0 == 0x80 { i -= 1 }
        guard i > bytes.startIndex else { return bytes }
        let lead = bytes[i - 1]
        let need = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
        return bytes.endIndex - (i - 1) < need ? bytes[..<(i - 1)] : bytes
    }
}
