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

/// The real libcurl transport and the retry policy against a loopback server (127.0.0.1 only).
final class CurlTransportTests: XCTestCase {
    func transport(concurrency: Int = 32, perHost: Int = 6, maxBody: Int = 16 << 20) -> CurlTransport {
        var s = HTTPSettings()
        s.concurrency = concurrency
        s.perHost = perHost
        s.maxBody = maxBody
        return CurlTransport(settings: s)
    }

    func testGetSendsUserAgentAndAcceptEncoding() async throws {
        let server = try LoopbackServer { _ in .text(#"{"ok":true}"#) }
        defer { server.stop() }
        let t = transport()
        defer { t.shutdown() }
        let r = try await t.send(HTTPRequest(url: server.baseURL + "/x?q=1"))
        XCTAssertEqual(r.status, 200)
        XCTAssertEqual(String(decoding: r.body, as: UTF8.self), #"{"ok":true}"#)
        XCTAssertEqual(r.header("content-type"), "application/json")
        let req = try XCTUnwrap(server.requests.first)
        XCTAssertEqual(req.path, "/x?q=1")
        XCTAssertEqual(req.header("User-Agent"), "tributary/\(Tributary.version)")
        let enc = req.header("Accept-Encoding") ?? ""
        XCTAssertTrue(enc.contains("gzip") && enc.contains("deflate"), enc)
    }

    /// A body whose length the head announces is read into room taken at its first bytes
    /// (at most 1 MiB ahead): whole, in one or many writes, and the same when the length is
    /// not announced (chunked). The helpers read the header by its bytes.
    func testAnnouncedLengthsAreReadAndBodiesComeWhole() async throws {
        XCTAssertTrue(Array("Content-Length".utf8).withUnsafeBytes { Transfer.isContentLength($0) })
        XCTAssertTrue(Array("CONTENT-LENGTH".utf8).withUnsafeBytes { Transfer.isContentLength($0) })
        XCTAssertFalse(Array("Content\rLength".utf8).withUnsafeBytes { Transfer.isContentLength($0) })
        XCTAssertFalse(Array("Content-Lengtx".utf8).withUnsafeBytes { Transfer.isContentLength($0) })
        for (text, value) in [("25000", 25000), ("0", 0), ("", nil), ("12a", nil), ("-1", nil), ("1234567890123456789", nil), ("999999999999999999", 999_999_999_999_999_999)] as [(String, Int?)] {
            XCTAssertEqual(Array(text.utf8).withUnsafeBytes { Transfer.decimal($0) }, value, text)
        }
        let big = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }   // past the 1 MiB taken ahead
        let server = try LoopbackServer { req in
            switch req.path {
            case "/big": return LoopbackResponse(status: 200, headers: [(name: "Content-Type", value: "application/octet-stream")], body: big)
            default: return .text(String(repeating: "x", count: 25_000))
            }
        }
        defer { server.stop() }
        let t = transport()
        defer { t.shutdown() }
        let small = try await t.send(HTTPRequest(url: server.baseURL + "/small"))
        XCTAssertEqual(small.body, Array(String(repeating: "x", count: 25_000).utf8))
        let large = try await t.send(HTTPRequest(url: server.baseURL + "/big"))
        XCTAssertEqual(large.body.count, big.count)
        XCTAssertEqual(large.body, big)
    }

    func testGzipBodyIsDecoded() async throws {
        let plain = String(repeating: #"{"title":"Привет"},"#, count: 500)
        let gz = try gzip(Array(plain.utf8))
        let server = try LoopbackServer { _ in LoopbackResponse(headers: [("Content-Encoding", "gzip"), ("Content-Type", "application/json")], body: gz) }
        defer { server.stop() }
        let t = transport()
        defer { t.shutdown() }
        let r = try await t.send(HTTPRequest(url: server.baseURL + "/gz"))
        XCTAssertEqual(String(decoding: r.body, as: UTF8.self), plain)
        XCTAssertLessThan(gz.count, plain.utf8.count / 5)
    }

    func testGlobalConcurrencyLimitIsRespected() async throws {
        let server = try LoopbackServer { _ in LoopbackResponse(status: 200, body: Array("x".utf8), delay: 0.2) }
        defer { server.stop() }
        let t = transport(concurrency: 5, perHost: 100)
        defer { t.shutdown() }
        try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<30 { group.addTask { try await t.send(HTTPRequest(url: server.baseURL + "/\(i)")).status } }
            for try await status in group { XCTAssertEqual(status, 200) }
        }
        XCTAssertEqual(server.requestCount, 30)
        XCTAssertLessThanOrEqual(server.maxConcurrent, 5)
        XCTAssertGreaterThanOrEqual(server.maxConcurrent, 3, "transfers should overlap")
    }

    /// The curl thread waits on curl's sockets in an epoll set that follows what curl says of
    /// each socket. Connections the server closes (every third answer), others kept alive and
    /// reused, answers late or at once: the socket numbers of closed connections come back for
    /// new ones, and every request still gets its own body, without waiting: a socket left
    /// out of the set is noticed only by curl's once-a-second stall check (with the set's
    /// bookkeeping broken the 400 answers took 23.5 s, against 0.2 s).
    func testSocketsClosedAndReusedStillCarryEveryAnswer() async throws {
        let server = try LoopbackServer { req in
            let n = Int(req.path.dropFirst()) ?? -1
            var headers: [(name: String, value: String)] = []
            if n % 3 == 0 { headers.append(("Connection", "close")) }
            return LoopbackResponse(status: 200, headers: headers, body: Array("body \(n)".utf8), delay: n % 5 == 0 ? 0.03 : 0)
        }
        defer { server.stop() }
        let t = transport(concurrency: 16, perHost: 16)
        defer { t.shutdown() }
        let started = ContinuousClock.now
        let answers = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for i in 0..<400 {
                group.addTask {
                    let response = try await t.send(HTTPRequest(url: server.baseURL + "/\(i)"))
                    return (i, String(decoding: response.body, as: UTF8.self))
                }
            }
            var all: [Int: String] = [:]
            for try await (i, body) in group { all[i] = body }
            return all
        }
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(8), "answers waited for curl's stall check")
        XCTAssertEqual(answers.count, 400)
        for i in 0..<400 { XCTAssertEqual(answers[i], "body \(i)") }
        XCTAssertEqual(server.requestCount, 400)
        // Handles are reset and reused, connections closed or not: at most one per slot.
        XCTAssertLessThanOrEqual(t.handlesMade, 16)
        XCTAssertGreaterThanOrEqual(t.handlesMade, 1)
    }

