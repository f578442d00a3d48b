import TributaryPluginKit

/// What an element's `class`, `id`, `role` and `itemprop` say about it, from the words they
/// are made of (split at punctuation and at lower-to-upper case changes: `articleBody`,
/// `post-content`, `share_bar`), so that `ad` matches `ad-slot` and not `header` or `load`.
struct ArticleHint: OptionSet, Sendable {
    let rawValue: UInt8

    /// A word of article text: article, content, entry, post, body, story, main, text, blog, ...
    static let positive = ArticleHint(rawValue: 1)
    /// A word of boilerplate whatever its size: comment, sidebar, footer, share, related, ad, ...
    static let negative = ArticleHint(rawValue: 2)
    /// A word of a small part around the text: author, byline, date, meta, tags, pull quote, ...
    static let minor = ArticleHint(rawValue: 4)
    /// `itemprop="articleBody"` (schema.org), or `role="main"`/`role="article"`.
    static let articleBody = ArticleHint(rawValue: 8)
    /// Who wrote a post and when: author, user, avatar, byline, date, time, ... (with `minor`).
    static let byline = ArticleHint(rawValue: 16)

    /// The hint of element `n` of `doc`.
    static func of(_ doc: HTMLDocument, _ n: HTMLDocument.Node) -> ArticleHint {
        var hint: ArticleHint = []
        for a in doc.attributes[Int(n)] {
            switch a.name {
            case "class":
                if !isAtomic(a.value) { hint.formUnion(words(a.value)) }
            case "id":
                hint.formUnion(words(a.value))
            case "role":
                switch a.value.lowercased() {
                case "main", "article": hint.insert(.positive)
                case "navigation", "banner", "contentinfo", "complementary", "search", "dialog", "alertdialog", "menu", "menubar", "toolbar":
                    hint.insert(.negative)
                default: break
                }
            case "itemprop":
                let v = a.value.lowercased()
                if v.contains("articlebody") || v == "text" { hint.insert(.articleBody) }
                else if v.contains("comment") || v == "author" || v == "publisher" { hint.insert(.negative) }
            default:
                break
            }
        }
        return hint
    }

    /// Whether a class attribute is generated utility classes (`ex ad yh ii`, CSS-in-JS and
    /// atomic CSS), whose short names mean nothing (`ad` is not an ad there).
    static func isAtomic(_ value: String) -> Bool {
        var names = 0, short = 0, length = 0
        for b in value.utf8 {
            if b == 0x20 || b == 0x09 || b == 0x0A {
                if length > 0 { names += 1; if length <= 3 { short += 1 } }
                length = 0
            } else {
                length += 1
            }
        }
        if length > 0 { names += 1; if length <= 3 { short += 1 } }
        return names >= 3 && short * 4 >= names * 3
    }

    /// The hint of the words of one attribute value.
    static func words(_ value: String) -> ArticleHint {
        var hint: ArticleHint = []
        var word: [UInt8] = []
        word.reserveCapacity(24)
        var previousLower = false
        func finish() {
            if !word.isEmpty { hint.formUnion(Self.word(word)); word.removeAll(keepingCapacity: true) }
        }
        for b in value.utf8 {
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                word.append(b)
                previousLower = b >= UInt8(ascii: "a")
            case UInt8(ascii: "A")...UInt8(ascii: "Z"):
                if previousLower { finish() }
                word.append(b | 0x20)
                previousLower = false
            default:
                finish()
                previousLower = false
            }
        }
        finish()
        return hint
    }

    private struct Rule {
        let word: [UInt8]
        let exact: Bool
        let hint: ArticleHint
    }

    private static func rules(_ hint: ArticleHint, prefixes: [String] = [], exact: [String] = []) -> [Rule] {
        prefixes.map { Rule(word: Array($0.utf8), exact: false, hint: hint) } + exact.map { Rule(word: Array($0.utf8), exact: true, hint: hint) }
    }

    /// The rules by the word's first letter.
    private static let table: [[Rule]] = {
        let all = rules(.positive, prefixes: ["article", "content", "entry", "hentry", "body", "main", "prose", "richtext"],
                        exact: ["post", "story", "text", "blog", "rich", "single"])
            + rules(.negative, prefixes: ["comment", "disqus", "sidebar", "footer", "related", "share", "sharing", "social", "sponsor", "promo", "newsletter",
                                          "subscri", "signup", "cookie", "consent", "gdpr", "banner", "popup", "modal", "breadcrumb", "outbrain", "taboola",
                                          "recommend", "widget", "advert", "masthead", "skyscraper", "shoutbox", "replies", "reply", "respond", "pagination",
                                          "pager", "menu", "nav", "toolbar", "trending", "popular", "login", "signin", "adsense", "adsbygoogle",
                                          "adslot", "adunit", "adcontainer", "adwrap", "offscreen", "partner", "teaser", "overlay", "captcha", "agegate",
                                          "rating", "feedback", "community", "paywall"],
                    exact: ["ad", "ads", "dfp", "tags", "tag", "toc", "hidden", "hide", "print", "skip", "rss", "sr", "promoted", "follow", "more"])
            + rules([.minor, .byline], prefixes: ["author", "byline", "date", "timestamp", "avatar", "profile", "user", "vcard", "poster", "signature",
                                                  "published", "dateline"],
                    exact: ["time", "posted", "by"])
            + rules(.minor, prefixes: ["meta", "credit", "kicker", "eyebrow", "pull", "copyright", "tool", "action", "icon", "categor", "badge",
                                       "label", "updated", "contact", "disclaimer", "subtitle", "standfirst", "strapline", "excerpt"],
                    exact: ["bio", "about", "header", "head", "btn", "info", "dek", "deck"])
        var t = [[Rule]](repeating: [], count: 256)
        for r in all { t[Int(r.word[0])].append(r) }
        return t
    }()

    /// Rules of six letters or more also match inside a word (`postcomments`, `rightsidebar`).
    private static let long: [Rule] = table.joined().filter { !$0.exact && $0.word.count >= 6 }

    private static func word(_ w: [UInt8]) -> ArticleHint {
        var hint: ArticleHint = []
        for r in table[Int(w[0])] where w.count >= r.word.count && (!r.exact || w.count == r.word.count) {
            if matches(w, r.word, at: 0) { hint.insert(r.hint) }
        }
        if w.count > 6 {
            for r in long where w.count > r.word.count && !hint.contains(r.hint) {
                var at = 1
                while at + r.word.count <= w.count {
                    if w[at] == r.word[0] && matches(w, r.word, at: at) { hint.insert(r.hint); break }
                    at += 1
                }
            }
        }
        return hint
    }

    private static func matches(_ w: [UInt8], _ pattern: [UInt8], at offset: Int) -> Bool {
        for i in 0..<pattern.count where w[offset + i] != pattern[i] { return false }
        return true
    }
}
