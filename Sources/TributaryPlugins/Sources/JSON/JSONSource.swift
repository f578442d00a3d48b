import TributaryPluginKit
import TributaryJQ
import FoundationEssentials
import Glibc
import Dispatch
import TributaryCore

/// The generic `json` source: any JSON API mapped to items by key paths (Docs/sources/json.md).
public struct JSONSource: FeedSource {
    public static let descriptor = SourceDescriptor(type: "json", summary: "any JSON API: url, items key path, fields mapping, optional pagination", options: options) { settings, reader in
        JSONSource(settings: settings, reader: reader)
    }

    /// Each field is a key path relative to the item, or `{"jq": "<program>"}`: a jq program
    /// run on the item's record, whose single output is the value.
    enum Fields {
        static let id = Option.fieldMapping("id", "native id (string or number); default: the url field, else a hash of the title")
        static let title = Option.fieldMapping("title", "title text")
        static let summary = Option.fieldMapping("summary", "plain-text summary")
        static let url = Option.fieldMapping("url", "link to the thing (relative links resolved against the request URL)")
        static let image = Option.fieldMapping("image", "thumbnail / logo URL")
        static let author = Option.fieldMapping("author", "author name")
        static let published = Option.fieldMapping("published", "publication date")
        static let publishedFormat = Option.choice("published_format", DateFormat.self, "how `published` is written").defaulted(.auto)
        static let tags = Option.fieldMapping("tags", "a string or a list of strings")
        static let lat = Option.fieldMapping("lat", "latitude (number or numeric string)")
        static let lon = Option.fieldMapping("lon", "longitude (number or numeric string)")
        static let data = Option.fieldMappingMap("data", "extra fields: snake_case name -> key path or {\"jq\": program} (any JSON value)").checked { fields in
            fields.first { !Names.isSnakeCase($0.0) }.map { ".\($0.0): data field names must be snake_case ([a-z][a-z0-9_]*)" }
        }
        static let all: [any OptionDeclaration] = [id, title, summary, url, image, author, published, publishedFormat, tags, lat, lon, data]
    }

    enum Pagination {
        static let type = Option.choice("type", Paging.Kind.self, "how the next page is found: auto (Link header, else a next key in the body), link_header, offset, page, cursor").documented(default: "next_url / next_token, whichever is given")
        static let nextURL = Option.keyPath("next_url", "key path of the next page's URL in each response").aliases("next", "next_page", "next_link")
        static let nextToken = Option.keyPath("next_token", "key path of the next page token in each response")
        static let tokenParam = Option.string("token_param", "query parameter that carries the token (with next_token)")
        static let maxPages = Option.integer("max_pages", 1...1000, "page cap per URL").defaulted(10)
        static let trustedHosts = Option.stringList("trusted_hosts", "other hosts (host or host:port) a next page may be fetched from with the configured headers; any other host gets none of them")
        static let offsetParam = Option.string("offset_param", "query parameter of the offset (type offset)").documented(default: "offset")
        static let limitParam = Option.string("limit_param", "query parameter of the page size (type offset)").documented(default: "limit")
        static let limit = Option.integer("limit", 1...1_000_000, "page size, sent as limit_param (type offset); the offset advances by the records each page holds")
        static let totalPath = Option.keyPath("total_path", "key path of the total number of records in each response (type offset)")
        static let pageParam = Option.string("page_param", "query parameter of the page number (type page)").documented(default: "page")
        static let start = Option.integer("start", 0...1_000_000, "number of the first page (type page)").documented(default: "1")
        static let totalPagesPath = Option.keyPath("total_pages_path", "key path of the number of pages in each response (type page)")
        static let cursorPath = Option.keyPath("cursor_path", "key path of the next cursor in each response (type cursor)")
        static let cursorParam = Option.string("cursor_param", "query parameter that carries the cursor (type cursor)")
        static let all: [any OptionDeclaration] = [type, nextURL, nextToken, tokenParam, offsetParam, limitParam, limit, totalPath, pageParam, start, totalPagesPath,
                                                   cursorPath, cursorParam, maxPages, trustedHosts]
    }

