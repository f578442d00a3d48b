internal import CXML
import TributaryCore

/// A web page parsed by libxml2's HTML parser (the error-tolerant one browsers' markup needs),
/// held twice: libxml2's tree, for XPath (`select`), and a compact copy in Swift arrays that the
/// article extractor, the sanitizer and the `html` source walk without touching C pointers.
///
/// Bounds (a page is untrusted input): the parser never loads anything over the network or
/// from files (`HTML_PARSE_NONET`), expands no entity declared by the page (HTML has none;
/// libxml2's HTML parser reads a DOCTYPE's internal subset as text), and the copy keeps at most
/// `maxDepth` levels: elements nested deeper are left out and their content joins the deepest
/// kept ancestor, so every walk over the copy may recurse. The caller bounds the size (the
/// HTTP client's `max_size`).
///
/// Threading: one document is used by one thread at a time (it is not `Sendable`); different
/// documents parse and run XPath on different threads at once.
public final class HTMLDocument {
    /// A node of the copy: an element or a text node, by its index.
    public typealias Node = Int32
    public static let none: Node = -1
    public static let maxDepth = 256

    public enum Kind: UInt8, Sendable { case element, text }

    /// By node: element or text.
    public private(set) var kinds: [Kind] = []
    /// By node: the element's name, lower case (libxml2's HTML parser folds case); "" for text.
    public private(set) var names: [String] = []
    /// By node: a text node's text (entities decoded, as UTF-8); "" for elements.
    public private(set) var texts: [String] = []
    /// By node: the element's attributes in document order, names lower case.
    public private(set) var attributes: [[(name: String, value: String)]] = []
    public private(set) var parents: [Node] = []
    public private(set) var firstChildren: [Node] = []
    public private(set) var nextSiblings: [Node] = []
    /// The `<html>` element (or the first element), `none` for a document without one.
    public private(set) var root: Node = none
    /// The page's URL, and the URL its relative links resolve against (a `<base href>` if any).
    public let url: String
    public private(set) var baseURL: String
    /// The encoding the page was read in, and why (`HTMLCharset`).
    public let charset: String
    public let charsetOrigin: HTMLCharset.Origin

    private let api: UnsafePointer<tributary_xml>
    private let doc: xmlDocPtr?
    /// Whether libxml2's tree was kept (`parse(xpath:)`).
    private let hasTree: Bool
    /// libxml2's node for each copied node; back, each copied libxml2 node's `_private` (a
    /// field libxml2 leaves to applications) holds its index + 1.
    private var xmlNodes: [xmlNodePtr] = []

    /// Parses `body`; `contentType`: the HTTP header (its charset wins over the page's own).
    /// Fails only when libxml2 cannot be loaded.
    /// `xpath`: keep libxml2's tree for `select` (the `html` source, `fulltext` rules). Without
    /// it the parser builds only the copy, from its events (no tree allocated, walked and
    /// freed), `script` and `style` elements hold a single space (`HTMLRawText`), and `select`
    /// is refused.
    package static func parse(_ body: [UInt8], url: String, contentType: String? = nil, xpath: Bool = true) -> Result<HTMLDocument, SharedLibrary.LoadError> {
        XMLLibrary.shared().map { HTMLDocument(library: $0, body: body, url: url, contentType: contentType, xpath: xpath) }
    }

    /// `HTML_PARSE_HUGE` lifts libxml2's depth limit of 256, past which it stops reading the
    /// page and drops the rest (a page nested deeper would lose its article); its HTML parser
    /// does not recurse, and the copy keeps `maxDepth` levels. Sizes stay bounded by the body.
    static let options = Int32(HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue
                               | HTML_PARSE_NONET.rawValue | HTML_PARSE_COMPACT.rawValue | XML_PARSE_HUGE.rawValue | HTML_PARSE_IGNORE_ENC.rawValue)