    /// A send cancelled after `shutdown()` (the loop's shutdown resumed its continuation, its
    /// task has not run again) still calls the driver's wake-up: it must not write into a file
    /// opened after the shutdown under the wake-up's old descriptor number. (Found in review:
    /// with the descriptors closed in `shutdown()`, a pipe opened after it got the 8 bytes in
    /// 3 runs of 3.)
    func testACancelAfterShutdownWritesIntoNoLaterFile() async throws {
        let server = try LoopbackServer { _ in LoopbackResponse(status: 200, body: Array("x".utf8), delay: 3) }
        defer { server.stop() }
        let t = transport(concurrency: 8, perHost: 8)
        let gate = GateExecutor()
        let send = Task(executorPreference: gate) { () -> HTTPError.Kind? in
            do throws(HTTPError) {
                _ = try await t.send(HTTPRequest(url: server.baseURL + "/x", timeout: 10))
                return nil
            } catch { return error.kind }
        }
        try await Task.sleep(nanoseconds: 300_000_000)
        gate.hold(true)
        t.shutdown()
        var pipes: [(Int32, Int32)] = []
        for _ in 0..<8 {
            var p: [Int32] = [0, 0]
            XCTAssertEqual(pipe(&p), 0)
            _ = fcntl(p[0], F_SETFL, O_NONBLOCK)
            pipes.append((p[0], p[1]))
        }
        send.cancel()
        var strays: [String] = []
        for (r, w) in pipes {
            var buf = [UInt8](repeating: 0, count: 16)
            let n = read(r, &buf, 16)
            if n > 0 { strays.append("a pipe opened after shutdown (fd \(r)) got \(n) bytes: \(buf.prefix(n))") }
            close(r)
            close(w)
        }
        gate.hold(false)
        let kind = await send.value
        XCTAssertEqual(strays, [])
        XCTAssertEqual(kind, .cancelled)
    }

