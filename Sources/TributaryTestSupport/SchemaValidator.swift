import Foundation
import TributaryCore

/// A small JSON Schema validator for the keywords the project's schemas use (type, required,
/// properties, additionalProperties, patternProperties, propertyNames, pattern, minLength,
/// minimum, maximum, items, enum, const). Enough to check every emitted item against
/// item.schema.json in tests; it reports every violation with its path.
public struct SchemaValidator {
    public let schema: JSONValue

    public init(schema: JSONValue) { self.schema = schema }

    public init(file: String) throws {
        guard let data = FileManager.default.contents(atPath: file) else { throw RunnerError(message: "cannot read schema \(file)") }
        self.schema = try JSONParser.parse(Array(data))
    }

    /// The contract's item schema, copied into Tests/Fixtures.
    public static func itemSchema() throws -> SchemaValidator {
        try SchemaValidator(file: BinaryRunner.packageRoot + "/Docs/item.schema.json")
    }

    public func validate(_ value: JSONValue) -> [String] {
        var errors: [String] = []
        check(value, schema, "$", &errors)
        return errors
    }

    /// Validates one JSON Lines record; a parse error is reported too.
    public func validate(line: String) -> [String] {
        do { return validate(try JSONParser.parse(line)) } catch { return ["not JSON: \(error)"] }
    }

    private func check(_ v: JSONValue, _ s: JSONValue, _ path: String, _ errors: inout [String]) {
        guard case .object(let sch) = s else { return }
        if let t = sch["type"] {
            let allowed: [String] = t.stringValue.map { [$0] } ?? (t.arrayValue ?? []).compactMap(\.stringValue)
            if !allowed.contains(where: { matches(v, $0) }) { errors.append("\(path): expected \(allowed.joined(separator: "|")), found \(v.typeName)"); return }
        }
        if let e = sch["enum"]?.arrayValue, !e.contains(v) { errors.append("\(path): not one of the allowed values") }
        if let c = sch["const"], c != v { errors.append("\(path): expected the constant value") }
        switch v {
        case .string(let str):
            if let min = sch["minLength"]?.numberValue?.int64, str.count < min { errors.append("\(path): shorter than \(min)") }
            if let p = sch["pattern"]?.stringValue, !Self.matches(str, p) { errors.append("\(path): \"\(str)\" does not match \(p)") }
        case .number(let n):
            if let min = sch["minimum"]?.numberValue?.double, n.double < min { errors.append("\(path): below \(min)") }
            if let max = sch["maximum"]?.numberValue?.double, n.double > max { errors.append("\(path): above \(max)") }
        case .array(let items):
            if let itemSchema = sch["items"] { for (i, item) in items.enumerated() { check(item, itemSchema, "\(path)[\(i)]", &errors) } }
        case .object(let obj):
            for r in sch["required"]?.arrayValue ?? [] { if let k = r.stringValue, obj[k] == nil { errors.append("\(path): missing required \"\(k)\"") } }
            let props = sch["properties"]?.objectValue
            let patterns = sch["patternProperties"]?.objectValue
            for e in obj.entries {
                if let pn = sch["propertyNames"], case .object(let pns) = pn, let p = pns["pattern"]?.stringValue, !Self.matches(e.key, p) {
                    errors.append("\(path): property name \"\(e.key)\" does not match \(p)")
                }
                var known = false
                if let ps = props?[e.key] { known = true; check(e.value, ps, "\(path).\(e.key)", &errors) }
                for pp in patterns?.entries ?? [] where Self.matches(e.key, pp.key) { known = true; check(e.value, pp.value, "\(path).\(e.key)", &errors) }
                if !known, sch["additionalProperties"] == .bool(false) { errors.append("\(path): unexpected property \"\(e.key)\"") }
                if !known, case .object? = sch["additionalProperties"] { check(e.value, sch["additionalProperties"]!, "\(path).\(e.key)", &errors) }
            }
        default: break
        }
    }

    private func matches(_ v: JSONValue, _ type: String) -> Bool {
        switch (type, v) {
        case ("string", .string), ("object", .object), ("array", .array), ("boolean", .bool), ("null", .null), ("number", .number): return true
        case ("integer", .number(let n)): return n.int64 != nil
        default: return false
        }
    }

    static func matches(_ s: String, _ pattern: String) -> Bool {
        guard let re = try? NSRegularExpression(pattern: pattern) else { return false }
        return re.firstMatch(in: s, range: NSRange(s.startIndex..., in: s)) != nil
    }
}
