import Foundation
import XCTest
@testable import TributaryCore

/// `watch`'s metrics endpoint in this process (so ThreadSanitizer sees its thread beside the
/// callers of `update`): answers while the text changes under it, drops idle clients after the
/// head deadline, refuses an oversized head with 431, and stops with connections open.
final class MetricsServerTests: XCTestCase {
    static func connect(_ port: Int) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var tv = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = UInt16(port).bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let ok = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        XCTAssertEqual(ok, 0)
        return fd
    }

    static func exchange(_ port: Int, _ request: String) -> String {
        let fd = connect(port)
        defer { close(fd) }
        let bytes = Array(request.utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return "send failed: \(errno)" }
            sent += n
        }
        var answer: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buf.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 { return String(decoding: answer, as: UTF8.self) + " [read failed: \(errno)]" }
            if n == 0 { break }
            answer += buf[0..<n]
        }
        return String(decoding: answer, as: UTF8.self)
    }

    func testServesWhileTheTextChangesAndDropsIdleAndOversizedClients() throws {
        let server = try MetricsServer(host: "127.0.0.1", port: 0)
        XCTAssertGreaterThanOrEqual(server.maxConnections, 8)
        XCTAssertLessThanOrEqual(server.maxConnections, MetricsServer.connectionCap)
        server.update("a 0\n")
        server.start()
        let port = server.port
        // Idle clients beyond the old limit of 16.
        let idle = (0..<40).map { _ in Self.connect(port) }
        defer { for fd in idle { close(fd) } }
        let done = Locked(false)
        let writer = Thread {
            var i = 0
            while !done.withLock({ $0 }) {
                i += 1
                server.update("a \(i)\n")
            }
        }
        writer.start()
        let group = DispatchGroup()
        let answers = Locked<[String]>([])
        for i in 0..<8 {
            DispatchQueue.global().async(group: group) {
                let a = MetricsServerTests.exchange(port, "GET \(i % 2 == 0 ? "/metrics" : "/healthz") HTTP/1.1\r\nHost: x\r\n\r\n")
                answers.withLock { $0.append(a) }
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 30), .success)
        done.withLock { $0 = true }
        for a in answers.withLock({ $0 }) {
            XCTAssertTrue(a.hasPrefix("HTTP/1.1 200 OK\r\n"), a)
            XCTAssertTrue(a.hasSuffix("ok") || a.contains("\r\n\r\na "), a)
        }
        let big = Self.exchange(port, "GET /metrics HTTP/1.1\r\nX-Pad: " + String(repeating: "b", count: 20000) + "\r\n\r\n")
        XCTAssertTrue(big.hasPrefix("HTTP/1.1 431 Request Header Fields Too Large\r\n") && !big.contains("read failed"), big)
        // The idle ones were dropped after the head deadline.
        var b: UInt8 = 0
        for fd in idle { XCTAssertEqual(read(fd, &b, 1), 0, "closed by the server") }
        server.stop()
    }

    func testAHeadIsCompleteAtItsBlankLine() {
        XCTAssertNil(MetricsServer.head(Array("GET / HTTP/1.1\r\nHost: x\r\n".utf8)))
        let h = MetricsServer.head(Array("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\nbody".utf8))
        XCTAssertEqual(h?.line, "GET /metrics HTTP/1.1")
        XCTAssertEqual(h?.length, 34, "up to and with its blank line")
        XCTAssertEqual(MetricsServer.head(Array("GET / HTTP/1.0\n\n".utf8))?.length, 16)
    }
}
