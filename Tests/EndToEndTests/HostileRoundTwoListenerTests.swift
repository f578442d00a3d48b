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
}