    enum Incremental {
        static let cursorPath = Option.keyPath("cursor_path", "key path in each record of the value the cursor follows (an id or a time)").required
        static let param = Option.string("param", "query parameter that carries the kept cursor on the first request").required
        static let initial = Option.string("initial", "value sent on a run with no cursor kept yet (none: the parameter is left out)")
        static let all: [any OptionDeclaration] = [cursorPath, param, initial]
    }

    static let url = Option.url("url", "the API URL (http, https, or file: for a local document)").aliases("link", "href", "endpoint")
    static let urls = Option.urlList("urls", fileAllowed: true, "several URLs with the same shape, fetched concurrently")
    static let method = Option.choice("method", ["GET", "POST"], "HTTP method").defaulted("GET")
    static let headers = Option.stringMap("headers", "extra request headers")
    static let query = Option.stringMap("query", "query parameters, percent-encoded (RFC 3986, UTF-8) and appended to every URL")
    static let body = Option.string("body", "request body for POST")
    static let items = Option.keyPath("items", "key path of the array of items (an object there is taken as one item); \"auto\": found by name (data, items, results, ...)").documented(default: "the document itself")
    static let kind = Option.itemKind("item kind ([a-z][a-z0-9_]*)")
    static let idPrefix = Option.string("id_prefix", "the id family: ids are <id_prefix>:<native id>").documented(default: "the source name")
        .checked { ConfigLoader.isValidName($0) ? nil : "\"\($0)\" must match [a-z0-9][a-z0-9._-]*" }
    static let fields = Option.object("fields", Fields.all, "key paths of the item fields, relative to each item").required
    static let pagination = Option.object("pagination", Pagination.all, "follow further pages")
    static let incremental = Option.object("incremental", Incremental.all, "keep the largest cursor value of a successful run and send it on the next run's first request")

    public static let options: [any OptionDeclaration] = [url, urls, method, headers, query, body, items, kind, idPrefix, fields, pagination, incremental]

    enum DateFormat: String, CaseIterable, Sendable { case auto, rfc3339, rfc822, unix, unix_ms }

    /// Where one field's value comes from: a key path in the record, or a jq program run on it.
    enum Field: Sendable {
        case path(KeyPath)
        case jq(JQProgram)

        var path: KeyPath? {
            if case .path(let p) = self { return p }
            return nil
        }
    }

    /// `fields` as made once for the sources that repeat it (`OptionReader.reusing`).
    final class MadeFields {
        let fields: FieldPaths
        let keyPaths: KeyPathSet
        init(fields: FieldPaths, keyPaths: KeyPathSet) {
            self.fields = fields
            self.keyPaths = keyPaths
        }
    }

    struct FieldPaths {
        var id, title, summary, url, image, author, published, tags, lat, lon: Field?
        var publishedFormat = DateFormat.auto
        var data: [(String, Field)] = []

        /// Every field's key path (the root for a jq program or an unmapped field), in slot
        /// order: the fields in `Slot` order, then `data`'s. Looked up in one pass per record.
        var keyPaths: KeyPathSet {
            let fixed = [id, title, summary, url, image, author, published, tags, lat, lon]
            return KeyPathSet.shared((fixed + data.map { $0.1 }).map { $0?.path ?? .root })
        }
    }

    /// A field's index in `FieldPaths.keyPaths` (`data` follows `lon`).
    enum Slot {
        static let id = 0, title = 1, summary = 2, url = 3, image = 4, author = 5, published = 6, tags = 7, lat = 8, lon = 9, data = 10
    }

    let urls: [String]
    let method: String
    let headers: [(name: String, value: String)]
    let body: [UInt8]?
    let itemsPath: KeyPath
    /// `"items": "auto"`: the list is found by name on each page (`ItemsLocator`).
    let itemsAuto: Bool
    let kind: String
    let idPrefix: String
    /// `idPrefix` and the colon, the head of every item id.
    let idHead: String
    let fields: FieldPaths
    let keyPaths: KeyPathSet
    let paging: Paging
    /// `incremental`: the record key path of the cursor, its parameter, the first run's value.
    let incremental: (path: KeyPath, param: String, initial: String?)?
    /// Hosts besides the first URL's that may receive `headers` (credentials) on a next page.
    let trustedHosts: Set<String>

