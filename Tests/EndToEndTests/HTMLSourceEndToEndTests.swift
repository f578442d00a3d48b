import Foundation
import XCTest
import TributaryCore
import TributaryTestSupport

/// The `html` source on the release binary. The three worked examples of Docs/sources/html.md
/// are read from the page itself (the ```json block after each `<!-- example: NAME -->` marker,
/// and the expected items in the ```jsonl block after `<!-- items: NAME -->`) and run against
/// their saved pages (Tests/Fixtures/html/) on a loopback server; then state across runs, a
/// page where nothing matches, what `tributary test` explains, and `check` on a bad XPath.
final class HTMLSourceEndToEndTests: XCTestCase {
    /// Each example of the page: its saved page and the Content-Type its server sends.
    static let examples: [(name: String, fixture: String, contentType: String)] = [
        ("news-cards", "news-listing.html", "text/html; charset=utf-8"),
        ("release-table", "releases-table.html", "text/html"),
        ("blog-index", "blog-index.html", "text/html; charset=UTF-8"),
    ]

    static func fixture(_ name: String) throws -> [UInt8] {
        let path = BinaryRunner.packageRoot + "/Tests/Fixtures/html/" + name
        guard let data = FileManager.default.contents(atPath: path) else { throw RunnerError(message: "no fixture \(path)") }
        return Array(data)
    }

    // MARK: - Reading the examples from the page

    static func page() throws -> String {
        try String(contentsOfFile: BinaryRunner.packageRoot + "/Docs/sources/html.md", encoding: .utf8)
    }

    /// The ```<language> block right after `<!-- <marker>: <name> -->` in Docs/sources/html.md.
    static func block(_ marker: String, _ name: String, language: String) throws -> String {
        let text = try page()
        guard let m = text.range(of: "<!-- \(marker): \(name) -->\n") else { throw RunnerError(message: "no \(marker) \(name) in Docs/sources/html.md") }
        let rest = text[m.upperBound...]
        let fence = "```\(language)\n"
        guard rest.hasPrefix(fence), let end = rest.range(of: "\n```\n") else {
            throw RunnerError(message: "\(marker) \(name): no ```\(language) block right after its marker")
        }
        return String(rest[rest.index(rest.startIndex, offsetBy: fence.count)..<end.lowerBound])
    }

    static func config(_ name: String) throws -> String { try block("example", name, language: "json") }

    /// The items the page shows for an example, as objects.
    static func expectedItems(_ name: String) throws -> [NSDictionary] {
        try block("items", name, language: "jsonl").split(separator: "\n").map { line in
            guard let o = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? NSDictionary else { throw RunnerError(message: "items \(name): not an object: \(line)") }
            return o
        }
    }

    /// The origin (`https://news.example.com`) and path (`/world/`) of a config's first source's URL.
    static func origin(ofConfig text: String) throws -> (origin: String, path: String) {
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        let source = (object?["sources"] as? [[String: Any]])?.first
        guard let text = source?["url"] as? String, let url = URL(string: text), let scheme = url.scheme, let host = url.host else {
            throw RunnerError(message: "the example's source has no http(s) url")
        }
        let origin = "\(scheme)://\(host)"
        let path = String(text.dropFirst(origin.count))
        return (origin, path.isEmpty ? "/" : path)
    }

    func testThePageHasEveryExampleTheTestsRun() throws {
        let text = try Self.page()
        let names = text.components(separatedBy: "<!-- example: ").dropFirst().compactMap { $0.components(separatedBy: " -->").first }
        XCTAssertEqual(names, Self.examples.map(\.name), "an example added to the page needs its saved page here")
        for n in names {
            XCTAssertNotNil(try? JSONSerialization.jsonObject(with: Data(Self.config(n).utf8)), "example \(n) is strict JSON")
            XCTAssertFalse(try Self.expectedItems(n).isEmpty, "example \(n) shows its items")
        }
    }

    /// A loopback server answering `path` with `body` (and `ETag: "v1"`, 304 to a request that
    /// carries it), anything else with 404.
    func serve(_ path: String, _ body: [UInt8], contentType: String) throws -> LoopbackServer {
        try LoopbackServer { req in
            guard req.path == path else { return .text("not here", status: 404, contentType: "text/plain") }
            if req.header("If-None-Match") == "\"v1\"" { return LoopbackResponse(status: 304, headers: [("ETag", "\"v1\"")]) }
            return LoopbackResponse(status: 200, headers: [("Content-Type", contentType), ("ETag", "\"v1\"")], body: body)
        }
    }

