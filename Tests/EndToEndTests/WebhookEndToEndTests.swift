import Foundation
import XCTest
import TributaryCore
import TributaryTestSupport

/// The `webhook` sink through the real binary, against a receiver on 127.0.0.1 that answers
/// from a script: retries with one Idempotency-Key, Retry-After, timeouts, a 4xx that fails at
/// once and is sent again by the next run, nothing delivered twice after a success, signatures
/// checked by Python's hmac, and SIGINT while the sink waits.
final class WebhookEndToEndTests: XCTestCase {
    /// A local file of `count` items, read by a `json` source (no network for the source).
    func items(_ dir: TempDir, _ count: Int, from: Int = 1) -> String {
        let list = (from..<(from + count)).map { #"{"id":"\#($0)","title":"Item \#($0) — ünï \"q\"","link":"https://e.org/\#($0)"}"# }
        return "file://" + dir.write("items.json", #"{"items":[\#(list.joined(separator: ","))]}"#)
    }

    func config(_ dir: TempDir, source: String, sink: String) -> String {
        dir.write("tributary.json", #"""
        {"sources":[{"name":"demo","type":"json","url":"\#(source)","items":"items","fields":{"id":"id","title":"title","url":"link"}}],
         "sinks":[\#(sink)]}
        """#)
    }

    /// A receiver answering the n-th request (from 0) with `script(n)`, 200 past its end.
    func receiver(_ script: @escaping @Sendable (Int) -> LoopbackResponse?) throws -> LoopbackServer {
        let n = Locked(0)
        return try LoopbackServer { _ in
            let i = n.withLock { c -> Int in
                defer { c += 1 }
                return c
            }
            return script(i) ?? LoopbackResponse(status: 200)
        }
    }

    /// For each request: whether its signature is the HMAC-SHA256 of its body under `secret` and
    /// its Idempotency-Key the SHA-256 of the body's ids, computed by Python (hmac, hashlib, json).
    func pythonChecks(_ requests: [LoopbackRequest], secret: String) throws -> [String] {
        let lines = requests.map { r in
            [Digest.hex(Array(secret.utf8)), Digest.hex(r.body), r.header("X-Tributary-Signature") ?? "-", r.header("Idempotency-Key") ?? "-"].joined(separator: " ")
        }
        let r = try Shell.run(["python3", "-c", """
        import sys, hmac, hashlib, json
        for line in sys.stdin.read().split('\\n'):
            k, b, sig, key = line.split(' ')
            body = bytes.fromhex(b)
            ids = [json.loads(l)['id'] for l in body.decode().split('\\n') if l]
            good_sig = sig == 'sha256=' + hmac.new(bytes.fromhex(k), body, hashlib.sha256).hexdigest()
            good_key = key == hashlib.sha256(json.dumps(ids, separators=(',', ':'), ensure_ascii=False).encode()).hexdigest()
            print('ok' if good_sig and good_key else 'signature %s key %s' % (good_sig, good_key))
        """], stdin: lines.joined(separator: "\n"), timeout: 30)
        XCTAssertEqual(r.status, 0, r.stderr)
        return r.stdout.split(separator: "\n").map(String.init)
    }

    func testRetriesRetryAfterResetsAndTimeoutsDeliverEachItemOnceWithOneKeyPerRequest() throws {
        // Four requests of two, two, two and one items: 500 then 200; 429 (Retry-After: 1) then
        // 200; an answer slower than the timeout, then 200; a connection reset, then 200. The
        // answer before the reset closes its connection: curl itself resends a request whose
        // reused connection dies, and the reset is to reach the sink.
        let server = try receiver { n in
            switch n {
            case 0: return LoopbackResponse(status: 500, body: Array("try later".utf8))
            case 2: return LoopbackResponse(status: 429, headers: [("Retry-After", "1")])
            case 4: return LoopbackResponse(status: 200, delay: 2)
            case 5: return LoopbackResponse(status: 200, headers: [("Connection", "close")])
            case 6: return LoopbackResponse(reset: true)
            default: return nil
            }
        }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let secret = "whsec-TOPSECRET-1234"
        let cfg = config(dir, source: items(dir, 7), sink: #"{"type":"webhook","url":"\#(server.url("/hook"))","batch":2,"timeout":"500ms","secret":"${HOOK_SECRET}"}"#)
        let state = dir.path + "/state.sqlite"
        let start = Date()
        let r = try BinaryRunner.run(["run", "-c", cfg, "--state", state], env: ["HOOK_SECRET": secret])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 1, "Retry-After was honoured")
        let got = server.requests
        XCTAssertEqual(got.count, 8, r.stderr)
        guard got.count == 8 else { return }
        let keys = got.map { $0.header("Idempotency-Key") ?? "" }
        XCTAssertEqual([keys[0], keys[2], keys[4], keys[6]], [keys[1], keys[3], keys[5], keys[7]], "each retry carries its request's key")
        XCTAssertEqual(Set(keys).count, 4)
        for i in [0, 2, 4, 6] { XCTAssertEqual(got[i].body, got[i + 1].body, "a retry sends the same body") }
        XCTAssertEqual(try pythonChecks(got, secret: secret), Array(repeating: "ok", count: 8))
        // What the receiver accepted: every item once, as schema-valid JSON Lines.
        let accepted = [1, 3, 5, 7].flatMap { String(decoding: got[$0].body, as: UTF8.self).split(separator: "\n").map(String.init) }
        let schema = try SchemaValidator.itemSchema()
        for line in accepted { XCTAssertEqual(schema.validate(line: line), [], line) }
        XCTAssertEqual(accepted.compactMap { try? JSONParser.parse($0)[path: "id"] }, (1...7).map { .string("demo:\($0)") })
        XCTAssertEqual(got.map { $0.header("Content-Type") }, Array(repeating: "application/x-ndjson", count: 8))
        let attempt = "webhook: POST \(server.baseURL)/***: attempt 1 of 6: "
        for line in [attempt + "HTTP 500; retrying", attempt + "HTTP 429; retrying", attempt + "timed out after 500ms",
                     attempt + "Recv failure: Connection reset by peer; retrying"] {
            XCTAssertTrue(r.stderr.contains(line), "\(line) not in:\n\(r.stderr)")
        }
        XCTAssertEqual(r.stderr.components(separatedBy: attempt).count - 1, 4, "one warning per retried attempt:\n\(r.stderr)")
        XCTAssertFalse(r.stderr.contains(secret))
        // Delivered and recorded: the next run sends nothing.
        let again = try BinaryRunner.run(["run", "-c", cfg, "--state", state], env: ["HOOK_SECRET": secret])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(server.requestCount, 8, "nothing is delivered twice after a success")
        XCTAssertTrue(again.stderr.contains("7 fetched  0 new"), again.stderr)
    }

    /// `--verbose` logs each of the webhook's requests (each attempt of a retried one) under the
    /// sink's name, with the URL as the sink shows it: its path and query never appear.
    func testVerboseLogsEachWebhookRequestWithoutItsSecretPath() throws {
        let server = try receiver { n in n == 0 ? LoopbackResponse(status: 503) : nil }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let url = server.url("/services/T0SECRET/B0SECRET?token=TOPSECRET-TOKEN-42")
        let cfg = config(dir, source: items(dir, 3), sink: #"{"type":"webhook","name":"hooks","url":"\#(url)","format":"json","retries":2}"#)
        let r = try BinaryRunner.run(["run", "-c", cfg, "--no-state", "-v"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(server.requestCount, 2)
        let lines = r.stderr.split(separator: "\n").filter { $0.contains("sink hooks: POST ") }
        XCTAssertEqual(lines.count, 2, r.stderr)
        let shown = server.baseURL + "/***"
        XCTAssertTrue(lines[0].contains("sink hooks: POST \(shown) 503 "), r.stderr)
        XCTAssertTrue(lines[1].contains("sink hooks: POST \(shown) 200 ") && lines[1].hasSuffix(" attempt 2"), r.stderr)
        for secret in ["T0SECRET", "B0SECRET", "TOPSECRET-TOKEN-42"] { XCTAssertFalse(r.stderr.contains(secret), r.stderr) }
        // Not without -v; and as JSON, the sink's name is a field of its own.
        let quiet = try BinaryRunner.run(["run", "-c", cfg, "--no-state"])
        XCTAssertFalse(quiet.stderr.contains("POST"), quiet.stderr)
        let json = try BinaryRunner.run(["run", "-c", cfg, "--no-state", "-v", "--log-format", "json"])
        let records = json.stderr.split(separator: "\n").compactMap { try? JSONParser.parse(Array($0.utf8)) }
        let posts = records.filter { $0[path: "method"] == .string("POST") }
        XCTAssertEqual(posts.count, 1, json.stderr)
        XCTAssertEqual(posts.first?[path: "sink"], .string("hooks"))
        XCTAssertEqual(posts.first?[path: "url"], .string(shown))
        XCTAssertEqual(posts.first?[path: "status"], .number(JSONNumber(200)))
    }

    func testA4xxFailsAtOnceWithExit3AndTheNextRunSendsTheSameItemsAgain() throws {
        let server = try receiver { n in n == 0 ? LoopbackResponse(status: 400, body: Array("invalid payload; your token was TOPSECRET-TOKEN-42".utf8)) : nil }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let url = server.url("/hook?token=TOPSECRET-TOKEN-42")
        let cfg = config(dir, source: items(dir, 3),
                         sink: #"{"type":"webhook","url":"\#(url)","format":"json","headers":{"Authorization":"Bearer TOPSECRET-BEARER-7","X-Source":"tributary"}}"#)
        let state = dir.path + "/state.sqlite"
        let look = try BinaryRunner.run(["run", "-c", cfg, "--state", state, "--dry-run"])
        XCTAssertEqual(look.status, 0, look.stderr)
        XCTAssertEqual(look.stdoutLines.count, 3)
        XCTAssertEqual(server.requestCount, 0, "a dry run opens no sink: nothing is POSTed")
        let failed = try BinaryRunner.run(["run", "-c", cfg, "--state", state])
        XCTAssertEqual(failed.status, 3, failed.stderr)
        XCTAssertEqual(server.requestCount, 1, "a 400 is not retried")
        let shown = server.baseURL + "/***"  // the URL is a secret: its path and query are never shown
        XCTAssertTrue(failed.stderr.contains("tributary: sink failed: webhook: POST \(shown): HTTP 400 Bad Request: invalid payload; your token was ***, expected a 2xx answer (400 is not retried); 3 items not delivered"), failed.stderr)
        for secret in ["TOPSECRET-TOKEN-42", "TOPSECRET-BEARER-7"] { XCTAssertFalse(failed.stderr.contains(secret), failed.stderr) }
        let first = try XCTUnwrap(server.requests.first)
        XCTAssertEqual(first.header("Authorization"), "Bearer TOPSECRET-BEARER-7")
        XCTAssertEqual(first.header("X-Source"), "tributary")
        XCTAssertEqual(first.header("Content-Type"), "application/json")
        XCTAssertNil(first.header("X-Tributary-Signature"), "no secret, no signature")
        guard case .array(let sent)? = try? JSONParser.parse(first.body) else { return XCTFail("the body is one JSON array") }
        XCTAssertEqual(sent.count, 3)
        // Not recorded: the next run sends the same items, with the same key.
        let retried = try BinaryRunner.run(["run", "-c", cfg, "--state", state])
        XCTAssertEqual(retried.status, 0, retried.stderr)
        XCTAssertEqual(server.requestCount, 2)
        let second = server.requests[1]
        guard case .array(let again)? = try? JSONParser.parse(second.body) else { return XCTFail("the body is one JSON array") }
        XCTAssertEqual(again.map { $0[path: "id"] }, sent.map { $0[path: "id"] }, "the same items (their fetched times are this run's)")
        XCTAssertEqual(second.header("Idempotency-Key"), first.header("Idempotency-Key"))
        let third = try BinaryRunner.run(["run", "-c", cfg, "--state", state])
        XCTAssertEqual(third.status, 0, third.stderr)
        XCTAssertEqual(server.requestCount, 2, "recorded after the 2xx: not sent a third time")
    }

    func testSIGINTEndsARunWhoseWebhookKeepsFailing() throws {
        let server = try receiver { _ in LoopbackResponse(status: 503) }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = config(dir, source: items(dir, 2), sink: #"{"type":"webhook","url":"\#(server.url("/"))","retries":10}"#)
        let p = try BinaryRunner.start(["run", "-c", cfg, "--state", dir.path + "/state.sqlite"], stdoutPath: dir.path + "/out", stderrPath: dir.path + "/err")
        var waited = 0.0
        while server.requestCount < 1 && waited < 10 { usleep(20_000); waited += 0.02 }
        let start = Date()
        kill(p.processIdentifier, SIGINT)
        usleep(100_000)
        kill(p.processIdentifier, SIGINT)  // the second signal: no grace period
        while p.isRunning && Date().timeIntervalSince(start) < 15 { usleep(20_000) }
        if p.isRunning { kill(p.processIdentifier, SIGKILL); XCTFail("did not stop") }
        p.waitUntilExit()
        let err = dir.read("err") ?? ""
        XCTAssertEqual(p.terminationStatus, 130, err)
        // 10 retries with backoff would take minutes; a ThreadSanitizer binary beside the rest
        // of CI has taken 6.2 s to stop (2.5 s on a quiet machine).
        XCTAssertLessThan(Date().timeIntervalSince(start), 10, "10 retries with backoff would take minutes")
        XCTAssertTrue(err.contains("interrupted before a 2xx answer"), err)
        // Not recorded: the next run, against a receiver that accepts, delivers them.
        let accepting = try receiver { _ in nil }
        defer { accepting.stop() }
        let ok = try BinaryRunner.run(["run", "-c", config(dir, source: items(dir, 2), sink: #"{"type":"webhook","url":"\#(accepting.url("/"))"}"#),
                                       "--state", dir.path + "/state.sqlite"])
        XCTAssertEqual(ok.status, 0, ok.stderr)
        XCTAssertEqual(accepting.requests.map { String(decoding: $0.body, as: UTF8.self).split(separator: "\n").count }, [2])
    }

    /// One SIGINT: the retries go on through the grace period, so a receiver that recovers in
    /// time still gets the batch, and it is recorded.
    func testAfterOneSIGINTTheRetriesUseTheGracePeriod() throws {
        let accepting = Locked(false)
        let server = try receiver { _ in accepting.withLock { $0 } ? nil : LoopbackResponse(status: 503) }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = config(dir, source: items(dir, 2), sink: #"{"type":"webhook","url":"\#(server.url("/"))","retries":10}"#)
        let state = dir.path + "/state.sqlite"
        let p = try BinaryRunner.start(["run", "-c", cfg, "--state", state], stdoutPath: dir.path + "/out", stderrPath: dir.path + "/err")
        var waited = 0.0
        while server.requestCount < 2 && waited < 10 { usleep(20_000); waited += 0.02 }
        let start = Date()
        kill(p.processIdentifier, SIGINT)
        accepting.withLock { $0 = true }
        while p.isRunning && Date().timeIntervalSince(start) < 15 { usleep(20_000) }
        if p.isRunning { kill(p.processIdentifier, SIGKILL); XCTFail("did not stop") }
        p.waitUntilExit()
        let err = dir.read("err") ?? ""
        XCTAssertEqual(p.terminationStatus, 130, err)
        XCTAssertLessThan(Date().timeIntervalSince(start), 5, "the next attempt comes well within the 5 s of grace")
        XCTAssertFalse(err.contains("sink failed"), err)
        let last = try XCTUnwrap(server.requests.last)
        XCTAssertEqual(last.bodyText.split(separator: "\n").count, 2)
        let count = server.requestCount
        let again = try BinaryRunner.run(["run", "-c", cfg, "--state", state])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(server.requestCount, count, "delivered in the grace period and recorded: not sent again")
    }

    /// Sources-config/examples/webhook.json, copied with the recordings, against the example
    /// receiver next to it (Python's http.server and hmac): every post arrives once, signed with
    /// the secret both read from TRIBUTARY_WEBHOOK_SECRET; a wrong secret is refused (401, exit 3).
    func testTheExampleConfigDeliversToTheExampleReceiver() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let root = BinaryRunner.packageRoot + "/Sources-config"
        for folder in ["examples", "recordings"] { try FileManager.default.copyItem(atPath: root + "/" + folder, toPath: dir.path + "/" + folder) }
        let receiver = Process()
        receiver.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        receiver.arguments = ["python3", dir.path + "/examples/webhook-receiver/receiver.py", "0"]
        receiver.environment = ProcessInfo.processInfo.environment.merging(["TRIBUTARY_WEBHOOK_SECRET": "s3cret-for-the-test"]) { $1 }
        let out = dir.path + "/receiver.out"
        _ = FileManager.default.createFile(atPath: out, contents: nil)
        receiver.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
        try receiver.run()
        defer { receiver.terminate(); receiver.waitUntilExit() }
        var url: String?
        for _ in 0..<500 where url == nil {
            url = dir.read("receiver.out")?.split(separator: "\n").first.flatMap { $0.hasPrefix("listening on ") ? String($0.dropFirst(13)) : nil }
            if url == nil { usleep(20_000) }
        }
        let hook = try XCTUnwrap(url, "the receiver did not start")
        let example = try XCTUnwrap(dir.read("examples/webhook.json"))
        XCTAssertTrue(example.contains("http://127.0.0.1:8787/hook"))
        let cfg = dir.write("examples/test-webhook.json", example.replacingOccurrences(of: "http://127.0.0.1:8787/hook", with: hook))
        let wrong = try BinaryRunner.run(["run", "-c", cfg], env: ["TRIBUTARY_WEBHOOK_SECRET": "not-the-secret"])
        XCTAssertEqual(wrong.status, 3, wrong.stderr)
        XCTAssertTrue(wrong.stderr.contains("HTTP 401 Unauthorized, expected a 2xx answer (401 is not retried)"), wrong.stderr)
        let r = try BinaryRunner.run(["run", "-c", cfg], env: ["TRIBUTARY_WEBHOOK_SECRET": "s3cret-for-the-test"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("total: 2 sources, 0 failed, 6 fetched, 6 new"), r.stderr)
        let again = try BinaryRunner.run(["run", "-c", cfg], env: ["TRIBUTARY_WEBHOOK_SECRET": "s3cret-for-the-test"])
        XCTAssertEqual(again.status, 0, again.stderr)
        var lines: [Substring] = []
        for _ in 0..<500 {
            lines = (dir.read("receiver.out") ?? "").split(separator: "\n").dropFirst().map { $0 }
            if lines.count >= 6 { break }
            usleep(20_000)
        }
        XCTAssertEqual(lines.count, 6, "each post once")
        XCTAssertEqual(Set(lines.map { $0.prefix { $0 != " " } }).count, 6)
        XCTAssertTrue(lines.contains("feed:https://swift.example.org/blog/swift-6.3-released/  Swift 6.3 Released"), "\(lines)")
    }
}
