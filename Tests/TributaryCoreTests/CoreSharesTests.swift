import XCTest
import Foundation
@testable import TributaryBase

final class CoreSharesTests: XCTestCase {
    /// The cores are those the process may run on: the CPUs of /proc/self/status's
    /// `Cpus_allowed_list` (`taskset -c 0` makes it one).
    func testTheCoresAreTheCPUsTheProcessMayRunOn() throws {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try XCTUnwrap(status.split(separator: "\n").first { $0.hasPrefix("Cpus_allowed_list:") })
        var allowed = 0
        for part in line.dropFirst("Cpus_allowed_list:".count).trimmingCharacters(in: .whitespaces).split(separator: ",") {
            let ends = part.split(separator: "-").compactMap { Int($0) }
            allowed += ends.count == 2 ? ends[1] - ends[0] + 1 : 1
        }
        XCTAssertEqual(CoreShares.cores, allowed)
    }

    /// The same, in this test binary started again on one CPU (`taskset -c 0`).
    func testOneCPUMakesOneCore() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/taskset") else { throw XCTSkip("no taskset") }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
        p.arguments = ["-c", "0", ProcessInfo.processInfo.arguments[0], "TributaryCoreTests.CoreSharesTests/testTheCoresAreTheCPUsTheProcessMayRunOn"]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, text)
        XCTAssertTrue(text.contains("Executed 1 test, with 0 failures"), text)
    }

    /// Shares cover the list once, in order, each at least `minimum` long; one share below
    /// twice `minimum`, and never more than the cores.
    func testSharesCoverTheListInOrder() {
        XCTAssertEqual(CoreShares.count(of: 0, atLeast: 64), 1)
        XCTAssertEqual(CoreShares.count(of: 127, atLeast: 64), 1)
        XCTAssertEqual(CoreShares.count(of: 128, atLeast: 64), min(2, CoreShares.cores))
        XCTAssertEqual(CoreShares.count(of: 1_000_000, atLeast: 64), CoreShares.cores)
        for n in [0, 1, 31, 64, 128, 129, 1000, 4099] {
            let parts = CoreShares.count(of: n, atLeast: 32)
            let ranges = (0..<parts).map { CoreShares.range($0, of: parts, over: n) }
            XCTAssertEqual(ranges.flatMap { Array($0) }, Array(0..<n), "n = \(n)")
            if parts > 1 { XCTAssertTrue(ranges.allSatisfy { $0.count >= 32 }, "n = \(n)") }
            let mapped = CoreShares.map(n, atLeast: 32) { r in r.map { $0 * 2 } }
            XCTAssertEqual(mapped.count, parts)
            XCTAssertEqual(mapped.flatMap { $0 }, (0..<n).map { $0 * 2 }, "n = \(n)")
        }
    }
}
