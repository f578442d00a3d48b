import TributaryBase
#if canImport(Glibc)
import Glibc
#endif

extension JSONDocument {
    /// The decoded string at `i` (a string entry). Without escapes it is the validated bytes
    /// themselves, copied once into the new String; with escapes they are decoded first. Either
    /// way the parser's validation stands: not checked again.
    func string(at i: Int) -> String { string(entry: entry(i)) }

    /// The string at `i` and whether it has nothing to trim at either end as written
    /// (`hasPrintableASCIIEnds`), from one read of its entry; nil when `i` is not a string.
    func stringWithPlainEnds(at i: Int) -> (text: String, plainEnds: Bool)? {
        let e = entry(i)
        guard e.kind == JSONTapeEntry.string else { return nil }
        return (string(entry: e), hasPrintableASCIIEnds(e))
    }

    /// The decoded string of entry `e` (a string entry).
    private func string(entry e: JSONTapeEntry) -> String {
        assert(e.kind == JSONTapeEntry.string)
        let count = Int(e.length)
        if count == 0 { return "" }
        return withBytes { base in
            // Invariant: offset + length <= bytes.count (the parser measured the span inside it).
            let src = base + Int(e.offset)
            if e.flags & JSONTapeEntry.hasEscapes == 0 {
                // The parser validated these bytes and knows whether all are ASCII: copied
                // without the standard library's second check.
                return String(copyingValidatedUTF8: UnsafeBufferPointer(start: src, count: count),
                              isASCII: e.flags & JSONTapeEntry.hasNonASCII == 0)
            }
            // Decoding never grows the text (see JSONEscapes.decode), so `count` bytes suffice.
            // What it writes is valid UTF-8 too (the parser paired every `\u` surrogate), so it
            // is decoded into a scratch buffer and copied like the rest: the validating
            // initializer cost about 1,100 instructions a string for the descriptions of the
            // bench corpus (18,294 of them in 15,000 items hold an escape). ASCII unless the
            // raw text is not or an escape made a byte above 0x7F.
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { tmp in
                let n = JSONEscapes.decode(src, count: count, into: tmp.baseAddress!)
                let decoded = UnsafeBufferPointer(start: tmp.baseAddress!, count: n)
                return String(copyingValidatedUTF8: decoded,
                              isASCII: e.flags & JSONTapeEntry.hasNonASCII == 0 && Self.isASCII(decoded))
            }
        }
    }

    /// Whether entry `e` is a string without escapes whose first and last bytes are printable
    /// ASCII (0x21-0x7E): its text has nothing to trim at either end, as it is on the tape.
    /// False for any other entry, and for an escaped string (`\n` at its end is a newline,
    /// though its last byte is `n`), which the caller checks as a String.
    private func hasPrintableASCIIEnds(_ e: JSONTapeEntry) -> Bool {
        guard e.kind == JSONTapeEntry.string, e.flags & JSONTapeEntry.hasEscapes == 0, e.length > 0 else { return false }
        return withBytes { base in
            let first = base[Int(e.offset)], last = base[Int(e.offset) + Int(e.length) - 1]
            return first > 0x20 && first < 0x7F && last > 0x20 && last < 0x7F
        }
    }

    /// The literal text of the scalar at `i` (a number's digits as written).
    func literalText(at i: Int) -> String {
        let e = entry(i)
        return withBytes { base in
            String(decoding: UnsafeBufferPointer(start: base + Int(e.offset), count: Int(e.length)), as: UTF8.self)
        }
    }

    /// Whether the string entry at `i` decodes to exactly the bytes of `key`.
    @inline(__always)
    func string(at i: Int, equals key: UnsafeBufferPointer<UInt8>, in base: UnsafePointer<UInt8>) -> Bool {
        let e = entry(i)
        let count = Int(e.length)
        let src = base + Int(e.offset)
        if e.flags & JSONTapeEntry.hasEscapes == 0 {
            guard count == key.count else { return false }
            return count == 0 || Self.equalBytes(src, key.baseAddress!, count)
        }
        // Escaped keys are rare: decode into a temporary (on the stack when small) and compare.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { tmp in
            let n = JSONEscapes.decode(src, count: count, into: tmp.baseAddress!)
            return n == key.count && (n == 0 || Self.equalBytes(tmp.baseAddress!, key.baseAddress!, n))
        }
    }

    /// `a[0..<n] == b[0..<n]` for the short runs keys are, without a call: words compared, the
    /// last one overlapping. Invariant: both pointers have `n` readable bytes; no load reaches
    /// past `n` (the overlapping loads start at `n - 8` or `n - 4`, both >= 0 where used).
    @inline(__always)
    static func equalBytes(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        @inline(__always) func load64(_ p: UnsafePointer<UInt8>) -> UInt64 { UnsafeRawPointer(p).loadUnaligned(as: UInt64.self) }
        @inline(__always) func load32(_ p: UnsafePointer<UInt8>) -> UInt32 { UnsafeRawPointer(p).loadUnaligned(as: UInt32.self) }
        if n >= 8 {
            var i = 0
            while i + 8 <= n {
                if load64(a + i) != load64(b + i) { return false }
                i += 8
            }
            return i == n || load64(a + n - 8) == load64(b + n - 8)
        }
        if n >= 4 { return load32(a) == load32(b) && load32(a + n - 4) == load32(b + n - 4) }
        var i = 0
        while i < n {
            if a[i] != b[i] { return false }
            i += 1
        }
        return true
    }

    /// Calls `body` with the string's bytes as written between its quotes (escapes not decoded)
    /// and whether they hold escapes. Without escapes the bytes are the value's UTF-8.
    func withRawString<R, E: Error>(at i: Int, _ body: (UnsafeBufferPointer<UInt8>, _ hasEscapes: Bool) throws(E) -> R) throws(E) -> R {
        let e = entry(i)
        assert(e.kind == JSONTapeEntry.string)
        let result: Result<R, E> = withBytes { base in
            do throws(E) {
                return .success(try body(UnsafeBufferPointer(start: base + Int(e.offset), count: Int(e.length)), e.flags & JSONTapeEntry.hasEscapes != 0))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Appends the string at `i` as JSON text (`"..."`). `verbatim` copies the bytes as written,
    /// escapes included: valid JSON, since the input was validated. Otherwise the output is
    /// exactly what `JSONWriter.writeString` writes for the decoded string; for a string without
    /// escapes (most of them) both are the same plain copy.
    func appendString(at i: Int, verbatim: Bool, to out: inout [UInt8]) {
        let e = entry(i)
        assert(e.kind == JSONTapeEntry.string)
        let count = Int(e.length)
        withBytes { base in
            let src = base + Int(e.offset)
            if verbatim || e.flags & JSONTapeEntry.hasEscapes == 0 {
                out.append(UInt8(ascii: "\""))
                out.append(contentsOf: UnsafeBufferPointer(start: src, count: count))
                out.append(UInt8(ascii: "\""))
            } else {
                JSONEscapes.appendCanonical(src, count: count, to: &out)
            }
        }
    }
}
