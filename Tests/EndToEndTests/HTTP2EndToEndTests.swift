import Foundation
import XCTest
import TributaryTestSupport

/// HTTP/2 against Debian's nginx over TLS (certificates made here with openssl): 200 feeds on
/// one host share one or two multiplexed connections, as nginx's access log shows
/// (`$connection $connection_requests $server_protocol`); `http.http2: false` is HTTP/1.1;
/// `http.ca_file` is what makes the test CA trusted; a source's `proxy` carries its requests.
/// nginx, the certificates and the 200 feeds are made once for the class.
final class HTTP2EndToEndTests: XCTestCase {
    static let feeds = 200
    static let itemsPerFeed = 20

    /// The class's nginx, certificates and site, made by the first test that needs them.
    final class Fixture: @unchecked Sendable {
        let dir = TempDir()
        let certificates: TestCertificates
        let nginx: NginxServer

        init() throws {
            certificates = try TestCertificates.make(in: dir.path + "/tls")
            let site = dir.path + "/site"
            try FileManager.default.createDirectory(atPath: site + "/feeds", withIntermediateDirectories: true)
            for f in 0..<HTTP2EndToEndTests.feeds {
                try HTTP2EndToEndTests.rss(feed: f).write(toFile: site + "/feeds/\(HTTP2EndToEndTests.feedName(f))", atomically: true, encoding: .utf8)
            }
            nginx = try NginxServer(root: site, certificates: certificates, folder: dir.path + "/nginx")
        }

        func remove() {
            nginx.stop()
            dir.remove()
        }
    }

    nonisolated(unsafe) static var fixture: Result<Fixture, any Error>?

    static func shared() throws -> Fixture {
        if fixture == nil { fixture = Result { try Fixture() } }
        return try fixture!.get()
    }

    override class func tearDown() {
        if case .success(let f)? = fixture { f.remove() }
        fixture = nil
        super.tearDown()
    }

    static func feedName(_ f: Int) -> String { String(format: "f%03d.xml", f) }

    /// A realistic RSS 2.0 feed: a channel and `itemsPerFeed` items with a guid, link, date,
    /// author, categories and an HTML description of a few paragraphs (about 10 KB).
    static func rss(feed f: Int) -> String {
        var items = ""
        for i in 0..<itemsPerFeed {
            let day = 1 + (i % 28)
            let paragraphs = (0..<3).map { p in
                "&lt;p&gt;Paragraph \(p) of item \(i) in feed \(f): the council met on Tuesday to discuss the new cycle lanes, "
                    + "the budget for the library and a proposal to extend the opening hours of the swimming pool during the summer.&lt;/p&gt;"
            }.joined()
            items += """
                <item>
                  <title>Feed \(f), story \(i): what happened this week</title>
                  <link>https://news\(f).example.org/2026/11/\(day)/story-\(i)</link>
                  <guid isPermaLink="false">feed-\(f)-story-\(i)</guid>
                  <pubDate>\(String(format: "%02d", day)) Nov 2026 \(String(format: "%02d", i % 24)):15:00 +0000</pubDate>
                  <dc:creator>Reporter \(i % 7)</dc:creator>
                  <category>Local</category><category>Council</category>
                  <description>\(paragraphs)</description>
                </item>

            """
        }
        return """
        <?xml version="1.0" encoding="UTF-8"?>
        <rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/">
          <channel>
            <title>News \(f)</title>
            <link>https://news\(f).example.org/</link>
            <description>Local news, site \(f)</description>
            <language>en</language>
        \(items)  </channel>
        </rss>

        """
    }

