// Canonical URLs: two links to one page become one string (Docs/stories.md#what-matches).
//
// The canonical form is `host[:port]/path[?query]`: no scheme (http and https are one page), a
// lower-case host without `www.`/`m.`/`mobile.`/`amp.`, no default port, no dot segments, no
// empty segments (so no trailing slash), no `amp` segment or `.amp` suffix, no `index.html`,
// percent-encoding in one form (unreserved bytes and UTF-8 decoded, other escapes upper-case),
// the query without tracking and AMP parameters and sorted, no fragment (but a `#!` route).
// Redirect wrappers (a parameter holding an absolute http(s) URL, Google's `/amp/s/` and the
// AMP cache's `/c/s/`) become their target. Nothing is fetched: a shortener (t.co, bit.ly,
// FeedBurner's `~r` links) stays what it is.

public struct CanonicalURL: Sendable, Hashable, CustomStringConvertible {
    /// `host[:port]/path[?query]` in UTF-8.
    public let bytes: [UInt8]
    /// The number of leading bytes that are the host (without the port).
    public let hostLength: Int

    public var string: String { String(decoding: bytes, as: UTF8.self) }
    public var description: String { string }
    public var host: String { String(decoding: bytes[..<hostLength], as: UTF8.self) }
    /// The stable hash that is the URL's identity in the store.
    public var hash: UInt64 { stableHash(bytes, seed: HashSeed.url) }
    /// The hash of the host alone (never 0, so 0 can mean "no URL").
    public var hostHash: UInt32 {
        let h = bytes.withUnsafeBytes { stableHash(UnsafeRawBufferPointer(rebasing: $0[..<hostLength]), seed: HashSeed.host) }
        return UInt32(truncatingIfNeeded: h) | 1
    }
}

public enum URLCanonicalizer {
    /// Query parameters that only track a click, a campaign or a share, never the page: compared
    /// in lower case. From Miniflux's urlcleaner list, Firefox's query stripping, Brave's filter
    /// and the parameters news sites add to feed links (Docs/stories.md#tracking-parameters).
    public static let trackingParameters: Set<String> = [
        // Facebook, Instagram, Twitter, TikTok, LinkedIn, Microsoft, Yandex click ids
        "fbclid", "fb_action_ids", "fb_action_types", "fb_ref", "fb_source", "fb_comment_id",
        "igshid", "igsh", "twclid", "ttclid", "li_fat_id", "msclkid", "yclid", "ysclid", "_openstat",
        // Google Ads and Analytics
        "gclid", "dclid", "gbraid", "wbraid", "gclsrc", "srsltid", "_ga", "_gl",
        "campaign_id", "campaign_medium", "campaign_name", "campaign_source", "campaign_term", "campaign_content",
        // Mailchimp, HubSpot, Marketo, Adobe, Vero, Olytics, Beehiiv, Branch, Wicked Reports, Readwise
        "mc_cid", "mc_eid", "mc_tc", "_hsenc", "_hsmi", "__hssc", "__hstc", "__hsfp", "hsctatracking",
        "mkt_tok", "sc_cid", "s_cid", "vero_id", "vero_conv", "rb_clickid", "oly_anon_id", "oly_enc_id",
        "_bhlid", "_branch_match_id", "_branch_referrer", "wickedid", "__readwiselocation",
        // Piwik/Matomo (mtm_* below), Webtrends, AT Internet, comScore
        "pk_campaign", "pk_kwd", "pk_keyword", "pk_source", "pk_medium", "pk_content", "pk_cid",
        "wt.mc_id", "wt_mc_id", "wt_zmc", "xtor", "xtref", "at_medium", "at_campaign", "at_custom1",
        "at_custom2", "at_custom3", "at_custom4",
        // news sites' referral and campaign markers
        "ref", "ref_src", "ref_url", "cmpid", "cmp", "ocid", "cvid", "icid", "ncid", "ito", "smid",
        "emc", "soc_src", "soc_trk", "mbid", "ftag", "taid", "sr_share", "guccounter", "guce_referrer",
        "guce_referrer_sig", "__twitter_impression", "trk", "trkcampaign", "spm", "scm",
    ]
    /// Parameter name prefixes that are tracking whatever follows.
    public static let trackingPrefixes: [String] = ["utm_", "mtm_", "itm_", "hmb_", "hsa_", "ns_", "amp_"]
    /// Parameters that are tracking only when their value says "this came from a feed"
    /// (`source=rss`, `from=rss`, `partner=rss`): elsewhere they can choose the page.
    public static let feedMarkerParameters: Set<String> = ["source", "from", "partner", "src", "via", "feed"]
    /// Parameters whose value, when it is an absolute http(s) URL, is where a wrapper sends the
    /// reader (Google News' and Google's `url`/`q`, Facebook's `l.php?u=`, Reddit's `out`, ...).
    public static let redirectParameters: Set<String> = [
        "url", "u", "q", "target", "dest", "destination", "redirect", "redirect_url", "redirect_to",
        "to", "uddg", "goto", "link", "z",
    ]
    /// Hosts that say nothing of the publisher: shorteners and feed proxies whose links cannot
    /// be resolved without fetching them. Their URLs still match as URLs; they do not make two
    /// items "one site".
    public static let sharedHosts: Set<String> = [
        "t.co", "bit.ly", "ow.ly", "buff.ly", "dlvr.it", "trib.al", "lnkd.in", "tinyurl.com", "goo.gl", "is.gd",
        "feedproxy.google.com", "feeds.feedburner.com", "news.google.com", "rss.app", "flip.it", "apple.news",
    ]
    /// Leading host labels that name another rendering of the same site.
    public static let hostPrefixes: [String] = ["www.", "m.", "mobile.", "amp.", "mob."]

