import TributaryBase

/// A growable byte buffer that JSON text is written into without an `Array`'s checks per
/// write: room is made once per value (a string's worst case, six bytes a byte, a slice of
/// 4 KiB at a time), then bytes are stored through a pointer. `ItemJSONWriter` writes each
/// item's line here and appends the line to its output at once; appending each key, value and
/// quote to an `[UInt8]` cost about 12 instructions a byte of output (callgrind), most of them
/// in the generic `append`. `JSONWriter.write` is this buffer's `appendValue`.
///
/// A value, not a class: a class's stored properties are checked for exclusive access at
/// every write, which cost more than the writes. Its owner frees it (`deallocate`) once, and
/// copies share the memory: keep one copy in use, and store it back after it grew. Its strings
/// are `JSONWriter.writeString`'s bytes: JSONConformanceTests compares the two.
public struct JSONLineBuffer {
    @usableFromInline var base: UnsafeMutablePointer<UInt8>
    @usableFromInline var capacity: Int
    /// Bytes written since the last `removeAll`.
    @usableFromInline var written = 0
    public var count: Int { written }

    public init(capacity: Int = 1024) {
        self.capacity = max(capacity, 64)
        self.base = .allocate(capacity: self.capacity)
    }

    /// Frees the memory; the buffer is not used after.
    public func deallocate() { base.deallocate() }

    /// The bytes written.
    @inlinable public var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: written) }

    @inlinable public mutating func removeAll() { written = 0 }

    /// Room for `n` more bytes.
    @inlinable @inline(__always)
    public mutating func reserve(_ n: Int) {
        if written + n > capacity { grow(written + n) }
    }

    @usableFromInline mutating func grow(_ needed: Int) {
        var c = capacity * 2
        while c < needed { c *= 2 }
        let b = UnsafeMutablePointer<UInt8>.allocate(capacity: c)
        b.update(from: base, count: written)
        base.deallocate()
        base = b
        capacity = c
    }

    @inlinable @inline(__always)
    public mutating func append(_ byte: UInt8) {
        reserve(1)
        base[written] = byte
        written += 1
    }

    @inlinable @inline(__always)
    public mutating func append(_ p: UnsafePointer<UInt8>, count n: Int) {
        reserve(n)
        (base + written).update(from: p, count: n)
        written += n
    }

    /// A literal's bytes (a key with its punctuation, `,"title":`).
    @inlinable @inline(__always)
    public mutating func append(_ text: StaticString) {
        append(text.utf8Start, count: text.utf8CodeUnitCount)
    }

    /// At most `n` bytes written by `body` at the end, which returns how many it wrote.
    @inlinable @inline(__always)
    public mutating func write(upTo n: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        reserve(n)
        written += body(base + written)
    }

    /// A string as JSON (`JSONWriter.writeString`).
    public mutating func appendString(_ s: String) {
        s.withUTF8Bytes { appendEscaped($0) }
    }

    private mutating func appendEscaped(_ b: UnsafeBufferPointer<UInt8>) {
        // Room for the worst case, six bytes a byte (`\u0001`), the quotes and the word
        // `escape` may store past its end; a long text a slice at a time, so that it does not
        // need room for six times it.
        let n = b.count
        reserve(min(n, JSONWriter.escapeSlice) * 6 + 2 + JSONWriter.escapeSlack)
        var d = base + written
        d.pointee = 0x22
        d += 1
        if let src = b.baseAddress {
            if n <= JSONWriter.escapeSlice {
                d = JSONWriter.escape(src, count: n, to: d)
            } else {
                var at = 0
                while at < n {
                    let k = min(JSONWriter.escapeSlice, n - at)
                    written = d - base
                    reserve(k * 6 + 1 + JSONWriter.escapeSlack)
                    d = JSONWriter.escape(src + at, count: k, to: base + written)
                    at += k
                }
            }
        }
        d.pointee = 0x22
        d += 1
        written = d - base
    }

    /// A value as compact JSON (what `JSONWriter.write` writes).
    public mutating func appendValue(_ value: JSONValue) {
        switch value {
        case .null: append("null")
        case .bool(let b): b ? append("true") : append("false")
        case .number(let n): appendNumber(n)
        case .string(let s): appendString(s)
        case .array(let items):
            append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { append(UInt8(ascii: ",")) }
                appendValue(item)
            }
            append(UInt8(ascii: "]"))
        case .object(let o): appendObject(o)
        }
    }

    /// An object as JSON, members in order.
    /// The members are read in place (an item's `data` on every line): iterating the
    /// entries copied each key and value, a retain and a release of each. With `keyTexts`,
    /// each key's JSON text is kept by position there (`RepeatedText`), for a writer whose
    /// objects mostly repeat their keys.
    public mutating func appendObject(_ object: JSONObject, keyTexts: UnsafeMutablePointer<[RepeatedText]>? = nil) {
        append(UInt8(ascii: "{"))
        object.entries.withUnsafeBufferPointer { entries in
            if let keyTexts { while keyTexts.pointee.count < entries.count { keyTexts.pointee.append(RepeatedText()) } }
            for i in entries.indices {
                if i > 0 { append(UInt8(ascii: ",")) }
                if let keyTexts { keyTexts.pointee[i].append(entries[i].key, to: &self) } else { appendString(entries[i].key) }
                append(UInt8(ascii: ":"))
                if case .string(let text) = entries[i].value {
                    appendString(text)
                } else {
                    appendValue(entries[i].value)
                }
            }
        }
        append(UInt8(ascii: "}"))
    }

    /// A text most lines repeat (an item's `source`, its `data` keys) and its JSON text, made
    /// again only when the text changes. The same text is recognized by its two words: equal
    /// words are the same inline bytes (15 or fewer) or the same storage, which `value` keeps
    /// alive (and so unchanged, and its address not reused for another text).
    public struct RepeatedText {
        private var value = ""
        /// No String has these words (a native string's object is never null): the first text
        /// is always written.
        private var words: (UInt64, UInt64) = (0, 0)
        private var json: [UInt8] = []

        public init() {}

        @inline(__always)
        public mutating func append(_ text: String, to w: inout JSONLineBuffer) {
            let bits = unsafeBitCast(text, to: (UInt64, UInt64).self)
            if bits != words {
                value = text
                words = bits
                json.removeAll(keepingCapacity: true)
                JSONWriter.writeString(text, into: &json)
            }
            json.withUnsafeBufferPointer { w.append($0.baseAddress!, count: $0.count) }
        }
    }

    /// A number's literal text.
    public mutating func appendNumber(_ n: JSONNumber) {
        var text = n.text
        text.withUTF8 { b in
            if let p = b.baseAddress { append(p, count: b.count) }
        }
    }
}