    init(library: XMLLibrary, body: [UInt8], url: String, contentType: String?, xpath: Bool) {
        let api = library.api
        self.api = api
        self.url = url
        baseURL = url
        let (charset, origin) = HTMLCharset.decide(body[...], contentType: contentType)
        self.charset = charset
        charsetOrigin = origin
        var bytes = body
        if origin == .byteOrderMark && charset == "UTF-8" { bytes.removeFirst(3) }
        // libxml2 takes an int size; a page that large was refused long before (max_size).
        let size = Int32(clamping: bytes.count)
        Self.silenceErrors(api)
        hasTree = xpath
        guard xpath else {
            doc = nil
            readEvents(HTMLRawText.applies(to: charset) ? HTMLRawText.strip(bytes) : bytes)
            if let base = first("base"), let href = attribute(base, "href"), let absolute = Links.absolute(href, base: url) { baseURL = absolute }
            return
        }
        doc = bytes.withUnsafeBufferPointer { b in
            b.baseAddress.flatMap { p in
                p.withMemoryRebound(to: CChar.self, capacity: b.count) { c in
                    tributary_htmlReadMemory(api, c, size, nil, charset, Self.options)
                }
            } ?? tributary_htmlReadMemory(api, "", 0, nil, charset, Self.options)
        }
        copyTree()
        if let base = first("base"), let href = attribute(base, "href"), let absolute = Links.absolute(href, base: url) { baseURL = absolute }
    }

    deinit {
        if let doc { tributary_xmlFreeDoc(api, doc) }
    }

    public var count: Int { kinds.count }

    // MARK: reading the copy

    public func name(_ n: Node) -> String { names[Int(n)] }
    public func isElement(_ n: Node) -> Bool { kinds[Int(n)] == .element }
    public func text(_ n: Node) -> String { texts[Int(n)] }
    public func parent(_ n: Node) -> Node { parents[Int(n)] }

    /// The value of the attribute `name` (lower case), nil when absent.
    public func attribute(_ n: Node, _ name: String) -> String? {
        for a in attributes[Int(n)] where a.name == name { return a.value }
        return nil
    }

    /// The node's children in order.
    public func children(_ n: Node) -> ChildSequence { ChildSequence(doc: self, first: firstChildren[Int(n)]) }

    public struct ChildSequence: Sequence, IteratorProtocol {
        let doc: HTMLDocument
        var cursor: Node
        init(doc: HTMLDocument, first: Node) { self.doc = doc; cursor = first }
        public mutating func next() -> Node? {
            guard cursor != HTMLDocument.none else { return nil }
            defer { cursor = doc.nextSiblings[Int(cursor)] }
            return cursor
        }
    }

    /// Every node under `n` (not `n`), in document order.
    public func descendants(_ n: Node) -> [Node] {
        var out: [Node] = []
        var stack: [Node] = []
        var c = firstChildren[Int(n)]
        while true {
            if c != Self.none {
                out.append(c)
                stack.append(c)
                c = firstChildren[Int(c)]
                continue
            }
            guard let last = stack.popLast() else { break }
            c = nextSiblings[Int(last)]
        }
        return out
    }

    /// The first element named `name` in document order.
    public func first(_ name: String) -> Node? {
        for i in 0..<kinds.count where kinds[i] == .element && names[i] == name { return Node(i) }
        return nil
    }

    /// The text under `n`, as a browser's `textContent` (every text node, concatenated).
    public func textContent(_ n: Node) -> String {
        if kinds[Int(n)] == .text { return texts[Int(n)] }
        var out = ""
        for d in descendants(n) where kinds[Int(d)] == .text { out += texts[Int(d)] }
        return out
    }

    /// `textContent` with runs of white space folded to one space and trimmed.
    public func normalizedText(_ n: Node) -> String { Self.collapse(textContent(n)) }

    /// Folds runs of ASCII and Unicode white space to one space and trims.
    public static func collapse(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        var pendingSpace = false
        for ch in s.unicodeScalars {
            if ch.properties.isWhitespace {
                pendingSpace = !out.isEmpty
            } else {
                if pendingSpace { out.unicodeScalars.append(" "); pendingSpace = false }
                out.unicodeScalars.append(ch)
            }
        }
        return out
    }

    /// A link of the page made absolute against its base URL (http(s) only), nil otherwise.
    public func absoluteURL(_ link: String?) -> String? { Links.absolute(link.map(Self.collapse), base: baseURL) }

    // MARK: XPath

    /// What an XPath expression gave: nodes of the copy, or strings (an attribute's value, a
    /// `string()`, a number, a boolean, a comment's text).
    public enum Match: Equatable, Sendable {
        case node(Node)
        case value(String)
    }