    // MARK: - The examples

    func testEveryExampleOfThePageGivesTheItemsItShows() throws {
        let schema = try SchemaValidator.itemSchema()
        for example in Self.examples {
            let config = try Self.config(example.name)
            let (origin, path) = try Self.origin(ofConfig: config)
            let server = try serve(path, try Self.fixture(example.fixture), contentType: example.contentType)
            defer { server.stop() }
            let dir = TempDir()
            defer { dir.remove() }
            // The config as the page writes it, its site moved to the loopback server.
            let cfg = dir.write("tributary.json", config.replacingOccurrences(of: origin, with: server.baseURL))
            let r = try BinaryRunner.run(["run", "-c", cfg, "--jsonl", "--no-state"])
            XCTAssertEqual(r.status, 0, "\(example.name): \(r.stderr)")
            XCTAssertFalse(r.stderr.contains("warning"), "\(example.name): \(r.stderr)")
            for line in r.stdoutLines { XCTAssertEqual(schema.validate(line: line), [], "\(example.name): \(line)") }
            let got = try r.stdoutLines.map { line -> NSDictionary in
                let back = line.replacingOccurrences(of: server.baseURL, with: origin)
                let o = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(back.utf8)) as? [String: Any])
                XCTAssertNotNil(o["fetched"], line)
                return o.filter { $0.key != "fetched" } as NSDictionary
            }
            let expected = try Self.expectedItems(example.name)
            XCTAssertEqual(got.count, expected.count, "\(example.name): \(r.stdout)")
            for (g, e) in zip(got, expected) { XCTAssertEqual(g, e, example.name) }
            XCTAssertEqual(server.requestCount, 1, example.name)
        }
    }

    // MARK: - Runs

    func testASecondRunEmitsNothingNew() throws {
        let config = try Self.config("blog-index")
        let (origin, path) = try Self.origin(ofConfig: config)
        let server = try serve(path, try Self.fixture("blog-index.html"), contentType: "text/html; charset=UTF-8")
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        var object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(config.replacingOccurrences(of: origin, with: server.baseURL).utf8)) as? [String: Any])
        object["state"] = ["path": "state.sqlite"]
        object["sinks"] = [["type": "jsonl", "path": "items.jsonl"]]
        let cfg = dir.write("tributary.json", String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self))

        let first = try BinaryRunner.run(["run", "-c", cfg])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertTrue(first.stderr.contains("workshop-blog  html  ok  3 fetched  3 new"), first.stderr)
        XCTAssertEqual(dir.read("items.jsonl")?.split(separator: "\n").count, 3)

        let second = try BinaryRunner.run(["run", "-c", cfg])
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertTrue(second.stderr.contains("3 fetched  0 new"), second.stderr)
        XCTAssertEqual(dir.read("items.jsonl")?.split(separator: "\n").count, 3, "nothing written twice")
        XCTAssertEqual(server.requests.last?.header("If-None-Match"), "\"v1\"", "the second request is conditional")
        XCTAssertEqual(server.requestCount, 2)
    }

    func testAPageWhereNothingMatchesFailsTheSource() throws {
        let redesigned = "<!doctype html><html><body><main><div class=\"teaser\"><h3><a href=\"/x\">New markup</a></h3></div></main></body></html>"
        let server = try LoopbackServer { req in
            req.path == "/blog/" ? .text(String(decoding: try! Self.fixture("blog-index.html"), as: UTF8.self), contentType: "text/html")
                : .text(redesigned, contentType: "text/html; charset=utf-8")
        }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let base = server.baseURL
        let cfg = dir.write("tributary.json", #"""
        {"sources":[
          {"name":"changed","type":"html","url":"\#(base)/news/?token=TOPSECRET","items":"//main//article[.//h2/a]","fields":{"title":".//h2/a"}},
          {"name":"blog","type":"html","url":"\#(base)/blog/","items":"//ul[@class='post-list']/li","fields":{"title":"h2/a","url":"h2/a/@href"}}
        ]}
        """#)
        let r = try BinaryRunner.run(["run", "-c", cfg, "--jsonl", "--no-state"])
        XCTAssertEqual(r.status, 1, "a failed source: exit 1: \(r.stderr)")
        XCTAssertTrue(r.stderr.contains("changed  html  failed: GET \(base)/news/?token=***: no items matched //main//article[.//h2/a]  0 fetched"), r.stderr)
        XCTAssertTrue(r.stderr.contains("blog     html  ok  3 fetched  3 new"), r.stderr)
        XCTAssertTrue(r.stderr.contains("total: 2 sources, 1 failed"), r.stderr)
        XCTAssertEqual(r.stdoutLines.count, 3, "the other source's items are delivered")
        XCTAssertFalse(r.stderr.contains("TOPSECRET") || r.stdout.contains("TOPSECRET"))

        let t = try BinaryRunner.run(["test", "changed", "-c", cfg])
        XCTAssertEqual(t.status, 1, t.stderr)
        XCTAssertTrue(t.stderr.contains("changed: items //main//article[.//h2/a]: 0 matches"), t.stderr)
        XCTAssertTrue(t.stderr.contains("changed: failed: GET \(base)/news/?token=***: no items matched //main//article[.//h2/a]"), t.stderr)
    }

    // MARK: - tributary test and check

    func testTestExplainsWhatEachExpressionMatched() throws {
        let config = try Self.config("news-cards")
        let (origin, path) = try Self.origin(ofConfig: config)
        let server = try serve(path, try Self.fixture("news-listing.html"), contentType: "text/html; charset=utf-8")
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = dir.write("tributary.json", config.replacingOccurrences(of: origin, with: server.baseURL))
        let t = try BinaryRunner.run(["test", "harbor-world", "-c", cfg])
        XCTAssertEqual(t.status, 0, t.stderr)
        XCTAssertEqual(t.stdoutLines.count, 4, "the items on stdout, the explanation on stderr: \(t.stdout)")
        for expected in [
            "harbor-world: page \(server.baseURL)/world/: 5847 bytes read as UTF-8 (HTTP header); links resolve against <base href> https://news.example.com/",
            "harbor-world: items //main//article[.//h2/a]: 4 matches",
            #"harbor-world:   [1] title .//h2/a: "Storm closes three northern ports as winds reach 140 km/h""#,
            #"harbor-world:   [1] url .//h2/a/@href: "world/2026/11/29/storm-closes-northern-ports" -> https://news.example.com/world/2026/11/29/storm-closes-northern-ports"#,
            #"harbor-world:   [2] author normalize-space(substring-after(.//span[@class='byline'], 'By ')): "Tomasz Wójcik and Amara Okafor""#,
            #"harbor-world:   [3] published .//time/@datetime: "2026-11-28T22:40:00Z""#,
            "harbor-world:   [3] image .//img/@src: no match",
            "harbor-world:   ... 1 more",
        ] {
            XCTAssertTrue(t.stderr.contains(expected), "missing \(expected) in:\n\(t.stderr)")
        }
        XCTAssertFalse(t.stderr.contains("[4]"), t.stderr)

        let run = try BinaryRunner.run(["run", "-c", cfg, "--jsonl", "--no-state"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertFalse(run.stderr.contains("matches") || run.stderr.contains("[1]"), "run explains nothing: \(run.stderr)")
    }

    func testCheckNamesTheKeyOfAnXPathThatDoesNotCompile() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = dir.write("tributary.json", #"""
        {"sources":[
          {"name":"ok","type":"html","url":"https://e.org/","items":"//article","fields":{"title":"h2"}},
          {"name":"bad","type":"html","url":"https://e.org/","items":"//article[","fields":{"title":".//h2/a[@","url":"a/@href"}}
        ]}
        """#)
        let r = try BinaryRunner.run(["check", "-c", cfg])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertEqual(r.stderr.split(separator: "\n").map(String.init), [
            #"\#(cfg): sources[1] ("bad").items: "//article[" is not a valid XPath 1.0 expression"#,
            #"\#(cfg): sources[1] ("bad").fields.title: ".//h2/a[@" is not a valid XPath 1.0 expression"#,
            "tributary: 2 config errors; nothing was fetched",
        ], "only the errors: nothing from libxml2 on stderr")
        XCTAssertEqual(r.stdout, "")
        let run = try BinaryRunner.run(["run", "-c", cfg, "--no-state"])
        XCTAssertEqual(run.status, 2, "run refuses the same config before fetching: \(run.stderr)")
    }
}
