import TributaryPluginKit
import TributaryCore

/// How the `json` source finds a URL chain's next page (`pagination`, Docs/sources/json.md),
/// read from the config once. Every kind stops at `max_pages`, at a page with no records, and
/// at a URL (or cursor) the chain already fetched.
struct Paging: Sendable {
    /// `pagination.type`; `none` is an object without `type`: `next_url` or `next_token`.
    enum Kind: String, CaseIterable, Sendable {
        case auto, link_header, offset, page, cursor
    }

    enum Rule: Sendable {
        /// Only the first page (no `pagination`).
        case single
        case nextURL(KeyPath)
        case nextToken(KeyPath, param: String)
        /// `token_param`: the parameter of a body token, instead of the one named after its key.
        case auto(tokenParam: String?)
        case linkHeader
        case offset(param: String, limitParam: String, limit: Int?, total: KeyPath?)
        case page(param: String, start: Int, totalPages: KeyPath?)
        case cursor(KeyPath, param: String)
    }

    let rule: Rule
    let maxPages: Int

    static let single = Paging(rule: .single, maxPages: 1)

    /// The options each `type` takes besides `type`, `max_pages` and `trusted_hosts` (nil: no
    /// `type`, the next_url / next_token form).
    static func options(of kind: Kind?) -> [any OptionDeclaration] {
        typealias P = JSONSource.Pagination
        switch kind {
        case nil: return [P.nextURL, P.nextToken, P.tokenParam]
        case .auto?: return [P.tokenParam]
        case .link_header?: return []
        case .offset?: return [P.offsetParam, P.limitParam, P.limit, P.totalPath]
        case .page?: return [P.pageParam, P.start, P.totalPagesPath]
        case .cursor?: return [P.cursorPath, P.cursorParam]
        }
    }

    /// Reads `pagination`; wrong combinations are errors on the key, naming what it goes with.
    init(_ pr: OptionReader) {
        typealias P = JSONSource.Pagination
        let kind = pr[P.type]
        maxPages = pr[P.maxPages]
        let allowed = Set(Self.options(of: kind).map(\.spec.name))
        let typeText = kind.map { "\"type\": \"\($0.rawValue)\"" } ?? "no \"type\""
        for candidate in [Kind?.none] + Kind.allCases.map(Optional.some) {
            for option in Self.options(of: candidate) where pr.has(option) && !allowed.contains(option.spec.name) {
                let owners = ([Kind?.none] + Kind.allCases.map(Optional.some)).filter { k in Self.options(of: k).contains { $0.spec.name == option.spec.name } }
                let wanted = owners.map { $0.map { "\"type\": \"\($0.rawValue)\"" } ?? "no \"type\"" }.joined(separator: " or ")
                pr.error(option, "goes with \(wanted), not with \(typeText)")
            }
        }
        switch kind {
        case nil:
            let url = pr[P.nextURL], token = pr[P.nextToken], param = pr[P.tokenParam]
            if url != nil && token != nil { pr.error(nil, "use either \"next_url\" or \"next_token\", not both") }
            if url == nil && token == nil {
                pr.error(nil, "needs \"type\" (one of \(Kind.allCases.map(\.rawValue).joined(separator: ", "))), or \"next_url\" or \"next_token\"")
            }
            if token != nil && param == nil { pr.error(P.tokenParam, "required with \"next_token\"") }
            if let token, let param { rule = .nextToken(token, param: param) } else { rule = url.map { .nextURL($0) } ?? .single }
        case .auto?: rule = .auto(tokenParam: pr[P.tokenParam])
        case .link_header?: rule = .linkHeader
        case .offset?: rule = .offset(param: pr[P.offsetParam] ?? "offset", limitParam: pr[P.limitParam] ?? "limit", limit: pr[P.limit], total: pr[P.totalPath])
        case .page?: rule = .page(param: pr[P.pageParam] ?? "page", start: pr[P.start] ?? 1, totalPages: pr[P.totalPagesPath])
        case .cursor?:
            let path = pr[P.cursorPath], param = pr[P.cursorParam]
            if path == nil { pr.error(P.cursorPath, "required with \"type\": \"cursor\" (the key path of the next cursor in each response)") }
            if param == nil { pr.error(P.cursorParam, "required with \"type\": \"cursor\" (the query parameter that carries it)") }
            rule = .cursor(path ?? .root, param: param ?? "")
        }
    }

