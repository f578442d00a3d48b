import Foundation
import XCTest
import TributaryCore
import TributaryTestSupport

/// `tributary import opml` and `tributary export opml` through the binary: real-world exports
/// (Tests/Fixtures/opml/NOTES.md) imported, checked, exported and read back by Python's own XML
/// parser, which must find the same feeds, titles, sites and folders; an imported config run
/// against a loopback server; hostile and broken files.
final class OPMLEndToEndTests: XCTestCase {
    static let fixtures = BinaryRunner.packageRoot + "/Tests/Fixtures/opml"

    /// Python's reading of a list: every outline with an http(s) xmlUrl as
    /// `{url: [title, htmlUrl, tags]}`, tags being the enclosing folders' titles (outer first)
    /// and the `category` values, a URL listed twice merged.
    static let reader = #"""
    import html, json, sys
    import xml.etree.ElementTree as ET
    def text(s):
        return " ".join(html.unescape(s).split()) if s else None
    root = ET.parse(sys.argv[1]).getroot()
    assert root.tag == "opml", root.tag
    feeds = {}
    def walk(node, folders):
        for o in node.findall("outline"):
            url = (o.get("xmlUrl") or "").strip()
            title = text(o.get("title")) or text(o.get("text"))
            if not url:
                walk(o, folders + ([title] if title else []))
                continue
            if not url.startswith(("http://", "https://")):
                continue
            tags = []
            for t in folders + [c.strip("/ ") for c in (o.get("category") or "").split(",")]:
                if t and t not in tags:
                    tags.append(t)
            if sys.argv[2] == "export":
                assert o.get("type") == "rss" and o.get("text"), o.attrib
            if url in feeds:
                feeds[url][2] += [t for t in tags if t not in feeds[url][2]]
            else:
                feeds[url] = [title, o.get("htmlUrl") or None, tags]
            walk(o, folders)
    walk(root.find("body"), [])
    if sys.argv[2] == "export":
        assert root.get("version") == "2.0"
    print(json.dumps(feeds, sort_keys=True, ensure_ascii=False))
    """#

    func pythonReading(_ dir: TempDir, _ file: String, _ mode: String) throws -> [String: JSONValue] {
        let script = dir.write("read_opml.py", Self.reader)
        let r = try Shell.run(["python3", script, file, mode])
        XCTAssertEqual(r.status, 0, r.stderr)
        return try XCTUnwrap(JSONParser.parse(Array(r.stdout.utf8)).objectValue, r.stdout).entries.reduce(into: [:]) { $0[$1.key] = $1.value }
    }

    func testRealWorldExportsRoundTrip() throws {
        let dir = TempDir()
        defer { dir.remove() }
        for name in ["newsboat.opml", "newsboat-opml2.opml", "miniflux.opml", "nested.opml"] {
            let original = Self.fixtures + "/" + name
            let imported = try BinaryRunner.run(["import", "opml", original])
            XCTAssertEqual(imported.status, 0, "\(name): \(imported.stderr)")
            let config = dir.write(name + ".json", imported.stdout)
            let check = try BinaryRunner.run(["check", "-c", config])
            XCTAssertEqual(check.status, 0, "\(name): \(check.stderr)\n\(imported.stdout)")
            let exported = try BinaryRunner.run(["export", "opml", "-c", config])
            XCTAssertEqual(exported.status, 0, "\(name): \(exported.stderr)")
            XCTAssertEqual(exported.stderr, "", name)
            let exportFile = dir.write(name + ".exported.opml", exported.stdout)

            let before = try pythonReading(dir, original, "import")
            let after = try pythonReading(dir, exportFile, "export")
            XCTAssertFalse(before.isEmpty, name)
            XCTAssertEqual(Set(after.keys), Set(before.keys), "\(name): the same feeds\n\(exported.stdout)")
            for (url, feed) in before {
                let b = feed.arrayValue ?? [], a = after[url]?.arrayValue ?? []
                XCTAssertEqual(a.count, 3, "\(name) \(url)")
                guard a.count == 3, b.count == 3 else { continue }
                if b[0] != .null { XCTAssertEqual(a[0], b[0], "\(name) \(url): title") }
                XCTAssertEqual(a[1], b[1], "\(name) \(url): htmlUrl")
                XCTAssertEqual(a[2], b[2], "\(name) \(url): folders and categories as tags, in order")
            }

            // And once more: the exported list imports to the same sources.
            let again = try BinaryRunner.run(["import", "opml", exportFile])
            XCTAssertEqual(again.status, 0, again.stderr)
            XCTAssertEqual(Set(sourceLines(again.stdout).map { $0.replacingOccurrences(of: #","title":"untitled.example.com""#, with: "") }), Set(sourceLines(imported.stdout)), name)
            XCTAssertEqual(try BinaryRunner.run(["export", "opml", "-c", config]).stdout, exported.stdout, "\(name): the export is deterministic")
        }
    }

    /// A config's source lines, without the separating commas.
    func sourceLines(_ config: String) -> [String] {
        config.split(separator: "\n").map(String.init).filter { $0.hasPrefix("    {") }.map { $0.hasSuffix(",") ? String($0.dropLast()) : $0 }
    }

    func testImportedNamesTagsAndSkippedOutlines() throws {
        let newsboat = try BinaryRunner.run(["import", "opml", Self.fixtures + "/newsboat.opml"])
        XCTAssertEqual(newsboat.status, 0, newsboat.stderr)
        let doc = try JSONParser.parse(Array(newsboat.stdout.utf8))
        let sources = try XCTUnwrap(doc.objectValue?["sources"]?.arrayValue)
        XCTAssertEqual(sources.compactMap { $0.objectValue?["name"]?.stringValue }, ["habr.example.com", "lwn.net", "rock-roll-notes", "uber-kaffee-blog", "lwn.net-2"],
                       "lower-case [a-z0-9._-] from the title, accents dropped; the host for a Cyrillic title; a repeated title made unique")
        XCTAssertEqual(sources[2].objectValue?["title"], .string("Rock & Roll Notes"))
        XCTAssertEqual(sources[2].objectValue?["url"], .string("https://blog.example.org/feed/?tag=rock&lang=en"))
        XCTAssertEqual(sources[0].objectValue?["title"], .string("Все статьи подряд / Хабр"))
        XCTAssertTrue(newsboat.stdout.contains("Все статьи подряд"), "non-ASCII written as itself")
        XCTAssertEqual(newsboat.stderr, "")

        let nested = try BinaryRunner.run(["import", "opml", Self.fixtures + "/nested.opml"])
        XCTAssertEqual(nested.status, 0, nested.stderr)
        XCTAssertEqual(nested.stderr, #"warning: \#(Self.fixtures)/nested.opml: skipped "Liferea command": xmlUrl: expected an http:// or https:// URL, found "|/usr/local/bin/make-feed""# + "\n")
        let n = try XCTUnwrap(JSONParser.parse(Array(nested.stdout.utf8)).objectValue?["sources"]?.arrayValue)
        func source(_ name: String) -> JSONObject? { n.first { $0.objectValue?["name"]?.stringValue == name }?.objectValue }
        XCTAssertEqual(n.count, 5, nested.stdout)
        XCTAssertEqual(source("swift.org")?["tags"], .array([.string("Programming"), .string("Swift")]))
        XCTAssertEqual(source("lwn.net")?["tags"], .array([.string("Programming"), .string("Linux"), .string("News")]), "a feed in two folders is one source with both")
        XCTAssertEqual(source("untitled.example.com")?["title"], nil)
        XCTAssertNil(n.first { $0.objectValue?["url"]?.stringValue == "https://bookmark.example.com/" }, "a link outline is not a feed")

        let miniflux = try BinaryRunner.run(["import", "opml", Self.fixtures + "/miniflux.opml"])
        let m = try XCTUnwrap(JSONParser.parse(Array(miniflux.stdout.utf8)).objectValue?["sources"]?.arrayValue)
        XCTAssertEqual(m.first { $0.objectValue?["name"]?.stringValue == "uber-kaffee-blog" }?.objectValue?["tags"], .array([.string("Kultur & Gesellschaft")]))
        XCTAssertEqual(m.first { $0.objectValue?["name"]?.stringValue == "rock-roll-notes" }?.objectValue?["title"], .string("Rock & Roll Notes"), "a title escaped twice reads as meant")

        // stdin
        let piped = try BinaryRunner.run(["import", "opml", "-"], stdin: try String(contentsOfFile: Self.fixtures + "/newsboat-opml2.opml", encoding: .utf8))
        XCTAssertEqual(piped.status, 0, piped.stderr)
        XCTAssertTrue(piped.stdout.contains(#""tags":["linux","news"]"#), piped.stdout)
    }

    /// The config `import` writes is one `run` reads: every feed fetched, folders as item tags.
    func testAnImportedListRuns() throws {
        let server = try LoopbackServer { req in
            req.path == "/missing.xml" ? .text("no", status: 404, contentType: "text/plain")
                : .text(#"<?xml version="1.0"?><rss version="2.0"><channel><title>T</title><item><guid>\#(req.path)</guid><title>Hello</title><category>own</category></item></channel></rss>"#, contentType: "application/rss+xml")
        }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let list = dir.write("list.opml", """
        <?xml version="1.0" encoding="UTF-8"?>
        <opml version="2.0"><head><title>t</title></head><body>
          <outline text="Tech &amp; Science"><outline text="Deep"><outline type="rss" text="One" xmlUrl="\(server.baseURL)/one.xml"/></outline></outline>
          <outline type="rss" text="Two" xmlUrl="\(server.baseURL)/two.xml" category="flat"/>
          <outline type="rss" text="Gone" xmlUrl="\(server.baseURL)/missing.xml"/>
        </body></opml>
        """)
        let imported = try BinaryRunner.run(["import", "opml", list])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        let config = dir.write("tributary.json", imported.stdout)
        let r = try BinaryRunner.run(["run", "-c", config, "--jsonl", "--no-state", "--all"])
        XCTAssertEqual(r.status, 1, "the missing feed fails, the others deliver: \(r.stderr)")
        XCTAssertTrue(r.stderr.contains("gone  feed  failed: GET \(server.baseURL)/missing.xml: HTTP 404"), r.stderr)
        let items = try r.stdoutLines.map { try XCTUnwrap(JSONParser.parse(Array($0.utf8)).objectValue) }
        XCTAssertEqual(Set(items.compactMap { $0["source"]?.stringValue }), ["one", "two"], r.stdout)
        XCTAssertEqual(items.first { $0["source"]?.stringValue == "one" }?["tags"], .array([.string("own"), .string("Tech & Science"), .string("Deep")]))
        XCTAssertEqual(items.first { $0["source"]?.stringValue == "two" }?["tags"], .array([.string("own"), .string("flat")]))
    }

    func testHostileAndBrokenFiles() throws {
        let dir = TempDir()
        defer { dir.remove() }
        func importing(_ name: String, _ body: String) throws -> BinaryRunner.Result {
            try BinaryRunner.run(["import", "opml", dir.write(name, body)], timeout: 20)
        }
        let laughs = try importing("laughs.opml", """
        <?xml version="1.0"?>
        <!DOCTYPE opml [<!ENTITY a "ha"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>
        <opml version="2.0"><body><outline text="&c;" xmlUrl="https://e.org/f"/></body></opml>
        """)
        XCTAssertEqual(laughs.status, 2)
        XCTAssertTrue(laughs.stderr.contains("laughs.opml: the file has a <!DOCTYPE declaration; OPML has none, and it is not read"), laughs.stderr)
        XCTAssertEqual(laughs.stdout, "")

        let external = try importing("external.opml", #"<?xml version="1.0"?><!ENTITY x SYSTEM "file:///etc/passwd"><opml/>"#)
        XCTAssertEqual(external.status, 2)
        XCTAssertTrue(external.stderr.contains("<!ENTITY declaration"), external.stderr)

        let depth = 100_000
        let deep = try importing("deep.opml", "<opml version=\"2.0\"><body>" + String(repeating: "<outline text=\"x\">", count: depth) + String(repeating: "</outline>", count: depth) + "</body></opml>")
        XCTAssertEqual(deep.status, 2, "no crash, an error: \(deep.stderr)")
        XCTAssertTrue(deep.stderr.contains("deep.opml: "), deep.stderr)
        let moderate = try importing("moderate.opml", "<opml version=\"2.0\"><body>" + String(repeating: "<outline text=\"x\">", count: 100) + "<outline xmlUrl=\"https://e.org/f\"/>" + String(repeating: "</outline>", count: 100) + "</body></opml>")
        XCTAssertEqual(moderate.status, 2)
        XCTAssertTrue(moderate.stderr.contains("moderate.opml: outlines are nested deeper than 64 levels"), moderate.stderr)

        let rss = try importing("feed.xml", #"<?xml version="1.0"?><rss version="2.0"><channel/></rss>"#)
        XCTAssertEqual(rss.status, 2)
        XCTAssertTrue(rss.stderr.contains("feed.xml: the root element is <rss>, not <opml>: not an OPML file"), rss.stderr)

        let broken = try importing("broken.opml", "<opml version=\"1.0\">\n<body>\n<outline text=\"Fish & Chips\" xmlUrl=\"https://e.org/f\"/>\n</body></opml>")
        XCTAssertEqual(broken.status, 2)
        XCTAssertTrue(broken.stderr.contains("broken.opml: malformed XML at line 3"), broken.stderr)

        let empty = try importing("empty.opml", "<opml version=\"2.0\"><head/><body><outline text=\"Folder\"/></body></opml>")
        XCTAssertEqual(empty.status, 2)
        XCTAssertTrue(empty.stderr.contains("empty.opml: no outline has an http(s) xmlUrl; nothing to import"), empty.stderr)

        let missing = try BinaryRunner.run(["import", "opml", dir.path + "/nope.opml"])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("nope.opml: cannot open \(dir.path)/nope.opml: No such file or directory"), missing.stderr)
    }

    func testUsage() throws {
        for (argv, message) in [
            (["import"], "`tributary import` needs one of: opml, then FILE"),
            (["import", "xml", "f"], "`tributary import` needs one of: opml, then FILE"),
            (["import", "opml"], "`tributary import opml` needs exactly one FILE"),
            (["export"], "`tributary export` needs one of: opml"),
            (["export", "opml", "--only", "x"], "unknown option --only for `tributary export`"),
        ] {
            let r = try BinaryRunner.run(argv)
            XCTAssertEqual(r.status, 2, "\(argv)")
            XCTAssertTrue(r.stderr.contains(message), "\(argv): \(r.stderr)")
        }
        let help = try BinaryRunner.run(["help", "import"])
        XCTAssertTrue(help.stdout.contains("tributary import opml FILE"), help.stdout)
        XCTAssertTrue(help.stdout.contains("print a config on stdout"), help.stdout)
        let main = try BinaryRunner.run(["--help"])
        XCTAssertTrue(main.stdout.contains("import      print a config with one feed source per feed of an OPML file (to stdout)"), main.stdout)
        XCTAssertTrue(main.stdout.contains("tributary export opml [-c FILE]"), main.stdout)
    }

    /// Only feed sources are exported; a disabled one with an unset variable is left out with a
    /// warning (its URL is not known).
    func testExportLeavesOutOtherSourcesAndUnknownURLs() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let config = dir.write("tributary.json", #"""
        {"sources":[
          {"name":"blog","type":"feed","urls":["https://a.example.org/feed","https://b.example.org/rss"],"title":"Blogs <&> \"more\"","tags":["x"]},
          {"name":"secret","type":"feed","url":"https://e.org/${TRIBUTARY_TEST_UNSET_OPML}","enabled":false},
          {"name":"weather","type":"open-meteo","coordinates":[{"lat":52.52,"lon":13.41,"name":"Berlin"}]}
        ]}
        """#)
        let r = try BinaryRunner.run(["export", "opml", "-c", config])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains(#"source "secret" left out"#), r.stderr)
        let file = dir.write("out.opml", r.stdout)
        let feeds = try pythonReading(dir, file, "export")
        XCTAssertEqual(Set(feeds.keys), ["https://a.example.org/feed", "https://b.example.org/rss"])
        XCTAssertEqual(feeds["https://a.example.org/feed"], .array([.string(#"Blogs <&> "more""#), .null, .array([.string("x")])]))
    }
}
