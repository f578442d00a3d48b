import TributaryBase
import TributaryJSON

// Durations and sizes as config values: a JSON number, or a string with units.
extension Durations {
    public static func parse(_ value: JSONValue) -> Double? {
        switch value {
        case .number(let n): return checked(n.double)
        case .string(let s): return parse(s)
        default: return nil
        }
    }
}

extension ByteSizes {
    public static func parse(_ value: JSONValue) -> Int? {
        switch value {
        case .number(let n): return n.int64.flatMap { $0 >= 0 && $0 <= Int64(max) ? Int($0) : nil }
        case .string(let s): return parse(s)
        default: return nil
        }
    }
}