    init?(settings: SourceSettings, reader: OptionReader) {
        var urls = reader[Self.urls] ?? []
        if let u = reader[Self.url] { urls.insert(u, at: 0) }
        if urls.isEmpty { reader.error(nil, "needs \"url\" or \"urls\"") }
        let query = reader[Self.query] ?? []
        self.urls = urls.map { URLEncoding.appendQuery($0, query) }
        self.method = reader[Self.method]
        self.headers = (reader[Self.headers] ?? []).map { (name: $0.0, value: $0.1) }
        Secrets.registerCredentials(headers.map { ($0.name, $0.value) } + query)
        self.body = reader[Self.body].map { Array($0.utf8) }
        if body != nil && method != "POST" { reader.error(Self.body, "a request body needs \"method\": \"POST\"") }
        self.itemsPath = reader[Self.items] ?? .root
        // "auto" is the detection; a key named auto is written ["auto"].
        self.itemsAuto = reader.raw(Self.items) == .string("auto")
        self.kind = reader[Self.kind]
        self.idPrefix = reader[Self.idPrefix] ?? settings.name
        self.idHead = idPrefix + ":"
        // Made once for a share of sources that repeat one `fields` (OptionReader.reusing).
        let made = reader.reusing(Self.fields) { fr in
            var f = FieldPaths()
            func field(_ option: Option<FieldMapping>) -> Field? {
                fr[option].flatMap { Self.field($0, key: option.spec.name, reader: fr) }
            }
            f.id = field(Fields.id)
            f.title = field(Fields.title)
            f.summary = field(Fields.summary)
            f.url = field(Fields.url)
            f.image = field(Fields.image)
            f.author = field(Fields.author)
            f.published = field(Fields.published)
            f.publishedFormat = fr[Fields.publishedFormat]
            f.tags = field(Fields.tags)
            f.lat = field(Fields.lat)
            f.lon = field(Fields.lon)
            f.data = (fr[Fields.data] ?? []).compactMap { name, m in
                Self.field(m, key: "\(Fields.data.spec.name).\(name)", reader: fr).map { (name, $0) }
            }
            if f.title == nil && f.url == nil && f.id == nil {
                fr.error(nil, "map at least one of \"id\", \"url\" or \"title\" (item ids are made from them)")
            }
            if (f.lat == nil) != (f.lon == nil) { fr.error(f.lat == nil ? Fields.lon.spec.name : Fields.lat.spec.name, "\"lat\" and \"lon\" go together") }
            return MadeFields(fields: f, keyPaths: f.keyPaths)
        }
        self.fields = made.fields
        self.keyPaths = made.keyPaths
        let pr = reader[Self.pagination]
        self.paging = pr.map { Paging($0) } ?? .single
        self.trustedHosts = Set((pr?[Pagination.trustedHosts] ?? []).map { $0.lowercased() })
        if let ir = reader[Self.incremental] {
            self.incremental = (ir[Incremental.cursorPath], ir[Incremental.param], ir[Incremental.initial])
            if urls.count > 1 {
                reader.error(Self.incremental, "needs a single URL (one cursor is kept per source); this source has \(urls.count)")
            }
        } else {
            self.incremental = nil
        }
    }

    /// A mapping as the source uses it: a key path, or its jq program compiled (an error on the
    /// key with jq's message when it does not compile: `fields.title: jq: error: ...`).
    static func field(_ m: FieldMapping, key: String, reader: OptionReader) -> Field? {
        switch m {
        case .path(let p): return .path(p)
        case .jq(let text):
            switch JQProgram.compile(text) {
            case .success(let program):
                return .jq(program)
            case .failure(let e):
                reader.error(key, e.description)
                return nil
            }
        }
    }

