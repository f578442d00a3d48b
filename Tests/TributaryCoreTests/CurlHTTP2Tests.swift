import Foundation
import XCTest
@testable import TributaryHTTP
@testable import TributaryBase
import TributaryTestSupport

/// The curl transport over HTTP/2 against Debian's nginx with TLS (certificates made with
/// openssl), with `ca_file`, and through a proxy: the transfers, callbacks and the
/// multiplexed admission run in this process, so the sanitizer passes see them.
final class CurlHTTP2Tests: XCTestCase {
    func testConcurrentRequestsMultiplexOverOneConnection() async throws {
        let dir = TempDir()
        defer { dir.remove() }
        let certs = try TestCertificates.make(in: dir.path + "/tls")
        _ = dir.write("site/a.txt", String(repeating: "multiplexed body\n", count: 400))
        let nginx = try NginxServer(root: dir.path + "/site", certificates: certs, folder: dir.path + "/nginx")
        defer { nginx.stop() }
        var s = HTTPSettings()
        s.caFile = certs.ca
        let t = CurlTransport(settings: s)
        defer { t.shutdown() }
        let n = 60
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<n { group.addTask { try await t.send(HTTPRequest(url: nginx.baseURL + "/a.txt?\(i)")).status } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        XCTAssertEqual(statuses, Array(repeating: 200, count: n))
        let log = nginx.accessLog(atLeast: n)
        XCTAssertEqual(log.count, n)
        XCTAssertEqual(Set(log.map(\.proto)), ["HTTP/2.0"])
        XCTAssertLessThanOrEqual(Set(log.map(\.connection)).count, 2)

        var plain = HTTPSettings()
        plain.caFile = certs.ca
        plain.http2 = false
        let h1 = CurlTransport(settings: plain)
        defer { h1.shutdown() }
        let r = try await h1.send(HTTPRequest(url: nginx.baseURL + "/a.txt"))
        XCTAssertEqual(r.status, 200)
        XCTAssertEqual(nginx.accessLog(atLeast: n + 1).filter { $0.uri == "/a.txt" }.map(\.proto), ["HTTP/1.1"])

        let untrusted = CurlTransport(settings: HTTPSettings())
        defer { untrusted.shutdown() }
        do {
            _ = try await untrusted.send(HTTPRequest(url: nginx.baseURL + "/a.txt"))
            XCTFail("the test CA is not trusted without ca_file")
        } catch {
            XCTAssertTrue(error.description.contains("TLS certificate not trusted"), error.description)
            XCTAssertTrue(error.description.contains(nginx.baseURL + "/a.txt"), error.description)
        }
    }

    func testProxyGetsTheAbsoluteFormRequest() async throws {
        let proxy = try LoopbackServer { req in .text("via proxy: \(req.path)", contentType: "text/plain") }
        defer { proxy.stop() }
        let t = CurlTransport(settings: HTTPSettings())
        defer { t.shutdown() }
        var req = HTTPRequest(url: "http://feeds.invalid/a.xml")
        req.proxy = proxy.baseURL
        let r = try await t.send(req)
        XCTAssertEqual(String(decoding: r.body, as: UTF8.self), "via proxy: http://feeds.invalid/a.xml")
    }

    func testProxyURLRulesAndCredentials() {
        XCTAssertNil(ProxyURL.problem("http://proxy.example:3128"))
        XCTAssertNil(ProxyURL.problem("socks5h://[::1]:1080"))
        XCTAssertNil(ProxyURL.problem("https://u:p@proxy.example/"))
        XCTAssertNotNil(ProxyURL.problem("ftp://proxy.example"))
        XCTAssertNotNil(ProxyURL.problem("proxy.example:3128"))
        XCTAssertNotNil(ProxyURL.problem("http://:3128"))
        XCTAssertNotNil(ProxyURL.problem("http://proxy.example:3128/x"))
        ProxyURL.registerCredentials("http://reader:s%40cret-pass@proxy.example:3128")
        defer { Secrets.removeAll() }
        XCTAssertEqual(Secrets.scrub("pw s@cret-pass and s%40cret-pass"), "pw *** and ***")
    }

    func testCAFileProblems() {
        let dir = TempDir()
        defer { dir.remove() }
        XCTAssertEqual(CABundle.problem(readingExtra: dir.path + "/none.pem"), "cannot read \(dir.path)/none.pem (No such file or directory)")
        let junk = dir.write("junk.pem", "junk")
        XCTAssertEqual(CABundle.problem(readingExtra: junk), "expected PEM CA certificates (-----BEGIN CERTIFICATE-----) in \(junk), found none")
        let pem = dir.write("ca.pem", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")
        XCTAssertNil(CABundle.problem(readingExtra: pem))
        let system = dir.write("system.pem", "SYSTEM")
        let bundle = try? CABundle.make(system: system, extra: pem).get()
        XCTAssertEqual(bundle.flatMap { try? String(contentsOfFile: $0.path, encoding: .utf8) }, "SYSTEM\n-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")
        XCTAssertEqual((try? FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory()))?.filter { $0.hasPrefix("tributary-ca-") }, [], "the combined bundle has no name")
    }
}
