import TributaryPluginKit
import TributaryCore

/// One response body read as a feed, a batch of entries at a time. The format comes from the
/// document, never from the URL or the Content-Type: `{` is JSON Feed (parsed whole by the
/// JSON layer), `<` is RSS or Atom by its root element, parsed as the entries are asked for,
/// `pieceSize` bytes at a time, so only the entries not yet handed out are held (and the body).
///
/// Every failure is a `FeedFormatError` whose message is what the source reports after
/// `GET <url>: `.
final class FeedBodyReader {
    static let pieceSize = 64 << 10

    let url: String
    let contentType: String
    private let body: [UInt8]
    private var jsonEntries: ArraySlice<FeedEntry> = []
    private var jsonDocument: FeedDocument?
    private var xml: XMLPart?
    private(set) var warnings: [String] = []
    private var handedOut = 0

    /// The XML side: the bytes libxml2 reads (the body, or its windows-1252 reading), how far
    /// it has read, and what turns its events into entries.
    private struct XMLPart {
        let bytes: [UInt8]
        var offset: Int
        let parser: XMLStreamParser
        let builder: FeedStreamBuilder
    }

    /// - Parameter extraXMLOptions: tests only (XMLStreamParser).
    init(_ body: [UInt8], url: String, contentType: String?, extraXMLOptions: Int32 = 0) throws(FeedFormatError) {
        self.body = body
        self.url = url
        self.contentType = contentType ?? "no content type"
        var start = body.startIndex
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { start += 3 }
        while start < body.endIndex, [0x20, 0x09, 0x0A, 0x0D].contains(body[start]) { start += 1 }
        guard start < body.endIndex else { throw FeedFormatError("empty response body, expected an RSS, Atom or JSON feed") }
        switch body[start] {
        case UInt8(ascii: "{"):
            let doc: JSONValue
            do {
                doc = try JSONParser.parse(body)
            } catch {
                throw FeedFormatError("invalid JSON at \(error.line):\(error.column): \(error.message)")
            }
            guard JSONFeedReader.version(doc) != nil else {
                let found = doc.objectValue?["version"].map { String(decoding: JSONWriter.serialize($0), as: UTF8.self) }
                throw FeedFormatError("a JSON document that is not a JSON Feed (" + (found.map { "\"version\" is \($0.prefix(60))" } ?? "no \"version\"")
                    + ", expected \"\(JSONFeedReader.versionPrefix)1.1\")")
            }
            do {
                let d = try JSONFeedReader.read(doc, base: url)
                jsonDocument = d
                jsonEntries = d.entries[...]
            } catch {
                throw FeedFormatError("\(error)")
            }
        case UInt8(ascii: "["):
            throw FeedFormatError("a JSON array, not a feed (expected an RSS, Atom or JSON feed)")
        case UInt8(ascii: "<"):
            if HTMLPage.looksLikeHTML(body[start...]) { throw htmlError() }
            xml = try Self.xmlPart(body, start: start, url: url, extraOptions: extraXMLOptions, warnings: &warnings)
        default:
            let head = FeedText.singleLine(String(decoding: body[start...].prefix(40), as: UTF8.self))
            throw FeedFormatError("not an RSS, Atom or JSON feed: the body starts with \"\(head)\" (\(self.contentType))")
        }
    }

    private static func xmlPart(_ body: [UInt8], start: Int, url: String, extraOptions: Int32, warnings: inout [String]) throws(FeedFormatError) -> XMLPart {
        // White space before `<?xml` is common in the wild and strictly malformed; accept it,
        // keeping line numbers true to the original bytes.
        var from = body.startIndex
        var skippedLines = 0
        if start > body.startIndex, body[start...].starts(with: Array("<?xml".utf8)) {
            skippedLines = body[..<start].filter { $0 == 0x0A }.count
            from = start
        }
        var bytes = from == body.startIndex ? body : Array(body[from...])
        let text = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes[3...] : bytes[...]
        let declared = FeedEncoding.declared(text.drop(while: { [0x20, 0x09, 0x0A, 0x0D].contains($0) })) ?? "utf-8"
        if !FeedEncoding.isWide(text), declared == "utf-8" || declared == "utf8", let bad = FeedEncoding.firstInvalidUTF8(text) {
            let (line, column) = FeedEncoding.position(of: bad, in: text)
            let byte = "0x" + String(text[text.startIndex + bad], radix: 16, uppercase: true)
            warnings.append("the document is not valid UTF-8 (byte \(byte) at line \(line + skippedLines), column \(column)) and declares no other encoding; read as windows-1252")
            bytes = FeedEncoding.windows1252ToUTF8(text)
        }
        let library: XMLLibrary
        switch XMLLibrary.shared() {
        case .success(let lib): library = lib
        case .failure(let e): throw FeedFormatError(e.message)
        }
        let builder = FeedStreamBuilder(baseURL: url)
        let parser = XMLStreamParser(library: library, handler: builder, documentSize: bytes.count, lineOffset: skippedLines, extraOptions: extraOptions)
        return XMLPart(bytes: bytes, offset: 0, parser: parser, builder: builder)
    }

