import TributaryBase

/// A parsed JSON document: the input bytes and a tape built by one validating pass (one 16-byte
/// entry per value, see `JSONTapeEntry`). Parsing allocates this object and the tape, nothing
/// per value; strings are decoded, and numbers converted, only when they are read.
///
/// Read it through `root` (a `JSONNode`), or convert it with `value` where a `JSONValue` tree is
/// needed. Strict as RFC 8259 and the same errors as `JSONParser.parse`, which is this plus
/// `value`.
public final class JSONDocument: @unchecked Sendable {
    // @unchecked Sendable: every stored property is a `let`, and the tape memory is written only
    // inside `init`, before the object can be shared; afterwards it is only read, then freed in
    // `deinit`.

    /// The document's bytes, exactly as given.
    public let bytes: [UInt8]
    /// The tape: `valueCount` initialized entries, owned by this object.
    let tape: UnsafeMutablePointer<JSONTapeEntry>
    /// The number of values in the document (object keys included).
    public let valueCount: Int
    /// Entries allocated for the tape (>= valueCount), for memory accounting.
    let tapeCapacity: Int

    /// Parses `bytes`; nesting deeper than `maxDepth` containers is an error.
    public init(_ bytes: [UInt8], maxDepth: Int = 512) throws(JSONParseError) {
        let parsed: Result<JSONTapeBuffer, JSONParseError> = bytes.withUnsafeBufferPointer { buf in
            guard !buf.isEmpty else {
                return .failure(JSONParseError(offset: 0, message: "unexpected end of input, expected a value", in: buf))
            }
            guard buf.count <= JSONTapeEntry.maxDocumentBytes else {
                return .failure(JSONParseError(offset: 0, message: "document larger than 4 GiB", in: buf))
            }
            var parser = JSONTapeParser(bytes: buf, maxDepth: maxDepth)
            do throws(RawError) {
                try parser.parse()
                return .success(parser.tape)
            } catch {
                parser.tape.deallocate()
                return .failure(JSONParseError(offset: error.offset, message: error.message, in: buf))
            }
        }
        let tape = try parsed.get()
        self.bytes = bytes
        self.tape = tape.base
        self.valueCount = tape.count
        self.tapeCapacity = tape.capacity
    }

    public convenience init(_ text: String, maxDepth: Int = 512) throws(JSONParseError) {
        try self.init(Array(text.utf8), maxDepth: maxDepth)
    }

    deinit { tape.deallocate() }

    /// The whole document as a node; `path` is the key path its errors start from.
    public func root(path: KeyPath = .root) -> JSONNode { JSONNode(self, path: path) }

    /// The whole document as a `JSONValue` tree.
    public var value: JSONValue { value(at: 0) }

    /// Bytes of memory the tape takes (entries allocated x 16).
    public var tapeBytes: Int { tapeCapacity * MemoryLayout<JSONTapeEntry>.stride }

    // MARK: Entries

    /// The entry at `i`. Invariant: 0 <= i < valueCount; every index a node or a walk holds comes
    /// from the tape itself (0, `end` fields, or `i + 1` inside a container), which keeps it there.
    @inline(__always)
    func entry(_ i: Int) -> JSONTapeEntry {
        assert(i >= 0 && i < valueCount, "tape index out of range")
        return tape[i]
    }

    /// Calls `body` with the document's bytes (non-empty: an empty input never parses).
    @inline(__always)
    func withBytes<R>(_ body: (UnsafePointer<UInt8>) throws -> R) rethrows -> R {
        try bytes.withUnsafeBufferPointer { try body($0.baseAddress!) }
    }

    func kind(at i: Int) -> JSONKind { entry(i).publicKind }
}
