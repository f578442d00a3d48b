import CSystem
import Foundation
import XCTest
@testable import TributaryCore
@testable import TributaryBase
@testable import TributaryJSON
@testable import TributaryOptions
@testable import TributaryHTTP
@testable import TributaryState
@testable import TributaryPostgres
@testable import TributaryPluginKit
import TributaryTestSupport

/// libcurl opened at run time (CurlLibrary) and the version read without loading it.
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

    func testVersionFromTheLibraryFileIsCurlVersionInfo() throws {
        let onDisk = CurlLibrary.versionOnDisk()
        let lib = try CurlLibrary.shared().get()
        XCTAssertNotNil(onDisk, "libcurl.so.4 located and its version found without loading it")
        XCTAssertEqual(onDisk, lib.version)
        XCTAssertEqual(CurlTransport.curlVersion, lib.version)
        XCTAssertFalse(lib.version.contains("not found"), lib.version)
    }

    func testLocateFindsTheFileTheLoaderOpened() throws {
        let lib = try CurlLibrary.shared().get()
        let located = try XCTUnwrap(LibraryFile.locate(CurlLibrary.soname))
        var info = Dl_info()
        XCTAssertNotEqual(dladdr(lib.api.pointee.easy_init, &info), 0)
        let loaded = try XCTUnwrap(info.dli_fname.map { String(cString: $0) })
        XCTAssertEqual(realpath(located), realpath(loaded), "\(located) vs \(loaded)")
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

    func testEmbeddedVersion() {
        let dir = TempDir()
        defer { dir.remove() }
        let path = dir.write("libfake.so.4", "junk\0libcurl/%s\0libcurl/ no\0libcurl/8.5.0-DEV\0libcurl/9.9.9\0")
        XCTAssertEqual(LibraryFile.embeddedVersion(after: "libcurl/", inFile: path), "8.5.0-DEV")
        XCTAssertNil(LibraryFile.embeddedVersion(after: "libz/", inFile: path))
        XCTAssertNil(LibraryFile.embeddedVersion(after: "libcurl/", inFile: dir.path + "/missing.so"))
    }

    func testSearchOrderPieces() {
        for d in ["/lib", "/usr/lib", "/usr/lib/", "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/usr/lib64"] {
            XCTAssertTrue(LibraryFile.isSystemDirectory(d), d)
        }
        for d in ["/opt/lib", "/usr/local/lib", "/usr/lib/x86_64-linux-gnu/sub", "/library", "/work/.build/release"] {
            XCTAssertFalse(LibraryFile.isSystemDirectory(d), d)
        }
        let dirs = LibraryFile.searchDirectories()
        XCTAssertFalse(dirs.isEmpty)
        XCTAssertTrue(dirs.contains { LibraryFile.isSystemDirectory($0) }, "\(dirs)")
        let libc = LibraryFile.cacheLookup("libc.so.6")
        XCTAssertTrue(libc?.hasSuffix("/libc.so.6") ?? false, "\(libc ?? "nil")")
        XCTAssertNil(LibraryFile.cacheLookup("libtributary-no-such.so.1"))
        XCTAssertNil(LibraryFile.cacheLookup("libc.so.6", cache: "/nonexistent/ld.so.cache"))
    }

    private func realpath(_ path: String) -> String {
        guard let r = Foundation.realpath(path, nil) else { return path }
        defer { free(r) }
        return String(cString: r)
    }
}
