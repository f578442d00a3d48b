/// Foundation's `trimmingCharacters(in: .whitespaces)` and `(in: .whitespacesAndNewlines)`,
/// with the same results, in the standard library alone. Foundation's go through NSString and
/// CoreFoundation, whose first use costs a short-lived process (`check`, `--version`) a
/// noticeable share of its start-up; config validation uses these instead. Trimming is by
/// Unicode scalar, as Foundation's is (a combining mark after a trimmed space stays).
/// TextTests compares both sets with CharacterSet over every scalar.
extension Unicode.Scalar {
    /// In `CharacterSet.whitespaces`: Unicode category Zs, U+0009 and U+200B (zero width space).
    /// The sets are written out: a Unicode property lookup for every title's last scalar that is
    /// not ASCII was 1.3% of a decode's CPU. The Zs scalars have been these since Unicode 6.3
    /// (U+180E left Zs then); TrimmingTests holds both sets to CharacterSet's over every scalar.
    public var isFoundationBlank: Bool {
        if value < 0x80 { return value == 0x20 || value == 0x09 }
        return Self.isSpaceSeparatorOrZeroWidthSpace(value)
    }

    /// In `CharacterSet.whitespacesAndNewlines`: Unicode White_Space and U+200B: the blanks,
    /// U+000A-000D, U+0085 (next line), U+2028 and U+2029 (line and paragraph separators).
    public var isFoundationWhitespaceOrNewline: Bool {
        if value < 0x80 { return value == 0x20 || (value >= 0x09 && value <= 0x0D) }
        return value == 0x85 || value == 0x2028 || value == 0x2029 || Self.isSpaceSeparatorOrZeroWidthSpace(value)
    }

    /// Zs above ASCII (U+00A0, U+1680, U+2000-200A, U+202F, U+205F, U+3000), and U+200B.
    @inline(__always) private static func isSpaceSeparatorOrZeroWidthSpace(_ v: UInt32) -> Bool {
        if v < 0x2000 { return v == 0xA0 || v == 0x1680 }
        return v <= 0x200B || v == 0x202F || v == 0x205F || v == 0x3000
    }
}

extension String {
    /// `trimmingCharacters(in: .whitespaces)` without Foundation. Nothing to trim (printable
    /// ASCII at both ends) returns the string itself: no copy.
    public var trimmingBlanks: String {
        if hasPrintableASCIIEnds { return self }
        if keepsEnds(\.isFoundationBlank) { return self }
        return Substring(self).trimmingBlanks
    }

    /// `trimmingCharacters(in: .whitespacesAndNewlines)` without Foundation. Nothing to trim
    /// (printable ASCII at both ends) returns the string itself: no copy.
    public var trimmingWhitespaceAndNewlines: String {
        if hasPrintableASCIIEnds { return self }
        if keepsEnds(\.isFoundationWhitespaceOrNewline) { return self }
        return Substring(self).trimmingWhitespaceAndNewlines
    }

    /// `trimmingWhitespaceAndNewlines`, taking the string: one with nothing to trim is handed
    /// back as it is, where the property returns a copy (a retain, and a release of the
    /// original after it). For a mapper's every text field.
    public consuming func trimmedWhitespaceAndNewlines() -> String {
        if hasPrintableASCIIEnds || keepsEnds(\.isFoundationWhitespaceOrNewline) { return self }
        return Substring(self).trimmingWhitespaceAndNewlines
    }

    /// Whether neither the first nor the last scalar is one `drop` accepts (a title ending in an
    /// emoji or CJK): nothing to trim, so no copy. An empty string keeps its ends.
    @inline(__always) func keepsEnds(_ drop: (Unicode.Scalar) -> Bool) -> Bool {
        guard let f = unicodeScalars.first, let l = unicodeScalars.last else { return true }
        return !drop(f) && !drop(l)
    }

    /// Whether the first and the last byte are printable ASCII: nothing to trim. Read from the
    /// string's bytes in place: `utf8.last` walks the view's index, about 80 instructions a
    /// call, for every text field a `json` source maps.
    @inline(__always) var hasPrintableASCIIEnds: Bool {
        withUTF8Bytes { b -> Bool in
            guard let f = b.first, let l = b.last else { return false }
            return Self.isPrintableASCII(f) && Self.isPrintableASCII(l)
        }
    }

    /// A byte that is a whole scalar and neither white space nor a control character.
    @inline(__always) static func isPrintableASCII(_ b: UInt8) -> Bool { b > 0x20 && b < 0x7F }
}

extension Substring {
    /// `trimmingCharacters(in: .whitespaces)` without Foundation.
    public var trimmingBlanks: String { trimScalars(\.isFoundationBlank) }
    /// `trimmingCharacters(in: .whitespacesAndNewlines)` without Foundation.
    public var trimmingWhitespaceAndNewlines: String { trimScalars(\.isFoundationWhitespaceOrNewline) }

    /// The text without the leading and trailing scalars `drop` accepts, as Foundation's
    /// `trimmingCharacters(in:)` trims (by Unicode scalar).
    public func trimScalars(_ drop: (Unicode.Scalar) -> Bool) -> String {
        var s = unicodeScalars[...]
        while let f = s.first, drop(f) { s.removeFirst() }
        while let l = s.last, drop(l) { s.removeLast() }
        return String(s)
    }
}

extension String {
    /// Without leading and trailing whitespace (Character.isWhitespace).
    package var trimmingSpaces: String {
        if hasPrintableASCIIEnds { return self }
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return String(s)
    }
}
