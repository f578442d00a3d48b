import TributaryBase

extension JSONDocument {
    /// The number at `i` as `JSONNumber.double` reads it: the nearest double (inf beyond range).
    func double(at i: Int) -> Double {
        let e = entry(i)
        // Integers of up to 15 digits are exact in a Double, so the conversion is exact too.
        if e.flags & JSONTapeEntry.isInteger != 0 && e.length <= 15, let v = int64(at: i) {
            // "-0" is the one integer whose sign the Int64 loses.
            if v == 0 && literal(at: i, is: "-0") { return -0.0 }
            return Double(v)
        }
        // Everything else goes through the same correctly rounded conversion JSONNumber uses
        // (Swift's Double(String): strtod in the C locale). Literals of up to 15 bytes are small
        // strings, so this allocates only for long ones.
        return Double(literalText(at: i)) ?? .nan
    }

    /// The number at `i` as `JSONNumber.int64` reads it: exact, or nil when the literal has a
    /// fraction or an exponent or does not fit in an Int64.
    func int64(at i: Int) -> Int64? {
        let e = entry(i)
        guard e.flags & JSONTapeEntry.isInteger != 0 else { return nil }
        return withBytes { base -> Int64? in
            // Invariant: the span is a validated integer literal: an optional '-', then digits.
            var p = base + Int(e.offset)
            let end = p + Int(e.length)
            let negative = p.pointee == UInt8(ascii: "-")
            if negative { p += 1 }
            // Accumulate negatively, so Int64.min is reachable.
            var v: Int64 = 0
            while p < end {
                let d = Int64(p.pointee &- 0x30)
                let (m, o1) = v.multipliedReportingOverflow(by: 10)
                let (s, o2) = m.subtractingReportingOverflow(d)
                if o1 || o2 { return nil }
                v = s
                p += 1
            }
            if negative { return v }
            return v == .min ? nil : -v
        }
    }

    /// Whether the scalar at `i` is written exactly as `text` (ASCII).
    func literal(at i: Int, is text: StaticString) -> Bool {
        let e = entry(i)
        guard Int(e.length) == text.utf8CodeUnitCount else { return false }
        return withBytes { base in
            let p = base + Int(e.offset)
            for k in 0..<Int(e.length) where p[k] != text.utf8Start[k] { return false }
            return true
        }
    }
}