    /// Each URL is paged on its own, at most `context.parallelism` URLs at once; every page's
    /// items are delivered as soon as the page is mapped. A failing URL fails only itself: the
    /// source then fails naming (at most three of) the URLs that did. With `incremental` (one
    /// URL), the kept cursor (else `initial`) goes on the first request, and after each
    /// delivered page the largest cursor so far is proposed for the next run (`CursorSlot`).
    public func fetch(_ context: FetchContext) async throws(SourceError) {
        if let incremental {
            let stored = try await context.storedCursor()
            let sent = stored ?? incremental.initial
            var run: IncrementalRun? = IncrementalRun(param: incremental.param, sent: sent, path: incremental.path, stored: stored)
            try await fetchPages(sent.map { QueryParameters.setting(urls[0], incremental.param, $0) } ?? urls[0], context, cursor: &run)
            // Said once, at the end of a run that delivered everything.
            if let p = run?.tracker.proposal(stored: stored, warn: { context.warn($0) }) { context.proposeCursor(p) }
            return
        }
        var none: IncrementalRun? = nil
        if urls.count == 1 { return try await fetchPages(urls[0], context, cursor: &none) }
        let failures = try await FanOut.run(urls, limit: context.parallelism) { url throws(SourceError) in
            var none: IncrementalRun? = nil
            try await fetchPages(url, context, cursor: &none)
        }
        guard !failures.isEmpty else { return }
        throw SourceError(FanOut.summary(failures.map(\.error.message), of: urls.count, noun: "URLs"))
    }

    /// One run's `incremental` cursor: the parameter, the value sent (added to a server's next
    /// URL that lacks the parameter), the record key path, and the values delivered so far.
    struct IncrementalRun {
        let param: String
        let sent: String?
        let path: KeyPath
        let stored: String?
        var tracker = CursorTracker()
    }

    /// Pages one URL chain. With `cursor`, each page's records' cursor values join its tracker
    /// once the page is delivered, and the largest so far is proposed.
    private func fetchPages(_ configured: String, _ context: FetchContext, cursor: inout IncrementalRun?) async throws(SourceError) {
        let first = paging.firstURL(configured)
        var url = first
        var seen: Set<String> = [first]
        var position = Paging.Position(base: first, page: { if case .page(_, let start, _) = paging.rule { return start } else { return 1 } }())
        let home = URLEncoding.hostKey(first)
        let paged: Bool = { if case .single = paging.rule { return false } else { return true } }()
        // Under `tributary test`: why this chain of pages ended.
        func done(_ why: @autoclosure () -> String) { if paged { context.explain("pagination: \(why()): done") } }
        for page in 1...paging.maxPages {
            // The configured headers carry credentials: a next page on another host (which the
            // server named, not the config) gets none of them unless the host is trusted, as curl
            // and python-requests drop Authorization and Cookie on a redirect to another host.
            let host = URLEncoding.hostKey(url)
            let sent = host == home || trustedHosts.contains(host) ? headers : []
            // The page is read whole before its items are delivered, and its body and parsed
            // document are freed then: a page waiting for the delivery holds only its items.
            let read: PageRead
            do {
                let response = try await context.get(url, headers: sent, method: method, body: body, allowFile: page == 1 && configured.hasPrefix("file:"), page: paged ? page : nil)
                read = try readPage(response, url: url, context: context, cursorPath: cursor?.path, wantsNext: page < paging.maxPages, at: &position)
            }
            try await context.emit(read.items)
            if var c = cursor {
                for v in read.cursorValues { c.tracker.add(v.value, at: v.path) }
                if let p = c.tracker.proposal(stored: c.stored, warn: { _ in }) { context.proposeCursor(p) }
                cursor = c
            }
            if read.items.isEmpty {
                done("page \(page) has no records")
                break
            }
            guard let found = read.next else {
                done("max_pages (\(paging.maxPages)) reached")
                break
            }
            let next = try found.get()
            guard case .url(var n) = next else {
                if case .stop(let why) = next { done(why) }
                break
            }
            if let cursor, paging.followsServerURLs, let value = cursor.sent, !QueryParameters.has(n, cursor.param) {
                n = QueryParameters.setting(n, cursor.param, value)
            }
            guard seen.insert(n).inserted else {
                done("\(Redactor.redactURL(n)) was already fetched")
                break
            }
            url = n
        }
    }

    typealias PageRead = (items: [Item], cursorValues: [(value: String, path: String)], next: Result<Paging.Next, SourceError>?)

