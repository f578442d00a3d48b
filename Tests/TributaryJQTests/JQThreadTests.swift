import XCTest
import Dispatch
import Foundation
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
        for p in [upcase, select, fails] {
            XCTAssertGreaterThanOrEqual(p.idleStates, 2, "the threads never ran the program at the same time")
        }
    }
}
