import Dispatch
import TributaryCore
#if canImport(Glibc)
import Glibc
#endif

/// The one-line live progress display on a terminal's stderr. Everything else written to that
/// terminal goes around it: log lines through `log` (the line is cleared, the text written, the
/// line redrawn under one lock), and writes to stdout on the same terminal between `hide` and
/// `show` (it is stdout's overlay, `FDOutput.setOverlay`), so an item is never written after
/// the progress text on one line.
final class ProgressLine: TerminalOverlay {
    let enabled: Bool
    let output: FDOutput
    /// `shown`: the line is on the terminal now; `hidden`: a sink is writing, keep it off.
    private let state = Locked<(shown: Bool, hidden: Bool, last: String)>((false, false, ""))
    private let start = DispatchTime.now().uptimeNanoseconds
    static let clearLine = "\r\u{1B}[K"

    init(enabled: Bool, output: FDOutput) {
        self.enabled = enabled
        self.output = output
    }

    func update(done: Int, total: Int, items: Int, failures: Int) {
        guard enabled else { return }
        let secs = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let line = "[\(done)/\(total) sources] \(items) items, \(failures) failed, \(Summary.seconds(secs))"
        state.withLock { s in
            s.last = line
            guard !s.hidden else { return }
            s.shown = true
            output.log(Self.clearLine + line)
        }
    }

    /// Writes a log line above the progress line.
    func log(_ text: String) {
        state.withLock { s in
            if s.shown {
                output.log(Self.clearLine + text + s.last)
            } else {
                output.log(text)
            }
        }
    }

    /// Takes the line off the terminal until `show`: something else is about to write there.
    func hide() {
        guard enabled else { return }
        state.withLock { s in
            s.hidden = true
            if s.shown { output.log(Self.clearLine) }
            s.shown = false
        }
    }

    /// Puts the line back after `hide`.
    func show() {
        guard enabled else { return }
        state.withLock { s in
            s.hidden = false
            guard !s.last.isEmpty else { return }
            s.shown = true
            output.log(Self.clearLine + s.last)
        }
    }

    func clear() {
        state.withLock { s in
            if s.shown { output.log(Self.clearLine) }
            s.shown = false
            s.hidden = true
        }
    }

    /// True when file descriptors `a` and `b` are the same terminal (stdout and stderr on one tty).
    static func sameTerminal(_ a: Int32, _ b: Int32) -> Bool {
        guard isatty(a) == 1, isatty(b) == 1 else { return false }
        var sa = stat(), sb = stat()
        guard fstat(a, &sa) == 0, fstat(b, &sb) == 0 else { return false }
        return sa.st_rdev == sb.st_rdev
    }
}