    /// One page read: its items, the cursor values of their records (`cursorPath`), and the next
    /// page when `wantsNext` and the page had records (a pagination error is thrown after the
    /// page's items are delivered, as before).
    private func readPage(_ response: HTTPResponse, url: String, context: FetchContext, cursorPath: KeyPath?, wantsNext: Bool,
                          at position: inout Paging.Position) throws(SourceError) -> PageRead {
        let doc = try context.parseJSONDocument(response, method: method)
        let root = JSONNode(doc)
        // A page is delivered whole or not at all: an item that cannot be mapped fails the
        // page (the pages before it stay delivered).
        let list: JSONNode
        switch itemsAuto ? ItemsLocator.locate(root) : .success(root[itemsPath]) {
        case .success(let node): list = node
        case .failure(let e): throw SourceError("\(method) \(Redactor.redactURL(url)): \(e)")
        }
        let mapped = mapItems(list, base: response.url, context: context)
        if let failure = mapped.failure {
            throw SourceError("\(method) \(Redactor.redactURL(url)): \(failure)")
        }
        var values: [(value: String, path: String)] = []
        if let cursorPath {
            do throws(JSONAccessError) {
                for el in mapped.elements {
                    let n = el[cursorPath]
                    if let v = try n.optionalString(allowNumber: true), !v.isEmpty { values.append((v, n.path.description)) }
                }
            } catch {
                throw SourceError("\(method) \(Redactor.redactURL(url)): incremental: \(error)")
            }
        }
        guard wantsNext && !mapped.items.isEmpty else { return (mapped.items, values, nil) }
        do throws(JSONAccessError) {
            let next = try paging.next(after: response, root: root, records: mapped.items.count, at: &position)
            return (mapped.items, values, .success(next))
        } catch {
            return (mapped.items, values, .failure(SourceError("\(method) \(Redactor.redactURL(url)): pagination: \(error)")))
        }
    }

    /// The page's items in order, or the error of the first item that cannot be mapped.
    /// `doc` is read on its tape (`kind` and the typed accessors): no `JSONValue` tree is built
    /// for a page, only for `published` and `data` values.
    func mapItems(_ doc: JSONDocument, base: String, context: FetchContext) -> (items: [Item], failure: JSONAccessError?) {
        let root = JSONNode(doc)
        switch itemsAuto ? ItemsLocator.locate(root) : .success(root[itemsPath]) {
        case .success(let node):
            let m = mapItems(node, base: base, context: context)
            return (m.items, m.failure)
        case .failure(let e): return ([], e)
        }
    }

    /// The items of the list at `node`, the records they came from (for the incremental
    /// cursor), or the error of the first item that cannot be mapped.
    private func mapItems(_ node: JSONNode, base: String, context: FetchContext) -> (items: [Item], elements: [JSONNode], failure: JSONAccessError?) {
        let elements: [JSONNode]
        do throws(JSONAccessError) {
            switch node.kind {
            case .array?: elements = try node.array()
            case .object?: elements = [node]
            case .null?: elements = []  // an explicit null is an empty result set
            case nil:
                // An absent path is far more often a typo in `items` than an empty result.
                throw JSONAccessError(path: node.path, expected: "array of items (check the \"items\" key path)", found: nil)
            default: throw JSONAccessError(path: node.path, expected: "array of items", found: node.typeName)
            }
        } catch {
            return ([], [], error)
        }
        var items: [Item] = []
        items.reserveCapacity(elements.count)
        for el in elements {
            do { items.append(try mapItem(el, base: base, context: context)) } catch let e as JSONAccessError {
                return (items, elements, e)
            } catch {
                return (items, elements, JSONAccessError(path: el.path, expected: "an item", found: "\(error)"))
            }
        }
        return (items, elements, nil)
    }

    /// One record's fields as nodes: a key path's node in the record, or the value a jq
    /// program gave for it. The record's JSON text is written once, for the first program.
    struct Record {
        let el: JSONNode
        private var json: [UInt8]?
        /// Every field's node by key path (`FieldPaths.keyPaths`), found in one pass.
        private let found: KeyPathSet.Found

        init(_ el: JSONNode, _ keyPaths: KeyPathSet) {
            self.el = el
            self.found = keyPaths.find(in: el)
        }

