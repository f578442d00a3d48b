import Foundation
import XCTest
@testable import TributaryCore
import TributaryTestSupport

/// libcurl opened at run time (CurlLibrary).
final class CurlLibraryTests: XCTestCase {
    func testFirstRequestLoadsLibcurlAndFetches() async throws {
        let server = try LoopbackServer { _ in .text(#"{"lazy":true}"#) }
        defer { server.stop() }
        let t = CurlTransport(settings: HTTPSettings())
        defer { t.shutdown() }
        let r = try await t.send(HTTPRequest(url: server.baseURL + "/lazy"))
        XCTAssertEqual(r.status, 200)
        XCTAssertEqual(String(decoding: r.body, as: UTF8.self), #"{"lazy":true}"#)
        XCTAssertNotNil(CurlLibrary.ifLoaded, "the request loaded libcurl")
        // Every slot of the table is bound.
        let lib = try CurlLibrary.shared().get()
        for (slot, name) in CurlLibrary.slots {
            XCTAssertNotNil(lib.api.pointee[keyPath: slot], name)
        }
    }

    func testAMissingLibraryFailsEveryRequestWithTheLoaderMessage() async throws {
        let name = "libtributary-no-such-curl.so.4"
        let t = CurlTransport(settings: HTTPSettings(), library: { CurlLibrary.open(name) })
        defer { t.shutdown() }
        for _ in 0..<2 {
            do {
                _ = try await t.send(HTTPRequest(url: "http://127.0.0.1:9/x"))
                XCTFail("no libcurl: the request must fail")
            } catch {
                XCTAssertEqual(error.kind, .other)
                XCTAssertFalse(error.isRetryable)
                let text = "\(error)"
                XCTAssertTrue(text.hasPrefix("GET http://127.0.0.1:9/x: HTTP needs libcurl (\(name)"), text)
                XCTAssertTrue(text.contains("\(name): cannot open shared object file: No such file or directory"), text)
            }
        }
    }

    func testShutdownOrRefusalBeforeTheFirstRequest() async throws {
        let idle = CurlTransport(settings: HTTPSettings(), library: { XCTFail("must not load"); return CurlLibrary.open("nope") })
        idle.shutdown()
        idle.shutdown()
        let refusing = CurlTransport(settings: HTTPSettings(), library: { XCTFail("must not load"); return CurlLibrary.open("nope") })
        refusing.refuseNewRequests()
        do {
            _ = try await refusing.send(HTTPRequest(url: "http://127.0.0.1:9/x"))
            XCTFail("refused")
        } catch {
            XCTAssertEqual(error.kind, .cancelled)
        }
        refusing.shutdown()
    }
}
