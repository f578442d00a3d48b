import Foundation
import TributaryTestSupport
import XCTest

/// Every input the fuzzers found a crash, hang or broken property with (Fuzz/regressions/<target>/)
/// goes through the same target function the fuzzer ran (FuzzTargets.swift, a link to
/// Fuzz/Harness/FuzzTargets.swift): it must return. A file whose name ends in `.pending` is a
/// known crash someone is fixing; it is skipped, named in the skip message, until its owner drops
/// the suffix with the fix (Fuzz/README.md).
final class FuzzRegressionTests: XCTestCase {
    static let fuzz = BinaryRunner.packageRoot + "/Fuzz"

    /// (target, file name, path) for every file under `folder`/<target>/, sorted.
    static func inputs(in folder: String) throws -> [(target: String, name: String, path: String)] {
        let fm = FileManager.default
        var out: [(String, String, String)] = []
        for target in try fm.contentsOfDirectory(atPath: folder).sorted() {
            let dir = folder + "/" + target
            for name in try fm.contentsOfDirectory(atPath: dir).sorted() where !name.hasPrefix(".") {
                out.append((target, name, dir + "/" + name))
            }
        }
        return out
    }

    func testEveryRegressionInputReturns() throws {
        let inputs = try Self.inputs(in: Self.fuzz + "/regressions")
        XCTAssertFalse(inputs.isEmpty, "Fuzz/regressions holds the inputs")
        var pending: [String] = []
        for (target, name, path) in inputs {
            let run = try XCTUnwrap(FuzzTargets.all[target], "Fuzz/regressions/\(target) is not a fuzz target (known: \(FuzzTargets.all.keys.sorted()))")
            if name.hasSuffix(".pending") {
                pending.append("\(target)/\(name)")
                continue
            }
            let bytes = try XCTUnwrap(FileManager.default.contents(atPath: path), path)
            run(Array(bytes))  // a crash here is the regression
        }
        if !pending.isEmpty {
            throw XCTSkip("\(pending.count) known crashes pending their fixes (drop .pending with the fix): \(pending.joined(separator: ", "))")
        }
    }

    /// The seed corpora are valid inputs too, and running them keeps the harness itself working
    /// without a fuzz build.
    func testEverySeedInputReturns() throws {
        let inputs = try Self.inputs(in: Self.fuzz + "/corpus")
        XCTAssertEqual(Set(inputs.map(\.target)), Set(FuzzTargets.all.keys), "one seed corpus per target")
        for (target, _, path) in inputs {
            let bytes = try XCTUnwrap(FileManager.default.contents(atPath: path), path)
            FuzzTargets.all[target]!(Array(bytes))
        }
    }

    /// Fuzz/run.sh, the corpora and the harness name the same targets.
    func testTheRunnerKnowsEveryTarget() throws {
        let script = try String(contentsOfFile: Self.fuzz + "/run.sh", encoding: .utf8)
        let line = try XCTUnwrap(script.split(separator: "\n").first { $0.hasPrefix("ALL=(") })
        let names = line.dropFirst("ALL=(".count).dropLast().split(separator: " ").map(String.init)
        XCTAssertEqual(Set(names), Set(FuzzTargets.all.keys))
        XCTAssertEqual(names.count, FuzzTargets.all.count)
    }
}
