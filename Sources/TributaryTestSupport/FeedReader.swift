import Foundation
import TributaryCore

/// Reads a feed file the way real consumers do: Python's `feedparser` (PyPI) for RSS and Atom,
/// and `fastfeedparser` (PyPI) for JSON Feed, which released feedparser versions do not read.
/// Both run from the venv `make test-tools` creates (`.build/test-tools/venv`, or
/// `$TRIBUTARY_TEST_PYTHON`); each read is one short Python process.
public enum FeedReader {
    /// What the consumer saw.
    public struct Feed: Sendable {
        /// feedparser's `bozo` (1 when the document is not well-formed); for JSON Feed 1 when
        /// the parser raised.
        public let bozo: Int
        public let bozoException: String
        /// feedparser's `version` (`rss20`, `atom10`; `json11` for JSON Feed).
        public let version: String
        public let title: String
        public let link: String
        /// The feed's own URL: its `rel="self"` link (Atom, RSS's atom:link) or `feed_url`.
        public let selfLink: String?
        public let entries: [Entry]
    }

    public struct Entry: Sendable, Equatable {
        public let id: String
        public let title: String
        public let link: String?
        /// The entry's published time (for Atom, else its updated time), as unix seconds.
        public let published: Double?
        public let summary: String?
        public let author: String?
        public let tags: [String]
        public let image: String?
        /// The entry's first content's text (Atom `<content>`, JSON Feed `content_text`).
        public let content: String?

        public init(id: String, title: String, link: String?, published: Double?, summary: String?, author: String?, tags: [String], image: String?,
                    content: String? = nil) {
            self.id = id
            self.title = title
            self.link = link
            self.published = published
            self.summary = summary
            self.author = author
            self.tags = tags
            self.image = image
            self.content = content
        }
    }

    public static var python: String {
        if let p = ProcessInfo.processInfo.environment["TRIBUTARY_TEST_PYTHON"], !p.isEmpty { return p }
        return BinaryRunner.packageRoot + "/.build/test-tools/venv/bin/python3"
    }

    static let script = #"""
    import calendar, datetime, json, sys

    def seconds(parsed):
        return calendar.timegm(parsed) if parsed else None

    def self_link(links):
        return next((l.get("href") for l in links or [] if l.get("rel") == "self"), None)

    def content(e):
        c = e.get("content") or []
        return c[0].get("value") if c else None

    path, kind = sys.argv[1], sys.argv[2]
    out = {"entries": []}
    if kind == "json":
        import fastfeedparser
        try:
            f = fastfeedparser.parse(open(path, encoding="utf-8").read())
            out.update(bozo=0, bozo_exception="", version="json11")
        except Exception as e:
            f = {"feed": {}, "entries": []}
            out.update(bozo=1, bozo_exception=repr(e), version="")
        out["title"] = f["feed"].get("title") or ""
        out["link"] = f["feed"].get("link") or ""
        out["self"] = self_link(f["feed"].get("links"))
        for e in f["entries"]:
            p = e.get("published")
            out["entries"].append({
                "id": e.get("id") or "", "title": e.get("title") or "", "link": e.get("link") or None,
                "published": datetime.datetime.fromisoformat(p).timestamp() if p else None,
                "summary": e.get("description") or None, "author": e.get("author") or None,
                "tags": [t["term"] for t in e.get("tags", [])], "image": e.get("image"), "content": content(e)})
    else:
        import feedparser
        f = feedparser.parse(path)
        out.update(bozo=int(f.bozo), bozo_exception=repr(f.get("bozo_exception", "")), version=f.version or "")
        out["title"] = f.feed.get("title", "")
        out["link"] = f.feed.get("link", "")
        out["self"] = self_link(f.feed.get("links"))
        for e in f.entries:
            thumbs = e.get("media_thumbnail") or []
            out["entries"].append({
                "id": e.get("id", ""), "title": e.get("title", ""), "link": e.get("link"),
                "published": seconds(e.get("published_parsed") or e.get("updated_parsed")),
                "summary": e.get("summary"), "author": e.get("author"),
                "tags": [t.term for t in e.get("tags", [])], "image": thumbs[0].get("url") if thumbs else None, "content": content(e)})
    json.dump(out, sys.stdout, ensure_ascii=False)
    """#

    /// Parses the file at `path`; `json` picks the JSON Feed reader.
    public static func read(_ path: String, json: Bool = false) throws -> Feed {
        let r = try Shell.run([python, "-c", script, path, json ? "json" : "xml"], timeout: 60)
        guard r.status == 0 else {
            throw RunnerError(message: "the feed reader failed (run make test-tools to install feedparser and fastfeedparser): \(r.stderr)")
        }
        guard let o = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any] else {
            throw RunnerError(message: "the feed reader printed no JSON object: \(r.stdout)")
        }
        let entries = (o["entries"] as? [[String: Any]] ?? []).map { e in
            Entry(id: e["id"] as? String ?? "", title: e["title"] as? String ?? "", link: e["link"] as? String,
                  published: (e["published"] as? NSNumber)?.doubleValue, summary: e["summary"] as? String,
                  author: e["author"] as? String, tags: e["tags"] as? [String] ?? [], image: e["image"] as? String, content: e["content"] as? String)
        }
        return Feed(bozo: o["bozo"] as? Int ?? 1, bozoException: o["bozo_exception"] as? String ?? "",
                    version: o["version"] as? String ?? "", title: o["title"] as? String ?? "", link: o["link"] as? String ?? "",
                    selfLink: o["self"] as? String, entries: entries)
    }
}
