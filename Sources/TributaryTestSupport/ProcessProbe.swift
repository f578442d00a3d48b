import Foundation

/// Checks that the processes a test started are gone once the run under test has ended.
///
/// Test programs write their own pid, one a line, to a file; `survivors` reads it and waits a
/// little for each pid to disappear from /proc (exited and reaped). A pid counts only while its
/// command line contains `marker` (the test's folder), so a pid reused by an unrelated process
/// is never reported, nor killed.
public enum ProcessProbe {
    /// The pids listed in `path`, one a line.
    public static func pids(inFile path: String) -> [Int32] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(whereSeparator: \.isNewline).compactMap { Int32($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// `/proc/<pid>/stat`'s state letter (R, S, Z...), nil when the process no longer exists.
    public static func state(_ pid: Int32) -> Character? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(after: close)...].first { $0 != " " }
    }

    /// Whether `pid` exists and was started by the test (its command line has `marker`). A
    /// zombie has an empty command line and always counts: it exited but nobody reaped it.
    static func isOurs(_ pid: Int32, marker: String) -> Bool {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
        if data.isEmpty { return state(pid) == "Z" }
        return String(decoding: data.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self).contains(marker)
    }

    /// The processes listed in `pidFile` still alive or unreaped (a zombie) after `within`
    /// seconds, described for a failure message. Survivors are killed (SIGKILL) so one failing
    /// test does not leave work for the next.
    public static func survivors(pidFile: String, marker: String, within: Double = 10) -> [String] {
        let pids = pids(inFile: pidFile)
        let deadline = Date().addingTimeInterval(within)
        var left = pids.filter { isOurs($0, marker: marker) }
        while !left.isEmpty && Date() < deadline {
            usleep(20_000)
            left = left.filter { isOurs($0, marker: marker) }
        }
        return left.map { pid in
            let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? "?"
            kill(pid, SIGKILL)
            return "pid \(pid): \(stat.prefix(120))"
        }
    }
}
