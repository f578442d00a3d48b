import Foundation
import XCTest
import TributaryCore
import TributaryTestSupport

/// `watch`'s status page (`GET /`) and `/status.json`, through the release binary, read by a
/// real browser: headless Chromium with scripts off (Tools/headless-page.py) loads the page (its
/// DOM: every source, its health, the failing one first, hostile text as text and no element
/// injected) and renders it (each SVG chart's pixels, decoded here: bars and baselines painted); `/status.json` is what
/// `tributary status --json` prints for the same state; HEAD, 405, 404, sort and tag filter.
final class StatusPageEndToEndTests: XCTestCase {
    /// What the failing source's server answers: markup, quotes, an RTL override, a secret.
    static let hostileBody = "<script>alert(\"pwned\")</script><img src=x onerror=alert(1)> 'single' \u{202E}gnp.exe & more"

    static func rss(_ n: Int, prefix: String) -> String {
        let items = (1...n).map { "<item><title>\(prefix) \($0)</title><link>http://127.0.0.1/\(prefix)/\($0)</link><guid>\(prefix)-\($0)</guid></item>" }.joined()
        return "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>\(prefix)</title><link>http://127.0.0.1/</link>\(items)</channel></rss>"
    }

    func testTheStatusPageInChromiumAndStatusJSONMatchStatus() throws {
        let chromium = try Tool.require("chromium")
        let python = FeedReader.python
        try Tool.require(python)
        let server = try LoopbackServer { req in
            if req.path.hasPrefix("/alpha") { return .text(Self.rss(3, prefix: "alpha"), contentType: "application/rss+xml") }
            if req.path.hasPrefix("/zulu") { return .text(Self.rss(2, prefix: "zulu"), contentType: "application/rss+xml") }
            return .text(Self.hostileBody, status: 500, contentType: "text/plain")
        }
        let dir = TempDir()
        defer { server.stop(); dir.remove() }
        func feed(_ name: String, _ path: String, tags: [String], extra: String = "") -> String {
            let t = tags.map { "\"" + $0 + "\"" }.joined(separator: ",")  // JSON text already
            return #"{"name":"\#(name)","type":"feed","url":"\#(server.url(path))","interval":"1h","retries":0,"tags":[\#(t)]\#(extra)}"#
        }
        let hostileTag = #"<b>bold</b>\u202E\"q"#
        let cfg = dir.write("tributary.json", #"{"metrics":{"listen":"127.0.0.1:0"},"state":{"path":"state.sqlite"},"sources":["#
            + [feed("alpha", "/alpha", tags: ["news"]), feed("zulu", "/zulu", tags: ["tech"]),
               feed("hostile", "/bad?token=s3cr3t", tags: ["news", hostileTag]), feed("sleeper", "/alpha", tags: ["tech"], extra: #","enabled":false"#)].joined(separator: ",")
            + #"],"sinks":[{"type":"jsonl","path":"out/items.jsonl"}]}"#)
        let p = try BinaryRunner.start(["watch", "-c", cfg, "--log-format", "json"], stdoutPath: dir.path + "/o", stderrPath: dir.path + "/e")
        defer { if p.isRunning { p.terminate(); p.waitUntilExit() } }
        var url: String?
        for _ in 0..<200 where url == nil {
            for rec in (dir.read("e") ?? "").split(separator: "\n").compactMap({ try? JSONParser.parse(String($0)) }) {
                if let u = rec[path: "url"]?.stringValue { url = u }
            }
            if url == nil { usleep(25_000) }
        }
        let base = try XCTUnwrap(url, dir.read("e") ?? "")

        // /status.json, once every enabled source has run, is what `status --json` prints.
        var matched = false, last = "", expected = ""
        for _ in 0..<100 where !matched {
            let status = try BinaryRunner.run(["status", "-c", cfg, "--json"])
            let lines = status.stdout.split(separator: "\n").map(String.init)
            expected = "[\n" + lines.joined(separator: ",\n") + "\n]\n"
            last = try Shell.run([python, "-c", "import urllib.request,sys; sys.stdout.write(urllib.request.urlopen(sys.argv[1]).read().decode())", base + "/status.json"]).stdout
            matched = status.stdout.contains(#""emitted":3"#) && status.stdout.contains(#""emitted":2"#) && status.stdout.contains(#""failures":1"#) && last == expected
            if !matched { usleep(100_000) }
        }
        XCTAssertEqual(last, expected, "/status.json is the `status --json` objects as one array")
        XCTAssertFalse(last.contains("s3cr3t"), last)

        // The protocol, sort and filter, read by Python's http.client and html5lib.
        let probe = try Shell.run([python, "-c", Self.probeScript, base], timeout: 30)
        XCTAssertEqual(probe.status, 0, probe.stderr)
        let facts = try JSONParser.parse(probe.stdout)
        XCTAssertEqual(facts[path: "head.status"]?.numberValue?.text, "200", probe.stdout)
        XCTAssertEqual(facts[path: "head.body"]?.numberValue?.text, "0", "HEAD: no body: \(probe.stdout)")
        XCTAssertEqual(facts[path: "head.length"], facts[path: "get.length"], "HEAD announces the GET's length: \(probe.stdout)")
        XCTAssertEqual(facts[path: "head.type"]?.stringValue, "text/html; charset=utf-8")
        XCTAssertEqual(facts[path: "post.status"]?.numberValue?.text, "405")
        XCTAssertEqual(facts[path: "post.allow"]?.stringValue, "GET, HEAD")
        XCTAssertEqual(facts[path: "missing.status"]?.numberValue?.text, "404")
        XCTAssertEqual(facts[path: "json.type"]?.stringValue, "application/json")
        func names(_ key: String) -> [String] { facts[path: KeyPath(stringLiteral: key)]?.arrayValue?.compactMap(\.stringValue) ?? [] }
        XCTAssertEqual(names("order.default"), ["hostile", "alpha", "zulu", "sleeper"], "failing first, disabled last")
        XCTAssertEqual(names("order.name"), ["alpha", "hostile", "sleeper", "zulu"])
        XCTAssertEqual(names("order.last_run").last, "sleeper", "never run: last")
        XCTAssertEqual(names("order.news"), ["hostile", "alpha"], "?tag=news")
        XCTAssertEqual(names("order.hostile_tag"), ["hostile"], "a tag with markup, percent-encoded in its link, selects")
        XCTAssertTrue(names("links").contains("?sort=name"), "\(names("links"))")
        XCTAssertTrue(names("links").contains("?tag=news"), "\(names("links"))")

        // Chromium, scripts off, once (Tools/headless-page.py): the DOM it built, and its
        // rendering of each chart on its own.
        let shot = dir.path + "/page.png"
        let browser = try Shell.run([python, BinaryRunner.packageRoot + "/Tools/headless-page.py", base + "/", dir.path + "/dom.html", shot, "1400", "0", "svg.chart"],
                                    env: ["CHROMIUM": chromium], timeout: 60)
        XCTAssertEqual(browser.status, 0, browser.stderr)
        let read = try Shell.run([python, "-c", Self.domScript, dir.path + "/dom.html"])
        XCTAssertEqual(read.status, 0, read.stderr)
        let page = try JSONParser.parse(read.stdout)
        let rows = page[path: "rows"]?.arrayValue ?? []
        XCTAssertEqual(rows.compactMap { $0[path: "name"]?.stringValue }, ["hostile", "alpha", "zulu", "sleeper"], read.stdout)
        XCTAssertEqual(rows.compactMap { $0[path: "health"]?.stringValue }, ["failing", "ok", "ok", "disabled"], read.stdout)
        XCTAssertEqual(page[path: "injected"]?.arrayValue?.count, 0, "no element from the hostile text: \(read.stdout)")
        let text = page[path: "text"]?.stringValue ?? ""
        XCTAssertTrue(text.contains("<script>alert(\"pwned\")</script><img src=x onerror=alert(1)> 'single' [U+202E]gnp.exe & more"), text)
        XCTAssertTrue(text.contains("<b>bold</b>[U+202E]\"q"), "the tag, as text: \(text)")
        XCTAssertFalse(text.contains("\u{202E}"), "no RTL override in the page's text")
        XCTAssertFalse(text.contains("s3cr3t"), "the secret is redacted")
        let labels = page[path: "chart_labels"]?.arrayValue?.compactMap(\.stringValue) ?? []
        XCTAssertEqual(labels.count, 4, "one chart per source: \(read.stdout)")
        XCTAssertTrue(labels.count == 4 && labels[1].hasSuffix(": 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3; 3 in all"), "\(labels)")
        XCTAssertTrue(text.contains("0 0 0 0 0 0 0 0 0 0 0 0 0 2 (2 in 14 days)"), "zulu's numbers as text")

        // The charts as Chromium painted them: every one has its baseline, alpha's and zulu's a
        // bar for today's items in the bars' colour (a 8x32 bar each: the busiest day is full height).
        let charts = browser.stdout.split(separator: "\n").compactMap { try? JSONParser.parse(String($0)) }
        XCTAssertEqual(charts.count, 4, browser.stdout)
        var painted: [Int] = [], drawn: [Int] = []
        for c in charts {
            let counted = try Shell.run([python, "-c", Self.pngScript, c[path: "path"]?.stringValue ?? "", "47,111,179"])
            XCTAssertEqual(counted.status, 0, counted.stderr)
            let n = counted.stdout.split(separator: " ").map { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1 }
            painted.append(n.first ?? -1)
            drawn.append(n.last ?? -1)
        }
        XCTAssertEqual(painted.map { $0 >= 200 }, [false, true, true, false], "bar pixels per chart (hostile, alpha, zulu, sleeper): \(painted)")
        XCTAssertTrue(drawn.allSatisfy { $0 >= 100 }, "every chart is drawn (its baseline at least): \(drawn)")
        XCTAssertGreaterThan((try? FileManager.default.attributesOfItem(atPath: shot)[.size] as? Int) ?? 0, 10_000, "the whole page's screenshot")
        p.terminate()
        p.waitUntilExit()
    }

    /// HEAD, POST, a missing path and the orders of the page's rows, as one JSON object.
    static let probeScript = #"""
    import http.client, json, sys, urllib.parse, html5lib
    base = urllib.parse.urlsplit(sys.argv[1])
    def ask(method, path):
        c = http.client.HTTPConnection(base.hostname, base.port, timeout=10)
        c.request(method, path)
        r = c.getresponse()
        body = r.read()
        c.close()
        return r, body
    out = {}
    r, body = ask("HEAD", "/")
    out["head"] = {"status": r.status, "body": len(body), "length": r.getheader("Content-Length"), "type": r.getheader("Content-Type")}
    r, body = ask("GET", "/")
    out["get"] = {"length": r.getheader("Content-Length")}
    r, body = ask("POST", "/")
    out["post"] = {"status": r.status, "allow": r.getheader("Allow")}
    r, body = ask("GET", "/nope")
    out["missing"] = {"status": r.status}
    r, body = ask("GET", "/status.json")
    out["json"] = {"type": r.getheader("Content-Type")}
    def rows(query):
        r, body = ask("GET", "/" + query)
        doc = html5lib.parse(body, namespaceHTMLElements=False)
        return doc, [ "".join(s.itertext()) for s in doc.iter("span") if s.get("class") == "name" ]
    out["order"] = {}
    doc, out["order"]["default"] = rows("")
    out["links"] = [a.get("href") for a in doc.iter("a")]
    _, out["order"]["name"] = rows("?sort=name")
    _, out["order"]["last_run"] = rows("?sort=last_run")
    _, out["order"]["news"] = rows("?tag=news")
    tag = [a.get("href") for a in doc.iter("a") if "bold" in "".join(a.itertext())][0]
    _, out["order"]["hostile_tag"] = rows(tag)
    print(json.dumps(out))
    """#

    /// The rows (name, health), every element the hostile text could have made, the page's
    /// text and the charts' labels of a DOM Chromium dumped.
    static let domScript = #"""
    import json, sys, html5lib
    doc = html5lib.parse(open(sys.argv[1], "rb").read(), namespaceHTMLElements=False)
    rows = []
    for tr in doc.iter("tr"):
        if tr.get("data-health") is None: continue
        name = [s for s in tr.iter("span") if s.get("class") == "name"][0]
        health = [s for s in tr.iter("span") if s.get("class") == "health"][0]
        rows.append({"name": "".join(name.itertext()), "health": "".join(health.itertext())})
    injected = [e.tag for e in doc.iter() if isinstance(e.tag, str) and e.tag.split("}")[-1] in ("script", "img", "b", "iframe", "object")]
    body = doc.find("body")
    charts = [e for e in doc.iter() if isinstance(e.tag, str) and e.tag.split("}")[-1] == "svg"]
    print(json.dumps({"rows": rows, "injected": injected, "text": "".join(body.itertext()),
                      "charts": len(charts), "chart_labels": [c.get("aria-label") for c in charts]}))
    """#

    /// How many pixels of a PNG (8-bit RGB or RGBA, not interlaced) have the colour `r,g,b`
    /// (each channel within 8), and how many are not white (the page's background): a PNG
    /// reader in a few lines of zlib.
    static let pngScript = #"""
    import struct, sys, zlib
    data = open(sys.argv[1], "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", chunk)
            assert depth == 8 and ctype in (2, 6) and interlace == 0, (depth, ctype, interlace)
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = width * bpp
    prev = bytearray(stride)
    want = [int(v) for v in sys.argv[2].split(",")]
    count = other = 0
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        for x in range(0, stride, bpp):
            if all(abs(line[x + k] - want[k]) <= 8 for k in range(3)): count += 1
            if any(line[x + k] < 240 for k in range(3)): other += 1
        prev = line
    print(count, other)
    """#
}