        /// The node of `field` (nil: not mapped), in `slot` (`Slot`); `name` is its key in `fields`.
        mutating func node(_ field: Field?, _ slot: Int, _ name: @autoclosure () -> String) throws -> JSONNode? {
            // Matched in place: `guard let field` copied the field (a retain of its key path)
            // for every field of every record.
            switch field {
            case nil: return nil
            case .path?: return found[slot]
            case .jq(let program)?:
                if json == nil {
                    var out: [UInt8] = []
                    _ = el.writeJSON(to: &out)
                    json = out
                }
                var outputs: [JQOutput] = []
                let failure = json!.withUnsafeBytes { raw in program.run(json: raw) { outputs.append($0) } }
                if let failure { throw JSONAccessError(path: el.path, expected: "a value from the jq program of fields.\(name())", found: failure.description) }
                guard outputs.count <= 1 else {
                    throw JSONAccessError(path: el.path, expected: "one value from the jq program of fields.\(name())", found: "\(outputs.count) outputs")
                }
                guard let output = outputs.first else { return JSONNode(JSONValue.null, path: el.path) }
                do {
                    return JSONNode(try JSONParser.parse(output.json), path: el.path)
                } catch {
                    throw JSONAccessError(path: el.path, expected: "a value from the jq program of fields.\(name())", found: "\(error)")
                }
            }
        }

        /// The text of a key path field whose node is a string on the tape, trimmed (nil when
        /// that leaves it empty), read without making the node; `.notOnTape` for any other field
        /// or node, which `text` reads the general way. Trimmed only when an end is not
        /// printable ASCII, as seen on the tape: most texts are copied once and not looked at again.
        func tapeText(_ field: Field?, _ slot: Int) -> TapeText {
            guard case .path? = field, let read = found.stringWithPlainEnds(slot) else { return .notOnTape }
            let t = read.plainEnds ? read.text : read.text.trimmedWhitespaceAndNewlines()
            return .text(t.isEmpty ? nil : t)
        }

        enum TapeText { case text(String?), notOnTape }

        /// The string of a key path field whose node is a string on the tape, as it is (what
        /// the node's `value` holds), read without making the node; nil for any other.
        func tapeString(_ field: Field?, _ slot: Int) -> String? {
            guard case .path? = field else { return nil }
            return found.string(slot)
        }

        /// `body` on the node of `field`; a wrong type from a jq program names the program.
        mutating func read<T>(_ field: Field?, _ slot: Int, _ name: String, _ body: (JSONNode) throws -> T?) throws -> T? {
            guard let n = try node(field, slot, name) else { return nil }
            guard case .jq = field else { return try body(n) }
            do { return try body(n) } catch let e as JSONAccessError {
                throw JSONAccessError(path: e.path, expected: "\(e.expected) from the jq program of fields.\(name)", found: e.found)
            }
        }
    }

    func text(_ record: inout Record, _ field: Field?, _ slot: Int, _ name: String) throws -> String? {
        if case .text(let t) = record.tapeText(field, slot) { return t }
        return try record.read(field, slot, name) { n in
            guard let s = try n.optionalString(allowNumber: true) else { return nil }
            let t = s.trimmedWhitespaceAndNewlines()
            return t.isEmpty ? nil : t
        }
    }

