/// The state counter `processed` (what processors counted with `ProcessorContext.count`, such
/// as `no content`), whose label holds the source and the count's name: read back by the
/// metrics and `status`.
public enum ProcessedCount {
    public static func label(source: String, what: String) -> String { source + "\n" + what }

    /// The source and the count's name of a `processed` counter's label.
    public static func parse(_ label: String) -> (source: String, what: String)? {
        guard let nl = label.firstIndex(of: "\n") else { return nil }
        return (String(label[..<nl]), String(label[label.index(after: nl)...]))
    }

    /// The `processed` counters by source, then by what was counted.
    public static func bySource(_ counters: [StateCounter]) -> [String: [String: Int]] {
        var out: [String: [String: Int]] = [:]
        for c in counters where c.name == .processed {
            guard let (source, what) = parse(c.label) else { continue }
            out[source, default: [:]][what, default: 0] += c.value
        }
        return out
    }
}
