#if canImport(Glibc)
import Glibc
#endif
import TributaryCore

/// `rss`: an RSS 2.0 file of the newest `max_items` items across runs (the window is kept in
/// state), rewritten atomically after every batch so a reader never sees a partial file and
/// an item is only recorded as emitted once it is in the file. Text is escaped and stripped of
/// characters XML 1.0 forbids.
public final class RSSSink: Sink, @unchecked Sendable {
    // Called by the engine from one task at a time (Sink contract): `items` needs no lock.
    public static let descriptor = SinkDescriptor(type: "rss", summary: "an RSS 2.0 file of the newest items", options: [path, title, link, description, maxItems]) { reader in
        RSSSink(path: reader[path], title: reader[title], link: reader[link], description: reader[description], maxItems: reader[maxItems])
    }

    static let path = Option.path("path", "file to write, relative to the config file").required
    static let title = Option.string("title", "channel title").defaulted("Tributary")
    static let link = Option.httpURL("link", "channel link").defaulted("https://example.invalid/")
    static let description = Option.string("description", "channel description").defaulted("Items collected by Tributary")
    static let maxItems = Option.integer("max_items", 1...100_000, "newest items kept in the file").defaulted(100)

    let path: String
    let title: String
    let link: String
    let channelDescription: String
    let maxItems: Int
    private var items: [Item] = []
    private var window: SinkWindow?
    private var wroteThisRun = false

    public init(path: String, title: String, link: String, description: String, maxItems: Int) {
        self.path = path
        self.title = title
        self.link = link
        self.channelDescription = description
        self.maxItems = maxItems
    }

    var windowKey: String { "rss:" + path }

    public func open(_ context: SinkContext) throws(SinkError) {
        window = context.window
        if let window { items = try window.load(windowKey) }
    }

    public func write(_ batch: [Item]) throws(SinkError) {
        var byID: [String: Int] = [:]
        for (i, item) in items.enumerated() { byID[item.id] = i }
        for item in batch {
            if let i = byID[item.id] { items[i] = item } else { byID[item.id] = items.count; items.append(item) }
        }
        items = Array(newestFirst(items).prefix(maxItems))
        try AtomicFile.write(Array(render(items, now: Timestamp.now()).utf8), to: path)
        try window?.save(windowKey, items)
        wroteThisRun = true
    }

    public func close() throws(SinkError) {
        // Nothing new this run: keep the file as it is, but make sure it exists.
        if !wroteThisRun && access(path, F_OK) != 0 {
            try AtomicFile.write(Array(render(items, now: Timestamp.now()).utf8), to: path)
        }
    }

    func newestFirst(_ all: [Item]) -> [Item] {
        all.enumerated().sorted { a, b in
            let ta = a.element.published ?? a.element.fetched, tb = b.element.published ?? b.element.fetched
            return ta != tb ? ta > tb : a.offset < b.offset
        }.map(\.element)
    }

    /// Newest first by published (else fetched) time, at most `maxItems`.
    func render(_ all: [Item], now: Timestamp) -> String {
        let newest = newestFirst(all).prefix(maxItems)
        var x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        x += "<rss version=\"2.0\" xmlns:dc=\"http://purl.org/dc/elements/1.1/\" xmlns:media=\"http://search.yahoo.com/mrss/\">\n<channel>\n"
        x += "  <title>\(XML.escape(title))</title>\n  <link>\(XML.escape(link))</link>\n"
        x += "  <description>\(XML.escape(channelDescription))</description>\n"
        x += "  <generator>tributary/\(Tributary.version)</generator>\n  <lastBuildDate>\(now.rfc822)</lastBuildDate>\n"
        for item in newest {
            x += "  <item>\n    <title>\(XML.escape(item.title))</title>\n"
            if let url = item.url { x += "    <link>\(XML.escape(url))</link>\n" }
            if let s = item.summary { x += "    <description>\(XML.escape(s))</description>\n" }
            if let a = item.author { x += "    <dc:creator>\(XML.escape(a))</dc:creator>\n" }
            for tag in item.tags { x += "    <category>\(XML.escape(tag))</category>\n" }
            x += "    <guid isPermaLink=\"false\">\(XML.escape(item.id))</guid>\n"
            x += "    <pubDate>\((item.published ?? item.fetched).rfc822)</pubDate>\n"
            if let img = item.image { x += "    <media:thumbnail url=\"\(XML.escape(img))\"/>\n" }
            x += "  </item>\n"
        }
        x += "</channel>\n</rss>\n"
        return x
    }
}

/// XML 1.0 text: escapes markup characters and drops code points XML 1.0 does not allow.
public enum XML {
    public static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for u in s.unicodeScalars {
            switch u {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default:
                let v = u.value
                let allowed = v == 0x9 || v == 0xA || v == 0xD || (v >= 0x20 && v <= 0xD7FF) || (v >= 0xE000 && v <= 0xFFFD) || v >= 0x10000
                if allowed { out.unicodeScalars.append(u) }
            }
        }
        return out
    }
}