    func mapItem(_ el: JSONNode, base: String, context: FetchContext) throws -> Item {
        var r = Record(el, keyPaths)
        let url = Links.absolute(try text(&r, fields.url, Slot.url, "url"), base: base)
        let title = try text(&r, fields.title, Slot.title, "title")
        let summary = try text(&r, fields.summary, Slot.summary, "summary")
        let native = try text(&r, fields.id, Slot.id, "id") ?? url ?? title.map { "t" + Names.textHash($0) }
        guard let native else {
            throw JSONAccessError(path: el.path.appending(fields.id?.path ?? fields.url?.path ?? fields.title?.path ?? .root), expected: "an id, url or title for the item id", found: nil)
        }
        let image = Links.absolute(try text(&r, fields.image, Slot.image, "image"), base: base)
        let author = try text(&r, fields.author, Slot.author, "author")
        var published: Timestamp?
        if let n = try r.node(fields.published, Slot.published, "published"), let k = n.kind, k != .null {
            if let t = rfc3339(n) {
                published = t
            } else if let d = n.value {
                do {
                    published = try parseDate(d, node: n, context: context)
                } catch let e as JSONAccessError where fields.published?.path == nil {
                    throw JSONAccessError(path: e.path, expected: "\(e.expected) from the jq program of fields.published", found: e.found)
                }
            }
        }
        let tags = try r.read(fields.tags, Slot.tags, "tags", { t in t.kind == .string ? [try t.string()] : try t.stringArray(allowNumber: true) })
        var geo: Geo?
        if fields.lat != nil, fields.lon != nil,
           let lat = try r.read(fields.lat, Slot.lat, "lat", { try $0.optionalDouble(allowString: true) }),
           let lon = try r.read(fields.lon, Slot.lon, "lon", { try $0.optionalDouble(allowString: true) }) {
            let g = Geo(lat: lat, lon: lon)
            if g.isValid { geo = g }
        }
        var data = JSONObject()
        if !fields.data.isEmpty {
            data.entries.reserveCapacity(fields.data.count)
            for (i, (name, field)) in fields.data.enumerated() {
                // A string on the tape is read without a node (most data values).
                if let s = r.tapeString(field, Slot.data + i) {
                    data[name] = .string(s)
                } else if let n = try r.node(field, Slot.data + i, "data.\(name)"), let k = n.kind, k != .null, let v = n.value {
                    data[name] = v
                }
            }
        }
        // The item is made last, in one call with every field: made first and then filled
        // in, it was copied on its way out. The fallback title is made only when needed:
        // `prefix(80)` walks 80 characters.
        return context.item(id: idHead.joined(with: native), kind: kind, title: title ?? summary.map { String($0.prefix(80)) } ?? url ?? native,
                            summary: summary, url: url, image: image, author: author, published: published, tags: tags ?? [], geo: geo,
                            data: data)
    }

    /// The date of a string node that is an RFC 3339 time as written, read from the page's bytes,
    /// when `published_format` reads such a string as RFC 3339 (`auto` or `rfc3339`), else nil
    /// for `parseDate`. What it answers is `parseDate`'s answer: a string that parses as RFC 3339
    /// has no white space to trim and is not all digits. It skips the string `parseDate` is
    /// given, its trimming and its scans (most APIs' dates).
    func rfc3339(_ n: JSONNode) -> Timestamp? {
        guard fields.publishedFormat == .auto || fields.publishedFormat == .rfc3339 else { return nil }
        return n.rfc3339Time()
    }

    /// The item's date. A value of the wrong shape is a mapping error; a number of seconds
    /// outside years 0000-9999 (`1e20`, a 23-digit string) is data noise: the item is emitted
    /// without `published` and a warning names the key path and the value.
    func parseDate(_ v: JSONValue, node: JSONNode, context: FetchContext) throws -> Timestamp? {
        // Only an error or a warning shows the value: not serialized for every item.
        func shown() -> String {
            let text = String(decoding: JSONWriter.serialize(v), as: UTF8.self)
            return text.count > 40 ? String(text.prefix(40)) + "..." : text
        }
        var seconds: Double?
        var result: Timestamp?
        let numeric: String? = {
            guard case .string(let s) = v, !s.isEmpty, s.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E }) else { return nil }
            return s
        }()
        switch (fields.publishedFormat, v) {
        case (.unix, .number(let n)), (.auto, .number(let n)): seconds = n.double
        case (.unix_ms, .number(let n)): seconds = n.double / 1000
        case (.unix, .string(let s)): seconds = Double(s)
        case (.unix_ms, .string(let s)): seconds = Double(s).map { $0 / 1000 }
        case (.auto, .string) where numeric != nil: seconds = Double(numeric!).map { numeric!.utf8.count >= 13 ? $0 / 1000 : $0 }
        case (.rfc3339, .string(let s)): result = Timestamp.parseRFC3339(s)
        case (.rfc822, .string(let s)): result = Timestamp.parseRFC822(s)
        case (.auto, .string(let s)): result = Timestamp.parseAny(s)
        default: break
        }
        if let seconds {
            guard let t = Timestamp(checked: seconds) else {
                context.warn("\(node.path): \(shown()) is not a time within years 0000-9999; the item is emitted without a published time")
                return nil
            }
            return t
        }
        guard let result else { throw JSONAccessError(path: node.path, expected: "a date (\(fields.publishedFormat.rawValue))", found: shown()) }
        return result
    }


}
