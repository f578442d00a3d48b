import Foundation
import TributaryTestSupport
import XCTest

/// The alerting rules in Sources-config/prometheus/: Prometheus's promtool accepts them and
/// their unit tests pass (a stale source fires, a healthy one does not, nor does anything on a
/// fresh Prometheus with ten minutes of history), and Docs/operations.md shows exactly them.
final class PrometheusRulesTests: XCTestCase {
    let folder = BinaryRunner.packageRoot + "/Sources-config/prometheus"

    func testPromtoolChecksAndTestsTheRulesAndTheDocShowsThem() throws {
        let promtool = try Tool.require("promtool")
        let check = try Shell.run([promtool, "check", "rules", folder + "/tributary.rules.yml"])
        XCTAssertEqual(check.status, 0, check.stdout + check.stderr)
        XCTAssertTrue(check.stdout.contains("SUCCESS: 7 rules found"), check.stdout)
        // promtool finds rule_files relative to the test file.
        let test = try Shell.run([promtool, "test", "rules", folder + "/tributary.rules.test.yml"])
        XCTAssertEqual(test.status, 0, test.stdout + test.stderr)
        XCTAssertTrue(test.stdout.contains("SUCCESS"), test.stdout + test.stderr)

        let rules = try String(contentsOfFile: folder + "/tributary.rules.yml", encoding: .utf8)
        let doc = try String(contentsOfFile: BinaryRunner.packageRoot + "/Docs/operations.md", encoding: .utf8)
        XCTAssertTrue(doc.contains("```yaml\n" + rules + "```\n"), "Docs/operations.md does not show Sources-config/prometheus/tributary.rules.yml as it is")
    }
}
