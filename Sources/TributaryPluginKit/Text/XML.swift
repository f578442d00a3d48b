import TributaryCore

/// XML 1.0 for the documents Tributary writes (the `rss` and `atom` sinks): text and attribute
/// escaping that always yields well-formed XML, and a small reader that reads such a document
/// back (a feed sink's window when there is no state). The reader is not a general XML
/// processor: no DTD (a DOCTYPE with an internal subset is refused, so no entity can expand),
/// no namespace processing (names are kept as written, `dc:creator`), no encodings but UTF-8.
/// It never traps on any input: what it cannot read is a `SyntaxError` with the line.
public enum XML {
    /// Character data: escapes the markup characters, writes carriage return as `&#13;` (a
    /// literal one would reach readers as a line feed), and drops the code points XML 1.0 does
    /// not allow (C0 controls other than tab, line feed and carriage return; U+FFFE, U+FFFF).
    public static func escape(_ s: String) -> String { escape(s, attribute: false) }

    /// An attribute value: as `escape`, and tab and line feed written as references too, since
    /// a reader turns literal ones into spaces.
    public static func escapeAttribute(_ s: String) -> String { escape(s, attribute: true) }

    private static func escape(_ s: String, attribute: Bool) -> String {
        s.replacingScalars { u in
            switch u {
            case "&": return "&amp;"
            case "<": return "&lt;"
            case ">": return "&gt;"
            case "\"": return "&quot;"
            case "'": return "&apos;"
            case "\r": return "&#13;"
            case "\n" where attribute: return "&#10;"
            case "\t" where attribute: return "&#9;"
            default: return isAllowed(u.value) ? nil : ""
            }
        }
    }

    /// The characters XML 1.0 allows (its production `Char`).
    public static func isAllowed(_ v: UInt32) -> Bool {
        v == 0x9 || v == 0xA || v == 0xD || (v >= 0x20 && v <= 0xD7FF) || (v >= 0xE000 && v <= 0xFFFD) || (v >= 0x10000 && v <= 0x10FFFF)
    }

    /// An element as read: its name as written, its attributes in order, its child elements and
    /// its own character data (every text and CDATA section directly inside it, joined).
    public struct Element: Sendable {
        public var name: String
        public var attributes: [(name: String, value: String)] = []
        public var children: [Element] = []
        public var text: String = ""

        public init(name: String) { self.name = name }

        public func attribute(_ name: String) -> String? { attributes.first { $0.name == name }?.value }
        /// The first child element named `name`.
        public func child(_ name: String) -> Element? { children.first { $0.name == name } }
        /// Every child element named `name`, in document order.
        public func children(_ name: String) -> [Element] { children.filter { $0.name == name } }
    }

    /// Why a document could not be read, with its 1-based line.
    public struct SyntaxError: Error, CustomStringConvertible, Sendable {
        public let line: Int
        public let reason: String
        public var description: String { "malformed XML at line \(line): \(reason)" }
    }

    /// Reads a whole document into its root element. Line ends are normalized as XML says
    /// (CR LF and CR become LF; in attributes tab and line ends become spaces); character
    /// references keep what they stand for.
    public static func parse(_ bytes: [UInt8], maxDepth: Int = 256) throws(SyntaxError) -> Element {
        var reader = Reader(bytes: bytes, maxDepth: maxDepth)
        return try reader.document()
    }
}

/// The reader behind `XML.parse`: one pass over the bytes, an explicit stack of open elements
/// (no recursion, so depth costs no call stack; `maxDepth` bounds it anyway).
private struct Reader {
    let b: [UInt8]
    let maxDepth: Int
    var i = 0
    var stack: [XML.Element] = []
    var root: XML.Element?

    init(bytes: [UInt8], maxDepth: Int) {
        b = bytes
        self.maxDepth = maxDepth
        if b.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
    }