    /// "RSS 2.0", "RSS 1.0", "Atom", "JSON Feed" (once the root element has been read).
    var format: String { jsonDocument?.format ?? xml?.builder.format?.rawValue ?? "XML" }
    /// The feed's own title, as far as it has been read.
    var title: String? { jsonDocument?.title ?? xml?.builder.feedTitle }
    /// Atom: the feed's authors, for entries that name none.
    var feedAuthor: String? { xml?.builder.feedAuthor }
    /// How often the feed says to ask again (RSS `<ttl>`, `sy:updatePeriod`), as far as read.
    var intervalHint: IntervalHint? { xml?.builder.intervalHint }
    /// Entries read, handed out or not.
    var entryCount: Int { jsonDocument?.entries.count ?? xml?.builder.entryCount ?? 0 }

    /// The next entries, at most `count`; nil once the document has no more. Throws the first
    /// problem with the document (entries read but not handed out before it are dropped).
    func next(max count: Int) throws(FeedFormatError) -> [FeedEntry]? {
        guard var part = xml else {
            let batch = jsonEntries.prefix(count)
            jsonEntries = jsonEntries.dropFirst(batch.count)
            return batch.isEmpty ? nil : Array(batch)
        }
        while part.builder.entries.count < count && !part.parser.isDone {
            if part.offset < part.bytes.count {
                let end = min(part.offset + Self.pieceSize, part.bytes.count)
                let from = part.offset
                part.bytes.withUnsafeBytes { raw in part.parser.parse(UnsafeRawBufferPointer(rebasing: raw[from..<end])) }
                part.offset = end
            } else {
                part.parser.finish()
            }
        }
        xml = part
        if let e = part.parser.error {
            if handedOut == 0 && !e.isLimit && HTMLPage.mentionsHTML(body) { throw htmlError() }
            throw FeedFormatError(e.description)
        }
        switch part.builder.notAFeed {
        case .html?:
            throw htmlError()
        case .other(let name, let ns)?:
            throw FeedFormatError("an XML document with root element <\(name)>\(ns.isEmpty ? "" : " (namespace \(ns))"), not an RSS, Atom or JSON feed")
        case nil:
            break
        }
        let batch = part.builder.take(count)
        handedOut += batch.count
        if batch.isEmpty {
            finishWarnings(part)
            return nil
        }
        return batch
    }

    private var warned = false

    private func finishWarnings(_ part: XMLPart) {
        guard !warned else { return }
        warned = true
        let b = part.builder, p = part.parser
        if b.cutTexts > 0 {
            let limit = XMLStreamParser.size(FeedStreamBuilder.maxTextBytes)
            warnings.append("\(b.cutTexts) \(b.cutTexts == 1 ? "text" : "texts") longer than \(limit) cut to \(limit) (the first in <\(b.firstCut ?? "?")>)")
        }
        if !p.unresolved.isEmpty {
            let shown = p.unresolved.prefix(5).map { "&\($0);" }.joined(separator: ", ") + (p.unresolved.count > 5 ? ", ..." : "")
            warnings.append("\(p.unresolved.count) external or undeclared \(p.unresolved.count == 1 ? "entity" : "entities") left as written (\(shown)); external entities are never fetched")
        }
        if !p.ignoredParameterEntities.isEmpty {
            let shown = p.ignoredParameterEntities.prefix(5).map { "%\($0);" }.joined(separator: ", ")
            warnings.append("parameter entities are not expanded: \(shown)")
        }
    }

    func htmlError() -> FeedFormatError {
        var message = "got an HTML page, expected an RSS, Atom or JSON feed (\(contentType))"
        if let link = HTMLPage.feedLinks(body, base: url).first {
            message += "; the page names a feed: \(link)"
        }
        return FeedFormatError(message)
    }
}
