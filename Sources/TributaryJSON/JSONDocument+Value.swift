import TributaryBase

extension JSONDocument {
    /// The subtree at `i` as a `JSONValue`. Iterative (an explicit stack of open containers), so
    /// any depth the parser accepted converts without recursion; each array and object is
    /// allocated once at its exact size.
    func value(at i: Int) -> JSONValue {
        let first = entry(i)
        guard first.isContainer else { return scalarValue(at: i) }
        var stack: [Frame] = [Frame(first)]
        var j = i + 1
        while true {
            // Close every container that ends here; the outermost one is the result.
            while j == stack[stack.count - 1].end {
                let done = stack.removeLast().value
                if stack.isEmpty { return done }
                stack[stack.count - 1].add(done)
            }
            let e = entry(j)
            if e.isContainer {
                stack.append(Frame(e))
            } else if stack[stack.count - 1].wantsKey {
                stack[stack.count - 1].key = string(at: j)
            } else {
                stack[stack.count - 1].add(scalarValue(at: j))
            }
            j += 1
        }
    }

    private func scalarValue(at i: Int) -> JSONValue {
        switch entry(i).kind {
        case JSONTapeEntry.null: return .null
        case JSONTapeEntry.false: return .bool(false)
        case JSONTapeEntry.true: return .bool(true)
        case JSONTapeEntry.number: return .number(JSONNumber(text: literalText(at: i)))
        default: return .string(string(at: i))
        }
    }

    /// A container being converted.
    private struct Frame {
        let isObject: Bool
        let end: Int
        var items: [JSONValue] = []
        var entries: [(key: String, value: JSONValue)] = []
        var key: String? = nil

        init(_ e: JSONTapeEntry) {
            isObject = e.kind == JSONTapeEntry.object
            end = Int(e.end)
            if isObject { entries.reserveCapacity(Int(e.length)) } else { items.reserveCapacity(Int(e.length)) }
        }

        /// In an object, the next entry is a key when no key is waiting for its value.
        var wantsKey: Bool { isObject && key == nil }

        mutating func add(_ v: JSONValue) {
            if isObject {
                entries.append((key ?? "", v))
                key = nil
            } else {
                items.append(v)
            }
        }

        var value: JSONValue { isObject ? .object(JSONObject(entries)) : .array(items) }
    }
}
