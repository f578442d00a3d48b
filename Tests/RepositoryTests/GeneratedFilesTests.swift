import Foundation
import TributaryDocs
import TributaryTestSupport
import XCTest

/// Every generated file (option tables, schema, synopsis, man page, completions, entity and
/// slug tables, the worked example's blocks) is what its declaration gives: a change to a
/// declaration without `make generate` fails here, naming the file.
final class GeneratedFilesTests: XCTestCase {
    func testEveryGeneratedFileIsUpToDate() throws {
        let stale = try GeneratedFiles.stale(root: BinaryRunner.packageRoot)
        XCTAssertEqual(stale.map { "\($0.path): \($0.why)" }, [], "run make generate")
    }

    func testTheSynopsisIsTheSameEverywhere() throws {
        let root = BinaryRunner.packageRoot
        var blocks: [String] = []
        for page in ["README.md", "Docs/contract.md", "Docs/configuration.md"] {
            let text = try String(contentsOfFile: root + "/" + page, encoding: .utf8)
            let start = try XCTUnwrap(text.range(of: "<!-- synopsis: begin"), page)
            let end = try XCTUnwrap(text.range(of: "<!-- synopsis: end -->", range: start.upperBound..<text.endIndex), page)
            blocks.append(String(text[start.upperBound..<end.lowerBound]))
        }
        XCTAssertEqual(Set(blocks).count, 1, "README.md, contract.md and configuration.md show one synopsis")
        XCTAssertTrue(blocks[0].contains("--worker NAME"), "the synopsis shows every declared flag")
    }
}