    /// Why an XPath expression cannot be used.
    public struct XPathError: Error, Equatable, Sendable {
        public let expression: String
        public let reason: String
        public var message: String { "\"\(expression)\" \(reason)" }
    }

    /// Checks that `expression` compiles (config checks); the reason it does not, or nil.
    public static func xpathProblem(_ expression: String) -> String? {
        guard case .success(let library) = XMLLibrary.shared() else { return nil }  // said when a page is read
        switch compile(expression, library.api) {
        case .success(let comp):
            tributary_xmlXPathFreeCompExpr(library.api, comp)
            return nil
        case .failure(let e):
            return e.reason
        }
    }

    /// `expression` compiled by libxml2 (the caller frees it), or why it cannot be.
    private static func compile(_ expression: String, _ api: UnsafePointer<tributary_xml>) -> Result<xmlXPathCompExprPtr, XPathError> {
        if expression.trimmingWhitespaceAndNewlines.isEmpty { return .failure(XPathError(expression: expression, reason: "is empty")) }
        if expression.utf8.contains(0) { return .failure(XPathError(expression: expression, reason: "holds a NUL byte")) }
        silenceErrors(api)
        guard let comp = tributary_xmlXPathCompile(api, expression) else { return .failure(XPathError(expression: expression, reason: "is not a valid XPath 1.0 expression")) }
        return .success(comp)
    }

    /// libxml2 reports XPath errors (an expression that does not compile, an unknown function)
    /// through the calling thread's error functions, which print to stderr unless set: set to
    /// nothing before each compile and evaluation on this thread, as the feed parser leaves them.
    private static func silenceErrors(_ api: UnsafePointer<tributary_xml>) {
        tributary_xml_ignore_generic_errors(api)
        tributary_xmlSetStructuredErrorFunc(api, nil) { _, _ in }
    }

