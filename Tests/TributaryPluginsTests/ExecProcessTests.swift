import Foundation
import XCTest
@testable import TributaryPlugins
import TributaryTestSupport

/// The exec source's process handling, in process: stderr line splitting.
final class ExecProcessTests: XCTestCase {
    func lines(_ chunks: [String], cap: Int = 8, limit: Int = 100) -> (logged: [String], state: StderrLines) {
        var s = StderrLines(lineCap: cap, lineLimit: limit)
        var out: [String] = []
        for c in chunks { s.feed(Array(c.utf8)) { out.append($0) } }
        s.finish { out.append($0) }
        return (out, s)
    }

    func testLinesAcrossReadsBlankLinesAndCarriageReturns() {
        let r = lines(["ab", "c\nd", "e\r\n\n\r\n", "tail"])
        XCTAssertEqual(r.logged, ["abc", "de", "tail"])
        XCTAssertEqual(r.state.last, "tail")
        XCTAssertEqual(r.state.dropped, 0)
    }

    func testLongLinesAreCutWithTheirLength() {
        let r = lines(["0123456789", "abcdef\nshort\n", String(repeating: "z", count: 100)])
        XCTAssertEqual(r.logged, ["01234567... [line of 16 bytes cut to 8]", "short", "zzzzzzzz... [line of 100 bytes cut to 8]"])
    }

    func testACutNeverSplitsACharacter() {
        // "aé€" is 1 + 2 + 3 bytes: a cut at 4 bytes keeps "aé", at 3 keeps "aé", at 2 keeps "a".
        for (cap, kept) in [(4, "aé"), (3, "aé"), (2, "a"), (6, "aé€")] {
            let r = lines(["aé€x\n"], cap: cap)
            XCTAssertEqual(r.logged, [kept + "... [line of 7 bytes cut to \(cap)]"], "cap \(cap)")
        }
        XCTAssertEqual(StderrLines.wholeCharacters(ArraySlice([0x61, 0xF0, 0x9F, 0x98])), [0x61])
        XCTAssertEqual(StderrLines.wholeCharacters(ArraySlice([0x61, 0xF0, 0x9F, 0x98, 0x80])), [0x61, 0xF0, 0x9F, 0x98, 0x80])
        XCTAssertEqual(StderrLines.wholeCharacters(ArraySlice([0x80, 0x80])), [0x80, 0x80], "stray continuation bytes are left to the decoder")
    }

    func testAtMostLineLimitLinesAreLoggedAndTheRestCounted() {
        let r = lines([(1...10).map { "l\($0)\n" }.joined()], limit: 3)
        XCTAssertEqual(r.logged, ["l1", "l2", "l3"])
        XCTAssertEqual(r.state.dropped, 7)
        XCTAssertEqual(r.state.droppedBytes, 2 * 6 + 3)
        XCTAssertEqual(r.state.last, "l10", "the last line is kept for the failure message even when not logged")
    }

    func testHundredMebibytesWithoutANewlineInOnePass() {
        var s = StderrLines()
        let chunk = [UInt8](repeating: 0x78, count: 1 << 20)
        var out: [String] = []
        let start = Date()
        for _ in 0..<100 { s.feed(chunk) { out.append($0) } }
        s.finish { out.append($0) }
        XCTAssertLessThan(Date().timeIntervalSince(start), 30, "linear, not quadratic")
        XCTAssertEqual(out, [String(repeating: "x", count: 4096) + "... [line of 104857600 bytes cut to 4096]"])
    }
}
