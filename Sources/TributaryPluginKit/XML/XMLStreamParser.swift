internal import CXML
import TributaryCore
#if canImport(Glibc)
import Glibc
#endif

/// Why a document could not be read as XML, where (1-based line and column, as libxml2 counts
/// them), and in words: ours for the usual mistakes, then libxml2's own message.
package struct XMLSyntaxError: Error, CustomStringConvertible {
    package let line: Int
    package let column: Int
    package let reason: String
    /// The document went past one of the parser's limits (entities) rather than breaking XML.
    package var isLimit = false

    package var description: String { (isLimit ? "XML refused" : "malformed XML") + " at line \(line), column \(column): \(reason)" }
}

/// What XMLStreamParser reports, in document order. Names and namespaces are strings, text is
/// UTF-8 bytes (valid for the call only).
package protocol XMLEventHandler: AnyObject {
    /// `namespace` is the declared namespace URI ("" for none and for an undeclared prefix).
    func startElement(namespace: String, prefix: String?, name: String, attributes: [(name: String, value: String)])
    func endElement()
    func text(_ utf8: UnsafeBufferPointer<UInt8>)
    /// Asked after each start of an element: true ends the parse there, without an error.
    var wantsToStop: Bool { get }
}

/// A streaming XML reader over libxml2's SAX2 push parser: the caller hands it the document in
/// pieces, and events go to the handler as the pieces are parsed, so no tree of the document is
/// ever built and memory does not grow with it.
///
/// libxml2 runs with `XML_PARSE_HUGE` (no 10 MB limit on the document, a text node or an
/// attribute; no depth limit, since the builder limits what it keeps) and `XML_PARSE_NONET`,
/// without `XML_PARSE_NOENT` and `XML_PARSE_DTDLOAD`: in libxml2 2.9.14 `NOENT` makes the parser
/// load external entities (file: and, without NONET, http:) and `DTDLOAD` loads external DTDs and
/// parameter entities, and `HUGE` switches off its entity amplification checks. So entities are
/// handled here instead, through the SAX callbacks:
///
/// - Declarations (`entityDecl`) are recorded here; libxml2 keeps none it would act on.
/// - A reference to an internal entity in text is expanded here (`expand`: character references,
///   predefined entities and nested entities, at most 40 deep, never more text in total than the
///   document's size or 1 MiB, whichever is more), handed to the handler as text, and libxml2 is
///   given a stand-in predefined entity with empty content, so it inlines nothing itself.
/// - In attribute values libxml2 is given a stand-in that makes it keep the reference as written
///   (`&name;`, and a literal `&` as `&#38;`); `decodeAttribute` then expands it the same way.
/// - External entities (`SYSTEM`, `PUBLIC`) are never resolved: the reference stays as written,
///   `&name;`, and the text around it is kept; `unresolved` names them. libxml2 never sees an
///   external entity, so it never asks to load one.
/// - Parameter entities are never expanded (libxml2 gets an empty stand-in), and no external
///   DTD is read (no `externalSubset` callback). XInclude is not processed (nothing calls it).
/// - As a second lock, XMLLibrary sets an external entity loader that refuses everything.
package final class XMLStreamParser {
    enum Declaration {
        case text([UInt8])
        case external
    }

    static let options = Int32(bitPattern: XML_PARSE_HUGE.rawValue | XML_PARSE_NONET.rawValue)
    /// How deep entities may nest inside entities (libxml2's own limit without XML_PARSE_HUGE).
    static let maxEntityDepth = 40

    private let api: UnsafePointer<tributary_xml>
    private unowned let handler: any XMLEventHandler
    private var ctxt: xmlParserCtxtPtr?
    /// Added to every line number: lines of white space the caller dropped before `<?xml`.
    private let lineOffset: Int

    package private(set) var error: XMLSyntaxError?
    /// The handler asked to stop.
    private(set) var stopped = false
    /// Parsing is over: the end was reached, an error occurred, or the handler stopped it.
    package private(set) var isDone = false

    private var declarations: [String: Declaration] = [:]
    private var parameterEntities: [String] = []
    private var expansions: [String: [UInt8]] = [:]
    private var expanding: Set<String> = []
    /// Bytes of entity text produced so far (expansions computed, and each use of one).
    private var expandedBytes = 0
    let expansionLimit: Int
    /// External or undeclared entities kept as written, each name once, in order.
    package private(set) var unresolved: [String] = []
    /// Declared parameter entities, each ignored.
    package var ignoredParameterEntities: [String] { parameterEntities }

    /// libxml2's names (element, prefix, namespace URI) come from its dictionary, one pointer per
    /// distinct string: each becomes a Swift string once.
    private var names: [UnsafeRawPointer: String] = [:]

    private let textStandIn: UnsafeMutablePointer<xmlEntity>
    private let parameterStandIn: UnsafeMutablePointer<xmlEntity>
    private var attributeStandIns: [String: UnsafeMutablePointer<xmlEntity>] = [:]
    private var cStrings: [UnsafeMutablePointer<CChar>] = []

    /// - Parameters:
    ///   - documentSize: the size of the whole document, for the entity expansion limit.
    ///   - extraOptions: added to `options` (tests only: to show that even `XML_PARSE_NOENT` or
    ///     `XML_PARSE_DTDLOAD` load nothing through these callbacks).
    package init(library: XMLLibrary, handler: any XMLEventHandler, documentSize: Int, lineOffset: Int = 0, extraOptions: Int32 = 0) {
        api = library.api
        self.handler = handler
        self.lineOffset = lineOffset
        expansionLimit = max(1 << 20, documentSize)
        textStandIn = .allocate(capacity: 1)
        parameterStandIn = .allocate(capacity: 1)
        textStandIn.initialize(to: xmlEntity())
        parameterStandIn.initialize(to: xmlEntity())
        fill(textStandIn, name: "tributary-text", type: XML_INTERNAL_PREDEFINED_ENTITY, content: "")
        fill(parameterStandIn, name: "tributary-parameter", type: XML_INTERNAL_PARAMETER_ENTITY, content: "")

        var sax = xmlSAXHandler()
        sax.initialized = UInt32(truncatingIfNeeded: XML_SAX2_MAGIC)
        sax.startElementNs = { ctx, localname, prefix, uri, _, _, count, _, attributes in
            XMLStreamParser.from(ctx).startElement(localname, prefix, uri, Int(count), attributes)
        }
        sax.endElementNs = { ctx, _, _, _ in XMLStreamParser.from(ctx).endElement() }
        sax.characters = { ctx, ch, len in XMLStreamParser.from(ctx).characters(ch, len) }
        sax.ignorableWhitespace = sax.characters
        sax.cdataBlock = { ctx, ch, len in XMLStreamParser.from(ctx).characters(ch, len) }
        sax.reference = { ctx, name in XMLStreamParser.from(ctx).reference(name) }
        sax.entityDecl = { ctx, name, type, _, _, content in XMLStreamParser.from(ctx).entityDecl(name, Int(type), content) }
        sax.unparsedEntityDecl = { ctx, name, _, _, _ in XMLStreamParser.from(ctx).entityDecl(name, Int(XML_EXTERNAL_GENERAL_UNPARSED_ENTITY.rawValue), nil) }
        sax.getEntity = { ctx, name in XMLStreamParser.from(ctx).entity(name) }
        sax.getParameterEntity = { ctx, name in XMLStreamParser.from(ctx).parameterEntity(name) }
        sax.serror = { ctx, error in XMLStreamParser.from(ctx).report(error) }
        // No externalSubset, resolveEntity or internalSubset callbacks: nothing to load, nothing to build.

        let me = Unmanaged.passUnretained(self).toOpaque()
        ctxt = tributary_xmlCreatePushParserCtxt(api, &sax, me, nil, 0)
        if let ctxt {
            _ = tributary_xmlCtxtUseOptions(api, ctxt, Self.options | extraOptions)
        } else {
            error = XMLSyntaxError(line: 1, column: 1, reason: "libxml2 could not create a parser (out of memory?)")
            isDone = true
        }
    }

    deinit {
        if let ctxt {
            if let doc = ctxt.pointee.myDoc { tributary_xmlFreeDoc(api, doc) }  // the entity table libxml2 keeps "for expat compatibility"
            tributary_xmlFreeParserCtxt(api, ctxt)
        }
        for p in [textStandIn, parameterStandIn] + Array(attributeStandIns.values) {
            p.deinitialize(count: 1)
            p.deallocate()
        }
        for s in cStrings { free(s) }
    }

    /// Parses the next piece of the document. Call `finish()` after the last one.
    package func parse(_ piece: UnsafeRawBufferPointer) {
        guard !isDone, let ctxt, piece.count > 0 else { return }
        withErrorsReportedHere {
            _ = tributary_xmlParseChunk(api, ctxt, piece.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(piece.count), 0)
        }
        checkDone(final: false)
    }

    /// Tells libxml2 the document ended; its last checks (unclosed elements) run now.
    package func finish() {
        guard !isDone, let ctxt else { return }
        withErrorsReportedHere { _ = tributary_xmlParseChunk(api, ctxt, nil, 0, 1) }
        checkDone(final: true)
    }

    /// libxml2 reports errors that have no parser context (an encoder failure) through the
    /// calling thread's error functions: pointed here for the call, then back to nothing, so no
    /// error is ever printed and none reaches this object after it is gone.
    private func withErrorsReportedHere(_ body: () -> Void) {
        tributary_xml_ignore_generic_errors(api)
        tributary_xmlSetStructuredErrorFunc(api, Unmanaged.passUnretained(self).toOpaque()) { ctx, error in XMLStreamParser.from(ctx).report(error) }
        body()
        tributary_xmlSetStructuredErrorFunc(api, nil) { _, _ in }
    }

    private func checkDone(final: Bool) {
        guard let ctxt else { return }
        if error != nil || stopped || final || ctxt.pointee.instate == XML_PARSER_EOF { isDone = true }
        guard isDone, error == nil, !stopped, ctxt.pointee.wellFormed == 0 else { return }
        // Not well-formed, yet no fatal error came through the callback: take libxml2's last one.
        let last = ctxt.pointee.lastError
        let message = last.message.map { String(cString: $0) } ?? "XML error \(last.code)"
        error = XMLSyntaxError(line: Int(last.line) + lineOffset, column: Int(last.int2), reason: Self.reason(code: Int(last.code), message: message))
    }

    private func stop() {
        guard let ctxt else { return }
        tributary_xmlStopParser(api, ctxt)
    }

    private var position: (line: Int, column: Int) {
        guard let input = ctxt?.pointee.input else { return (1 + lineOffset, 1) }
        return (Int(input.pointee.line) + lineOffset, Int(input.pointee.col))
    }

    private func fail(_ reason: String, isLimit: Bool) {
        if error == nil {
            let (line, column) = position
            error = XMLSyntaxError(line: line, column: column, reason: reason, isLimit: isLimit)
        }
        stop()
    }

    // MARK: callbacks

    private static func from(_ ctx: UnsafeMutableRawPointer?) -> XMLStreamParser {
        Unmanaged<XMLStreamParser>.fromOpaque(ctx!).takeUnretainedValue()
    }

    private func name(_ p: UnsafePointer<xmlChar>) -> String {
        let key = UnsafeRawPointer(p)
        if let s = names[key] { return s }
        let s = String(cString: p)
        names[key] = s
        return s
    }

    private func startElement(_ localname: UnsafePointer<xmlChar>?, _ prefix: UnsafePointer<xmlChar>?, _ uri: UnsafePointer<xmlChar>?,
                              _ count: Int, _ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?) {
        guard error == nil, let localname else { return }
        var list: [(name: String, value: String)] = []
        if count > 0, let attributes {
            list.reserveCapacity(count)
            for i in 0..<count {
                // localname, prefix, URI, value, end of value
                guard let local = attributes[5 * i], let start = attributes[5 * i + 3], let end = attributes[5 * i + 4] else { continue }
                let qualified = attributes[5 * i + 1].map { name($0) + ":" + name(local) } ?? name(local)
                let value = decodeAttribute(UnsafeBufferPointer(start: start, count: start.distance(to: end)))
                list.append((qualified, value))
            }
        }
        guard error == nil else { return }
        handler.startElement(namespace: uri.map(name) ?? "", prefix: prefix.map(name), name: name(localname), attributes: list)
        if handler.wantsToStop {
            stopped = true
            stop()
        }
    }

    private func endElement() {
        guard error == nil, !stopped else { return }
        handler.endElement()
    }

    private func characters(_ ch: UnsafePointer<xmlChar>?, _ len: Int32) {
        guard error == nil, !stopped, let ch, len > 0 else { return }
        handler.text(UnsafeBufferPointer(start: ch, count: Int(len)))
    }

    private func text(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { handler.text($0) }
    }

    /// libxml2 met `&name;` for an entity nobody declared, in a document whose DTD it could not
    /// see whole (an external DTD or parameter entities): a warning, and the reference stays.
    private func reference(_ name: UnsafePointer<xmlChar>?) {
        guard error == nil, !stopped, let name else { return }
        let n = String(cString: name)
        noteUnresolved(n)
        text(Array("&\(n);".utf8))
    }

    private func noteUnresolved(_ name: String) {
        if !unresolved.contains(name) { unresolved.append(name) }
    }

    private func entityDecl(_ name: UnsafePointer<xmlChar>?, _ type: Int, _ content: UnsafeMutablePointer<xmlChar>?) {
        guard let name else { return }
        let n = String(cString: name)
        switch UInt32(type) {
        case XML_INTERNAL_PARAMETER_ENTITY.rawValue, XML_EXTERNAL_PARAMETER_ENTITY.rawValue:
            if !parameterEntities.contains(n) { parameterEntities.append(n) }
        case XML_INTERNAL_GENERAL_ENTITY.rawValue:
            // The first declaration of a name is binding (XML 1.0, 4.2).
            if declarations[n] == nil { declarations[n] = .text(content.map { Array(UnsafeBufferPointer(start: $0, count: strlen(UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self)))) } ?? []) }
        default:
            if declarations[n] == nil { declarations[n] = .external }
        }
    }

    /// libxml2 asks what `&name;` is. In text the entity is expanded and delivered here, and
    /// libxml2 gets an empty predefined stand-in; anywhere else (attribute values, the DTD) it gets
    /// a stand-in that makes it keep `&name;` as written, expanded later by `decodeAttribute`.
    private func entity(_ name: UnsafePointer<xmlChar>?) -> xmlEntityPtr? {
        guard error == nil, !stopped, let name, let ctxt else { return nil }
        let n = String(cString: name)
        guard let declaration = declarations[n] else { return nil }  // undeclared: libxml2 decides (an error without a DTD it cannot see)
        guard ctxt.pointee.instate == XML_PARSER_CONTENT else { return attributeStandIn(n) }
        switch declaration {
        case .external:
            noteUnresolved(n)
            text(Array("&\(n);".utf8))
        case .text:
            guard let bytes = use(n) else { return nil }
            text(bytes)
        }
        return textStandIn
    }

    private func parameterEntity(_ name: UnsafePointer<xmlChar>?) -> xmlEntityPtr? {
        guard let name else { return nil }
        return parameterEntities.contains(String(cString: name)) ? parameterStandIn : nil
    }

    private func report(_ e: xmlErrorPtr?) {
        guard let e = e?.pointee, error == nil else { return }
        // Namespace errors: well-formed XML whose prefix is undeclared, as in feeds that use
        // `media:` without `xmlns:media` (the builder knows what the usual prefixes mean).
        guard e.domain != Int32(XML_FROM_NAMESPACE.rawValue), e.level == XML_ERR_FATAL else { return }
        let message = e.message.map { String(cString: $0) } ?? "XML error \(e.code)"
        error = XMLSyntaxError(line: Int(e.line) + lineOffset, column: Int(e.int2), reason: Self.reason(code: Int(e.code), message: message))
    }

    // MARK: entities

    private func fill(_ e: UnsafeMutablePointer<xmlEntity>, name: String, type: xmlEntityType, content: String) {
        let n = strdup(name)!, c = strdup(content)!, orig = strdup("")!
        cStrings += [n, c, orig]
        e.pointee.type = XML_ENTITY_DECL
        e.pointee.etype = type
        e.pointee.name = UnsafePointer(UnsafeMutableRawPointer(n).assumingMemoryBound(to: xmlChar.self))
        e.pointee.content = UnsafeMutableRawPointer(c).assumingMemoryBound(to: xmlChar.self)
        e.pointee.length = Int32(content.utf8.count)
        // Non-null, so that libxml2 does not store the declaration's raw value in it.
        e.pointee.orig = UnsafeMutableRawPointer(orig).assumingMemoryBound(to: xmlChar.self)
        // Checked, without '<' (checked & 1 == 0): libxml2 neither re-parses nor rejects it.
        e.pointee.checked = 2
    }

    private func attributeStandIn(_ name: String) -> xmlEntityPtr {
        if let e = attributeStandIns[name] { return e }
        let e = UnsafeMutablePointer<xmlEntity>.allocate(capacity: 1)
        e.initialize(to: xmlEntity())
        fill(e, name: name, type: XML_INTERNAL_GENERAL_ENTITY, content: "-")
        attributeStandIns[name] = e
        return e
    }

    /// The text of one use of internal entity `name`, counted against the limit; nil after an error.
    private func use(_ name: String) -> [UInt8]? {
        guard let bytes = expand(name, depth: 0, top: name) else { return nil }
        guard spend(bytes.count, top: name) else { return nil }
        return bytes
    }

    private func spend(_ count: Int, top: String) -> Bool {
        expandedBytes += count
        guard expandedBytes <= expansionLimit else {
            fail("entities expanded too much: with &\(top); the document's entities come to more than \(Self.size(expansionLimit)) of text "
                 + "(a document may expand to its own size, at least 1 MiB; a \"billion laughs\" document expands to gigabytes)", isLimit: true)
            return false
        }
        return true
    }

    /// The replacement text of internal entity `name`, its references expanded (XML 1.0, 4.4.5):
    /// character references, the predefined entities, internal entities (nested at most
    /// `maxEntityDepth` deep); external and undeclared ones kept as written. Each entity is
    /// expanded once and remembered; every byte made counts against `expansionLimit`.
    private func expand(_ name: String, depth: Int, top: String) -> [UInt8]? {
        if let done = expansions[name] { return done }
        guard case .text(let value)? = declarations[name] else {
            noteUnresolved(name)
            return Array("&\(name);".utf8)
        }
        guard !expanding.contains(name) else {
            fail("entity &\(name); refers to itself" + (name == top ? "" : " (through &\(top);)"), isLimit: false)
            return nil
        }
        guard depth < Self.maxEntityDepth else {
            fail("entities nested more than \(Self.maxEntityDepth) deep (&\(top);)", isLimit: true)
            return nil
        }
        expanding.insert(name)
        defer { expanding.remove(name) }
        var out: [UInt8] = []
        var failed = false
        Self.scanReferences(value, literal: { out += $0 }, reference: { ref in
            if let scalar = Self.characterReference(ref) {
                out += Array(String(Character(scalar)).utf8)
            } else if let predefined = Self.predefined(ref) {
                out.append(predefined)
            } else if let inner = expand(String(decoding: ref, as: UTF8.self), depth: depth + 1, top: top) {
                out += inner
            } else {
                failed = true
            }
            if !failed, expandedBytes + out.count > expansionLimit {
                _ = spend(out.count, top: top)
                failed = true
            }
            return !failed
        })
        guard !failed, spend(out.count, top: top) else { return nil }
        expansions[name] = out
        return out
    }

    /// Splits `bytes` into literal runs and `&...;` references (the part between `&` and `;`), in
    /// order; a `&` with no `;` after it is literal. `reference` returns false to stop. Linear: the
    /// next `;` is looked for once, not once per `&`.
    static func scanReferences<C: RandomAccessCollection<UInt8>>(_ bytes: C, literal: (C.SubSequence) -> Void, reference: (C.SubSequence) -> Bool) where C.Index == Int {
        var i = bytes.startIndex
        var semicolon = i - 1
        while i < bytes.endIndex {
            guard bytes[i] == UInt8(ascii: "&") else {
                let next = bytes[(i + 1)...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.endIndex
                literal(bytes[i..<next])
                i = next
                continue
            }
            if semicolon < i { semicolon = bytes[i...].firstIndex(of: UInt8(ascii: ";")) ?? bytes.endIndex }
            guard semicolon < bytes.endIndex, semicolon > i + 1 else {
                literal(bytes[i...i])
                i += 1
                continue
            }
            guard reference(bytes[(i + 1)..<semicolon]) else { return }
            i = semicolon + 1
        }
    }

    /// An attribute value as libxml2 hands it over without entity substitution: `&#38;` for a
    /// literal `&` and `&name;` for an entity reference; the rest already decoded.
    private func decodeAttribute(_ raw: UnsafeBufferPointer<UInt8>) -> String {
        guard raw.contains(UInt8(ascii: "&")) else { return String(decoding: raw, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var failed = false
        Self.scanReferences(raw, literal: { out += $0 }, reference: { ref in
            if let scalar = Self.characterReference(ref) {
                out += Array(String(Character(scalar)).utf8)
            } else if let predefined = Self.predefined(ref) {
                out.append(predefined)
            } else {
                let n = String(decoding: ref, as: UTF8.self)
                guard case .text? = declarations[n] else {
                    noteUnresolved(n)
                    out += Array("&\(n);".utf8)
                    return true
                }
                guard let bytes = use(n) else {
                    failed = true
                    return false
                }
                // Attribute-value normalization (XML 1.0, 3.3.3): white space characters become spaces.
                out += bytes.map { $0 == 0x09 || $0 == 0x0A || $0 == 0x0D ? 0x20 : $0 }
            }
            return true
        })
        return failed ? "" : String(decoding: out, as: UTF8.self)
    }

    static func characterReference<C: Collection<UInt8>>(_ ref: C) -> Unicode.Scalar? {
        guard ref.first == UInt8(ascii: "#"), ref.count > 1 else { return nil }
        let hex = ref.dropFirst().first == UInt8(ascii: "x")
        let digits = ref.dropFirst(hex ? 2 : 1)
        guard !digits.isEmpty, digits.count <= 8, let v = UInt32(String(decoding: digits, as: UTF8.self), radix: hex ? 16 : 10) else { return nil }
        return Unicode.Scalar(v)
    }

    static func predefined<C: Collection<UInt8>>(_ ref: C) -> UInt8? {
        switch String(decoding: ref, as: UTF8.self) {
        case "amp": return UInt8(ascii: "&")
        case "lt": return UInt8(ascii: "<")
        case "gt": return UInt8(ascii: ">")
        case "quot": return UInt8(ascii: "\"")
        case "apos": return UInt8(ascii: "'")
        default: return nil
        }
    }

    package static func size(_ bytes: Int) -> String {
        let mib = Double(bytes) / Double(1 << 20)
        return mib == mib.rounded() ? "\(Int(mib)) MiB" : "\((mib * 10).rounded() / 10) MiB"
    }

    // MARK: messages

    /// Our words for the mistakes feeds make most (`xmlParserErrors`), else libxml2's message.
    static func reason(code: Int, message: String) -> String {
        let m = message.trimmingCharacters(in: " \n")
        let words: String?
        switch code {
        case 4: words = "the document is empty"
        case 5: words = "the document does not end properly (an element is not closed, or something follows the root element)"
        case 6, 7, 8: words = "invalid character reference"
        case 9: words = "a character that XML does not allow"
        case 22, 23, 68: words = "a bare '&' or '<' (text must escape them as &amp; and &lt;, or sit in CDATA)"
        case 26, 27: words = "undeclared entity (HTML entities such as &nbsp; are not XML; the feed must use &#160;)"
        case 31, 32, 79: words = "unsupported character encoding"
        case 38: words = "'<' inside an attribute value"
        case 39, 40, 41, 43, 44: words = "malformed attribute"
        case 42: words = "an attribute is repeated"
        case 45: words = "a comment is not closed"
        case 63: words = "a CDATA section is not closed"
        case 64: words = "the XML declaration is not at the very start"
        case 65, 73, 77: words = "a tag is not closed properly"
        case 76: words = "mismatched closing tag"
        case 81: words = "the bytes are not valid in the declared encoding"
        case 85, 86: words = "content after the root element"
        case 89: words = "entities expanded too much"
        case 6000...6099: words = "the bytes are not valid in the declared encoding"
        default: words = nil
        }
        // Our words alone when we have them (as with FoundationXML); libxml2's otherwise.
        return words ?? (m.isEmpty ? "XML error \(code)" : m)
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s.removeFirst() }
        while let l = s.last, set.contains(l) { s.removeLast() }
        return String(s)
    }
}
