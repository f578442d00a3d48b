import TributaryBase

/// Writing values straight from where they are, for writers that copy fields into their output.
extension JSONNode {
    /// Appends the value as compact JSON, the same bytes `JSONWriter.write(value)` writes; on a
    /// tape without building the value. Returns false (and appends nothing) when absent.
    @discardableResult
    public func writeJSON(to out: inout [UInt8]) -> Bool {
        guard found else { return false }
        if let doc = document {
            doc.write(at: index, to: &out)
        } else if let v = context?.tree {
            JSONWriter.write(v, into: &out)
        }
        return true
    }

    /// Appends a string value as JSON text (`"..."`) without decoding it. By default the bytes
    /// are those `JSONWriter.writeString` writes for the decoded string: a string without
    /// escapes is copied as it is, escapes are rewritten to the writer's form. With `verbatim`,
    /// escapes are copied as written too (valid JSON, since the input was validated, but
    /// `\u00e9` stays `\u00e9`). Returns false when absent or null; throws when not a string.
    @discardableResult
    public func appendJSONString(to out: inout [UInt8], verbatim: Bool = false) throws(JSONAccessError) -> Bool {
        switch kind {
        case nil, .null?: return false
        case .string?: break
        default: throw wrong("string")
        }
        if let doc = document {
            doc.appendString(at: index, verbatim: verbatim, to: &out)
        } else {
            JSONWriter.writeString(stringValue(), into: &out)
        }
        return true
    }

    /// The time a tape string without escapes holds when it is an RFC 3339 time as written
    /// (`Timestamp.parseRFC3339`), read from the document's bytes; nil otherwise (not such a
    /// string, or not on a tape). Not generic, unlike `withRawStringBytes`: called across
    /// modules for every item's date, the generic one cost three times the parse.
    public func rfc3339Time() -> Timestamp? {
        guard found, let doc = document else { return nil }
        let e = doc.entry(index)
        guard e.kind == JSONTapeEntry.string, e.flags & JSONTapeEntry.hasEscapes == 0 else { return nil }
        return doc.withBytes { base in Timestamp.parseRFC3339(bytes: UnsafeBufferPointer(start: base + Int(e.offset), count: Int(e.length))) }
    }

    /// Calls `body` with a tape string's bytes as written between its quotes and whether they
    /// hold escapes (without escapes they are the string's UTF-8). nil when this is not a string
    /// on a tape (absent, another type, or a tree node).
    public func withRawStringBytes<R, E: Error>(_ body: (UnsafeBufferPointer<UInt8>, _ hasEscapes: Bool) throws(E) -> R) throws(E) -> R? {
        guard found, let doc = document, doc.entry(index).kind == JSONTapeEntry.string else { return nil }
        return try doc.withRawString(at: index, body)
    }
}
