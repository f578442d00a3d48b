import Foundation
import XCTest
import TributaryCore
import TributaryTestSupport

/// Issue 19's findings on filters, the metrics listener and text logs, through the release
/// binary: a regex rule that reaches PCRE2's match limit fails safe, is warned about once and
/// counted (5); `watch`'s metrics endpoint outlives idle and oversized clients and running out
/// of descriptors (10); control characters from untrusted text never reach a text log raw (13).
final class HostileRoundTwoListenerTests: XCTestCase {
    func ids(_ text: String?) -> [String] {
        (text ?? "").split(separator: "\n").compactMap { (try? JSONParser.parse(String($0)))?[path: "id"]?.stringValue }
    }

    /// CPU seconds (user and system) of the children this process has waited for.
    func childCPU() -> Double {
        var u = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &u)
        return Double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + Double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6
    }

    // MARK: 5. PCRE2's match limit

    func testARegexRuleThatReachesPCRE2sMatchLimitFailsSafeIsWarnedOnceAndCounted() throws {
        // "aaa...ab" against (a+)+$: catastrophic backtracking, PCRE2_ERROR_MATCHLIMIT.
        var items = [#"{"id":"banana","title":"banana"}"#, #"{"id":"swift","title":"Swift"}"#]
        for i in 0..<60 { items.append(#"{"id":"p\#(i)","title":"\#(String(repeating: "a", count: 30 + i % 10))b"}"#) }
        let body = #"{"items":[\#(items.joined(separator: ","))]}"#
        let server = try LoopbackServer { _ in .text(body) }
        let dir = TempDir()
        defer { server.stop(); dir.remove() }
        func source(_ name: String, _ filter: String) -> String {
            #"{"name":"\#(name)","type":"json","url":"\#(server.baseURL)/items","items":"items","fields":{"id":"id","title":"title"}\#(filter.isEmpty ? "" : #","filter":"# + filter)}"#
        }
        func config(include: String) -> String {
            dir.write("tributary.json", #"""
            {"state":{"path":"state.sqlite"},"sources":[
              \#(source("inc", #"{"include":[{"field":"title","regex":"\#(include)"}]}"#)),
              \#(source("exc", #"{"exclude":[{"field":"title","regex":"(a+)+$"}]}"#)),
              \#(source("all", ""))],
             "sinks":[{"type":"jsonl","path":"out/all.jsonl"},
                      {"type":"jsonl","name":"clean","path":"out/clean.jsonl","filter":{"exclude":[{"field":"title","regex":"(a+)+$"}]}}]}
            """#)
        }
        let cfg = config(include: "(a+)+$")
        let cpuBefore = childCPU()
        let r = try BinaryRunner.run(["run", "-c", cfg, "--metrics-file", dir.path + "/m.prom"], timeout: 120)
        let cpu = childCPU() - cpuBefore
        XCTAssertEqual(r.status, 0, r.stderr)
        let all = ids(dir.read("out/all.jsonl"))
        XCTAssertEqual(all.filter { $0.hasPrefix("inc:") }, ["inc:banana"], "an include rule that errors does not include")
        XCTAssertEqual(all.filter { $0.hasPrefix("exc:") }, ["exc:swift"], "an exclude rule that errors excludes (the probe: all 60 got through)")
        XCTAssertEqual(all.filter { $0.hasPrefix("all:") }.count, 62)
        XCTAssertEqual(Set(ids(dir.read("out/clean.jsonl"))), ["exc:swift", "all:swift"], "a sink's exclude rule that errors keeps the item from that sink")

        // One warning per rule per run, naming the rule's key path and PCRE2's error.
        let warnings = r.stderr.split(separator: "\n").filter { $0.contains("filter rule") }
        XCTAssertEqual(warnings.count, 3, r.stderr)
        let inc = warnings.filter { $0.contains(#"sources[0] ("inc").filter.include[0]"#) }
        let exc = warnings.filter { $0.contains(#"sources[1] ("exc").filter.exclude[0]"#) }
        let sink = warnings.filter { $0.contains("sinks[1].filter.exclude[0]") }
        XCTAssertEqual([inc.count, exc.count, sink.count], [1, 1, 1], r.stderr)
        for w in warnings {
            XCTAssertTrue(w.contains("warning: ") && w.contains("match limit exceeded") && w.contains(#"(regex "(a+)+$")"#), String(w))
        }
        XCTAssertTrue(inc.first?.contains("not included") == true, r.stderr)
        XCTAssertTrue(exc.first?.contains("is excluded") == true, r.stderr)
        XCTAssertTrue(sink.first?.contains("sink clean does not receive the item") == true, r.stderr)

        // Every failure counted, by rule.
        let m = try PrometheusReader.read(dir.path + "/m.prom")
        XCTAssertEqual(m.family("tributary_filter_errors")?.type, "counter")
        XCTAssertEqual(m.value("tributary_filter_errors_total", ["rule": #"sources[0] ("inc").filter.include[0]"#]), 60)
        XCTAssertEqual(m.value("tributary_filter_errors_total", ["rule": #"sources[1] ("exc").filter.exclude[0]"#]), 60)
        XCTAssertEqual(m.value("tributary_filter_errors_total", ["rule": "sinks[1].filter.exclude[0]"]), 60)

        // Explicit limits: 180 failing matches cost PCRE2's default 10,000,000 steps each before
        // (about 25 ms of CPU apiece: 5.4 s in all on 92c3b6e); 1,000,000 now (about 0.5 s).
        XCTAssertLessThan(cpu, 2.5, "CPU seconds of the run")

        // What the include rule left out was not recorded: a fixed rule lets it through.
        let fixed = try BinaryRunner.run(["run", "-c", config(include: "^a+b$")])
        XCTAssertEqual(fixed.status, 0, fixed.stderr)
        XCTAssertEqual(ids(dir.read("out/all.jsonl")).filter { $0.hasPrefix("inc:p") }.count, 60, fixed.stderr)
        XCTAssertFalse(fixed.stderr.contains(#"("inc").filter.include"#), fixed.stderr)
    }

    // MARK: 13. Control characters in text logs

    func testControlCharactersFromAProgramsStderrAndErrorsAreEscapedInTextLogs() throws {
        let dir = TempDir()
        defer { dir.remove() }
        // Clears the screen, rings the bell, sets the window title, a C1 CSI (U+009B), and a
        // carriage return that would print over the line's start with a forged record.
        let script = dir.write("p.sh", #"""
        #!/bin/sh
        printf '{"id":"1","title":"one"}\n'
        printf 'before\033[2J\033[H\a\033]0;owned\a\302\2331mafter\rFAKE LINE 2026-01-01T00:00:00.000+00:00 tributary: forged\n' >&2
        printf 'cut\033' >&2
        printf 'DEL\177 and a tab\there\n' >&2
        printf 'last\rFAKE FAILURE\033[2K\n' >&2
        exit 1
        """#)
        chmod(script, 0o755)
        let cfg = dir.write("tributary.json", #"{"sources":[{"name":"p","type":"exec","command":["./p.sh"]}],"sinks":[{"type":"jsonl","path":"out.jsonl"}]}"#)
        let r = try BinaryRunner.run(["run", "-c", cfg, "--no-state"])
        XCTAssertEqual(r.status, 1, r.stderr)
        let raw = Array(r.stderr.utf8)
        let controls = raw.enumerated().filter { i, b in
            (b < 0x20 && b != 0x0A && b != 0x09) || b == 0x7F || (b == 0xC2 && i + 1 < raw.count && (0x80...0x9F).contains(raw[i + 1]))
        }
        XCTAssertEqual(controls.map(\.element), [], "raw control bytes in the text log: \(r.stderr.debugDescription)")
        for line in r.stderr.split(separator: "\n") {
            XCTAssertFalse(line.hasPrefix("FAKE"), "a forged line start: \(r.stderr.debugDescription)")
        }
        XCTAssertTrue(r.stderr.contains(#"before\x1b[2J\x1b[H\x07\x1b]0;owned\x07\xc2\x9b1mafter\rFAKE LINE 2026-01-01T00:00:00.000+00:00 tributary: forged"#),
                      r.stderr.debugDescription)
        XCTAssertTrue(r.stderr.contains(#"DEL\x7f and a tab"# + "\there"), "a tab stays: \(r.stderr.debugDescription)")
        // The failure line in the summary quotes the last stderr line: escaped too.
        XCTAssertTrue(r.stderr.contains(#"exited with status 1 (last stderr line: last\rFAKE FAILURE\x1b[2K)"#), r.stderr.debugDescription)

        // JSON logs were right already: the same text, escaped by JSON, reads back whole.
        let j = try BinaryRunner.run(["run", "-c", cfg, "--no-state", "--log-format", "json"])
        XCTAssertEqual(j.status, 1, j.stderr)
        let msgs = j.stderr.split(separator: "\n").compactMap { (try? JSONParser.parse(String($0)))?[path: "msg"]?.stringValue }
        XCTAssertTrue(msgs.contains { $0.hasPrefix("before\u{1B}[2J") && $0.contains("\rFAKE LINE") }, j.stderr.debugDescription)
    }

    // MARK: 10. The metrics listener

    struct WatchError: Error, CustomStringConvertible { let description: String }

    /// A `watch` serving metrics on a free port, with one source that has run once; stopped by
    /// `stop()`.
    final class Watch {
        let dir = TempDir()
        let server: LoopbackServer
        let process: Process
        let port: UInt16

        init() throws {
            server = try LoopbackServer { _ in .text(#"{"items":[{"id":1,"title":"one"}]}"#) }
            let cfg = dir.write("tributary.json", #"""
            {"metrics":{"listen":"127.0.0.1:0"},"state":{"path":"state.sqlite"},"http":{"concurrency":4},
             "sources":[{"name":"s","type":"json","url":"\#(server.baseURL)/items","interval":"1h","items":"items","fields":{"id":"id","title":"title"}}],
             "sinks":[{"type":"jsonl","path":"out.jsonl"}]}
            """#)
            process = try BinaryRunner.start(["watch", "-c", cfg, "--log-format", "json"], stdoutPath: dir.path + "/o", stderrPath: dir.path + "/e")
            // Its metrics address, and its source's first run: a test that counts the process's
            // descriptors must not count them while the run is still opening its own (the
            // transfer's, the sink's file), or the limit it sets leaves no room to accept.
            var found: UInt16?, ran = false
            for _ in 0..<400 where found == nil || !ran {
                for rec in (dir.read("e") ?? "").split(separator: "\n").compactMap({ try? JSONParser.parse(String($0)) }) {
                    if let u = rec[path: "url"]?.stringValue, let p = u.split(separator: ":").last.flatMap({ UInt16($0) }) { found = p }
                    if rec[path: "source"]?.stringValue == "s", rec[path: "status"]?.stringValue == "ok" { ran = true }
                }
                if found == nil || !ran { usleep(50_000) }
            }
            guard let found, ran else {
                process.terminate()
                throw WatchError(description: "watch never logged its metrics address and its source's first run: \(dir.read("e") ?? "")")
            }
            port = found
        }

        var log: String { dir.read("e") ?? "" }

        func stop() {
            if process.isRunning {
                process.terminate()
                process.waitUntilExit()
            }
            server.stop()
            dir.remove()
        }
    }

    /// A connected TCP socket to 127.0.0.1:`port` (blocking, reads time out after `timeout` s).
    static func connect(_ port: UInt16, timeout: Double = 10) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let ok = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard ok == 0 else { close(fd); return nil }
        return fd
    }

    /// Sends `request` on a new connection and reads until the server closes: the answer, how
    /// long it took, and the error that ended the read (ECONNRESET, EAGAIN on a timeout), if any.
    static func exchange(_ port: UInt16, _ request: [UInt8], timeout: Double = 10) -> (answer: String, seconds: Double, error: Int32?) {
        let start = Date()
        guard let fd = connect(port, timeout: timeout) else { return ("", 0, errno) }
        defer { close(fd) }
        var sent = 0
        while sent < request.count {
            let n = request.withUnsafeBytes { send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return ("", Date().timeIntervalSince(start), errno) }
            sent += n
        }
        var answer: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buf.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n == 0 { break }
            if n < 0 { return (String(decoding: answer, as: UTF8.self), Date().timeIntervalSince(start), errno) }
            answer += buf[0..<n]
        }
        return (String(decoding: answer, as: UTF8.self), Date().timeIntervalSince(start), nil)
    }

    static let healthz = Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)

    /// The CPU seconds (user and system) process `pid` has used, from /proc/PID/stat.
    static func cpuSeconds(_ pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return .nan }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the command: state is field 3, utime 14, stime 15 (so indexes 11 and 12 here).
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return ((Double(fields[11]) ?? .nan) + (Double(fields[12]) ?? .nan)) / ticks
    }

    /// How many descriptors process `pid` has open (the entries of /proc/PID/fd).
    static func openDescriptors(_ pid: Int32) -> Int {
        guard let d = opendir("/proc/\(pid)/fd") else { return -1 }
        defer { closedir(d) }
        var n = 0
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { n += 1 }
        }
        return n
    }

    func testHealthzAnswersAtOnceWhile300IdleConnectionsAreOpen() throws {
        let watch = try Watch()
        defer { watch.stop() }
        // 300 clients that connect and send nothing (the probe: /healthz answered after 29.5 s).
        var idle: [Int32] = []
        defer { for fd in idle { close(fd) } }
        for _ in 0..<300 {
            guard let fd = Self.connect(watch.port, timeout: 5) else { return XCTFail("connect: \(String(cString: strerror(errno)))") }
            idle.append(fd)
        }
        let r = Self.exchange(watch.port, Self.healthz)
        XCTAssertTrue(r.answer.hasPrefix("HTTP/1.1 200 OK\r\n") && r.answer.hasSuffix("\r\n\r\nok"), "\(r) \(watch.log)")
        XCTAssertLessThan(r.seconds, 1.5, "/healthz behind 300 idle connections")
        // Each idle client is dropped once its head deadline (1 s) has passed.
        let start = Date()
        var closed = 0
        for fd in idle where Date().timeIntervalSince(start) < 5 {
            var b: UInt8 = 0
            if read(fd, &b, 1) == 0 { closed += 1 }
        }
        XCTAssertEqual(closed, 300, "idle connections closed by the server")
        XCTAssertLessThan(Date().timeIntervalSince(start), 5, "within about a second of their start")
        // A client that trickles its head a byte at a time is cut off the same way.
        guard let slow = Self.connect(watch.port) else { return XCTFail("connect") }
        defer { close(slow) }
        let trickleStart = Date()
        var cut = false
        for b in Self.healthz.dropLast(2) {
            var byte = b
            if send(slow, &byte, 1, Int32(MSG_NOSIGNAL)) <= 0 { cut = true; break }
            usleep(200_000)
            if Date().timeIntervalSince(trickleStart) > 4 { break }
        }
        var b: UInt8 = 0
        XCTAssertTrue(cut || read(slow, &b, 1) <= 0, "a trickled head is cut off")
        XCTAssertLessThan(Date().timeIntervalSince(trickleStart), 4)
        XCTAssertTrue(watch.process.isRunning, watch.log)
    }

    func testARequestHeadOver8KiBIsAnswered431NotReset() throws {
        let watch = try Watch()
        defer { watch.stop() }
        let pad = { (n: Int) in "X-Pad: " + String(repeating: "a", count: n) + "\r\n" }
        for (what, head) in [
            ("a complete 9 KiB head", "GET /healthz HTTP/1.1\r\nHost: x\r\n" + pad(9 * 1024) + "\r\n"),
            ("a complete 64 KiB head", "GET /healthz HTTP/1.1\r\nHost: x\r\n" + pad(64 * 1024) + "\r\n"),
            ("a 64 KiB head without its end", "GET /metrics HTTP/1.1\r\nHost: x\r\n" + pad(64 * 1024)),
        ] {
            let r = Self.exchange(watch.port, Array(head.utf8))
            XCTAssertTrue(r.answer.hasPrefix("HTTP/1.1 431 Request Header Fields Too Large\r\n"), "\(what): \(r.answer.prefix(200)) error \(r.error.map { String(cString: strerror($0)) } ?? "none")")
            XCTAssertNil(r.error, "\(what): the answer ends with a close, not a reset or a timeout")
        }
        // Just under the limit is served.
        let fits = "GET /healthz HTTP/1.1\r\nHost: x\r\n" + pad(7 * 1024) + "\r\n"
        XCTAssertTrue(Self.exchange(watch.port, Array(fits.utf8)).answer.hasPrefix("HTTP/1.1 200 OK\r\n"))
        XCTAssertTrue(watch.process.isRunning, watch.log)
    }

    func testRunningOutOfDescriptorsBacksOffInsteadOfSpinningAndRecovers() throws {
        let watch = try Watch()
        defer { watch.stop() }
        let pid = watch.process.processIdentifier
        XCTAssertTrue(Self.exchange(watch.port, Self.healthz).answer.hasPrefix("HTTP/1.1 200"))
        // Leave the process 6 descriptors: accept fails with EMFILE after a few connections.
        let open = Self.openDescriptors(pid)
        let limit = open + 6
        let p = try Shell.run(["prlimit", "--pid", "\(pid)", "--nofile=\(limit):\(limit)"])
        XCTAssertEqual(p.status, 0, p.stderr)
        var idle: [Int32] = []
        defer { for fd in idle { close(fd) } }
        for _ in 0..<60 {
            guard let fd = Self.connect(watch.port) else { break }
            idle.append(fd)
        }
        XCTAssertEqual(idle.count, 60, "the kernel's backlog takes what accept cannot")
        usleep(300_000)
        let fds = Self.openDescriptors(pid)
        XCTAssertGreaterThanOrEqual(fds, limit - 1, "at the descriptor limit (\(fds) of \(limit))")
        // The probe: 0.87 of a core while accept kept failing.
        let before = Self.cpuSeconds(pid), wall = Date()
        sleep(3)
        let share = (Self.cpuSeconds(pid) - before) / Date().timeIntervalSince(wall)
        XCTAssertLessThan(share, 0.1, "CPU share of watch while accept fails with EMFILE")
        // Once the clients are gone, /healthz answers again (after a backoff of at most 1 s).
        for fd in idle { close(fd) }
        idle = []
        let start = Date()
        var answered = false
        while !answered && Date().timeIntervalSince(start) < 10 {
            answered = Self.exchange(watch.port, Self.healthz, timeout: 5).answer.hasPrefix("HTTP/1.1 200 OK\r\n")
            if !answered { usleep(100_000) }
        }
        XCTAssertTrue(answered, watch.log)
        XCTAssertLessThan(Date().timeIntervalSince(start), 3, "/healthz after the clients left")
        XCTAssertTrue(watch.process.isRunning, watch.log)
    }
}