    static let nameSeed: UInt64 = 0x7061_7261_6D00_0008 // "param"
    static func nameHash(_ s: String) -> UInt64 { stableHash(s, seed: nameSeed) }
    static let trackingTable = HashTable(trackingParameters.map { (nameHash($0), true) }, filler: false)
    static let redirectTable = HashTable(redirectParameters.map { (nameHash($0), true) }, filler: false)
    static let feedMarkerTable = HashTable(feedMarkerParameters.map { (nameHash($0), true) }, filler: false)
    /// AMP parameters: 1 dropped whatever their value, 2 dropped when the value is `amp`.
    static let ampTable = HashTable([("amp", 1), ("_amp", 1), ("usqp", 1), ("_gsa", 1), ("aoh", 1),
                                     ("outputtype", 2), ("output", 2), ("format", 2), ("view", 2)].map { (nameHash($0.0), UInt8($0.1)) }, filler: 0)
    static let prefixBytes: [[UInt8]] = trackingPrefixes.map { Array($0.utf8) }

    /// The canonical form of `url`, or nil when it is empty. An URL that is not http(s) keeps its
    /// text (scheme in lower case, fragment dropped), so equal links still match.
    public static func canonicalize(_ url: String) -> CanonicalURL? {
        var s = url
        return s.withUTF8 { canonicalize($0, depth: 0) }
    }

    static func canonicalize(_ bytes: [UInt8], depth: Int) -> CanonicalURL? {
        bytes.withUnsafeBufferPointer { canonicalize($0, depth: depth) }
    }

