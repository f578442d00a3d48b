/// The text log's lines without their leading RFC 3339 time (`2026-12-01T16:45:00.123+01:00 `):
/// what a log line says, for tests that look for it. Lines without a time (the summary table)
/// are kept as they are.
public enum LogLines {
    public static func text(_ stderr: String) -> [String] {
        stderr.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            guard let space = line.firstIndex(of: " "), isTime(line[..<space]) else { return String(line) }
            return String(line[line.index(after: space)...])
        }
    }

    /// `YYYY-MM-DDTHH:MM:SS.mmm` followed by `Z` or `±HH:MM`.
    public static func isTime(_ s: Substring) -> Bool {
        let b = Array(s.utf8)
        guard b.count == 24 || b.count == 29 else { return false }
        func digits(_ r: Range<Int>) -> Bool { r.allSatisfy { b[$0] >= 0x30 && b[$0] <= 0x39 } }
        guard digits(0..<4), b[4] == 0x2D, digits(5..<7), b[7] == 0x2D, digits(8..<10), b[10] == 0x54,
              digits(11..<13), b[13] == 0x3A, digits(14..<16), b[16] == 0x3A, digits(17..<19), b[19] == 0x2E, digits(20..<23) else { return false }
        if b.count == 24 { return b[23] == 0x5A }
        return (b[23] == 0x2B || b[23] == 0x2D) && digits(24..<26) && b[26] == 0x3A && digits(27..<29)
    }
}
