import TributaryBase
import TributaryJSON

/// A source's `interval` as written: a duration, or `"auto"` (the interval follows how often
/// the source publishes and what its server says: Docs/scheduling.md).
public enum IntervalValue: Sendable, Equatable {
    case fixed(Double)
    case auto

    /// The fixed duration, nil for `auto`.
    public var seconds: Double? {
        if case .fixed(let s) = self { return s }
        return nil
    }
}

extension Option where Value == IntervalValue {
    /// A duration of at least `minimum` seconds, or the word `"auto"`.
    public static func interval(_ name: String, atLeast minimum: Double, _ help: String) -> Option {
        Option(spec: OptionSpec(name, .durationOrAuto, help),
               read: { v, _ in v.stringValue == "auto" ? .auto : Durations.parse(v).map(IntervalValue.fixed) },
               show: { v in v.seconds.map(Durations.format) ?? "auto" }, placeholder: { .fixed(900) })
            .checked { v in
                guard let s = v.seconds, s < minimum else { return nil }
                return "must be at least \(Durations.format(minimum)) (or \"auto\"), found \(Durations.format(s))"
            }
            .bounded("at least \(Durations.format(minimum))")
    }
}
