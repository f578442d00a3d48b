#if canImport(Glibc)
import Glibc
#endif
import TributaryCore

/// `stdout`: one readable line per item (kind, local time, title, url), or JSON Lines.
public final class StdoutSink: Sink, @unchecked Sendable {
    // Called by the engine from one task at a time (Sink contract); no other state.
    public static let descriptor = SinkDescriptor(type: "stdout", summary: "items on standard output, readable text or JSON Lines", options: [
        OptionSpec("format", .enumeration(["text", "jsonl"]), default: "text", "text: one readable line per item; jsonl: SPEC.md section 4"),
    ]) { reader in
        StdoutSink(format: reader.string("format") == "jsonl" ? .jsonl : .text, output: .standardOutput)
    }

    public enum Format: Sendable { case text, jsonl }
    let format: Format
    let output: FDOutput

    public init(format: Format, output: FDOutput) {
        self.format = format
        self.output = output
    }

    public func write(_ items: [Item]) throws(SinkError) {
        var buf: [UInt8] = []
        buf.reserveCapacity(items.count * 160)
        for item in items {
            switch format {
            case .jsonl: item.appendJSON(into: &buf)
            case .text: buf.append(contentsOf: Self.line(item).utf8)
            }
            buf.append(0x0A)
        }
        try output.write(buf)
    }

    public func close() throws(SinkError) {}

    /// `video    2026-11-29 11:00  Title  https://...` with the time in the local zone.
    public static func line(_ item: Item) -> String {
        let kind = item.kind.count >= 8 ? item.kind : item.kind + String(repeating: " ", count: 8 - item.kind.count)
        var s = kind + " " + localTime(item.published ?? item.fetched) + "  " + oneLine(item.title)
        if let url = item.url { s += "  " + oneLine(url) }
        return s
    }

    /// Line breaks and tabs become spaces and other control characters are dropped, so one item
    /// is always one line and nothing reaches the terminal as a control sequence.
    static func oneLine(_ s: String) -> String {
        var out = String.UnicodeScalarView()
        var lastSpace = false
        for u in s.unicodeScalars {
            if u == "\n" || u == "\r" || u == "\t" {
                if !lastSpace { out.append(" ") }
                lastSpace = true
            } else if u.value < 0x20 || (u.value >= 0x7F && u.value < 0xA0) {
                continue
            } else {
                out.append(u)
                lastSpace = u == " "
            }
        }
        return String(out)
    }

    static func localTime(_ t: Timestamp) -> String {
        var secs = time_t(t.seconds)
        var tmv = tm()
        localtime_r(&secs, &tmv)
        func p(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(tmv.tm_year + 1900)-\(p(tmv.tm_mon + 1))-\(p(tmv.tm_mday)) \(p(tmv.tm_hour)):\(p(tmv.tm_min))"
    }
}
