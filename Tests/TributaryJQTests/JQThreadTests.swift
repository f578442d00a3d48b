import XCTest
import Dispatch
import Foundation
import Glibc
import TributaryCore
@testable import TributaryJQ

/// Programs run from many threads at once: every output right, states never shared (the pool
/// holds at most one per thread), timeouts on some threads while others run.
final class JQThreadTests: XCTestCase {
    func testManyThreadsRunTheSameProgramsAtOnce() throws {
        let upcase = try JQProgram.compile(#"{id, title: (.title | ascii_upcase), n: (.n * 2), tags: [.tags[] | select(. != "b")]}"#).get()
        let select = try JQProgram.compile(#"select(.n % 3 == 0) | {id, t: .title}, {id: (.id + ":2")}"#).get()
        let fails = try JQProgram.compile(#"if .n % 5 == 0 then error("five: \(.id)") else .n end"#).get()
        let loops = try JQProgram.compile(#"if .loop then last(range(1e18)) else .id end"#, limits: JQLimits(timeLimit: .milliseconds(300))).get()
        let threads = 8
        let perThread = 300
        let wrong = Locked<[String]>([])
        let timeouts = Locked(0)
        // Eight real threads (concurrentPerform would use one per core).
        let done = DispatchSemaphore(value: 0)
        for t in 0..<threads {
            let thread = Thread {
                defer { done.signal() }
                for i in 0..<perThread {
                    let id = "t\(t):\(i)"
                    let loop = i % 80 == 3  // the time limit is wall time: 300 ms, so that a run merely waiting for a core on a busy machine is not stopped
                    let input = Array(#"{"id":"\#(id)","title":"héllo \#(t) \#(i)","n":\#(i),"tags":["a","b","c"],"loop":\#(loop)}"#.utf8)
                    var ok = true
                    var got = ""
                    switch i % 4 {
                    case 0:
                        let r = upcase.run(input)
                        got = "\(r)"
                        ok = (try? r.get().map(\.description)) == [#"{"id":"\#(id)","title":"HéLLO \#(t) \#(i)","n":\#(i * 2),"tags":["a","c"]}"#]
                    case 1:
                        let want = i % 3 == 0 ? [#"{"id":"\#(id)","t":"héllo \#(t) \#(i)"}"#, #"{"id":"\#(id):2"}"#] : []
                        let r = select.run(input)
                        got = "\(r)"
                        ok = (try? r.get().map(\.description)) == want
                    case 2:
                        let r = fails.run(input)
                        got = "\(r)"
                        ok = i % 5 == 0 ? r == .failure(.runtime("five: \(id)")) : (try? r.get().map(\.description)) == ["\(i)"]
                    default:
                        let r = loops.run(input)
                        got = "\(r)"
                        if loop {
                            ok = r == .failure(.timeLimit(.milliseconds(300)))
                            timeouts.withLock { $0 += 1 }
                        } else {
                            ok = (try? r.get().map(\.description)) == [#""\#(id)""#]
                        }
                    }
                    if !ok { wrong.withLock { $0.append("\(id) (case \(i % 4)): \(got)") } }
                }
            }
            thread.start()
        }
        for _ in 0..<threads { done.wait() }
        XCTAssertEqual(wrong.withLock { $0 }, [])
        XCTAssertGreaterThan(timeouts.withLock { $0 }, 0)
        for p in [upcase, select, fails, loops] {
            XCTAssertLessThanOrEqual(p.idleStates, threads, "more states than threads: one was shared or leaked")
        }
    }

    /// A run that is in progress holds its state: a run on another thread meanwhile gets a
    /// second one, and both go back to the pool. (Whether eight threads happen to overlap in
    /// the test above depends on the machine's load; this does not.)
    func testARunOnAnotherThreadWhileOneIsInProgressGetsAStateOfItsOwn() throws {
        let program = try JQProgram.compile(#"if .slow then [limit(3; repeat(1))] | length + ([range(3000000)] | length) else .n end"#,
                                            limits: JQLimits(timeLimit: .seconds(60))).get()
        XCTAssertEqual(program.idleStates, 1)
        let started = DispatchSemaphore(value: 0)
        let finished = Locked(false)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            started.signal()
            let r = program.run(Array(#"{"slow":true}"#.utf8))
            XCTAssertEqual(try? r.get().map(\.description), ["3000003"])
            finished.withLock { $0 = true }
            done.signal()
        }
        thread.start()
        started.wait()
        // Wait (at most 30 s) until the slow run holds the only state: a run from this thread
        // before that would take it first, the slow run would make a second one, and the pool
        // would never look empty while this thread looks.
        let deadline = DispatchTime.now() + .seconds(30)
        while program.idleStates != 0 && !finished.withLock({ $0 }) && DispatchTime.now() < deadline { usleep(200) }
        var overlapped = false
        while !finished.withLock({ $0 }) {
            // While the slow run holds a state, this one cannot have it.
            if program.idleStates == 0 { overlapped = true }
            XCTAssertEqual(try program.run(Array(#"{"slow":false,"n":7}"#.utf8)).get().map(\.description), ["7"])
            usleep(2000)
        }
        done.wait()
        XCTAssertTrue(overlapped, "the slow run (a range of three million) never held the state while this thread looked")
        XCTAssertEqual(program.idleStates, 2, "the runs during the slow one had a state of their own, and both went back")
    }
}
