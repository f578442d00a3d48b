import TributaryPluginKit
import TributaryCore
/// The XML namespaces feeds use, each as the set of URIs seen for it in the wild.
enum FeedNamespace {
    /// RSS 2.0 elements have no namespace; RSS 1.0 and 0.90 put theirs in one; a few RSS 2.0
    /// feeds declare the old Userland one.
    static let rss: Set<String> = ["", "http://purl.org/rss/1.0/", "http://my.netscape.com/rdf/simple/0.9/", "http://backend.userland.com/rss2"]
    static let rdf: Set<String> = ["http://www.w3.org/1999/02/22-rdf-syntax-ns#"]
    static let atom: Set<String> = ["http://www.w3.org/2005/Atom", "http://purl.org/atom/ns#"]
    static let dc: Set<String> = ["http://purl.org/dc/elements/1.1/", "http://purl.org/dc/terms/"]
    static let content: Set<String> = ["http://purl.org/rss/1.0/modules/content/"]
    static let media: Set<String> = ["http://search.yahoo.com/mrss/", "http://search.yahoo.com/mrss"]
    static let itunes: Set<String> = ["http://www.itunes.com/dtds/podcast-1.0.dtd", "http://www.itunes.com/DTDs/Podcast-1.0.dtd"]
    static let youtube: Set<String> = ["http://www.youtube.com/xml/schemas/2015"]
    /// The syndication module: `sy:updatePeriod`, `sy:updateFrequency`.
    static let syndication: Set<String> = ["http://purl.org/rss/1.0/modules/syndication/"]

    /// What the usual prefixes mean when a feed forgets to declare them.
    static let wellKnownPrefixes: [String: String] = [
        "media": "http://search.yahoo.com/mrss/", "dc": "http://purl.org/dc/elements/1.1/",
        "content": "http://purl.org/rss/1.0/modules/content/", "itunes": "http://www.itunes.com/dtds/podcast-1.0.dtd",
        "atom": "http://www.w3.org/2005/Atom", "yt": "http://www.youtube.com/xml/schemas/2015",
        "sy": "http://purl.org/rss/1.0/modules/syndication/",
    ]
}

/// Media RSS, enclosure and iTunes images, shared by the RSS and Atom readers.
enum FeedImages {
    /// media:thumbnail, else media:content that is an image (also inside media:group).
    static func media(_ e: XMLElementNode) -> String? {
        if let t = e.descendant(FeedNamespace.media, "thumbnail", where: { $0.attribute("url") != nil }),
           let u = Links.absolute(t.attribute("url"), base: t.base) {
            return u
        }
        if let c = e.descendant(FeedNamespace.media, "content", where: isImage), let u = Links.absolute(c.attribute("url"), base: c.base) {
            return u
        }
        return nil
    }

    static func isImage(_ e: XMLElementNode) -> Bool {
        guard e.attribute("url") != nil || e.attribute("href") != nil else { return false }
        return e.attribute("medium")?.lowercased() == "image" || (e.attribute("type")?.lowercased().hasPrefix("image/") ?? false)
    }

    static func itunes(_ e: XMLElementNode) -> String? {
        guard let i = e.child(FeedNamespace.itunes, "image") else { return nil }
        return Links.absolute(i.attribute("href") ?? i.trimmedText, base: i.base)
    }
}