    /// Evaluates `expression` with `context` as the context node (the document when nil).
    public func select(_ expression: String, from context: Node? = nil) throws(XPathError) -> [Match] {
        guard hasTree else { throw XPathError(expression: expression, reason: "cannot be evaluated: the page was read without XPath") }
        // Compiled once per evaluation (checked, then kept for it).
        let comp: xmlXPathCompExprPtr
        switch Self.compile(expression, api) {
        case .success(let c): comp = c
        case .failure(let e): throw e
        }
        // An empty body gives libxml2 no document at all: nothing in it matches.
        guard let doc else {
            tributary_xmlXPathFreeCompExpr(api, comp)
            return []
        }
        defer { tributary_xmlXPathFreeCompExpr(api, comp) }
        guard let ctx = tributary_xmlXPathNewContext(api, doc) else { throw XPathError(expression: expression, reason: "could not be evaluated (out of memory)") }
        defer { tributary_xmlXPathFreeContext(api, ctx) }
        if let context, context >= 0, Int(context) < xmlNodes.count { ctx.pointee.node = xmlNodes[Int(context)] }
        guard let obj = tributary_xmlXPathCompiledEval(api, comp, ctx) else {
            throw XPathError(expression: expression, reason: "could not be evaluated (an unknown function or variable, or a wrong argument)")
        }
        defer { tributary_xmlXPathFreeObject(api, obj) }
        switch obj.pointee.type {
        case XPATH_NODESET:
            guard let set = obj.pointee.nodesetval else { return [] }
            var out: [Match] = []
            let n = Int(set.pointee.nodeNr)
            out.reserveCapacity(n)
            for i in 0..<n {
                guard let node = set.pointee.nodeTab[i] else { continue }
                let type = node.pointee.type
                if type == XML_ELEMENT_NODE || type == XML_TEXT_NODE || type == XML_CDATA_SECTION_NODE, let mark = node.pointee._private,
                   case let index = Int(bitPattern: mark) - 1, index >= 0, index < xmlNodes.count, xmlNodes[index] == node {
                    out.append(.node(Node(index)))
                } else {
                    out.append(.value(Self.stringValue(node)))
                }
            }
            return out
        case XPATH_STRING:
            return [.value(obj.pointee.stringval.map { String(cString: $0) } ?? "")]
        case XPATH_NUMBER:
            let d = obj.pointee.floatval
            return [.value(d.isFinite && d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d))]
        case XPATH_BOOLEAN:
            return [.value(obj.pointee.boolval != 0 ? "true" : "false")]
        default:
            return []
        }
    }

    /// The string value of a libxml2 node the copy does not hold (an attribute, a comment, an
    /// element deeper than `maxDepth`): its text, concatenated.
    private static func stringValue(_ node: xmlNodePtr) -> String {
        switch node.pointee.type {
        case XML_ATTRIBUTE_NODE:
            var out = ""
            var c = node.pointee.children
            while let t = c {
                if let s = t.pointee.content { out += String(cString: s) }
                c = t.pointee.next
            }
            return out
        case XML_TEXT_NODE, XML_CDATA_SECTION_NODE, XML_COMMENT_NODE, XML_PI_NODE:
            return node.pointee.content.map { String(cString: $0) } ?? ""
        default:
            var out = ""
            var stack: [xmlNodePtr] = []
            var c = node.pointee.children
            while true {
                if let n = c {
                    if n.pointee.type == XML_TEXT_NODE || n.pointee.type == XML_CDATA_SECTION_NODE, let s = n.pointee.content { out += String(cString: s) }
                    stack.append(n)
                    c = n.pointee.children
                    continue
                }
                guard let last = stack.popLast() else { break }
                c = last.pointee.next
            }
            return out
        }
    }

    // MARK: building the copy from the parser's events

    /// The element being built under, per open element: its node, or `none` for an element
    /// left out (deeper than `maxDepth`), whose children join the nearest kept one.
    private var open: [Node] = []
    /// The deepest kept open element, and its last child so far.
    private var current: Node = none
    private var lastChild: [Node] = []

    private func readEvents(_ bytes: [UInt8]) {
        var sax = xmlSAXHandler()
        sax.initialized = 1
        sax.startElement = { ctx, name, atts in HTMLDocument.from(ctx).startElement(name, atts) }
        sax.endElement = { ctx, _ in HTMLDocument.from(ctx).endElement() }
        sax.characters = { ctx, ch, len in HTMLDocument.from(ctx).characters(ch, len) }
        sax.ignorableWhitespace = sax.characters
        sax.cdataBlock = sax.characters
        let me = Unmanaged.passUnretained(self).toOpaque()
        guard let ctxt = tributary_htmlCreatePushParserCtxt(api, &sax, me) else { return }
        defer { tributary_htmlFreeParserCtxt(api, ctxt) }
        _ = tributary_htmlCtxtUseOptions(api, ctxt, Self.options)
        _ = tributary_xmlSwitchToNamedEncoding(api, ctxt, charset)
        bytes.withUnsafeBufferPointer { b in
            b.baseAddress?.withMemoryRebound(to: CChar.self, capacity: b.count) { c in
                _ = tributary_htmlParseChunk(api, ctxt, c, Int32(clamping: b.count), 1)
            }
        }
        if bytes.isEmpty { _ = tributary_htmlParseChunk(api, ctxt, nil, 0, 1) }
        xmlNodes = []
    }

    /// libxml2's `htmlIsBooleanAttr` list.
    private static let booleanAttributes: Set<String> = ["checked", "compact", "declare", "defer", "disabled", "ismap", "multiple", "nohref", "noresize",
                                                         "noshade", "nowrap", "readonly", "selected"]

    private static func from(_ ctx: UnsafeMutableRawPointer?) -> HTMLDocument {
        Unmanaged<HTMLDocument>.fromOpaque(ctx!).takeUnretainedValue()
    }

    private func startElement(_ name: UnsafePointer<xmlChar>?, _ atts: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?) {
        if open.count >= Self.maxDepth {
            open.append(Self.none)
            return
        }
        var attrs: [(name: String, value: String)] = []
        if var p = atts {
            while let n = p.pointee {
                let v = p.advanced(by: 1).pointee
                // HTML 4's boolean attributes (`defer`) without a value have their name as their
                // value, others an empty one, as in libxml2's tree.
                let name = elementName(n)
                attrs.append((name, v.map { String(cString: $0) } ?? (Self.booleanAttributes.contains(name) ? name : "")))
                p = p.advanced(by: 2)
            }
        }
        let n = appendNode(.element, name: elementName(name), text: "", attributes: attrs, parent: current)
        open.append(n)
        current = n
    }

    private func endElement() {
        guard let n = open.popLast() else { return }
        guard n != Self.none else { return }
        current = open.last(where: { $0 != Self.none }) ?? Self.none
    }

    private func characters(_ ch: UnsafePointer<xmlChar>?, _ len: Int32) {
        guard let ch, len > 0, current != Self.none else { return }
        let s = String(decoding: UnsafeBufferPointer(start: ch, count: Int(len)), as: UTF8.self)
        // Text in several events is one text node, as libxml2's own tree makes it.
        let last = Int(lastChild[Int(current)])
        if last >= 0 && kinds[last] == .text && nextSiblings[last] == Self.none {
            texts[last] += s
        } else {
            _ = appendNode(.text, name: "", text: s, attributes: [], parent: current)
        }
    }

    /// Appends a node under `parent` (after its last child).
    private func appendNode(_ kind: Kind, name: String, text: String, attributes attrs: [(name: String, value: String)], parent: Node) -> Node {
        let n = Node(kinds.count)
        kinds.append(kind)
        names.append(name)
        texts.append(text)
        attributes.append(attrs)
        parents.append(parent)
        firstChildren.append(Self.none)
        nextSiblings.append(Self.none)
        lastChild.append(Self.none)
        if parent != Self.none {
            let prev = lastChild[Int(parent)]
            if prev != Self.none { nextSiblings[Int(prev)] = n } else { firstChildren[Int(parent)] = n }
            lastChild[Int(parent)] = n
        } else {
            if let top = topLevelLast { nextSiblings[Int(top)] = n }
            topLevelLast = n
            // The root: the top-level `<html>`, else the first top-level element.
            if kind == .element, root == Self.none || (names[Int(root)] != "html" && name == "html") { root = n }
        }
        return n
    }

    private var topLevelLast: Node?

    // MARK: building the copy from libxml2's tree

    private var names_: [UnsafeRawPointer: String] = [:]

    /// `appendNode`, remembering libxml2's node both ways.
    private func append(_ kind: Kind, name: String, text: String, attributes attrs: [(name: String, value: String)], parent: Node, xml: xmlNodePtr) -> Node {
        let n = appendNode(kind, name: name, text: text, attributes: attrs, parent: parent)
        xmlNodes.append(xml)
        xml.pointee._private = UnsafeMutableRawPointer(bitPattern: Int(n) + 1)
        return n
    }

    private func elementName(_ p: UnsafePointer<xmlChar>?) -> String {
        guard let p else { return "" }
        let key = UnsafeRawPointer(p)
        if let s = names_[key] { return s }
        let s = String(cString: p).lowercased()
        names_[key] = s
        return s
    }

    private func readAttributes(_ node: xmlNodePtr) -> [(name: String, value: String)] {
        var out: [(name: String, value: String)] = []
        var a = node.pointee.properties
        while let attr = a {
            var value = ""
            var c = attr.pointee.children
            while let t = c {
                if let s = t.pointee.content { value += String(cString: s) }
                c = t.pointee.next
            }
            out.append((elementName(attr.pointee.name), value))
            a = attr.pointee.next
        }
        return out
    }

    /// Copies libxml2's tree, without recursion: elements and text (CDATA as text), comments
    /// and the rest left out.
    private func copyTree() {
        guard let doc else { return }
        // Frames: the libxml2 node whose children are walked next, the copy's node they hang
        // under (an element deeper than `maxDepth` is left out: its children join its parent's).
        struct Frame { var next: xmlNodePtr?; let parent: Node; let depth: Int }
        var stack = [Frame(next: doc.pointee.children, parent: Self.none, depth: 0)]
        while let frame = stack.last {
            guard let node = frame.next else { stack.removeLast(); continue }
            stack[stack.count - 1].next = node.pointee.next
            switch node.pointee.type {
            case XML_ELEMENT_NODE:
                if frame.depth >= Self.maxDepth {
                    stack.append(Frame(next: node.pointee.children, parent: frame.parent, depth: frame.depth))
                    continue
                }
                let n = append(.element, name: elementName(node.pointee.name), text: "", attributes: readAttributes(node), parent: frame.parent, xml: node)
                stack.append(Frame(next: node.pointee.children, parent: n, depth: frame.depth + 1))
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                guard frame.parent != Self.none, let content = node.pointee.content else { continue }
                _ = append(.text, name: "", text: String(cString: content), attributes: [], parent: frame.parent, xml: node)
            default:
                continue
            }
        }
    }
}
