import Foundation
import TributaryTestSupport
import XCTest

/// Keeps the construct Swift 6.3.1 miscompiles at -O out of the repository
/// (Tests/CompilerBugs/tuple-await-dse/README.md): a `try await` must start its expression.
final class AwaitPlacementTests: XCTestCase {
    /// What may stand before `try await` on its line: nothing, an assignment, `return`, a
    /// closure opener, `for`, or an `if`/`guard`/`while` binding.
    static let allowedPrefix = try! NSRegularExpression(pattern: #"""
        ^\s*(.*\{\s*([\w\s,()]+\s+in\s+)?)?(
          |return\s*
          |(let|var)\s+[^=]+=\s*
          |(if|guard|while)\s+(let|var)\s+[^=]+=\s*
          |[A-Za-z_][\w.\[\]]*\s*(=|\+=|-=)\s*
          |for\s*
        )$
        """#, options: [.allowCommentsAndWhitespace])

    /// Every `try await` that does not start its expression, as `file:line: text`.
    static func violations(in text: String, file: String) -> [String] {
        var found: [String] = []
        let lines = text.components(separatedBy: "\n")
        for (n, line) in lines.enumerated() {
            var search = line.startIndex..<line.endIndex
            while let r = line.range(of: "try await", range: search) {
                let before = String(line[..<r.lowerBound])
                let code = before.components(separatedBy: "//").first ?? before
                let isComment = code.count < before.count || before.trimmingCharacters(in: .whitespaces).hasPrefix("*")
                let inString = code.replacingOccurrences(of: "\\\\", with: "").replacingOccurrences(of: "\\\"", with: "").filter { $0 == "\"" }.count % 2 == 1
                var bad = false
                if !isComment && !inString {
                    let ns = code as NSString
                    if allowedPrefix.firstMatch(in: code, range: NSRange(location: 0, length: ns.length)) == nil { bad = true }
                    // A continuation line: the aggregate was opened on the line before.
                    if code.trimmingCharacters(in: .whitespaces).isEmpty, n > 0,
                       let last = lines[..<n].last(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty })?.trimmingCharacters(in: .whitespaces).last,
                       last == "," || last == "(" || last == "[" {
                        bad = true
                    }
                }
                if bad { found.append("\(file):\(n + 1): \(line.trimmingCharacters(in: .whitespaces))") }
                search = r.upperBound..<line.endIndex
            }
        }
        return found
    }

    func testTheRuleCatchesTheConstructAndAllowsItsForms() {
        let banned = [
            "return (index, .success(try await fetchOne(place)))",
            "do { return (i, .success(try await fetchPages(u, context))) } catch {}",
            "result = .success(try await source.fetch(context))",
            "send(a, try await b())",
            "return (index,\n    try await f())",
        ]
        for text in banned { XCTAssertFalse(Self.violations(in: text, file: "t").isEmpty, text) }
        let allowed = [
            "let item = try await fetchOne(place)",
            "return try await fetchPages(urls[0], context)",
            "try await Task.sleep(nanoseconds: 1)",
            "items += try await page()",
            "for try await status in group {}",
            "group.addTask { try await t.send(r).status }",
            "let r = await Task { x in try await f(x) }",
            "guard let next = try await more() else { return }",
            "if n == 1 { return try await fetchPages(urls[0], context) }",
            "do { box.items = try await source.fetch(context) } catch { box.error = error }",
            "// return (index, try await f()) in a comment",
            "print(\"(index, try await f())\")",
        ]
        for text in allowed { XCTAssertEqual(Self.violations(in: text, file: "t"), [], text) }
    }

    func testNoSwiftFileInTheRepositoryHasTheConstruct() throws {
        let root = BinaryRunner.packageRoot
        var found: [String] = []
        var files = 0
        for dir in ["Sources", "Tests", "bench", "Fuzz"] {
            guard let walker = FileManager.default.enumerator(atPath: root + "/" + dir) else { continue }
            for case let rel as String in walker where rel.hasSuffix(".swift") && !rel.hasPrefix("CompilerBugs/") {
                let path = dir + "/" + rel
                guard let text = try? String(contentsOfFile: root + "/" + path, encoding: .utf8) else { continue }
                files += 1
                found += Self.violations(in: text, file: path)
            }
        }
        XCTAssertGreaterThan(files, 50, "the scan found the repository's Swift files")
        XCTAssertEqual(found, [], "bind the awaited value to a let first (Tests/CompilerBugs/tuple-await-dse)")
    }

    /// The rule's form is right at -O on the toolchain in use; the banned form's state is reported.
    func testTheRulesFormIsCorrectAtOWithThisToolchain() throws {
        let source = BinaryRunner.packageRoot + "/Tests/CompilerBugs/tuple-await-dse/repro.swift"
        let dir = TempDir()
        defer { dir.remove() }
        let exe = dir.path + "/repro"
        let build = try Shell.run(["swiftc", "-O", "-parse-as-library", source, "-o", exe], timeout: 300)
        XCTAssertEqual(build.status, 0, build.stderr)
        let run = try Shell.run([exe], timeout: 30)
        XCTAssertEqual(run.status, 0)
        XCTAssertTrue(run.stdout.contains("hoisted: ok"), run.stdout)
        print("tuple-await-dse on this toolchain: " + run.stdout.replacingOccurrences(of: "\n", with: "; "))
    }
}
