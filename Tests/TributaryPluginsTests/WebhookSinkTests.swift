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
@testable import TributaryPlugins
import TributaryTestSupport

/// The `webhook` sink: body formats, signatures and idempotency keys checked against Python's
/// `hmac`/`hashlib`, option checks, and whole writes against a loopback server in process.
final class WebhookSinkTests: XCTestCase {
    func item(_ n: Int, title: String = "Item") -> Item {
        var i = Item(id: "t:\(n)", source: "s", type: "json", kind: "entry", title: "\(title) \(n)", fetched: Timestamp(seconds: 1_795_946_400))
        i.url = "https://e.org/\(n)?a=1&b=2"
        return i
    }

    func hex(_ bytes: [UInt8]) -> String { Digest.hex(bytes) }

    /// Runs `code` with python3, `input` on its stdin; its stdout, trimmed.
    func python(_ code: String, input: String) throws -> String {
        let r = try Shell.run(["python3", "-c", code], stdin: input, timeout: 30)
        XCTAssertEqual(r.status, 0, r.stderr)
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    // MARK: signatures and keys

    func testHMACMatchesRFC4231AndPython() throws {
        // RFC 4231 test cases 1, 2 and 6 (a key longer than the block size).
        XCTAssertEqual(hex(Digest.hmacSHA256(key: [UInt8](repeating: 0x0b, count: 20), message: Array("Hi There".utf8))),
                       "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        XCTAssertEqual(hex(Digest.hmacSHA256(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))),
                       "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        XCTAssertEqual(hex(Digest.hmacSHA256(key: [UInt8](repeating: 0xaa, count: 131), message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8))),
                       "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
        // Bodies as the sink builds them, and edge cases, against Python's hmac module.
        let cases: [(key: String, body: [UInt8])] = [
            ("s3cret-key", WebhookPayload.body([item(1), item(2, title: "Привет \"q\" \\ \u{1}")], format: .jsonl)),
            ("s3cret-key", WebhookPayload.body([item(1)], format: .json)),
            ("k", []),
            (String(repeating: "long key ", count: 20), Array(String(repeating: "x", count: 100_000).utf8)),
        ]
        let input = cases.map { "\(hex(Array($0.key.utf8))) \(hex($0.body))" }.joined(separator: "\n")
        let expected = try python("""
        import sys, hmac, hashlib
        for line in sys.stdin.read().split('\\n'):
            k, _, b = line.partition(' ')
            print('sha256=' + hmac.new(bytes.fromhex(k), bytes.fromhex(b), hashlib.sha256).hexdigest())
        """, input: input).split(separator: "\n").map(String.init)
        XCTAssertEqual(cases.map { WebhookPayload.signature($0.body, secret: Array($0.key.utf8)) }, expected)
    }

    func testIdempotencyKeyIsTheSHA256OfTheIdsAndStable() throws {
        let ids = ["youtube:video:dQw4w9WgXcQ", "t:2", "экзотика:1", "a\"b\\c"]
        let key = WebhookPayload.idempotencyKey(ids)
        XCTAssertEqual(key, WebhookPayload.idempotencyKey(ids), "the same ids give the same key")
        XCTAssertNotEqual(key, WebhookPayload.idempotencyKey(Array(ids.reversed())), "order matters")
        XCTAssertNotEqual(key, WebhookPayload.idempotencyKey(Array(ids.dropLast())))
        XCTAssertNotEqual(WebhookPayload.idempotencyKey(["a,b"]), WebhookPayload.idempotencyKey(["a", "b"]), "no ambiguity between ids")
        XCTAssertEqual(key.count, 64)
        let reference = try python("""
        import sys, json, hashlib
        ids = json.loads(sys.stdin.read())
        print(hashlib.sha256(json.dumps(ids, separators=(',', ':'), ensure_ascii=False).encode()).hexdigest())
        """, input: String(decoding: JSONWriter.serialize(.array(ids.map { .string($0) })), as: UTF8.self))
        XCTAssertEqual(key, reference, "documented as sha256 of the compact JSON array of ids")
        let headers = WebhookPayload(items: [item(1), item(2)], format: .jsonl, secret: nil, extraHeaders: []).headers
        XCTAssertEqual(headers.first { $0.name == "Idempotency-Key" }?.value, WebhookPayload.idempotencyKey(["t:1", "t:2"]))
    }

    // MARK: bodies

    func testBodyFormats() throws {
        let items = [item(1), item(2, title: "Ünïcode — \"quoted\"\nnewline")]
        let jsonl = WebhookPayload.body(items, format: .jsonl)
        XCTAssertEqual(jsonl, items.flatMap { $0.jsonLine() + [0x0A] }, "exactly the jsonl sink's lines")
        let lines = String(decoding: jsonl, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(lines.count, 3)
        XCTAssertEqual(lines.last, "", "every line ends in a newline")
        for (l, i) in zip(lines, items) { XCTAssertEqual(try Item(jsonLine: Array(l.utf8)), i) }
        let json = WebhookPayload.body(items, format: .json)
        guard case .array(let elements) = try JSONParser.parse(json) else { return XCTFail("not an array") }
        XCTAssertEqual(elements.count, 2)
        XCTAssertEqual(elements.map { JSONWriter.serialize($0) }, items.map { $0.jsonLine() })
        XCTAssertEqual(WebhookPayload.body([Item](), format: .json), Array("[]".utf8))
        let p = WebhookPayload(items: items, format: .json, secret: Array("k3y!".utf8), extraHeaders: [("Authorization", "Bearer x")])
        XCTAssertEqual(p.headers.first { $0.name == "Content-Type" }?.value, "application/json")
        XCTAssertEqual(p.headers.first { $0.name == "X-Tributary-Signature" }?.value, WebhookPayload.signature(p.body, secret: Array("k3y!".utf8)))
        XCTAssertEqual(p.headers.first { $0.name == "Authorization" }?.value, "Bearer x")
        XCTAssertEqual(WebhookPayload(items: items, format: .jsonl, secret: nil, extraHeaders: []).headers.first { $0.name == "Content-Type" }?.value, "application/x-ndjson")
        XCTAssertNil(WebhookPayload(items: items, format: .jsonl, secret: nil, extraHeaders: []).headers.first { $0.name == "X-Tributary-Signature" })
    }

    // MARK: options

    func load(_ sink: String, environment: [String: String] = [:]) -> (Config?, [String]) {
        let text = #"{"sources":[],"sinks":[\#(sink)]}"#
        do {
            return (try ConfigLoader.load(bytes: Array(text.utf8), file: "t.json", directory: "/cfg", registry: BuiltinRegistry.standard, environment: { environment[$0] }), [])
        } catch {
            return (nil, error.messages)
        }
    }

    func testOptionsAreChecked() throws {
        let (ok, none) = load(#"{"type":"webhook","url":"https://h.example/hook"}"#)
        XCTAssertEqual(none, [])
        let sink = try XCTUnwrap(ok?.sinks.first?.sink as? WebhookSink)
        XCTAssertEqual(sink.format, .jsonl)
        XCTAssertEqual(sink.batchSize, 100)
        XCTAssertEqual(sink.retries, 5)
        XCTAssertEqual(sink.timeout, 10)
        XCTAssertNil(sink.secret)
        let (_, errors) = load(#"{"type":"webhook","url":"ftp://h/x","format":"xml","batch":0,"retries":11,"timeout":0,"secret":" ","headers":{"X-A":"a\r\nInjected: 1","Bad Name":"v","Idempotency-Key":"k"}}"#)
        let joined = errors.joined(separator: "\n")
        for expected in [#"sinks[0].url: expected an http:// or https:// URL, found "ftp://h/x""#, #"sinks[0].format: expected one of "jsonl", "json""#,
                         "sinks[0].batch: expected an integer >= 1", "sinks[0].retries: expected an integer <= 10", "sinks[0].timeout: must be at least",
                         "sinks[0].secret: must not be empty", "sinks[0].headers: the value of X-A holds a line break"] {
            XCTAssertTrue(joined.contains(expected), "\(expected) not in:\n\(joined)")
        }
        XCTAssertTrue(load(#"{"type":"webhook","url":"https://h/x","headers":{"Bad Name":"v"}}"#).1.joined().contains(#"header name "Bad Name" is not a valid HTTP header name"#))
        XCTAssertTrue(load(#"{"type":"webhook","url":"https://h/x","headers":{"idempotency-key":"v"}}"#).1.joined().contains("the sink sets idempotency-key itself"))
        XCTAssertTrue(load(#"{"type":"webhook"}"#).1.joined().contains(#"missing required key "url""#))
    }

    // MARK: against a server

    /// A server answering `statuses` in turn (then 200), recording what it got.
    func server(_ statuses: [Int], headers: [(name: String, value: String)] = [], body: String = "", delay: Double = 0) throws -> LoopbackServer {
        let left = Locked(statuses)
        return try LoopbackServer { _ in
            let status = left.withLock { s -> Int in s.isEmpty ? 200 : s.removeFirst() }
            return LoopbackResponse(status: status, headers: status == 200 ? [] : headers, body: Array(body.utf8), delay: status == 200 ? 0 : delay)
        }
    }

    func sink(_ url: String, batch: Int = 100, retries: Int = 5, timeout: Double = 5, headers: [(name: String, value: String)] = [], secret: String? = nil,
              warnings: Locked<[String]>? = nil, rejected: Locked<[(id: String, reason: String)]>? = nil, interruption: StopFlag = StopFlag()) throws -> WebhookSink {
        let s = WebhookSink(url: url, headers: headers, batchSize: batch, secret: secret, timeout: timeout, retries: retries)
        try s.open(SinkContext(window: nil, interruption: interruption, warn: { w in warnings?.withLock { $0.append(w) } },
                               reject: { item, reason in rejected?.withLock { $0.append((item.id, reason)) } }))
        return s
    }

    func testTheURLIsShownWithoutItsPathOrUserInfo() {
        XCTAssertEqual(WebhookSink.shown("https://hooks.slack.com/services/T0/B0/XYZ"), "https://hooks.slack.com/***")
        XCTAssertEqual(WebhookSink.shown("http://u:pw@127.0.0.1:8080/api/webhooks/1/tok?wait=true"), "http://127.0.0.1:8080/***")
        XCTAssertEqual(WebhookSink.shown("https://h.example"), "https://h.example/***")
        XCTAssertEqual(WebhookSink.shown("https://h.example?token=1"), "https://h.example/***")
    }

    /// A 413 splits the request's items in halves until the one item still answered 413, which
    /// is rejected; the rest go out once each, in order.
    func testA413SplitsTheRequestAndRejectsOnlyTheItemTooLarge() throws {
        let server = try LoopbackServer { req in LoopbackResponse(status: req.body.count > 2000 ? 413 : 200) }
        defer { server.stop() }
        let warnings = Locked<[String]>([])
        let rejected = Locked<[(id: String, reason: String)]>([])
        let s = try sink(server.url("/hook"), batch: 8, warnings: warnings, rejected: rejected)
        defer { try? s.close() }
        var items = (1...10).map { item($0) }
        items[4].title = String(repeating: "L", count: 3000)  // t:5
        try s.write(items)
        XCTAssertEqual(rejected.withLock { $0.map(\.id) }, ["t:5"])
        XCTAssertTrue(rejected.withLock { $0 }.first?.reason.hasPrefix("webhook: POST \(server.baseURL)/***: HTTP 413 for this item alone (a body of ") == true, "\(rejected.withLock { $0 })")
        let delivered = server.requests.filter { $0.body.count <= 2000 }.flatMap { r in
            r.bodyText.split(separator: "\n").map { String($0).components(separatedBy: "\"")[3] }
        }
        XCTAssertEqual(delivered, ["t:1", "t:2", "t:3", "t:4", "t:6", "t:7", "t:8", "t:9", "t:10"])
        XCTAssertTrue(warnings.withLock { $0 }.contains { $0.hasPrefix("webhook: POST \(server.baseURL)/***: HTTP 413 for request 1 of 2 (8 items) (a body of ") },
                      "\(warnings.withLock { $0 })")
        // Without a 413 to explain it, a request too large is not split: a 400 still fails.
        let strict = try LoopbackServer { _ in LoopbackResponse(status: 400) }
        defer { strict.stop() }
        let other = try sink(strict.url("/hook"), rejected: rejected)
        defer { try? other.close() }
        XCTAssertThrowsError(try other.write(items))
        XCTAssertEqual(strict.requestCount, 1)
    }

    func testBatchesAreSplitIntoRequestsAndRetriedWithTheSameKey() throws {
        let server = try server([500, 503])
        defer { server.stop() }
        let warnings = Locked<[String]>([])
        let s = try sink(server.url("/hook"), batch: 2, secret: "s3cret-key", warnings: warnings)
        defer { try? s.close() }
        let items = (1...5).map { item($0) }
        try s.write(items)
        let got = server.requests
        XCTAssertEqual(got.count, 5, "3 requests, the first one answered 500 and 503 before 200")
        XCTAssertEqual(got.map(\.method), Array(repeating: "POST", count: 5))
        let keys = got.map { $0.header("Idempotency-Key") ?? "" }
        XCTAssertEqual(keys[0], keys[1])
        XCTAssertEqual(keys[1], keys[2], "a retried request carries the same key")
        XCTAssertEqual(Set(keys).count, 3, "each request has its own key")
        XCTAssertEqual(got[2].body + got[3].body + got[4].body, WebhookPayload.body(items, format: .jsonl))
        for r in got {
            XCTAssertEqual(r.header("X-Tributary-Signature"), WebhookPayload.signature(r.body, secret: Array("s3cret-key".utf8)))
            XCTAssertEqual(r.header("Content-Type"), "application/x-ndjson")
            XCTAssertNil(r.header("Expect"), "no 100-continue round trip")
        }
        XCTAssertEqual(warnings.withLock { $0 }.count, 2)
        XCTAssertTrue(warnings.withLock { $0 }[0].hasPrefix("webhook: POST \(server.baseURL)/***: attempt 1 of 6: HTTP 500; retrying"), "\(warnings.withLock { $0 })")
    }

    func testA4xxFailsAtOnceNamingTheURLWithoutItsSecrets() throws {
        let server = try server([400], body: "rejected token abcd-1234-secret and Bearer xyz-secret-9876")
        defer { server.stop() }
        let s = try sink(server.url("/hook?token=abcd-1234-secret&x=1"), headers: [("Authorization", "Bearer xyz-secret-9876")])
        defer { try? s.close() }
        XCTAssertThrowsError(try s.write([item(1)])) { e in
            let m = (e as? SinkError)?.message ?? ""
            XCTAssertTrue(m.hasPrefix("webhook: POST \(server.baseURL)/***: HTTP 400 Bad Request"), m)
            XCTAssertTrue(m.contains("expected a 2xx answer (400 is not retried)"), m)
            XCTAssertTrue(m.contains("1 item not delivered: the batch is not recorded and is sent again next run"), m)
            XCTAssertFalse(m.contains("abcd-1234-secret") || m.contains("xyz-secret-9876"), m)
        }
        XCTAssertEqual(server.requestCount, 1, "a 400 is not retried")
    }

    func testRetryAfterIsHonouredAndRetriesAreBounded() throws {
        let server = try server([429], headers: [("Retry-After", "1")])
        defer { server.stop() }
        let s = try sink(server.url("/"))
        defer { try? s.close() }
        let start = Date()
        try s.write([item(1)])
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.95, "waited as the server asked")
        XCTAssertEqual(server.requestCount, 2)
        let down = try self.server(Array(repeating: 502, count: 10))
        defer { down.stop() }
        let few = WebhookSink(url: down.url("/"), timeout: 5, retries: 1)
        defer { try? few.close() }
        XCTAssertThrowsError(try few.write([item(1)])) { e in
            XCTAssertTrue((e as? SinkError)?.message.contains("HTTP 502 Bad Gateway, expected a 2xx answer, after 2 attempts") == true, "\(e)")
        }
        XCTAssertEqual(down.requestCount, 2, "retries: 1 means at most 2 attempts")
    }

    func testRedirectsAreNotFollowed() throws {
        let server = try server([302], headers: [("Location", "/elsewhere")])
        defer { server.stop() }
        let s = try sink(server.url("/hook"))
        defer { try? s.close() }
        XCTAssertThrowsError(try s.write([item(1)])) { e in
            XCTAssertTrue((e as? SinkError)?.message.contains("HTTP 302 (a redirect to /elsewhere, not followed: set url to the final address), expected a 2xx answer") == true, "\(e)")
        }
        XCTAssertEqual(server.requests.map(\.path), ["/hook"])
    }

    func testAnInterruptionEndsAWriteThatWaits() throws {
        let server = try server([200], delay: 0)
        server.stop()  // nothing listens: every attempt is a connection error, retried with backoff
        let flag = StopFlag()
        let s = try sink(server.url("/"), retries: 10, interruption: flag)
        defer { try? s.close() }
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.5) { flag.set() }
        let start = Date()
        XCTAssertThrowsError(try s.write([item(1)])) { e in
            XCTAssertTrue((e as? SinkError)?.message.contains("interrupted before a 2xx answer") == true, "\(e)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 5, "10 retries with backoff would take far longer")
        // A request in flight to a server that takes its time is cancelled too.
        let slow = try self.server([503], delay: 20)
        defer { slow.stop() }
        let flag2 = StopFlag()
        let waiting = try sink(slow.url("/"), timeout: 30, interruption: flag2)
        defer { try? waiting.close() }
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { flag2.set() }
        let start2 = Date()
        XCTAssertThrowsError(try waiting.write([item(1)])) { e in
            XCTAssertTrue((e as? SinkError)?.message.contains("interrupted before a 2xx answer") == true, "\(e)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(start2), 5)
    }
}
