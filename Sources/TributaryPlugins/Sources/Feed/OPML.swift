import TributaryPluginKit
import FoundationEssentials
import Dispatch
import TributaryCore
#if canImport(Glibc)
import Glibc
#endif

/// OPML subscription lists (`tributary import opml`, `tributary export opml`;
/// Docs/configuration.md#opml): a small reader over the feed source's libxml2 stream parser (`XMLStreamParser`: nothing
/// loaded, no entity expanded beyond its limits) and a writer of
/// OPML 2.0. The reader takes the shapes real exports have: newsboat's flat list (`title`,
/// no `text`; OPML 2.0's `category="a,b"` for its tags), Miniflux's one level of category
/// outlines (`text` only), and folders nested to any depth, whose titles become tags, outer first.
public enum OPML {
    /// One feed of the list.
    public struct Subscription: Equatable, Sendable {
        /// `title`, else `text` (entities decoded, white space folded); nil when it has neither.
        public var title: String?
        /// `xmlUrl` as written (trimmed).
        public var xmlURL: String
        /// `htmlUrl`, when present and not empty.
        public var htmlURL: String?
        /// The titles of the outlines it sits in (outer first), then its `category` values;
        /// duplicates dropped.
        public var tags: [String]

        public init(title: String?, xmlURL: String, htmlURL: String? = nil, tags: [String] = []) {
            self.title = title
            self.xmlURL = xmlURL
            self.htmlURL = htmlURL
            self.tags = tags
        }
    }

    public struct Document: Equatable, Sendable {
        /// `head/title`.
        public var title: String?
        /// Every outline with an `xmlUrl`, in document order.
        public var subscriptions: [Subscription]
    }

    /// Why a file is not an OPML list we read.
    public struct ReadError: Error, CustomStringConvertible, Sendable {
        public let message: String
        public var description: String { message }
    }

    /// The largest file read (a list of 10,000 feeds is about 2 MB).
    public static let maximumSize = 16 << 20
    /// Outlines nested deeper than this are an error (real lists nest two or three levels).
    public static let maximumDepth = 64

