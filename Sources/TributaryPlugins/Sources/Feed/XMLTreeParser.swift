import Foundation
import TributaryCore
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Why a document is not well-formed XML, with the parser's position (1-based line and column).
struct XMLSyntaxError: Error, CustomStringConvertible {
    let line: Int
    let column: Int
    let reason: String

    var description: String { "malformed XML at line \(line), column \(column): \(reason)" }
}

/// Builds an `XMLElementNode` tree with FoundationXML's `XMLParser` (libxml2), namespace
/// processing on, external entities never resolved.
enum XMLTreeParser {
    /// Parses a whole document; `baseURL` is where it came from (the root's base for links).
    static func parse(_ bytes: [UInt8], baseURL: String) throws(XMLSyntaxError) -> XMLElementNode {
        // A feed with white space before `<?xml` is common in the wild and strictly malformed;
        // accept it, keeping line numbers true to the original bytes.
        var body = bytes[...]
        var skippedLines = 0
        if let first = body.firstIndex(where: { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D) }), first > body.startIndex,
           body[first...].starts(with: Array("<?xml".utf8)) {
            skippedLines = body[..<first].filter { $0 == 0x0A }.count
            body = body[first...]
        }
        let parser = XMLParser(data: Data(body))
        parser.shouldProcessNamespaces = true
        parser.shouldReportNamespacePrefixes = false
        parser.shouldResolveExternalEntities = false
        let builder = TreeBuilder(baseURL: baseURL)
        parser.delegate = builder
        let ok = parser.parse()
        if let e = builder.error {
            throw XMLSyntaxError(line: e.line + (e.line > 0 ? skippedLines : 0), column: e.column, reason: Self.reason(e.code))
        }
        let code = (parser.parserError as NSError?)?.code ?? (ok ? 0 : 1)
        if code != 0 && !Self.isNamespaceError(code) {
            throw XMLSyntaxError(line: parser.lineNumber + skippedLines, column: parser.columnNumber, reason: Self.reason(code))
        }
        guard let root = builder.root else {
            throw XMLSyntaxError(line: 1, column: 1, reason: "no root element")
        }
        return root
    }

    /// libxml2's namespace errors (XML_NS_ERR_*): the document is well-formed XML, only a
    /// prefix is undeclared, as in feeds that use `media:` without `xmlns:media`.
    static func isNamespaceError(_ code: Int) -> Bool { (200..<300).contains(code) }

    /// libxml2's `xmlParserErrors` codes (what XMLParser reports on Linux) as words.
    static func reason(_ code: Int) -> String {
        switch code {
        case 4: return "the document is empty"
        case 5: return "the document does not end properly (an element is not closed, or something follows the root element)"
        case 6, 7, 8: return "invalid character reference"
        case 9: return "a character that XML does not allow"
        case 22, 23, 68: return "a bare '&' or '<' (text must escape them as &amp; and &lt;, or sit in CDATA)"
        case 26, 27: return "undeclared entity (HTML entities such as &nbsp; are not XML; the feed must use &#160;)"
        case 31, 32, 79: return "unsupported character encoding"
        case 38: return "'<' inside an attribute value"
        case 39, 40, 41, 43, 44: return "malformed attribute"
        case 42: return "an attribute is repeated"
        case 45: return "a comment is not closed"
        case 63: return "a CDATA section is not closed"
        case 64: return "the XML declaration is not at the very start"
        case 65, 73, 77: return "a tag is not closed properly"
        case 76: return "mismatched closing tag"
        case 81: return "the bytes are not valid in the declared encoding"
        case 85, 86: return "content after the root element"
        case 201: return "undeclared namespace prefix"
        default: return "XML error \(code)"
        }
    }
}

/// The XMLParser delegate: a stack of open elements, text appended as it arrives.
private final class TreeBuilder: NSObject, XMLParserDelegate {
    struct Failure {
        let code: Int
        let line: Int
        let column: Int
    }

    let baseURL: String
    var stack: [XMLElementNode] = []
    var root: XMLElementNode?
    var error: Failure?
    /// Text since the last tag, appended to the open element when the next tag arrives
    /// (libxml2 delivers text in many small pieces).
    var pending = ""

    init(baseURL: String) { self.baseURL = baseURL }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
        flush()
        let parentBase = stack.last?.base ?? baseURL
        let base = attributeDict["xml:base"].map { Links.resolve($0, against: parentBase) } ?? parentBase
        var namespace = namespaceURI ?? ""
        if namespace.isEmpty, let qName, let colon = qName.firstIndex(of: ":") {
            // An undeclared prefix: take the namespace the well-known prefix always means.
            namespace = FeedNamespace.wellKnownPrefixes[String(qName[..<colon])] ?? ""
        }
        let node = XMLElementNode(namespace: namespace, name: elementName, attributes: attributeDict, base: base)
        if let parent = stack.last { parent.content.append(.element(node)) } else if root == nil { root = node }
        stack.append(node)
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        flush()
        if !stack.isEmpty { stack.removeLast() }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { append(string) }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) { append(String(decoding: CDATABlock, as: UTF8.self)) }

    private func append(_ text: String) {
        if !stack.isEmpty { pending += text }
    }

    private func flush() {
        guard !pending.isEmpty else { return }
        stack.last?.content.append(.text(pending))
        pending = ""
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        if XMLTreeParser.isNamespaceError((parseError as NSError).code) { return }
        // The first error is the one worth reporting; libxml2 may go on and report follow-ups.
        if error == nil {
            error = Failure(code: (parseError as NSError).code, line: parser.lineNumber, column: parser.columnNumber)
        }
        parser.abortParsing()
    }
}