    static func canonicalize(_ b: UnsafeBufferPointer<UInt8>, depth: Int) -> CanonicalURL? {
        var lo = 0, hi = b.count
        while lo < hi, b[lo] <= 0x20 { lo += 1 }
        while hi > lo, b[hi - 1] <= 0x20 { hi -= 1 }
        guard lo < hi else { return nil }

        // The scheme.
        var i = lo
        while i < hi, isSchemeByte(b[i]) { i += 1 }
        var rest = lo
        var isWeb = false
        if i < hi, b[i] == c(":"), i > lo {
            let n = i - lo
            if (n == 4 || n == 5), lowerASCII(b[lo]) == c("h"), lowerASCII(b[lo + 1]) == c("t"), lowerASCII(b[lo + 2]) == c("t"),
               lowerASCII(b[lo + 3]) == c("p"), n == 4 || lowerASCII(b[lo + 4]) == c("s") {
                var j = i + 1
                // "http:/x.com" and "http:\\x.com" happen in feeds; browsers read them as "//".
                while j < hi, b[j] == c("/") || b[j] == c("\\") { j += 1 }
                rest = j
                isWeb = true
            } else {
                // Another scheme: kept as it is, without its fragment.
                var out: [UInt8] = []
                out.reserveCapacity(hi - lo)
                for k in lo..<i { out.append(lowerASCII(b[k])) }
                var k = i
                while k < hi, b[k] != c("#") { out.append(b[k]); k += 1 }
                return CanonicalURL(bytes: out, hostLength: 0)
            }
        } else if hi - lo >= 2, b[lo] == c("/"), b[lo + 1] == c("/") {
            rest = lo + 2
            isWeb = true
        }
        guard isWeb else {
            // Not an absolute URL: the text without its fragment.
            var out: [UInt8] = []
            var k = lo
            while k < hi, b[k] != c("#") { out.append(b[k]); k += 1 }
            return out.isEmpty ? nil : CanonicalURL(bytes: out, hostLength: 0)
        }

        // Authority: [userinfo@]host[:port].
        var authEnd = rest
        while authEnd < hi, !isAuthorityEnd(b[authEnd]) { authEnd += 1 }
        var hostStart = rest
        var k = authEnd
        while k > rest { k -= 1; if b[k] == c("@") { hostStart = k + 1; break } }
        var hostEnd = authEnd
        var portStart = authEnd
        if hostStart < authEnd, b[hostStart] == c("[") {
            var close = hostStart
            while close < authEnd, b[close] != c("]") { close += 1 }
            if close < authEnd {
                hostEnd = close + 1
                if hostEnd < authEnd, b[hostEnd] == c(":") { portStart = hostEnd + 1 }
            }
        } else {
            var colon = authEnd
            while colon > hostStart { colon -= 1; if b[colon] == c(":") { hostEnd = colon; portStart = colon + 1; break } }
        }
        while hostEnd > hostStart, b[hostEnd - 1] == c(".") { hostEnd -= 1 }
        guard hostEnd > hostStart else { return nil }
        for _ in 0..<3 {
            let p = hostPrefixLength(b, hostStart, hostEnd)
            guard p > 0, (hostStart + p..<hostEnd).contains(where: { b[$0] == c(".") }) else { break }
            hostStart += p
        }
        // The port: digits, without leading zeros, and not 80 or 443.
        var portFrom = portStart
        while portFrom < authEnd, b[portFrom] == c("0") { portFrom += 1 }
        var portAllDigits = true
        for k in portStart..<authEnd where !isDigit(b[k]) { portAllDigits = false; break }
        let portLength = authEnd - portFrom
        let portIsDefault = portLength == 2 && b[portFrom] == c("8") && b[portFrom + 1] == c("0")
            || portLength == 3 && b[portFrom] == c("4") && b[portFrom + 1] == c("4") && b[portFrom + 2] == c("3")
        let keepPort = portAllDigits && portLength > 0 && !portIsDefault

        // Path, query, fragment.
        var pathEnd = authEnd
        while pathEnd < hi, b[pathEnd] != c("?"), b[pathEnd] != c("#") { pathEnd += 1 }
        var qStart = pathEnd, qEnd = pathEnd
        var fStart = hi
        if pathEnd < hi {
            if b[pathEnd] == c("?") {
                qStart = pathEnd + 1
                qEnd = qStart
                while qEnd < hi, b[qEnd] != c("#") { qEnd += 1 }
                if qEnd < hi { fStart = qEnd + 1 }
            } else {
                fStart = pathEnd + 1
            }
        }

        var out: [UInt8] = []
        out.reserveCapacity(hi - lo + 8)
        for k in hostStart..<hostEnd { out.append(lowerASCII(b[k])) }
        let hostLength = out.count

        // AMP caches: google.*/amp/s/<target>, <x>.cdn.ampproject.org/c/s/<target>.
        if depth < 4, let target = ampCacheTarget(out, b, authEnd, pathEnd, qStart, qEnd), let t = canonicalize(target, depth: depth + 1) {
            return t
        }

        // The query's parameters; a redirect wrapper gives way to its target.
        var params: [(start: Int, nameEnd: Int, end: Int)] = []
        var pbuf: [UInt8] = []
        if qStart < qEnd {
            var name: [UInt8] = []
            name.reserveCapacity(32)
            var p = qStart
            while p < qEnd {
                var e = p
                while e < qEnd, b[e] != c("&") { e += 1 }
                if e > p {
                    var eq = p
                    while eq < e, b[eq] != c("=") { eq += 1 }
                    let valueStart = eq < e ? eq + 1 : e
                    name.removeAll(keepingCapacity: true)
                    appendDecoded(b, p, eq, lower: true, into: &name)
                    let h = name.withUnsafeBytes { stableHash($0, seed: nameSeed) }
                    if depth < 4, redirectTable.contains(h) {
                        var value: [UInt8] = []
                        appendDecoded(b, valueStart, e, lower: false, into: &value)
                        if startsWithCaseInsensitive(value, "http://") || startsWithCaseInsensitive(value, "https://"),
                           let target = canonicalize(value, depth: depth + 1), target.hostLength > 0 {
                            return target
                        }
                    }
                    if !isDropped(name: name, hash: h, b, valueStart, e) {
                        if pbuf.isEmpty { pbuf.reserveCapacity(qEnd - qStart + 8) }
                        let s = pbuf.count
                        appendNormalized(b, p, eq, plusIsSpace: true, into: &pbuf)
                        let ne = pbuf.count
                        appendNormalized(b, valueStart, e, plusIsSpace: true, into: &pbuf)
                        params.append((s, ne, pbuf.count))
                    }
                }
                p = e + 1
            }
        }

        if keepPort {
            out.append(c(":"))
            for k in portFrom..<authEnd { out.append(b[k]) }
        }
        appendPath(b, authEnd, pathEnd, into: &out)
        if !params.isEmpty {
            // Sorted by name, then value (bytes); at most a few, so an insertion sort.
            var order = Array(params.indices)
            func less(_ x: Int, _ y: Int) -> Bool {
                let a = params[x], b = params[y]
                let an = pbuf[a.start..<a.nameEnd], bn = pbuf[b.start..<b.nameEnd]
                if !an.elementsEqual(bn) { return an.lexicographicallyPrecedes(bn) }
                return pbuf[a.nameEnd..<a.end].lexicographicallyPrecedes(pbuf[b.nameEnd..<b.end])
            }
            for x in 1..<order.count {
                let v = order[x]
                var y = x - 1
                while y >= 0, less(v, order[y]) { order[y + 1] = order[y]; y -= 1 }
                order[y + 1] = v
            }
            out.append(c("?"))
            for (n, idx) in order.enumerated() {
                let q = params[idx]
                if n > 0 { out.append(c("&")) }
                out.append(contentsOf: pbuf[q.start..<q.nameEnd])
                if q.end > q.nameEnd { out.append(c("=")); out.append(contentsOf: pbuf[q.nameEnd..<q.end]) }
            }
        }
        // A `#!` route chooses the page in old single-page sites; any other fragment is a place
        // on the page (BBC's `#0`, `#comments`).
        if fStart < hi, b[fStart] == c("!"), hi - fStart > 1 {
            out.append(c("#"))
            appendNormalized(b, fStart, hi, plusIsSpace: false, into: &out)
        }
        return CanonicalURL(bytes: out, hostLength: hostLength)
    }

