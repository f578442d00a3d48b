/// What the `fulltext` processor keeps in the state for one URL (namespace `fulltext`, the URL
/// as the key): the article's two forms, or the lasting reason the page has none. Encoded as a
/// version byte, a kind byte, then length-prefixed UTF-8 strings; anything else reads as
/// nothing kept (the page is fetched again).
enum FullTextCache: Equatable, Sendable {
    case article(text: String, html: String)
    case none(reason: String)

    static let namespace = "fulltext"
    private static let version: UInt8 = 1

    func encoded() -> [UInt8] {
        var out: [UInt8] = [Self.version]
        switch self {
        case .article(let text, let html):
            out.append(0)
            Self.append(text, to: &out)
            Self.append(html, to: &out)
        case .none(let reason):
            out.append(1)
            Self.append(reason, to: &out)
        }
        return out
    }

    init?(encoded b: [UInt8]) {
        guard b.count >= 2, b[0] == Self.version else { return nil }
        var at = 2
        func string() -> String? {
            guard at + 4 <= b.count else { return nil }
            let n = Int(b[at]) << 24 | Int(b[at + 1]) << 16 | Int(b[at + 2]) << 8 | Int(b[at + 3])
            at += 4
            guard n >= 0, at + n <= b.count else { return nil }
            defer { at += n }
            return String(validating: b[at..<at + n], as: UTF8.self)
        }
        switch b[1] {
        case 0:
            guard let t = string(), let h = string(), at == b.count else { return nil }
            self = .article(text: t, html: h)
        case 1:
            guard let r = string(), at == b.count else { return nil }
            self = .none(reason: r)
        default:
            return nil
        }
    }

    private static func append(_ s: String, to out: inout [UInt8]) {
        let n = s.utf8.count
        out += [UInt8(truncatingIfNeeded: n >> 24), UInt8(truncatingIfNeeded: n >> 16), UInt8(truncatingIfNeeded: n >> 8), UInt8(truncatingIfNeeded: n)]
        out += s.utf8
    }
}