    private init(rule: Rule, maxPages: Int) {
        self.rule = rule
        self.maxPages = maxPages
    }

    /// The first request's URL: `base` with the kind's first parameters (`offset=0&limit=N`,
    /// `page=<start>`).
    func firstURL(_ base: String) -> String {
        switch rule {
        case .offset(let param, let limitParam, let limit, _):
            let u = QueryParameters.setting(base, param, "0")
            return limit.map { QueryParameters.setting(u, limitParam, String($0)) } ?? u
        case .page(let param, let start, _):
            return QueryParameters.setting(base, param, String(start))
        default:
            return base
        }
    }

    /// Where a chain of pages is: what the next page's URL is built from.
    struct Position {
        /// The first request's URL (its query included): offsets, pages, cursors and tokens
        /// are set on it.
        let base: String
        var offset = 0
        var page: Int
        var cursors: Set<String> = []
    }

    /// What follows a page: the next URL, or why there is none (for `explain`).
    enum Next {
        case url(String)
        case stop(String)
    }

    /// The next page after `response` (whose document is `root` and which held `records`
    /// records), or why paging stops. A value of the wrong type at a configured key path is an
    /// error on that path.
    func next(after response: HTTPResponse, root: JSONNode, records: Int, at position: inout Position) throws(JSONAccessError) -> Next {
        switch rule {
        case .single:
            return .stop("no pagination")
        case .nextURL(let p):
            guard let n = try root[p].optionalString(), !n.isEmpty else { return .stop("no \(p) in the response") }
            return .url(Links.resolve(n, against: response.url))
        case .nextToken(let p, let param):
            guard let t = try root[p].optionalString(allowNumber: true), !t.isEmpty else { return .stop("no \(p) in the response") }
            return .url(QueryParameters.setting(position.base, param, t))
        case .linkHeader:
            guard let n = LinkHeader.next(response.headers) else { return .stop("no Link header with rel=\"next\"") }
            return .url(Links.resolve(n, against: response.url))
        case .auto(let tokenParam):
            if let n = LinkHeader.next(response.headers) { return .url(Links.resolve(n, against: response.url)) }
            switch NextPageFinder.find(root) {
            case .url(let n)?: return .url(Links.resolve(n, against: response.url))
            case .token(let t, let param)?: return .url(QueryParameters.setting(position.base, tokenParam ?? param, t))
            case nil: return .stop("no Link header with rel=\"next\" and no next page key in the response")
            }
        case .offset(let param, _, _, let total):
            position.offset += records
            if let total {
                let node = root[total]
                guard let t = try node.optionalDouble(allowString: true) else {
                    throw JSONAccessError(path: node.path, expected: "the total number of records (pagination.total_path)", found: node.typeName)
                }
                if Double(position.offset) >= t { return .stop("offset \(position.offset) reached the total \(Self.shown(t))") }
            }
            return .url(QueryParameters.setting(position.base, param, String(position.offset)))
        case .page(let param, let start, let totalPages):
            position.page += 1
            if let totalPages {
                let node = root[totalPages]
                guard let t = try node.optionalDouble(allowString: true) else {
                    throw JSONAccessError(path: node.path, expected: "the number of pages (pagination.total_pages_path)", found: node.typeName)
                }
                // Pages are numbered from `start`: the last is start + total - 1.
                if Double(position.page - start) >= t { return .stop("page \(position.page - 1) was the last of \(Self.shown(t))") }
            }
            return .url(QueryParameters.setting(position.base, param, String(position.page)))
        case .cursor(let p, let param):
            guard let c = try root[p].optionalString(allowNumber: true), !c.isEmpty else { return .stop("no \(p) in the response") }
            guard position.cursors.insert(c).inserted else { return .stop("cursor \(c) was already used") }
            return .url(QueryParameters.setting(position.base, param, c))
        }
    }

    /// A count as read (`3`, or `1e+20` when it is no integer that fits).
    static func shown(_ t: Double) -> String { t.rounded() == t && abs(t) < 1e15 ? String(Int(t)) : String(t) }

    /// Whether the next URLs come from the server (the incremental parameter is then added to
    /// those that lack it) rather than from the first URL.
    var followsServerURLs: Bool {
        switch rule {
        case .nextURL, .linkHeader, .auto: return true
        default: return false
        }
    }
}