    func fail(_ reason: String, at offset: Int? = nil) -> XML.SyntaxError {
        let end = min(offset ?? i, b.count)
        return XML.SyntaxError(line: 1 + b[..<end].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }, reason: reason)
    }

    func starts(_ s: String) -> Bool { b[i...].starts(with: s.utf8) }

    /// The offset just past the next `end` at or after `i`.
    func find(_ end: String, what: String) throws(XML.SyntaxError) -> (content: Range<Int>, next: Int) {
        let e = Array(end.utf8)
        var j = i
        while j + e.count <= b.count {
            if b[j] == e[0] && b[j..<(j + e.count)].elementsEqual(e) { return (i..<j, j + e.count) }
            j += 1
        }
        throw fail("\(what) is not closed (no \"\(end)\")")
    }

    mutating func document() throws(XML.SyntaxError) -> XML.Element {
        while i < b.count {
            if b[i] == 0x3C {
                try markup()
            } else {
                let start = i
                while i < b.count && b[i] != 0x3C { i += 1 }
                if stack.isEmpty {
                    guard b[start..<i].allSatisfy(Self.isSpace) else { throw fail(root == nil ? "text before the root element" : "text after the root element", at: start) }
                } else {
                    stack[stack.count - 1].text += try decode(b[start..<i], attribute: false)
                }
            }
        }
        if let open = stack.last { throw fail("<\(open.name)> is not closed at the end of the document") }
        guard let root else { throw fail("no root element") }
        return root
    }

    mutating func markup() throws(XML.SyntaxError) {
        if starts("<?") {
            i = try find("?>", what: "a processing instruction").next
        } else if starts("<!--") {
            i += 4
            i = try find("-->", what: "a comment").next
        } else if starts("<![CDATA[") {
            guard !stack.isEmpty else { throw fail("a CDATA section outside the root element") }
            i += 9
            let (content, next) = try find("]]>", what: "a CDATA section")
            stack[stack.count - 1].text += String(decoding: Self.normalizingLineEnds(b[content]), as: UTF8.self)
            i = next
        } else if starts("<!DOCTYPE") {
            guard stack.isEmpty && root == nil else { throw fail("a DOCTYPE inside the document") }
            let (content, next) = try find(">", what: "a DOCTYPE")
            if b[content].contains(0x5B) { throw fail("a DOCTYPE with an internal subset (entities are not read)") }
            i = next
        } else if starts("</") {
            i += 2
            let name = try readName()
            skipSpace()
            guard i < b.count && b[i] == 0x3E else { throw fail("expected '>' after </\(name)") }
            i += 1
            guard let open = stack.popLast() else { throw fail("</\(name)> closes nothing") }
            guard open.name == name else { throw fail("</\(name)> closes <\(open.name)>") }
            close(open)
        } else {
            try startTag()
        }
    }

    mutating func startTag() throws(XML.SyntaxError) {
        if root != nil && stack.isEmpty { throw fail("an element after the root element") }
        i += 1
        var element = XML.Element(name: try readName())
        while true {
            skipSpace()
            guard i < b.count else { throw fail("<\(element.name) is not closed") }
            if b[i] == 0x3E {
                i += 1
                guard stack.count < maxDepth else { throw fail("elements nested deeper than \(maxDepth)") }
                stack.append(element)
                return
            }
            if b[i] == 0x2F {
                guard i + 1 < b.count && b[i + 1] == 0x3E else { throw fail("expected '/>' in <\(element.name)") }
                i += 2
                close(element)
                return
            }
            let name = try readName()
            skipSpace()
            guard i < b.count && b[i] == 0x3D else { throw fail("expected '=' after the attribute \(name) of <\(element.name)>") }
            i += 1
            skipSpace()
            guard i < b.count && (b[i] == 0x22 || b[i] == 0x27) else { throw fail("expected a quoted value for the attribute \(name) of <\(element.name)>") }
            let quote = b[i]
            i += 1
            let start = i
            while i < b.count && b[i] != quote {
                if b[i] == 0x3C { throw fail("'<' in the value of the attribute \(name) of <\(element.name)>") }
                i += 1
            }
            guard i < b.count else { throw fail("the value of the attribute \(name) of <\(element.name)> is not closed") }
            let value = try decode(b[start..<i], attribute: true)
            i += 1
            if element.attribute(name) != nil { throw fail("the attribute \(name) appears twice in <\(element.name)>") }
            element.attributes.append((name, value))
        }
    }

    mutating func close(_ element: XML.Element) {
        if stack.isEmpty { root = element } else { stack[stack.count - 1].children.append(element) }
    }

    mutating func readName() throws(XML.SyntaxError) -> String {
        let start = i
        while i < b.count, !Self.isSpace(b[i]), ![0x2F, 0x3E, 0x3D, 0x3C, 0x22, 0x27, 0x26].contains(b[i]) { i += 1 }
        guard i > start else { throw fail("expected a name") }
        return String(decoding: b[start..<i], as: UTF8.self)
    }

    mutating func skipSpace() { while i < b.count && Self.isSpace(b[i]) { i += 1 } }

    static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }

    static func normalizingLineEnds(_ raw: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var k = raw.startIndex
        while k < raw.endIndex {
            if raw[k] == 0x0D {
                out.append(0x0A)
                if k + 1 < raw.endIndex && raw[k + 1] == 0x0A { k += 1 }
            } else {
                out.append(raw[k])
            }
            k += 1
        }
        return out
    }

    /// Text or an attribute value with its references replaced and its line ends normalized.
    func decode(_ raw: ArraySlice<UInt8>, attribute: Bool) throws(XML.SyntaxError) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var k = raw.startIndex
        while k < raw.endIndex {
            let c = raw[k]
            if c == 0x26 {
                guard let semi = raw[k..<min(raw.endIndex, k + 12)].firstIndex(of: 0x3B) else { throw fail("'&' that starts no reference", at: k) }
                let name = String(decoding: raw[(k + 1)..<semi], as: UTF8.self)
                guard let scalar = Self.reference(name) else { throw fail("unknown reference &\(name);", at: k) }
                out.append(contentsOf: String(scalar).utf8)
                k = semi + 1
                continue
            }
            if c == 0x0D {
                if k + 1 < raw.endIndex && raw[k + 1] == 0x0A { k += 1 }
                out.append(attribute ? 0x20 : 0x0A)
            } else if attribute && (c == 0x0A || c == 0x09) {
                out.append(0x20)
            } else {
                out.append(c)
            }
            k += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The five predefined entities and character references (`#233`, `#xE9`).
    static func reference(_ name: String) -> Unicode.Scalar? {
        switch name {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos": return "'"
        default:
            guard name.hasPrefix("#") else { return nil }
            let digits = name.dropFirst()
            let value = digits.hasPrefix("x") ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
            guard let value, XML.isAllowed(value) else { return nil }
            return Unicode.Scalar(value)
        }
    }
}