    /// Reads the OPML file at `path` (`-`: standard input).
    public static func read(path: String) throws(ReadError) -> Document {
        let fd = path == "-" ? 0 : open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { throw ReadError(message: "cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { if fd != 0 { close(fd) } }
        var bytes: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 65536)
        while bytes.count <= maximumSize {
            let n = buf.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw ReadError(message: "cannot read \(path): \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            bytes.append(contentsOf: buf[0..<n])
        }
        return try read(bytes)
    }

    /// Reads an OPML document (1.0 or 2.0). A DOCTYPE or entity declaration is refused before
    /// parsing (OPML has none, and they are what makes XML parsers expand or fetch things), and
    /// nesting is bounded.
    public static func read(_ bytes: [UInt8]) throws(ReadError) -> Document {
        if bytes.count > maximumSize { throw ReadError(message: "the file is larger than \(maximumSize >> 20) MB") }
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        if let first = body.firstIndex(where: { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D) }) { body = body[first...] }
        if body.isEmpty { throw ReadError(message: "the file is empty") }
        for marker in ["<!DOCTYPE", "<!ENTITY"] where ByteSearch.contains(body, Array(marker.utf8)) {
            throw ReadError(message: "the file has a \(marker) declaration; OPML has none, and it is not read")
        }
        let library: XMLLibrary
        switch XMLLibrary.shared() {
        case .success(let l): library = l
        case .failure(let e): throw ReadError(message: e.message)
        }
        let reader = Reader()
        let parser = XMLStreamParser(library: library, handler: reader, documentSize: body.count)
        Array(body).withUnsafeBytes { parser.parse($0) }
        parser.finish()
        if let e = parser.error { throw ReadError(message: e.description) }
        if reader.tooDeep { throw ReadError(message: "outlines are nested deeper than \(maximumDepth) levels") }
        guard let root = reader.rootName else { throw ReadError(message: "no root element") }
        guard root == "opml" else { throw ReadError(message: "the root element is <\(root)>, not <opml>: not an OPML file") }
        guard reader.sawBody else { throw ReadError(message: "no <body> element: not an OPML file") }
        return Document(title: reader.headTitle.flatMap(HTMLText.singleLine), subscriptions: reader.subscriptions)
    }

    /// The parser's handler: a stack of the open outlines' titles; nothing deeper than
    /// `maximumDepth` is recorded (parsing goes on, and the read fails after it).
    private final class Reader: XMLEventHandler {
        var rootName: String?
        var sawBody = false
        var headTitle: String?
        var subscriptions: [Subscription] = []
        var tooDeep = false
        var wantsToStop: Bool { false }
        /// Element names from the root down.
        private var path: [String] = []
        /// One entry per open outline: its title when it is a folder (no `xmlUrl`), else nil.
        private var folders: [String?] = []
        private var text: [UInt8] = []

        func startElement(namespace: String, prefix: String?, name elementName: String, attributes list: [(name: String, value: String)]) {
            if rootName == nil { rootName = elementName }
            path.append(elementName)
            text = []
            if path.count == 2 && elementName == "body" && rootName == "opml" { sawBody = true }
            guard elementName == "outline", path.count >= 3, path[1] == "body" else { return }
            if folders.count >= OPML.maximumDepth { tooDeep = true; folders.append(nil); return }
            var attributes: [String: String] = [:]
            for (k, v) in list where attributes[k] == nil { attributes[k] = v }
            let title = HTMLText.singleLine(attributes["title"]) ?? HTMLText.singleLine(attributes["text"])
            // Old lists write `url` on `type="rss"` outlines; on other types it is a link, not a feed.
            let raw = attributes["xmlUrl"] ?? attributes["xmlurl"] ?? (attributes["type"]?.lowercased() == "rss" ? attributes["url"] : nil)
            let url = raw.map { $0.trimmingWhitespaceAndNewlines } ?? ""
            guard !url.isEmpty else {
                folders.append(title)
                return
            }
            folders.append(nil)
            var tags: [String] = []
            for t in folders.compactMap({ $0 }) where !tags.contains(t) { tags.append(t) }
            for part in (attributes["category"] ?? "").split(separator: ",") {
                let t = part.trimScalars { $0 == "/" || $0 == " " || $0 == "\t" || $0 == "\n" }
                if !t.isEmpty && !tags.contains(t) { tags.append(t) }
            }
            let html = attributes["htmlUrl"].map { $0.trimmingWhitespaceAndNewlines }
            subscriptions.append(Subscription(title: title, xmlURL: url, htmlURL: html?.isEmpty == false ? html : nil, tags: tags))
        }

        func endElement() {
            guard let elementName = path.last else { return }
            if path.count == 3 && path[1] == "head" && elementName == "title" { headTitle = String(decoding: text, as: UTF8.self) }
            if elementName == "outline", path.count >= 3, path[1] == "body", !folders.isEmpty { folders.removeLast() }
            path.removeLast()
        }

        func text(_ utf8: UnsafeBufferPointer<UInt8>) {
            if path.count == 3 && path[1] == "head" { text.append(contentsOf: utf8) }
        }
    }

    // MARK: writing

    /// OPML 2.0 of `subscriptions`, deterministic (no dates): each feed sits in folder outlines
    /// named by its tags, in order, so reading it back gives the same tags; feeds without tags
    /// come first, at the top level.
    public static func write(title: String, subscriptions: [Subscription]) -> String {
        final class Folder {
            let name: String
            var feeds: [Subscription] = []
            var children: [Folder] = []
            init(_ name: String) { self.name = name }
            func child(_ name: String) -> Folder {
                if let c = children.first(where: { $0.name == name }) { return c }
                let c = Folder(name)
                children.append(c)
                return c
            }
        }
        let root = Folder("")
        for s in subscriptions {
            var folder = root
            for tag in s.tags { folder = folder.child(tag) }
            folder.feeds.append(s)
        }
        var out = """
        <?xml version="1.0" encoding="UTF-8"?>
        <opml version="2.0">
          <head>
            <title>\(XML.escape(title))</title>
          </head>
          <body>

        """
        func emit(_ folder: Folder, indent: Int) {
            let pad = String(repeating: "  ", count: indent)
            for s in folder.feeds {
                let name = s.title ?? s.xmlURL
                out += pad + "<outline type=\"rss\" text=\"\(XML.escapeAttribute(name))\" title=\"\(XML.escapeAttribute(name))\" xmlUrl=\"\(XML.escapeAttribute(s.xmlURL))\""
                if let html = s.htmlURL { out += " htmlUrl=\"\(XML.escapeAttribute(html))\"" }
                out += "/>\n"
            }
            for c in folder.children {
                out += pad + "<outline text=\"\(XML.escapeAttribute(c.name))\" title=\"\(XML.escapeAttribute(c.name))\">\n"
                emit(c, indent: indent + 1)
                out += pad + "</outline>\n"
            }
        }
        emit(root, indent: 2)
        out += "  </body>\n</opml>\n"
        return out
    }
}

// MARK: importing

extension OPML {
    /// A source name from an outline's title: lower-case, accents dropped, every run of other
    /// characters as one `-`, at most 40 characters; `fallback` (the feed's host) when nothing
    /// is left, as with a title in a non-Latin script.
    public static func sourceName(title: String?, fallback: String) -> String {
        func slug(_ s: String) -> String {
            var out = ""
            var dash = false
            scalars: for u in s.unicodeScalars {
                guard let folded = SlugFolding.fold(u) else {
                    dash = true
                    continue
                }
                for f in folded.unicodeScalars {
                    if dash && !out.isEmpty { out += "-" }
                    dash = false
                    out.unicodeScalars.append(f)
                    if out.count >= 40 { break scalars }
                }
            }
            while let first = out.unicodeScalars.first, first == "." || first == "_" { out.removeFirst() }
            return out
        }
        let fromTitle = slug(title ?? "")
        if !fromTitle.isEmpty { return fromTitle }
        let fromHost = slug(fallback)
        return fromHost.isEmpty ? "feed" : fromHost
    }

