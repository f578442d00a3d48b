#if canImport(Glibc)
import Glibc
#endif
import TributaryCore

/// `stdout`: one readable line per item (kind, local time, title, url), or JSON Lines.
public final class StdoutSink: Sink, @unchecked Sendable {
    // Called by the engine from one task at a time (Sink contract); no other state.
    public static let descriptor = SinkDescriptor(type: "stdout", summary: "items on standard output, readable text or JSON Lines", options: [format]) { reader in
        StdoutSink(format: reader[format], output: .standardOutput)
    }

    static let format = Option.choice("format", Format.self, "text: one readable line per item; jsonl: Docs/contract.md#items").defaulted(.text)

    public enum Format: String, CaseIterable, Sendable { case text, jsonl }
    let format: Format
    let output: FDOutput

    public init(format: Format, output: FDOutput) {
        self.format = format
        self.output = output
    }

    public func write(_ items: [Item]) throws(SinkError) {
        var buf: [UInt8] = []
        buf.reserveCapacity(JSONLSink.chunkSize + 4096)
        for item in items {
            switch format {
            case .jsonl: item.appendJSON(into: &buf)
            case .text: buf.append(contentsOf: Self.line(item).utf8)
            }
            buf.append(0x0A)
            if buf.count >= JSONLSink.chunkSize {
                try output.write(buf)
                buf.removeAll(keepingCapacity: true)
            }
        }
        if !buf.isEmpty { try output.write(buf) }
    }

    public func close() throws(SinkError) {}

    /// `video    2026-11-29 11:00  Title  https://...` with the time in the local zone;
    /// weather reads as a person reads it (see `weatherLine`).
    public static func line(_ item: Item) -> String {
        if item.kind == "weather" { return weatherLine(item) }
        var s = paddedKind(item.kind) + " " + localTime(item.published ?? item.fetched) + "  " + oneLine(item.title)
        if let url = item.url { s += "  " + oneLine(url) }
        return s
    }

    static func paddedKind(_ kind: String) -> String {
        kind.count >= 8 ? kind : kind + String(repeating: " ", count: 8 - kind.count)
    }

    /// `weather  2026-11-29 10:00  Belo Horizonte: 19.8 °C, light rain, humidity 88%, wind 3.6 m/s NW,
    /// sunrise 05:13, sunset 18:27`: the title (place, temperature, condition) and, from `data`, only
    /// the parts present. Times are the place's wall clock when `data.timezone` (UTC offset in
    /// seconds) is known, else this machine's; decimals follow `data.lang` (a comma for pt_br, de...).
    static func weatherLine(_ item: Item) -> String {
        let data = item.data
        let offset = data["timezone"]?.numberValue?.int64.map { Int($0) }
        func time(_ t: Timestamp) -> String { offset.map { WeatherText.dateTime(t, offset: $0) } ?? localTime(t) }
        func clock(_ t: Timestamp) -> String { String(time(t).suffix(5)) }
        let separator = WeatherText.decimalSeparator(language: data["lang"]?.stringValue)
        var s = paddedKind(item.kind) + " " + time(item.published ?? item.fetched) + "  " + oneLine(item.title)
        if let humidity = data["humidity"]?.numberValue?.double {
            s += ", humidity " + WeatherText.number(humidity, decimals: 0) + "%"
        }
        if let speed = data["wind_speed"]?.numberValue?.double {
            let units = data["units"]?.stringValue.flatMap(WeatherUnits.init(rawValue:)) ?? .metric
            s += ", wind " + WeatherText.number(speed, separator: separator) + " " + units.windSpeedSymbol
            if let deg = data["wind_deg"]?.numberValue?.double { s += " " + WeatherText.compass(deg) }
        }
        for key in ["sunrise", "sunset"] {
            // RFC 3339 from the weather sources; unix seconds from a `json` source mapping the raw API.
            let t: Timestamp?
            switch data[key] {
            case .string(let text)?: t = Timestamp.parseRFC3339(text)
            case .number(let n)? where n.double > 0: t = Timestamp(checked: n.double)
            default: t = nil
            }
            if let t { s += ", \(key) " + clock(t) }
        }
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