    @inline(__always) static func c(_ s: Unicode.Scalar) -> UInt8 { UInt8(ascii: s) }

    /// The length of a leading `www.`, `www2.`, `m.`, `mobile.`, `amp.` or `mob.` (any case).
    static func hostPrefixLength(_ b: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> Int {
        for prefix in hostPrefixBytes where to - from > prefix.count {
            var ok = true
            for (k, p) in prefix.enumerated() where lowerASCII(b[from + k]) != p { ok = false; break }
            if ok { return prefix.count }
        }
        // www2., www3. ...
        if to - from > 4, lowerASCII(b[from]) == c("w"), lowerASCII(b[from + 1]) == c("w"), lowerASCII(b[from + 2]) == c("w") {
            var k = from + 3
            while k < to, isDigit(b[k]) { k += 1 }
            if k > from + 3, k < to, b[k] == c(".") { return k + 1 - from }
        }
        return 0
    }
    static let hostPrefixBytes: [[UInt8]] = hostPrefixes.map { Array($0.utf8) }

    /// The URL an AMP cache serves (`google.com/amp/s/x.com/a` is `https://x.com/a`), or nil.
    static func ampCacheTarget(_ host: [UInt8], _ b: UnsafeBufferPointer<UInt8>, _ pathStart: Int, _ pathEnd: Int, _ qStart: Int, _ qEnd: Int) -> [UInt8]? {
        let isGoogle = startsWith(host, "google.") || hasSuffix(host, ".google.com")
        let isAMPCache = hasSuffix(host, "cdn.ampproject.org") && (host.count == 18 || hasSuffix(host, ".cdn.ampproject.org"))
        guard isGoogle || isAMPCache else { return nil }
        let path = UnsafeBufferPointer(rebasing: b[pathStart..<pathEnd])
        var found: (Int, String)?
        if isGoogle {
            if startsWith(path, "/amp/s/") { found = (7, "https://") } else if startsWith(path, "/amp/"), path.count > 5 { found = (5, "http://") }
        } else {
            for (prefix, scheme) in [("/c/s/", "https://"), ("/v/s/", "https://"), ("/i/s/", "https://"), ("/wp/s/", "https://"),
                                     ("/c/", "http://"), ("/v/", "http://"), ("/i/", "http://"), ("/wp/", "http://")]
            where startsWith(path, prefix) && path.count > prefix.utf8.count {
                found = (prefix.utf8.count, scheme)
                break
            }
        }
        guard let (skip, scheme) = found else { return nil }
        var t = Array(scheme.utf8)
        t.append(contentsOf: path[skip...])
        if qStart < qEnd {
            t.append(c("?"))
            t.append(contentsOf: b[qStart..<qEnd])
        }
        return t
    }

    /// Whether a query parameter (decoded lower-case name and its hash, raw value) is tracking
    /// or AMP.
    static func isDropped(name: [UInt8], hash: UInt64, _ b: UnsafeBufferPointer<UInt8>, _ valueStart: Int, _ valueEnd: Int) -> Bool {
        if trackingTable.contains(hash) { return true }
        for p in prefixBytes where name.count >= p.count && name[0..<p.count].elementsEqual(p) { return true }
        let amp = ampTable.get(hash) ?? 0
        let marker = feedMarkerTable.contains(hash)
        guard amp != 0 || marker else { return false }
        if amp == 1 { return true }
        var v: [UInt8] = []
        appendDecoded(b, valueStart, valueEnd, lower: true, into: &v)
        if amp == 2 { return v == ampBytes }
        return startsWith(v, "rss") || startsWith(v, "feed") || startsWith(v, "atom")
    }
    static let ampBytes = Array("amp".utf8)

    /// The path's segments: `/a/./b/../c//d/amp/` -> `/a/c/d`; `story.amp` -> `story`;
    /// `index.html` dropped; the escapes normalized.
    static func appendPath(_ b: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int, into out: inout [UInt8]) {
        let pathStart = out.count
        var p = from
        while p < to {
            while p < to, b[p] == c("/") || b[p] == c("\\") { p += 1 }
            if p >= to { break }
            var e = p
            while e < to, b[e] != c("/"), b[e] != c("\\") { e += 1 }
            let segStart = out.count
            out.append(c("/"))
            appendNormalized(b, p, e, plusIsSpace: false, into: &out)
            p = e
            let n = out.count - segStart - 1
            if n == 1, out[segStart + 1] == c(".") {
                out.removeLast(2)
            } else if n == 2, out[segStart + 1] == c("."), out[segStart + 2] == c(".") {
                out.removeLast(3)
                var k = out.count
                while k > pathStart { k -= 1; if out[k] == c("/") { break } }
                if out.count > pathStart { out.removeLast(out.count - k) }
            } else if n == 3, segmentEquals(out, segStart + 1, "amp") {
                out.removeLast(4)
            } else if n > 9, segmentEndsWith(out, "amp.html"), out[out.count - 9] == c(".") {
                out.removeLast(9)
                out.append(contentsOf: htmlBytes)
            } else if n > 4, segmentEndsWith(out, ".amp") {
                out.removeLast(4)
            }
        }
        if out.count > pathStart {
            var k = out.count
            while k > pathStart { k -= 1; if out[k] == c("/") { break } }
            let n = out.count - k - 1
            for index in indexPages where index.count == n && segmentEquals(out, k + 1, index) {
                out.removeLast(n + 1)
                break
            }
        }
    }
    static let htmlBytes = Array(".html".utf8)
    static let indexPages: [[UInt8]] = ["index.html", "index.htm", "index.php", "index.shtml", "index.asp", "index.aspx", "default.aspx", "default.asp"].map { Array($0.utf8) }

    @inline(__always) static func segmentEquals(_ out: [UInt8], _ at: Int, _ s: String) -> Bool {
        var k = at
        for u in s.utf8 { guard k < out.count, lowerASCII(out[k]) == u else { return false }; k += 1 }
        return k == out.count
    }

    @inline(__always) static func segmentEquals(_ out: [UInt8], _ at: Int, _ s: [UInt8]) -> Bool {
        guard out.count - at == s.count else { return false }
        for k in 0..<s.count where lowerASCII(out[at + k]) != s[k] { return false }
        return true
    }

    @inline(__always) static func segmentEndsWith(_ out: [UInt8], _ s: String) -> Bool {
        let n = s.utf8.count
        guard out.count >= n else { return false }
        var k = out.count - n
        for u in s.utf8 { if lowerASCII(out[k]) != u { return false }; k += 1 }
        return true
    }

    /// One form for percent-encoding: `%XX` of an unreserved byte or of UTF-8 (>= 0x80) is
    /// decoded, other escapes are upper-case, bytes that cannot stand in a URL are escaped, and
    /// (in a query) `+` is a space, written `%20`.
    static func appendNormalized(_ s: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int, plusIsSpace: Bool, into out: inout [UInt8]) {
        var i = from
        while i < to {
            let ch = s[i]
            if ch == c("%"), i + 2 < to, let h = hexValue(s[i + 1]), let l = hexValue(s[i + 2]) {
                let v = h << 4 | l
                if isUnreserved(v) || v >= 0x80 { out.append(v) } else { appendEscape(v, to: &out) }
                i += 3
                continue
            }
            if ch == c("+"), plusIsSpace { appendEscape(0x20, to: &out); i += 1; continue }
            if ch <= 0x20 || ch == 0x7F || ch == c("\"") || ch == c("<") || ch == c(">") || ch == c("`") {
                appendEscape(ch, to: &out)
            } else {
                out.append(ch)
            }
            i += 1
        }
    }

    /// Percent-decoded bytes (lower-case ASCII with `lower`).
    static func appendDecoded(_ s: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int, lower: Bool, into out: inout [UInt8]) {
        var i = from
        while i < to {
            var v = s[i]
            if v == c("%"), i + 2 < to, let h = hexValue(s[i + 1]), let l = hexValue(s[i + 2]) {
                v = h << 4 | l
                i += 3
            } else {
                i += 1
            }
            out.append(lower ? lowerASCII(v) : v)
        }
    }

    /// `s` percent-decoded (for tests and callers with text).
    static func percentDecoded(_ s: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        s.withUnsafeBufferPointer { appendDecoded($0, 0, $0.count, lower: false, into: &out) }
        return out
    }

    @inline(__always) static func hexValue(_ ch: UInt8) -> UInt8? {
        switch ch {
        case c("0")...c("9"): return ch - c("0")
        case c("a")...c("f"): return ch - c("a") + 10
        case c("A")...c("F"): return ch - c("A") + 10
        default: return nil
        }
    }

    static let hexDigits = Array("0123456789ABCDEF".utf8)

    @inline(__always) static func appendEscape(_ v: UInt8, to out: inout [UInt8]) {
        out.append(c("%"))
        out.append(hexDigits[Int(v >> 4)])
        out.append(hexDigits[Int(v & 15)])
    }

    @inline(__always) static func isUnreserved(_ ch: UInt8) -> Bool {
        isAlnum(ch) || ch == c("-") || ch == c(".") || ch == c("_") || ch == c("~")
    }

    @inline(__always) static func isAlnum(_ ch: UInt8) -> Bool {
        (ch >= c("a") && ch <= c("z")) || (ch >= c("A") && ch <= c("Z")) || isDigit(ch)
    }

    @inline(__always) static func isDigit(_ ch: UInt8) -> Bool { ch >= c("0") && ch <= c("9") }

    @inline(__always) static func isSchemeByte(_ ch: UInt8) -> Bool {
        isAlnum(ch) || ch == c("+") || ch == c("-") || ch == c(".")
    }

    @inline(__always) static func isAuthorityEnd(_ ch: UInt8) -> Bool {
        ch == c("/") || ch == c("?") || ch == c("#") || ch == c("\\")
    }

    @inline(__always) static func lowerASCII(_ ch: UInt8) -> UInt8 {
        ch >= c("A") && ch <= c("Z") ? ch | 0x20 : ch
    }

    static func startsWith<C: Collection<UInt8>>(_ s: C, _ prefix: String) -> Bool {
        var it = s.makeIterator()
        for p in prefix.utf8 { guard it.next() == p else { return false } }
        return true
    }

    static func startsWithCaseInsensitive(_ s: [UInt8], _ prefix: String) -> Bool {
        guard s.count >= prefix.utf8.count else { return false }
        for (n, p) in prefix.utf8.enumerated() where lowerASCII(s[n]) != p { return false }
        return true
    }

    static func hasSuffix(_ s: [UInt8], _ suffix: String) -> Bool {
        let n = suffix.utf8.count
        guard s.count >= n else { return false }
        return s[(s.count - n)...].elementsEqual(suffix.utf8)
    }
}