    /// A config document (strict JSON, one source per line) with one source per subscription:
    /// `entry` gives a source's keys after `name`; names come from titles, made unique with
    /// `-2`, `-3`, ... A URL listed twice (a feed in two folders) is one source with both
    /// folders' tags.
    public static func config(_ document: Document, comment: String, entry: (Subscription) -> [(key: String, value: JSONValue)]) -> [UInt8] {
        var merged: [Subscription] = []
        var index: [String: Int] = [:]
        for s in document.subscriptions {
            if let i = index[s.xmlURL] {
                for t in s.tags where !merged[i].tags.contains(t) { merged[i].tags.append(t) }
                if merged[i].title == nil { merged[i].title = s.title }
                if merged[i].htmlURL == nil { merged[i].htmlURL = s.htmlURL }
            } else {
                index[s.xmlURL] = merged.count
                merged.append(s)
            }
        }
        var used: Set<String> = []
        var out: [UInt8] = Array("{\n  \"$comment\": ".utf8)
        JSONWriter.writeString(comment, into: &out)
        out += Array(",\n  \"sources\": [".utf8)
        for (i, s) in merged.enumerated() {
            let base = sourceName(title: s.title, fallback: URL(string: s.xmlURL)?.host ?? "")
            var name = base
            var n = 2
            while used.contains(name) {
                name = "\(base)-\(n)"
                n += 1
            }
            used.insert(name)
            out += Array((i == 0 ? "\n    " : ",\n    ").utf8)
            JSONWriter.write(.object(JSONObject([(key: "name", value: .string(name))] + entry(s))), into: &out)
        }
        out += Array((merged.isEmpty ? "]\n}\n" : "\n  ]\n}\n").utf8)
        return out
    }
}

/// A source that is a list of feed subscriptions (`export opml` writes them).
public protocol SubscriptionListing {
    /// Its feeds, each with the source's title, site and tags.
    var subscriptions: [OPML.Subscription] { get }
    /// The same as its config object `written` says them: `${VAR}` kept as written.
    func subscriptions(written: JSONObject) -> [OPML.Subscription]
}
