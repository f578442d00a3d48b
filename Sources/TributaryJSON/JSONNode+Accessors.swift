import TributaryBase

/// The typed accessors. Each one switches on `kind` and reads the scalar only where it applies,
/// so tape and tree nodes share one set of rules and one set of error messages.
extension JSONNode {
    // MARK: strings

    /// A string; with `allowNumber`, a number is accepted and written as its literal text
    /// (APIs that send identifiers as numbers).
    public func string(allowNumber: Bool = false) throws(JSONAccessError) -> String {
        guard let s = try optionalString(allowNumber: allowNumber) else { throw wrong("string") }
        return s
    }

    /// nil when absent or null; an error only when present with the wrong type.
    public func optionalString(allowNumber: Bool = false) throws(JSONAccessError) -> String? {
        switch kind {
        case nil, .null?: return nil
        case .string?: return stringValue()
        case .number? where allowNumber: return numberText()
        case .bool? where allowNumber: return boolValue() ? "true" : "false"
        default: throw wrong(allowNumber ? "string or number" : "string")
        }
    }

    // MARK: numbers

    /// A double; with `allowString`, a string holding a number is accepted.
    public func double(allowString: Bool = false) throws(JSONAccessError) -> Double {
        guard let d = try optionalDouble(allowString: allowString) else { throw wrong("number") }
        return d
    }

    public func optionalDouble(allowString: Bool = false) throws(JSONAccessError) -> Double? {
        switch kind {
        case nil, .null?: return nil
        case .number?: return numberDouble()
        case .string? where allowString:
            let t = stringValue().trimmingSpaces
            if t.isEmpty { return nil }
            guard let d = Double(t), d.isFinite else { throw wrong("number (or a string holding one)") }
            return d
        default: throw wrong(allowString ? "number or numeric string" : "number")
        }
    }

    /// A number field both as a value and as the JSON to keep in an item's `data`: a JSON number
    /// exactly as the API wrote it, a numeric string as the number it holds; nil when absent.
    public func optionalNumber(allowString: Bool = true) throws(JSONAccessError) -> (value: Double, json: JSONValue)? {
        guard let d = try optionalDouble(allowString: allowString) else { return nil }
        if kind == .number { return (d, .number(JSONNumber(text: numberText()))) }
        return (d, .double(d))
    }

    public func int(allowString: Bool = false) throws(JSONAccessError) -> Int64 {
        guard let i = try optionalInt(allowString: allowString) else { throw wrong("integer") }
        return i
    }

    public func optionalInt(allowString: Bool = false) throws(JSONAccessError) -> Int64? {
        switch kind {
        case nil, .null?: return nil
        case .number?:
            if let i = numberInt64() { return i }
            let d = numberDouble()
            if d.isFinite, d == d.rounded(), abs(d) < 9.0e18 { return Int64(d) }
            throw wrong("integer")
        case .string? where allowString:
            let t = stringValue().trimmingSpaces
            if t.isEmpty { return nil }
            guard let i = Int64(t) else { throw wrong("integer (or a string holding one)") }
            return i
        default: throw wrong(allowString ? "integer or numeric string" : "integer")
        }
    }

    // MARK: bools

    /// A bool; with `lenient`, also `1`/`0` and `"true"`/`"false"`/`"1"`/`"0"`.
    public func bool(lenient: Bool = false) throws(JSONAccessError) -> Bool {
        guard let b = try optionalBool(lenient: lenient) else { throw wrong("bool") }
        return b
    }

    public func optionalBool(lenient: Bool = false) throws(JSONAccessError) -> Bool? {
        switch kind {
        case nil, .null?: return nil
        case .bool?: return boolValue()
        case .number? where lenient:
            if numberIs("1") { return true }
            if numberIs("0") { return false }
        case .string? where lenient:
            switch stringValue().lowercased() {
            case "true", "1", "yes": return true
            case "false", "0", "no": return false
            default: break
            }
        default: break
        }
        throw wrong(lenient ? "bool (true/false, 1/0)" : "bool")
    }

    // MARK: containers

    /// The elements of an array, each with its own path.
    public func array() throws(JSONAccessError) -> [JSONNode] {
        guard let a = try optionalArray() else { throw wrong("array") }
        return a
    }

    public func optionalArray() throws(JSONAccessError) -> [JSONNode]? {
        guard let elements = try optionalElements() else { return nil }
        return Array(elements)
    }

    /// The elements of an array as a sequence (no array of nodes is built).
    public func elements() throws(JSONAccessError) -> JSONElements {
        guard let e = try optionalElements() else { throw wrong("array") }
        return e
    }

    /// nil when absent or null; an error when present and not an array.
    public func optionalElements() throws(JSONAccessError) -> JSONElements? {
        guard found else { return nil }
        if let doc = document {
            let e = doc.entry(index)
            if e.kind == JSONTapeEntry.array { return JSONElements(.tape(doc, first: index + 1, count: Int(e.length), context)) }
            if e.kind == JSONTapeEntry.null { return nil }
        } else if case .array(let a)? = context?.tree {
            return JSONElements(.tree(a, context))
        } else if case .null? = context?.tree {
            return nil
        }
        throw wrong("array")
    }

    public func object() throws(JSONAccessError) -> JSONObject {
        guard kind == .object, case .object(let o)? = value else { throw wrong("object") }
        return o
    }

    /// Strings of an array of strings (numbers allowed when `allowNumber`); absent -> [].
    public func stringArray(allowNumber: Bool = false) throws(JSONAccessError) -> [String] {
        guard let items = try optionalElements() else { return [] }
        var out: [String] = []
        out.reserveCapacity(items.count)
        for item in items {
            if let s = try item.optionalString(allowNumber: allowNumber) { out.append(s) }
        }
        return out
    }
}