    func testPerHostLimitIsRespected() async throws {
        let server = try LoopbackServer { _ in LoopbackResponse(status: 200, body: Array("x".utf8), delay: 0.2) }
        defer { server.stop() }
        let t = transport(concurrency: 32, perHost: 2)
        defer { t.shutdown() }
        try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<12 { group.addTask { try await t.send(HTTPRequest(url: server.baseURL + "/\(i)")).status } }
            for try await _ in group {}
        }
        XCTAssertLessThanOrEqual(server.maxConcurrent, 2)
        XCTAssertEqual(server.requestCount, 12)
    }

    func testTimeoutIsAnErrorWithTheRedactedURL() async throws {
        let server = try LoopbackServer { _ in LoopbackResponse(body: Array("late".utf8), delay: 5) }
        defer { server.stop() }
        let t = transport()
        defer { t.shutdown() }
        let start = Date()
        do {
            _ = try await t.send(HTTPRequest(url: server.baseURL + "/slow?api_key=SECRET", timeout: 0.5))
            XCTFail("should time out")
        } catch {
            XCTAssertEqual(error.kind, .timeout)
            XCTAssertTrue(error.isRetryable)
            XCTAssertFalse("\(error)".contains("SECRET"), "\(error)")
            XCTAssertTrue("\(error)".contains("api_key=***"), "\(error)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 3)
    }

    func testRetriesOn503ThenSucceeds() async throws {
        let counter = Counter()
        let server = try LoopbackServer { _ in
            counter.next() < 2 ? .text("busy", status: 503) : .text(#"{"ok":1}"#)
        }
        defer { server.stop() }
        let t = transport()
        defer { t.shutdown() }
        let client = HTTPClient(transport: t, retries: 2, timeout: 5, backoffBase: 0.05)
        let r = try await client.fetch(HTTPRequest(url: server.baseURL + "/flaky"))
        XCTAssertEqual(r.status, 200)
        XCTAssertEqual(server.requestCount, 3)
    }

    /// A 304 whose stored body state cannot give (a read error, or no row) is not handed to the
    /// source as an empty answer: the request goes again without validators, with a warning.
    func testA304WhoseStoredBodyCannotBeReadIsFetchedAgainWithoutValidators() async throws {
        let server = try LoopbackServer { req in
            req.header("If-None-Match") != nil ? LoopbackResponse(status: 304, body: []) : .text(#"{"fresh":1}"#)
        }
        defer { server.stop() }
        let t = transport()
        defer { t.shutdown() }
        for failing in [true, false] {
            let warnings = Locked<[String]>([])
            let probe = RequestLedger(scope: "s")
            let key = probe.key(method: "GET", url: server.baseURL + "/v")
            let ledger = RequestLedger(scope: "s", known: [key: HTTPValidators(etag: "\"v1\"", lastModified: nil)],
                                       cache: FailingCache(failing: failing),
                                       warn: { m in warnings.withLock { $0.append(m) } })
            let client = HTTPClient(transport: t, retries: 0, timeout: 5, ledger: ledger)
            let r = try await client.fetch(HTTPRequest(url: server.baseURL + "/v"))
            XCTAssertEqual(r.status, 200)
            XCTAssertEqual(String(decoding: r.body, as: UTF8.self), #"{"fresh":1}"#)
            let w = warnings.withLock { $0 }
            XCTAssertEqual(w.count, 1, "\(w)")
            XCTAssertTrue(w.first?.contains(failing ? "disk I/O error" : "no stored response") == true, "\(w)")
            XCTAssertFalse(w.first?.hasPrefix("s ") == true, "the key is shown without its scope: \(w)")
        }
        XCTAssertEqual(server.requestCount, 4, "each fetch: the conditional request, then one without validators")
    }

    func testRetryAfterIsHonoured() async throws {
        let counter = Counter()
        let server = try LoopbackServer { _ in
            counter.next() == 0 ? LoopbackResponse(status: 429, headers: [("Retry-After", "1")], body: Array("slow down".utf8)) : .text("{}")
        }
        defer { server.stop() }
        let t = transport()
        defer { t.shutdown() }
        let client = HTTPClient(transport: t, retries: 1, timeout: 5, backoffBase: 0.01)
        let start = Date()
        _ = try await client.fetch(HTTPRequest(url: server.baseURL + "/limited"))
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.95)
        XCTAssertEqual(server.requestCount, 2)
    }

    func testRetriesRunOutAndOther4xxAreNotRetried() async throws {
        let server = try LoopbackServer { req in
            req.path.hasPrefix("/gone") ? .text(#"{"error":"nope"}"#, status: 404) : .text("down", status: 500)
        }
        defer { server.stop() }
        let t = transport()
        defer { t.shutdown() }
        let client = HTTPClient(transport: t, retries: 2, timeout: 5, backoffBase: 0.01)
        do {
            _ = try await client.fetch(HTTPRequest(url: server.baseURL + "/gone?token=T0K"))
            XCTFail("404 must fail")
        } catch {
            XCTAssertEqual(error.status, 404)
            XCTAssertEqual("\(error)", "GET \(server.baseURL)/gone?token=***: HTTP 404 Not Found: {\"error\":\"nope\"}")
        }
        XCTAssertEqual(server.requestCount, 1)
        do {
            _ = try await client.fetch(HTTPRequest(url: server.baseURL + "/down"))
            XCTFail("500 must fail after retries")
        } catch {
            XCTAssertEqual(error.status, 500)
        }
        XCTAssertEqual(server.requestCount, 4, "1 + 3 attempts")
    }

    func testBodyCapStopsAnEndlessChunkedResponse() async throws {
        let server = try LoopbackServer { _ in LoopbackResponse(chunked: true, endlessChunks: 16 * 1024) }
        defer { server.stop() }
        let t = transport(maxBody: 256 * 1024)
        defer { t.shutdown() }
        let start = Date()
        do {
            _ = try await t.send(HTTPRequest(url: server.baseURL + "/endless"))
            XCTFail("should hit the body cap")
        } catch {
            XCTAssertEqual(error.kind, .bodyTooLarge)
            XCTAssertTrue("\(error)".contains("256KiB"), "\(error)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 5)
    }

    /// A peek (the webhook sink's) decides on the head: a few KiB of the body are read, for a
    /// short time, whether the body is huge, endless or stalled.
    func testAPeekEndsAtItsBytesOrItsTimeAndTheHeadIsTheResponse() async throws {
        let answers: [(String, LoopbackResponse)] = [
            ("huge", LoopbackResponse(status: 200, body: Array(repeating: UInt8(ascii: "h"), count: 20 << 20))),
            ("endless", LoopbackResponse(status: 202, endlessChunks: 1000)),
            ("stalled", LoopbackResponse(status: 200, headers: [("Content-Length", "5000")], body: Array(repeating: UInt8(ascii: "s"), count: 5000), stallAfter: 10)),
            ("error, endless", LoopbackResponse(status: 503, endlessChunks: 1000)),
        ]
        let t = transport(maxBody: 1 << 20)
        defer { t.shutdown() }
        for (what, answer) in answers {
            let server = try LoopbackServer { _ in answer }
            defer { server.stop() }
            let start = Date()
            let r = try await t.send(HTTPRequest(method: "POST", url: server.baseURL + "/hook", body: Array("x".utf8), timeout: 20, followRedirects: false,
                                                 peek: .init(bytes: 4096, seconds: 1)))
            XCTAssertEqual(r.status, answer.status, what)
            XCTAssertEqual(r.body.count, what == "stalled" ? 10 : 4096, what)
            XCTAssertLessThan(Date().timeIntervalSince(start), 4, "\(what): the body is not waited for")
        }
        // Without a peek the same huge body is refused, as before.
        let server = try LoopbackServer { _ in answers[0].1 }
        defer { server.stop() }
        do {
            _ = try await t.send(HTTPRequest(url: server.baseURL + "/x"))
            XCTFail("over http.max_body")
        } catch {
            XCTAssertEqual(error.kind, .bodyTooLarge)
        }
    }

    func testRedirectToFileIsRefused() async throws {
        let server = try LoopbackServer { _ in LoopbackResponse(status: 302, headers: [("Location", "file:///etc/passwd")]) }
        defer { server.stop() }
        let t = transport()
        defer { t.shutdown() }
        do {
            let r = try await t.send(HTTPRequest(url: server.baseURL + "/r", allowFile: true))
            XCTFail("redirect to file:// must be refused, got \(r.status) \(r.body.count) bytes")
        } catch {
            XCTAssertEqual(error.kind, .protocolRefused)
        }
    }

    func testRedirectLoopIsCapped() async throws {
        let server = try LoopbackServer { req in LoopbackResponse(status: 302, headers: [("Location", req.path == "/a" ? "/b" : "/a")]) }
        defer { server.stop() }
        let t = transport()
        defer { t.shutdown() }
        do {
            _ = try await t.send(HTTPRequest(url: server.baseURL + "/a"))
            XCTFail("loop must fail")
        } catch {
            XCTAssertEqual(error.kind, .tooManyRedirects)
        }
        XCTAssertLessThanOrEqual(server.requestCount, 6, "first request plus at most 5 redirects")
    }

    func testRedirectsAreFollowed() async throws {
        let server = try LoopbackServer { req in
            req.path == "/old" ? LoopbackResponse(status: 301, headers: [("Location", "/new")]) : .text(#"{"moved":true}"#)
        }
        defer { server.stop() }
        let t = transport()
        defer { t.shutdown() }
        let r = try await t.send(HTTPRequest(url: server.baseURL + "/old"))
        XCTAssertEqual(r.status, 200)
        XCTAssertEqual(r.url, server.baseURL + "/new")
    }

    /// One transfer at a time reuses one easy handle (reset between transfers): what the
    /// one before set (a method, a body, headers, no body wanted, a peek, a body cap, file
    /// URLs) never reaches the next.
    func testAReusedHandleCarriesNothingOfTheTransferBefore() async throws {
        let big = Array(repeating: UInt8(ascii: "b"), count: 200_000)
        let server = try LoopbackServer { req in
            req.path == "/big" ? LoopbackResponse(status: 200, body: big) : .text("answer to \(req.method) \(req.path)")
        }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let path = dir.write("doc.json", #"{"a":1}"#)
        let t = transport(concurrency: 1, perHost: 1, maxBody: 100_000)
        defer { t.shutdown() }
        let base = server.baseURL
        let posted = try await t.send(HTTPRequest(method: "POST", url: base + "/post", headers: [("X-Token", "abc"), ("Content-Type", "text/plain")],
                                                  body: Array("secret body".utf8)))
        XCTAssertEqual(posted.status, 200)
        let head = try await t.send(HTTPRequest(method: "HEAD", url: base + "/head"))
        XCTAssertEqual(head.body, [])
        let got = try await t.send(HTTPRequest(url: base + "/get"))
        XCTAssertEqual(String(decoding: got.body, as: UTF8.self), "answer to GET /get", "HEAD's no-body must not stay")
        _ = try await t.send(HTTPRequest(method: "DELETE", url: base + "/delete"))
        let peeked = try await t.send(HTTPRequest(url: base + "/big", peek: .init(bytes: 1000, seconds: 5)))
        XCTAssertEqual(peeked.body.count, 1000)
        do {
            _ = try await t.send(HTTPRequest(url: base + "/big"))
            XCTFail("over the 100,000-byte cap: a peek before it must not lift the cap")
        } catch {
            XCTAssertEqual(error.kind, .bodyTooLarge)
        }
        let file = try await t.send(HTTPRequest(url: "file://" + path, allowFile: true))
        XCTAssertEqual(String(decoding: file.body, as: UTF8.self), #"{"a":1}"#)
        do {
            _ = try await t.send(HTTPRequest(url: "file://" + path))
            XCTFail("file:// allowed for the transfer before, not for this one")
        } catch {
            XCTAssertEqual(error.kind, .protocolRefused)
        }
        let last = try await t.send(HTTPRequest(url: base + "/last"))
        XCTAssertEqual(String(decoding: last.body, as: UTF8.self), "answer to GET /last")

        let seen = server.requests.map { "\($0.method) \($0.path)" }
        XCTAssertEqual(seen, ["POST /post", "HEAD /head", "GET /get", "DELETE /delete", "GET /big", "GET /big", "GET /last"])
        for r in server.requests.dropFirst() {
            XCTAssertNil(r.header("X-Token"), "\(r.method) \(r.path) carried the POST's header")
            XCTAssertNotEqual(r.header("Content-Type"), "text/plain", "\(r.method) \(r.path)")
            XCTAssertEqual(r.body, [], "\(r.method) \(r.path) carried the POST's body")
        }
        XCTAssertEqual(server.requests.first?.bodyText, "secret body")
        XCTAssertEqual(server.requests.last?.header("User-Agent"), "tributary/\(Tributary.version)")
        XCTAssertEqual(t.handlesMade, 1, "one transfer at a time: one handle, reused")
    }

    func testFileURLsOnlyWhenAllowed() async throws {
        let dir = TempDir()
        defer { dir.remove() }
        let path = dir.write("doc.json", #"{"a":1}"#)
        let t = transport()
        defer { t.shutdown() }
        let ok = try await t.send(HTTPRequest(url: "file://" + path, allowFile: true))
        XCTAssertEqual(String(decoding: ok.body, as: UTF8.self), #"{"a":1}"#)
        do {
            _ = try await t.send(HTTPRequest(url: "file://" + path))
            XCTFail("file:// without allowFile must be refused")
        } catch {
            XCTAssertEqual(error.kind, .protocolRefused)
        }
    }

    func testConnectionRefused() async throws {
        let server = try LoopbackServer { _ in .text("") }
        let port = server.port
        server.stop()
        let t = transport()
        defer { t.shutdown() }
        do {
            _ = try await t.send(HTTPRequest(url: "http://127.0.0.1:\(port)/", timeout: 2))
            XCTFail("nothing listens there")
        } catch {
            XCTAssertEqual(error.kind, .connection)
        }
    }

    func testCancellationEndsAnInFlightTransferQuickly() async throws {
        let server = try LoopbackServer { _ in LoopbackResponse(body: Array("late".utf8), delay: 5) }
        defer { server.stop() }
        let t = transport()
        defer { t.shutdown() }
        let task = Task { try await t.send(HTTPRequest(url: server.baseURL + "/slow", timeout: 20)) }
        try await Task.sleep(nanoseconds: 300_000_000)
        let start = Date()
        task.cancel()
        do {
            _ = try await task.value
            XCTFail("cancelled request must fail")
        } catch let e as HTTPError {
            XCTAssertEqual(e.kind, .cancelled)
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 1.5)
    }

    func testRecordThenReplayWithSecretsRedacted() async throws {
        let server = try LoopbackServer { _ in LoopbackResponse(headers: [("Content-Type", "application/json"), ("Set-Cookie", "s=SESSION")], body: Array(#"{"n":1}"#.utf8)) }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let t = transport()
        defer { t.shutdown() }
        let recorder = try RecordingTransport(inner: t, directory: dir.path)
        let url = server.baseURL + "/api?q=x&key=SECRET"
        _ = try await recorder.send(HTTPRequest(url: url, headers: [("Authorization", "Bearer SECRET2")]))
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        XCTAssertEqual(files.count, 1)
        let text = dir.read(files[0]) ?? ""
        XCTAssertFalse(text.contains("SECRET"), text)
        XCTAssertFalse(text.contains("SESSION"), text)
        let replay = try ReplayTransport(directory: dir.path)
        let r = try await replay.send(HTTPRequest(url: server.baseURL + "/api?q=x&key=OTHER"))
        XCTAssertEqual(String(decoding: r.body, as: UTF8.self), #"{"n":1}"#, "replay matches with secret values ignored")
        do {
            _ = try await replay.send(HTTPRequest(url: server.baseURL + "/api?q=y&key=K"))
            XCTFail("unrecorded request must fail")
        } catch {
            XCTAssertEqual("\(error)", "no recording for GET \(server.baseURL)/api?q=y&key=***")
        }
    }

    func testRetryAfterParsing() {
        XCTAssertEqual(HTTPClient.parseRetryAfter("7"), 7)
        XCTAssertEqual(HTTPClient.parseRetryAfter("3600"), 60, "capped at 60 s")
        let soon = Timestamp(seconds: Timestamp.now().seconds + 10).rfc822
        let d = HTTPClient.parseRetryAfter(soon) ?? -1
        XCTAssertTrue(d > 8 && d <= 10.5, "\(d)")
        XCTAssertEqual(HTTPClient.parseRetryAfter("Sun, 01 Jan 2000 00:00:00 GMT"), 0)
        XCTAssertNil(HTTPClient.parseRetryAfter("soon"))
    }

    func gzip(_ bytes: [UInt8]) throws -> [UInt8] {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/gzip")
        p.arguments = ["-c"]
        let input = Pipe(), output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        try p.run()
        // Written beside the read (gzip writes while it reads; a pipe holds 64 KiB), with
        // SIGPIPE blocked on the writing thread: a gzip that dies fails this test, not the bundle.
        let writer = input.fileHandleForWriting
        let written = DispatchSemaphore(value: 0)
        DispatchQueue.global().async { ChildInput.write(Data(bytes), to: writer); written.signal() }
        let out = output.fileHandleForReading.readDataToEndOfFile()
        written.wait()
        p.waitUntilExit()
        return Array(out)
    }
}

/// A thread-safe counter for server handlers.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func next() -> Int { lock.lock(); defer { lock.unlock() }; let v = n; n += 1; return v }
}

/// A store of earlier responses that holds none, or fails to be read.
private struct FailingCache: HTTPCache {
    let failing: Bool
    func storedBody(_ key: String) async throws(HTTPCacheError) -> [UInt8]? {
        if failing { throw HTTPCacheError("disk I/O error") }
        return nil
    }
}

/// A task executor whose jobs wait while `hold(true)` is in force, then run on its own thread:
/// it keeps a task from running again at a chosen moment.
final class GateExecutor: TaskExecutor, @unchecked Sendable {
    private let cond = NSCondition()
    private var jobs: [UnownedJob] = []
    private var held = false

    init() {
        let thread = Thread { [unowned self] in self.run() }
        thread.start()
    }

    func hold(_ h: Bool) {
        cond.lock()
        held = h
        cond.broadcast()
        cond.unlock()
    }

    func enqueue(_ job: UnownedJob) {
        cond.lock()
        jobs.append(job)
        cond.broadcast()
        cond.unlock()
    }

    private func run() {
        while true {
            cond.lock()
            while held || jobs.isEmpty { cond.wait() }
            let job = jobs.removeFirst()
            cond.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
