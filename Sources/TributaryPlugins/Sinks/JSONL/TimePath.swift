import TributaryPluginKit
import TributaryCore

/// A `jsonl` path that may hold `%Y`, `%m`, `%d`, `%H` (the UTC year, month, day and hour of
/// the time of writing) for daily or hourly files, and `%%` for a literal `%`. Any other `%`
/// is a config error, so a mistyped field never becomes part of a file name.
struct TimePath: Sendable, Equatable {
    let template: String
    /// True when the template holds a time field: the file may change from batch to batch.
    let rotates: Bool

    init(_ template: String) {
        self.template = template
        rotates = ["%Y", "%m", "%d", "%H"].contains { template.contains($0) }
    }

    /// What is wrong with a template (checked when the config is loaded), or nil.
    static func problem(_ template: String) -> String? {
        var chars = template.makeIterator()
        while let c = chars.next() {
            guard c == "%" else { continue }
            guard let field = chars.next() else { return "ends in a lone %; expected %Y, %m, %d, %H (UTC time of writing) or %% for a literal %" }
            if !"YmdH%".contains(field) { return "%\(field) is not a time field; expected %Y, %m, %d, %H (UTC time of writing) or %% for a literal %" }
        }
        return nil
    }

    /// The path for a batch written at `time` (UTC).
    func path(at time: Timestamp) -> String {
        guard template.utf8.contains(UInt8(ascii: "%")) else { return template }
        let date = time.rfc3339  // 2026-11-29T10:00:00Z: the fields at fixed offsets
        let utf8 = Array(date.utf8)
        func field(_ range: Range<Int>) -> String { String(decoding: utf8[range], as: UTF8.self) }
        var out = ""
        var chars = template.makeIterator()
        while let c = chars.next() {
            guard c == "%", let f = chars.next() else { out.append(c); continue }
            switch f {
            case "Y": out += field(0..<4)
            case "m": out += field(5..<7)
            case "d": out += field(8..<10)
            case "H": out += field(11..<13)
            default: out.append(f)  // %% (the config check refuses the rest)
            }
        }
        return out
    }
}
