import Foundation
import XCTest
import TributaryCore
import TributaryTestSupport

/// What the second probe (issue 19) found to hold on the new surfaces, kept as tests so it stays
/// so, where no test covered it yet: a webhook never follows a redirect; https with a
/// self-signed certificate is refused by sources and sinks; a huge Retry-After waits 60 s, not
/// its value; OPML import refuses javascript:, file: and data: URLs; an exec program that
/// ignores SIGTERM, and what it started after setsid, are killed; a PostgreSQL password is
/// never printed, whatever is wrong with the state URL. (OPML's DOCTYPE and deep nesting are
/// OPMLEndToEndTests.testHostileAndBrokenFiles; the soak is SoakTests.)
final class HostileRoundTwoHeldTests: XCTestCase {
    static let oneItem = #"{"items":[{"id":"1","title":"one"}]}"#

    func jsonSource(_ url: String, extra: String = "") -> String {
        #"{"name":"s","type":"json","url":"\#(url)","items":"items","fields":{"id":"id","title":"title"}\#(extra)}"#
    }

    // MARK: webhook redirects

    /// A 301, 302, 303, 307 or 308 from the webhook's URL fails the sink (exit 3, the batch not
    /// recorded) and the Location is never asked: a POST is not sent on to another address.
    func testAWebhookNeverFollowsARedirect() throws {
        let elsewhere = try LoopbackServer { _ in .text("{}") }
        defer { elsewhere.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let items = dir.write("items.json", Self.oneItem)
        for status in [301, 302, 303, 307, 308] {
            let hook = try LoopbackServer { _ in LoopbackResponse(status: status, headers: [("Location", elsewhere.url("/collect"))]) }
            defer { hook.stop() }
            let cfg = dir.write("w.json", #"{"state":{"path":"state-\#(status).sqlite"},"sources":[\#(jsonSource("file://" + items))],"sinks":[{"type":"webhook","url":"\#(hook.url("/hook"))","retries":2}]}"#)
            let r = try BinaryRunner.run(["run", "-c", cfg], cwd: dir.path)
            XCTAssertEqual(r.status, 3, "\(status): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("HTTP \(status)") && r.stderr.contains("not followed"), "\(status): \(r.stderr)")
            XCTAssertEqual(hook.requestCount, 1, "\(status): a redirect is not retried")
            XCTAssertEqual(elsewhere.requestCount, 0, "\(status): the Location was asked")
            let again = try BinaryRunner.run(["run", "-c", cfg], cwd: dir.path)
            XCTAssertEqual(again.status, 3, "the batch was not recorded: it is sent again")
            XCTAssertEqual(hook.requestCount, 2)
        }
        XCTAssertEqual(elsewhere.requestCount, 0)
    }

    // MARK: self-signed https

    /// A TLS server of the test's own (python3's http.server with the ssl module) with a
    /// certificate the test makes with openssl: curl, told to trust that certificate, gets the
    /// page (so the server works); Tributary, which trusts the system's CAs only, refuses it as
    /// a source (exit 1) and as a webhook (exit 3), and the server never gets a request.
    func testHTTPSWithASelfSignedCertificateIsRefused() throws {
        try Tool.require(all: ["openssl", "python3", "curl"])
        let dir = TempDir()
        defer { dir.remove() }
        let made = try Shell.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", dir.path + "/key.pem", "-out", dir.path + "/cert.pem",
                                  "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"])
        XCTAssertEqual(made.status, 0, made.stderr)
        let server = try PythonServer(dir, script: """
            import http.server, ssl, sys
            class Handler(http.server.BaseHTTPRequestHandler):
                def answer(self):
                    length = int(self.headers.get('Content-Length') or 0)
                    if length: self.rfile.read(length)
                    with open(sys.argv[2], 'a') as log: log.write('%s %s\\n' % (self.command, self.path))
                    body = b'{"items":[{"id":"1","title":"one"}]}'
                    self.send_response(200)
                    self.send_header('Content-Length', str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                do_GET = do_POST = answer
                def log_message(self, *args): pass
            server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(sys.argv[3], sys.argv[4])
            server.socket = context.wrap_socket(server.socket, server_side=True)
            with open(sys.argv[1] + '.tmp', 'w') as f: f.write(str(server.server_address[1]))
            import os; os.rename(sys.argv[1] + '.tmp', sys.argv[1])
            server.serve_forever()
            """, arguments: [dir.path + "/requests.log", dir.path + "/cert.pem", dir.path + "/key.pem"])
        defer { server.stop() }
        let base = "https://127.0.0.1:\(server.port)"

        let trusted = try Shell.run(["curl", "-fsS", "--cacert", dir.path + "/cert.pem", base + "/check"])
        XCTAssertEqual(trusted.stdout, Self.oneItem, "the TLS server answers a client that trusts its certificate: \(trusted.stderr)")
        XCTAssertEqual(dir.read("requests.log"), "GET /check\n")

        let source = dir.write("s.json", #"{"sources":[\#(jsonSource(base + "/feed", extra: #","retries":1"#))]}"#)
        let s = try BinaryRunner.run(["run", "-c", source, "--no-state", "--jsonl"])
        XCTAssertEqual(s.status, 1, s.stderr)
        XCTAssertEqual(s.stdout, "")
        XCTAssertTrue(s.stderr.contains("s     json  failed: GET \(base)/feed: "), s.stderr)
        XCTAssertTrue(s.stderr.lowercased().contains("certificate"), "the failure says why: \(s.stderr)")

        let items = dir.write("items.json", Self.oneItem)
        let sink = dir.write("w.json", #"{"state":{"path":"state.sqlite"},"sources":[\#(jsonSource("file://" + items))],"sinks":[{"type":"webhook","url":"\#(base)/hook","retries":1}]}"#)
        let w = try BinaryRunner.run(["run", "-c", sink], cwd: dir.path)
        XCTAssertEqual(w.status, 3, w.stderr)
        XCTAssertTrue(w.stderr.lowercased().contains("certificate"), "the failure says why: \(w.stderr)")
        XCTAssertEqual(dir.read("requests.log"), "GET /check\n", "no request of Tributary's reached the server")
    }

    // MARK: Retry-After

    /// Retry-After of about 3,000 years (in seconds), of a date a year ahead, and of a day on
    /// the webhook: each run waits the 60 s cap and then gets its answer. The three run side
    /// by side, so the test takes one minute.
    func testAHugeRetryAfterWaitsAtMostAMinute() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let yearAhead = Timestamp(seconds: Timestamp.now().seconds + 365 * 86_400).rfc822
        func server(_ retryAfter: String, status: Int) throws -> LoopbackServer {
            let hits = Locked(0)
            return try LoopbackServer { _ in
                let n = hits.withLock { $0 += 1; return $0 }
                return n == 1 ? LoopbackResponse(status: status, headers: [("Retry-After", retryAfter)], body: Array("later".utf8)) : .text(Self.oneItem)
            }
        }
        let seconds = try server("99999999999", status: 429)
        let date = try server(yearAhead, status: 503)
        let hook = try server("86400", status: 429)
        defer { seconds.stop(); date.stop(); hook.stop() }
        let items = dir.write("items.json", Self.oneItem)
        let configs = [
            ("seconds", dir.write("a.json", #"{"sources":[\#(jsonSource(seconds.url("/a"), extra: #","retries":1"#))]}"#), ["--no-state", "--jsonl"]),
            ("date", dir.write("b.json", #"{"sources":[\#(jsonSource(date.url("/b"), extra: #","retries":1"#))]}"#), ["--no-state", "--jsonl"]),
            ("webhook", dir.write("c.json", #"{"state":{"path":"state.sqlite"},"sources":[\#(jsonSource("file://" + items))],"sinks":[{"type":"webhook","url":"\#(hook.url("/hook"))","retries":1}]}"#), []),
        ]
        let start = Date()
        var running = try configs.map { name, cfg, flags in
            (name, try BinaryRunner.start(["run", "-c", cfg] + flags, cwd: dir.path, stdoutPath: dir.path + "/\(name).out", stderrPath: dir.path + "/\(name).err"))
        }
        var took: [String: Double] = [:]
        while !running.isEmpty && Date().timeIntervalSince(start) < 150 {
            for (name, p) in running where !p.isRunning { took[name] = Date().timeIntervalSince(start) }
            running.removeAll { !$0.1.isRunning }
            usleep(100_000)
        }
        for (name, p) in running {
            p.terminate()
            XCTFail("\(name): still waiting after 150 s")
        }
        for (name, _, _) in configs {
            let err = dir.read("\(name).err") ?? ""
            let wall = took[name] ?? .infinity
            XCTAssertGreaterThanOrEqual(wall, 55, "\(name): Retry-After was honoured up to the cap: \(err)")
            XCTAssertLessThan(wall, 100, "\(name): and no longer than the 60 s cap: \(err)")
            XCTAssertTrue(err.contains("0 failed"), "\(name): \(err)")
        }
        XCTAssertEqual(dir.read("seconds.out")?.split(separator: "\n").count, 1)
        XCTAssertEqual(dir.read("date.out")?.split(separator: "\n").count, 1)
        XCTAssertEqual([seconds.requestCount, date.requestCount, hook.requestCount], [2, 2, 2])
    }

    // MARK: OPML URLs

    /// Outlines whose xmlUrl is a javascript:, file: or data: URL (any case) are left out of the
    /// imported config, each named in a warning; the http(s) feeds beside them are imported.
    func testOPMLImportRefusesScriptFileAndDataURLs() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let hostile = [("js", "javascript:alert(document.cookie)"), ("js upper", "JavaScript:alert(1)"), ("file", "file:///etc/passwd"),
                       ("file host", "file://localhost/etc/shadow"), ("data", "data:application/rss+xml;base64,PHJzcy8+"), ("vb", "vbscript:msgbox(1)")]
        let outlines = hostile.map { #"<outline text="\#($0.0)" type="rss" xmlUrl="\#($0.1)"/>"# }.joined(separator: "\n")
        let list = dir.write("hostile.opml", """
            <?xml version="1.0"?>
            <opml version="2.0"><head><title>t</title></head><body>
            <outline text="Good" type="rss" xmlUrl="https://e.org/feed.xml"/>
            \(outlines)
            </body></opml>
            """)
        let r = try BinaryRunner.run(["import", "opml", list])
        XCTAssertEqual(r.status, 0, r.stderr)
        for (name, url) in hostile {
            XCTAssertFalse(r.stdout.contains(url), "\(url) reached the config: \(r.stdout)")
            XCTAssertTrue(r.stderr.contains(#"skipped "\#(name)": xmlUrl: expected an http:// or https:// URL"#), "\(name): \(r.stderr)")
        }
        let config = dir.write("tributary.json", r.stdout)
        let check = try BinaryRunner.run(["check", "-c", config])
        XCTAssertEqual(check.status, 0, check.stderr)
        XCTAssertTrue((check.stdout + check.stderr).contains("ok: 1 source (1 enabled)"), check.stdout + check.stderr)

        let none = try BinaryRunner.run(["import", "opml", dir.write("only-hostile.opml", "<opml version=\"2.0\"><body>\(outlines)</body></opml>")])
        XCTAssertEqual(none.status, 2, none.stderr)
        XCTAssertEqual(none.stdout, "")
    }

    // MARK: exec programs that ignore SIGTERM

    /// A program that ignores SIGTERM, with a child that called setsid and ignores it too.
    func stubbornProgram(_ dir: TempDir) -> [String] {
        let path = dir.write("stubborn.py", """
            import json, os, signal, sys, time
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            def note():
                with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'pids'), 'a') as f: f.write('%d\\n' % os.getpid())
            note()
            if os.fork() == 0:
                os.setsid()
                note()
                time.sleep(120)
                os._exit(0)
            for line in sys.stdin if len(sys.argv) > 1 else []: pass
            os.write(1, (json.dumps({'id': 'a:1', 'title': 't'}) + '\\n').encode())
            time.sleep(120)
            """)
        return ["python3", path]
    }

    func assertNoSurvivors(_ dir: TempDir, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(ProcessProbe.pids(inFile: dir.path + "/pids").count, 2, "\(what): the program and its child started", file: file, line: line)
        XCTAssertEqual(ProcessProbe.survivors(pidFile: dir.path + "/pids", marker: dir.path), [], "\(what): processes left behind", file: file, line: line)
    }

    func execConfig(_ dir: TempDir, source: [String: Any]? = nil, sink: [String: Any]? = nil) throws -> String {
        let items = dir.write("items.json", Self.oneItem)
        var doc: [String: Any] = ["sources": [source ?? ["name": "s", "type": "json", "url": "file://" + items, "items": "items", "fields": ["id": "id", "title": "title"]]]]
        doc["sinks"] = [sink ?? ["type": "stdout", "format": "jsonl"]]
        let data = try JSONSerialization.data(withJSONObject: doc, options: [.sortedKeys])
        return dir.write("tributary.json", String(decoding: data, as: UTF8.self))
    }

    /// The source's timeout, the sink's timeout, and a SIGTERM sent to the whole group as
    /// systemd stops a unit (Tributary, the program and its setsid child all get it, and the
    /// two ignore it): each ends the run on time and leaves no process behind.
    func testAnExecProgramIgnoringSIGTERMAndItsSetsidChildAreKilled() throws {
        do {
            let dir = TempDir()
            defer { dir.remove() }
            let cfg = try execConfig(dir, source: ["name": "p", "type": "exec", "command": stubbornProgram(dir), "timeout": "2s"])
            let start = Date()
            let r = try BinaryRunner.run(["run", "-c", cfg, "--no-state"], timeout: 60)
            XCTAssertLessThan(Date().timeIntervalSince(start), 20, "the 2 s timeout ends the run")
            XCTAssertEqual(r.status, 1, r.stderr)
            XCTAssertTrue(r.stderr.contains("timed out after 2s and was killed"), r.stderr)
            XCTAssertEqual(r.stdoutLines.count, 1, "what it printed is kept")
            assertNoSurvivors(dir, "source timeout")
        }
        do {
            let dir = TempDir()
            defer { dir.remove() }
            let cfg = try execConfig(dir, sink: ["type": "exec", "command": stubbornProgram(dir) + ["sink"], "timeout": "2s"])
            let start = Date()
            let r = try BinaryRunner.run(["run", "-c", cfg, "--state", dir.path + "/state.sqlite"], timeout: 60)
            XCTAssertLessThan(Date().timeIntervalSince(start), 20, "the 2 s timeout ends the run")
            XCTAssertEqual(r.status, 3, r.stderr)
            XCTAssertTrue(r.stderr.contains("timed out after 2s"), r.stderr)
            assertNoSurvivors(dir, "sink timeout")
        }
        do {
            let dir = TempDir()
            defer { dir.remove() }
            let cfg = try execConfig(dir, source: ["name": "p", "type": "exec", "command": stubbornProgram(dir), "timeout": "60s"])
            let p = try BinaryRunner.start(["run", "-c", cfg, "--no-state"], stdoutPath: dir.path + "/out", stderrPath: dir.path + "/err")
            let ready = Date().addingTimeInterval(20)
            while ProcessProbe.pids(inFile: dir.path + "/pids").count < 2 && Date() < ready { usleep(20_000) }
            usleep(200_000)
            let start = Date()
            kill(p.processIdentifier, SIGTERM)
            for pid in ProcessProbe.pids(inFile: dir.path + "/pids") { kill(pid, SIGTERM) }
            while p.isRunning && Date().timeIntervalSince(start) < 30 { usleep(50_000) }
            if p.isRunning {
                kill(p.processIdentifier, SIGKILL)
                XCTFail("tributary did not stop within 30 s of SIGTERM")
            }
            p.waitUntilExit()
            let err = dir.read("err") ?? ""
            XCTAssertEqual(p.terminationStatus, 143, err)
            XCTAssertLessThan(Date().timeIntervalSince(start), 20, "the grace period (5 s), then the programs are killed: \(err)")
            XCTAssertTrue(err.contains("p     exec  stopped: interrupted"), err)
            assertNoSurvivors(dir, "SIGTERM to the group")
        }
    }

    // MARK: PostgreSQL passwords

    /// Ten state URLs that cannot work (a wrong password, the right password for a missing
    /// database, an unknown user, a closed port, a password in the query, a percent-encoded
    /// one, a bad port, a bad option value, a missing socket folder, an unknown parameter),
    /// given in the config and through `${VAR}`: `check`, `run`, `status`, `status --json`,
    /// JSON logs, and `watch` (which retries and warns) never print the password, in any form.
    func testPostgreSQLPasswordsAreNeverPrintedForBrokenStateURLs() throws {
        let pg = try PostgresServer.shared()
        let dir = TempDir()
        defer { dir.remove() }
        let items = dir.write("items.json", Self.oneItem)
        let port = pg.port
        let cases: [(url: String, secrets: [String])] = [
            ("postgres://tributary:wrong-Secret-1@127.0.0.1:\(port)/postgres", ["wrong-Secret-1"]),
            ("postgres://tributary:\(pg.password)@127.0.0.1:\(port)/no_such_db", [pg.password]),
            ("postgres://nobody:Secret-3@127.0.0.1:\(port)/postgres", ["Secret-3"]),
            ("postgres://tributary:Secret-4@127.0.0.1:1/postgres", ["Secret-4"]),
            ("postgres://tributary@127.0.0.1:\(port)/postgres?password=Secret-5&sslmode=require", ["Secret-5"]),
            ("postgres://tributary:Se%63ret-6%40x@127.0.0.1:\(port)/postgres", ["Se%63ret-6%40x", "Secret-6@x", "Secret-6"]),
            ("postgres://tributary:Secret-7@127.0.0.1:notaport/postgres", ["Secret-7"]),
            ("postgres://tributary:Secret-8@127.0.0.1:\(port)/postgres?connect_timeout=abc", ["Secret-8"]),
            ("postgres://tributary:Secret-9@/postgres?host=\(dir.path)/no-socket-here", ["Secret-9"]),
            ("postgres://tributary:Secret-10@127.0.0.1:\(port)/postgres?bogus=1", ["Secret-10"]),
        ]
        var watches: [(String, Process, [String])] = []
        for (n, c) in cases.enumerated() {
            for (how, state, env) in [("config", c.url, [String: String]()), ("variable", "${TRIBUTARY_TEST_STATE_URL}", ["TRIBUTARY_TEST_STATE_URL": c.url])] {
                let cfg = dir.write("c\(n)-\(how).json", #"{"state":{"url":"\#(state)"},"sources":[\#(jsonSource("file://" + items))]}"#)
                let what = "case \(n + 1) (\(how))"
                var outputs: [(String, BinaryRunner.Result)] = []
                for argv in [["check"], ["run"], ["run", "--log-format", "json"], ["status"], ["status", "--json"]] {
                    outputs.append((argv.joined(separator: " "), try BinaryRunner.run(argv + ["-c", cfg], env: env, timeout: 60)))
                }
                let run = outputs[1].1
                XCTAssertEqual(run.status, 2, "\(what): the state cannot be opened: \(run.stderr)")
                XCTAssertTrue(run.stderr.contains("PostgreSQL"), "\(what): \(run.stderr)")
                for (command, r) in outputs {
                    for secret in c.secrets {
                        XCTAssertFalse(r.stdout.contains(secret) || r.stderr.contains(secret), "\(what): `\(command)` printed the password \(secret): \(r.stdout) \(r.stderr)")
                    }
                }
                if how == "config" {
                    watches.append((what, try BinaryRunner.start(["watch", "-c", cfg], env: env, stdoutPath: dir.path + "/w\(n).out", stderrPath: dir.path + "/w\(n).err"), c.secrets))
                }
            }
        }
        // `watch` retries the state with backoff and warns each time: a few seconds of that.
        usleep(4_000_000)
        for (what, p, secrets) in watches {
            if p.isRunning { kill(p.processIdentifier, SIGTERM) }
            let deadline = Date().addingTimeInterval(20)
            while p.isRunning && Date() < deadline { usleep(50_000) }
            if p.isRunning { kill(p.processIdentifier, SIGKILL); XCTFail("\(what): watch did not stop") }
            p.waitUntilExit()
            let n = watches.firstIndex { $0.0 == what }!
            let printed = (dir.read("w\(n).out") ?? "") + (dir.read("w\(n).err") ?? "")
            XCTAssertFalse(printed.isEmpty, "\(what): watch said nothing about its state")
            for secret in secrets {
                XCTAssertFalse(printed.contains(secret), "\(what): watch printed the password \(secret): \(printed)")
            }
        }
    }
}

/// A Python program of the test's own (a server), started in the background with its script
/// and arguments; it writes its port to the file named by its first argument, which `init`
/// waits for (10 s). `stop()` kills it.
final class PythonServer {
    let process: Process
    let port: Int

    init(_ dir: TempDir, script: String, arguments: [String]) throws {
        let python = try Tool.require("python3")
        let path = dir.write("server-\(UUID().uuidString).py", script)
        let portFile = path + ".port"
        let p = Process()
        p.executableURL = URL(fileURLWithPath: python)
        p.arguments = [path, portFile] + arguments
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = FileHandle.nullDevice
        let errPath = path + ".err"
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        p.standardError = FileHandle(forWritingAtPath: errPath)
        try p.run()
        process = p
        let deadline = Date().addingTimeInterval(10)
        var found: Int?
        while found == nil && Date() < deadline && p.isRunning {
            found = (try? String(contentsOfFile: portFile, encoding: .utf8)).flatMap { Int($0) }
            if found == nil { usleep(20_000) }
        }
        guard let found else {
            if p.isRunning { p.terminate() }
            throw RunnerError(message: "the test's server did not start: \((try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")")
        }
        port = found
    }

    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit { stop() }
}