    /// A config of `count` feed sources on nginx, items to a JSON Lines file.
    func config(_ dir: TempDir, _ fx: Fixture, count: Int, http: String, extra: String = "") -> String {
        let sources = (0..<count).map { f in
            #"{"name":"f\#(f)","type":"feed","url":"\#(fx.nginx.baseURL)/feeds/\#(Self.feedName(f))"\#(extra)}"#
        }.joined(separator: ",\n")
        return dir.write("tributary.json", #"{"http":\#(http),"sources":[\#(sources)],"sinks":[{"type":"jsonl","path":"items.jsonl"}]}"#)
    }

    /// Runs the config and returns the access log lines it added, once there are `expect` of
    /// them (nginx writes a line just after the response went out: a moment later, at worst).
    func run(_ cfg: String, _ fx: Fixture, expect: Int) throws -> (BinaryRunner.Result, [NginxServer.Request]) {
        let before = fx.nginx.accessLog.count
        let r = try BinaryRunner.run(["run", "-c", cfg, "--no-state"], timeout: 60)
        return (r, Array(fx.nginx.accessLog(atLeast: before + expect, within: expect == 0 ? 0.3 : 3).dropFirst(before)))
    }

    func testTwoHundredFeedsShareOneMultiplexedConnection() throws {
        let fx = try Self.shared()
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = config(dir, fx, count: Self.feeds, http: #"{"ca_file":"\#(fx.certificates.ca)"}"#)
        let (r, log) = try run(cfg, fx, expect: Self.feeds)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("total: 200 sources, 0 failed, 4000 fetched, 4000 new"), r.stderr)
        XCTAssertEqual(dir.read("items.jsonl")?.split(separator: "\n").count, Self.feeds * Self.itemsPerFeed)
        XCTAssertEqual(log.count, Self.feeds, "one request per feed")
        XCTAssertEqual(Set(log.map(\.uri)), Set((0..<Self.feeds).map { "/feeds/" + Self.feedName($0) }))
        XCTAssertEqual(log.filter { $0.proto != "HTTP/2.0" }, [], "every request over HTTP/2")
        XCTAssertEqual(log.filter { $0.status != 200 }, [])
        let connections = Set(log.map(\.connection))
        XCTAssertLessThanOrEqual(connections.count, 2, "multiplexed: \(connections.count) connections for \(log.count) requests")
        XCTAssertGreaterThanOrEqual(log.map(\.connectionRequests).max() ?? 0, 100, "most requests on one connection")
    }

    func testHTTP2OffIsHTTP11() throws {
        let fx = try Self.shared()
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = config(dir, fx, count: 40, http: #"{"ca_file":"\#(fx.certificates.ca)","http2":false}"#)
        let (r, log) = try run(cfg, fx, expect: 40)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(log.count, 40)
        XCTAssertEqual(log.filter { $0.proto != "HTTP/1.1" }, [], "http2: false asks for HTTP/1.1 only")
        // HTTP/1.1 connections are kept alive and reused, at most `per_host` (6) at a time.
        XCTAssertLessThanOrEqual(Set(log.map(\.connection)).count, 6)
    }

    func testWithoutCAFileTheCertificateIsRefusedNamingTheURL() throws {
        let fx = try Self.shared()
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = config(dir, fx, count: 1, http: "{}", extra: #","retries":0"#)
        let (r, log) = try run(cfg, fx, expect: 0)
        XCTAssertEqual(r.status, 1, r.stderr)
        let url = fx.nginx.baseURL + "/feeds/" + Self.feedName(0)
        let line = r.stderr.split(separator: "\n").first { $0.contains(url) }.map(String.init) ?? ""
        XCTAssertTrue(line.contains("certificate"), "the failure names the URL and the certificate problem: \(r.stderr)")
        XCTAssertEqual(log, [], "no request reached nginx")
    }

    func testConfigErrorsNameTheKey() throws {
        let dir = TempDir()
        defer { dir.remove() }
        _ = dir.write("not-a-ca.pem", "hello\n")
        let cfg = dir.write("tributary.json", #"""
        {"http":{"ca_file":"no-such-ca.pem"},
         "sources":[{"name":"a","type":"feed","url":"http://127.0.0.1:9/f","proxy":"ftp://user:pr0xy-pa55@proxy.example:21"},
                    {"name":"b","type":"feed","url":"http://127.0.0.1:9/f","proxy":"127.0.0.1:3128"},
                    {"name":"c","type":"feed","url":"http://127.0.0.1:9/f","proxy":"http://proxy.example:3128/path"}]}
        """#)
        let r = try BinaryRunner.run(["check", "-c", cfg])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertEqual(r.stderr, """
        \(cfg): (top level).http.ca_file: cannot read \(dir.path)/no-such-ca.pem (No such file or directory)
        \(cfg): sources[0] ("a").proxy: expected a proxy URL such as "http://proxy.example:3128" (scheme http, https, socks5 or socks5h, then a host), found the scheme "ftp" in "ftp://***@proxy.example:21"
        \(cfg): sources[1] ("b").proxy: expected a proxy URL such as "http://proxy.example:3128" (scheme http, https, socks5 or socks5h, then a host), found "127.0.0.1:3128"
        \(cfg): sources[2] ("c").proxy: expected a proxy URL without a path, query or fragment, found "http://proxy.example:3128/path"
        tributary: 4 config errors; nothing was fetched

        """)
        XCTAssertFalse(r.stderr.contains("pr0xy-pa55"))
        let notPEM = dir.write("t2.json", #"{"http":{"ca_file":"not-a-ca.pem"},"sources":[]}"#)
        let r2 = try BinaryRunner.run(["check", "-c", notPEM])
        XCTAssertEqual(r2.status, 2, r2.stderr)
        XCTAssertTrue(r2.stderr.contains("http.ca_file: expected PEM CA certificates (-----BEGIN CERTIFICATE-----) in \(dir.path)/not-a-ca.pem, found none"), r2.stderr)
    }

    func testProxyCarriesTheSourcesRequestsAndItsPasswordIsSecret() throws {
        let password = "pr0xy-pa55w0rd"
        // The proxy: answers the absolute-form request for the feed, and refuses the other
        // source with a body that echoes the password (which must not reach any output).
        let proxy = try LoopbackServer { req in
            if req.path == "http://feeds.invalid/news.xml" {
                return .text(HTTP2EndToEndTests.rss(feed: 7), contentType: "application/rss+xml")
            }
            return .text("proxy refused: bad credentials \(password)", status: 502, contentType: "text/plain")
        }
        defer { proxy.stop() }
        let direct = try LoopbackServer { _ in .text(HTTP2EndToEndTests.rss(feed: 8), contentType: "application/rss+xml") }
        defer { direct.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let proxyURL = "http://reader:\(password)@127.0.0.1:\(proxy.port)"
        let cfg = dir.write("tributary.json", #"""
        {"sources":[{"name":"via","type":"feed","url":"http://feeds.invalid/news.xml","proxy":"\#(proxyURL)"},
                    {"name":"refused","type":"feed","url":"http://feeds.invalid/other.xml","proxy":"\#(proxyURL)","retries":0},
                    {"name":"direct","type":"feed","url":"\#(direct.baseURL)/feed.xml"}],
         "sinks":[{"type":"jsonl","path":"items.jsonl"}]}
        """#)
        let r = try BinaryRunner.run(["run", "-c", cfg, "--no-state", "--verbose"])
        XCTAssertEqual(r.status, 1, r.stderr)
        let seen = proxy.requests
        XCTAssertEqual(seen.map(\.path).sorted(), ["http://feeds.invalid/news.xml", "http://feeds.invalid/other.xml"], "the absolute-form request line of an HTTP proxy")
        let basic = "Basic " + Data("reader:\(password)".utf8).base64EncodedString()
        XCTAssertEqual(seen.map { $0.header("Proxy-Authorization") }, [basic, basic])
        XCTAssertEqual(direct.requestCount, 1, "a source without proxy goes direct")
        let items = dir.read("items.jsonl") ?? ""
        XCTAssertEqual(items.split(separator: "\n").count, 2 * Self.itemsPerFeed, r.stderr)
        XCTAssertTrue(r.stderr.contains("http://feeds.invalid/other.xml"), r.stderr)
        XCTAssertTrue(r.stderr.contains("502"), r.stderr)
        for output in [r.stdout, r.stderr, items] {
            XCTAssertFalse(output.contains(password), "the proxy password is scrubbed: \(output.prefix(2000))")
        }
    }
}
