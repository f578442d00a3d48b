import XCTest
import Glibc
@testable import TributaryJQ

/// The time limit per input: programs that loop in every way jq allows are stopped within the
/// limit, the process stays healthy, memory does not grow across timeouts, and later inputs run.
final class JQTimeLimitTests: XCTestCase {
    /// How late a stop may come on a busy machine (the CI and development machines run several
    /// test suites at once); typical stops come a few milliseconds after the limit.
    static let slack = Duration.milliseconds(1500)

    /// Resident memory in bytes (/proc/self/statm's second field, in pages).
    static func rss() -> Int {
        guard let f = fopen("/proc/self/statm", "r") else { return 0 }
        defer { fclose(f) }
        var line = [CChar](repeating: 0, count: 256)
        guard fgets(&line, 256, f) != nil else { return 0 }
        let fields = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).split(separator: " ")
        guard fields.count >= 2, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    func compile(_ text: String, _ limits: JQLimits) throws -> JQProgram {
        try JQProgram.compile(text, limits: limits).get()
    }

    func testLoopingProgramsAreStoppedWithinTheLimit() throws {
        let limit = Duration.milliseconds(200)
        let limits = JQLimits(timeLimit: limit, maxOutputs: .max)
        let programs = [
            "def f: f; f",                               // a tail call, forever
            "def f: 1 + f; f",                           // recursion that grows the stack
            "[limit(1e9; repeat(1))]",                   // never yields: builds an array
            "range(1e18)",                               // endless outputs
            "last(range(1e18))",
            "until(false; .)",
            "[while(true; .)] | length",
            "reduce range(1e18) as $i (0; . + $i)",
            "[range(1e9)] | length",
            "label $out | repeat(.) | empty",
            "def f: [f]; f",                             // a value that nests deeper and deeper
            "try (def f: f; f) catch .",                 // the stop is not an error a program can catch
            #"[.title | splits("")]"#,
            "path(..) as $p | empty, (def f: f; f)",
        ]
        for text in programs {
            let program = try compile(text, limits)
            let start = ContinuousClock.now
            var outputs = 0
            let error = Array(#"{"id":"a:1","title":"Hello"}"#.utf8).withUnsafeBytes { program.run(json: $0, each: { _ in outputs += 1 }) }
            let elapsed = ContinuousClock.now - start
            if text == #"[.title | splits("")]"# {
                XCTAssertNil(error, "a program that ends is not stopped")
                continue
            }
            XCTAssertEqual(error, .timeLimit(limit), text)
            XCTAssertGreaterThanOrEqual(elapsed, limit, text)
            XCTAssertLessThan(elapsed, limit + Self.slack, text)
            print("\(text): stopped after \(elapsed) (\(outputs) outputs)")
            XCTAssertEqual(program.idleStates, 0, "a halted state is never reused")
            // The program runs again (a fresh state) and is stopped again.
            XCTAssertEqual(program.run(Array("{}".utf8)), .failure(.timeLimit(limit)), text)
        }
        XCTAssertEqual(JQRunError.timeLimit(limit).description, "jq: the program ran longer than the time limit (200ms) on this input and was stopped")
        XCTAssertEqual(JQRunError.timeLimit(.seconds(1)).description, "jq: the program ran longer than the time limit (1s) on this input and was stopped")
    }

    func testMemoryDoesNotGrowAcrossAHundredTimeoutsAndLaterInputsRun() throws {
        let limit = Duration.milliseconds(20)
        let program = try compile(#"if .loop then [limit(1e9; repeat("abcdefgh"))] else {id, n: (.n + 1)} end"#, JQLimits(timeLimit: limit))
        let looping = Array(#"{"id":"a:1","loop":true}"#.utf8)
        /// An input that ends in microseconds; the limit is wall time, so on a machine busy
        /// enough to keep this thread off a core for 20 ms it can still be stopped: then it is
        /// run again (at most three times), as the engine would on the next run.
        func runs(_ i: Int, file: StaticString = #filePath, line: UInt = #line) throws {
            let input = Array(#"{"id":"a:\#(i)","loop":false,"n":\#(i)}"#.utf8)
            var r = program.run(input)
            for _ in 0..<2 where r == .failure(.timeLimit(limit)) { r = program.run(input) }
            XCTAssertEqual(try r.get().map(\.description), [#"{"id":"a:\#(i)","n":\#(i + 1)}"#], file: file, line: line)
        }
        let halts = JQWatchdog.shared.halts
        for _ in 0..<10 { XCTAssertEqual(program.run(looping), .failure(.timeLimit(limit))) }
        let before = Self.rss()
        for i in 0..<100 {
            XCTAssertEqual(program.run(looping), .failure(.timeLimit(limit)))
            if i % 10 == 0 { try runs(i) }
        }
        let after = Self.rss()
        print("RSS before \(before >> 20) MiB, after 100 timeouts \(after >> 20) MiB")
        // AddressSanitizer holds freed memory back (its quarantine, up to 256 MiB), so resident
        // memory says nothing there; its own checks are what that pass is for.
        if dlsym(nil, "__asan_init") == nil {
            XCTAssertLessThan(after - before, 32 << 20, "RSS grew from \(before >> 20) to \(after >> 20) MiB")
        }
        XCTAssertGreaterThanOrEqual(JQWatchdog.shared.halts - halts, 110)
        try runs(1000)
        XCTAssertEqual(program.idleStates, 1)
    }

    func testAHugeLimitDoesNotWrapAround() throws {
        let program = try compile(".a", JQLimits(timeLimit: .seconds(Int64.max)))
        XCTAssertEqual(try program.run(Array(#"{"a":1}"#.utf8)).get().map(\.description), ["1"])
        XCTAssertEqual(JQProgram.nanoseconds(.seconds(Int64.max)), 9_000_000_000_000_000_000)
        XCTAssertEqual(JQProgram.nanoseconds(.milliseconds(1500)), 1_500_000_000)
        XCTAssertEqual(JQProgram.nanoseconds(.seconds(-1)), 0)
    }

    func testAProgramThatEndsInTimeIsNotStopped() throws {
        // Runs of about the limit's length, many times: none is reported stopped unless halted.
        let program = try compile("[range(20000)] | length", JQLimits(timeLimit: .seconds(5)))
        for _ in 0..<20 { XCTAssertEqual(try program.run(Array("null".utf8)).get().map(\.description), ["20000"]) }
    }
}
