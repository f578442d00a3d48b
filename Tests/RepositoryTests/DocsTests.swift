import Foundation
import TributaryTestSupport
import XCTest

/// The documentation holds together: every relative link reaches a file in the repository and,
/// with `#anchor`, a heading in it; nothing refers to a file outside the repository.
final class DocsTests: XCTestCase {
    static let root = BinaryRunner.packageRoot

    /// Every tracked Markdown file (git ls-files), relative to the root.
    static func markdownFiles() throws -> [String] {
        let r = try Shell.run(["git", "-C", root, "ls-files", "*.md"])
        return r.stdout.split(separator: "\n").map(String.init)
    }

    /// GitHub's heading anchors: lower case, punctuation dropped (but `-` and `_`), spaces as `-`.
    static func slug(_ heading: String) -> String {
        var out = ""
        for ch in heading.lowercased() {
            if ch.isLetter || ch.isNumber || ch == "-" || ch == "_" { out.append(ch) } else if ch == " " { out.append("-") }
        }
        return out
    }

    /// A heading's text as GitHub slugs it: a link reads as its text (`[a](b.md)` is `a`).
    static func headingText(_ title: String) -> String {
        var out = ""
        var rest = Substring(title)
        while let open = rest.range(of: "](") {
            out += rest[..<open.lowerBound].replacingOccurrences(of: "[", with: "")
            let after = rest[open.upperBound...]
            guard let close = after.firstIndex(of: ")") else { rest = after; break }
            rest = after[after.index(after: close)...]
        }
        return out + rest
    }

    /// The anchors of a page: its headings' slugs, and `<a id="...">` / `<a name="...">`.
    static func anchors(in text: String) -> Set<String> {
        var seen: [String: Int] = [:]
        var out = Set<String>()
        var inCode = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inCode.toggle(); continue }
            guard !inCode else { continue }
            for attr in ["<a id=\"", "<a name=\""] {
                var rest = Substring(line)
                while let r = rest.range(of: attr) {
                    let after = rest[r.upperBound...]
                    guard let q = after.firstIndex(of: "\"") else { break }
                    out.insert(String(after[..<q]))
                    rest = after[q...]
                }
            }
            guard line.hasPrefix("#") else { continue }
            let title = line.drop(while: { $0 == "#" }).trimmingCharacters(in: .whitespaces)
            let base = slug(headingText(title))
            let n = seen[base, default: 0]
            seen[base] = n + 1
            out.insert(n == 0 ? base : "\(base)-\(n)")
        }
        return out
    }

    /// The targets of `[text](target)` and `[text](target "title")` links, of reference
    /// definitions (`[label]: target`) and of `<a href="target">`, outside code blocks and
    /// inline code.
    static func links(in text: String) -> [String] {
        var out: [String] = []
        var inCode = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") || line.hasPrefix("    ```") || line.hasPrefix("  ```") { inCode.toggle(); continue }
            if inCode { continue }
            // Drop inline code spans first.
            let plain = line.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 0 }.map(\.element).joined()
            var rest = Substring(plain)
            while let open = rest.range(of: "](") {
                let after = rest[open.upperBound...]
                guard let close = after.firstIndex(of: ")") else { break }
                out.append(String(after[..<close].split(separator: " ", maxSplits: 1).first ?? ""))
                rest = after[close...]
            }
            let trimmed = plain.drop(while: { $0 == " " })
            if trimmed.hasPrefix("["), let end = trimmed.range(of: "]: ") {
                out.append(String(trimmed[end.upperBound...].split(separator: " ", maxSplits: 1).first ?? ""))
            }
            rest = Substring(plain)
            while let r = rest.range(of: "href=\"") {
                let after = rest[r.upperBound...]
                guard let q = after.firstIndex(of: "\"") else { break }
                out.append(String(after[..<q]))
                rest = after[q...]
            }
        }
        return out
    }

    /// Whether `target` (relative to the root, with an optional `#anchor`) names a file in the
    /// repository and, with an anchor, a heading in it; nil when it does, else what is wrong.
    static func problem(_ target: String, anchor: String?) -> String? {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root + "/" + target, isDirectory: &isDir) else { return "no file \(target)" }
        guard let anchor, !anchor.isEmpty else { return nil }
        guard target.hasSuffix(".md"), let body = try? String(contentsOfFile: root + "/" + target, encoding: .utf8) else {
            return "an anchor into a file that is not Markdown"
        }
        return anchors(in: body).contains(anchor) ? nil : "no heading #\(anchor) in \(target)"
    }

    func testEveryRelativeLinkAndAnchorResolves() throws {
        let files = try Self.markdownFiles()
        XCTAssertGreaterThan(files.count, 15)
        var broken: [String] = []
        var checked = 0
        for file in files {
            let text = try String(contentsOfFile: Self.root + "/" + file, encoding: .utf8)
            let dir = (file as NSString).deletingLastPathComponent
            for link in Self.links(in: text) {
                if link.hasPrefix("http://") || link.hasPrefix("https://") || link.hasPrefix("mailto:") { continue }
                checked += 1
                let parts = link.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let target = parts[0].isEmpty ? file : ((dir.isEmpty ? parts[0] : dir + "/" + parts[0]) as NSString).standardizingPath
                if target.hasPrefix("..") || target.hasPrefix("/") {
                    broken.append("\(file): \(link): outside the repository")
                    continue
                }
                if let problem = Self.problem(target, anchor: parts.count == 2 ? parts[1] : nil) { broken.append("\(file): \(link): \(problem)") }
            }
        }
        XCTAssertGreaterThan(checked, 80, "the check found the links")
        XCTAssertEqual(broken, [])
    }

    /// What code, configs and pages cite as text (`Docs/contract.md#items` in a doc comment, a
    /// help text, a message) names a file and heading that exist.
    func testEveryDocsPathCitedAsTextResolves() throws {
        let r = try Shell.run(["git", "-C", Self.root, "grep", "-n", "-o", "-E", "(^|[^A-Za-z0-9_./-])Docs/[A-Za-z0-9_./-]+(#[A-Za-z0-9_-]+)?", "--", "."])
        var broken: [String] = []
        var checked = 0
        for hit in r.stdout.split(separator: "\n") {
            // file:line:match
            let fields = hit.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            var cited = String(fields[2])
            if !cited.hasPrefix("Docs/") { cited.removeFirst() }  // the character before: `TributaryDocs/` is not `Docs/`
            while cited.hasSuffix(".") { cited.removeLast() }  // the end of a sentence
            let parts = cited.split(separator: "#", maxSplits: 1).map(String.init)
            checked += 1
            if let problem = Self.problem(parts[0], anchor: parts.count == 2 ? parts[1] : nil) { broken.append("\(fields[0]):\(fields[1]): \(cited): \(problem)") }
        }
        XCTAssertGreaterThan(checked, 50, "the check found the citations")
        XCTAssertEqual(broken, [], broken.joined(separator: "\n"))
    }

    func testTheLinkReaderFindsEveryForm() {
        XCTAssertEqual(Self.links(in: """
        See [a](a.md#x "title"), `[not](code.md)` and <a href="b.md">b</a>.
        [ref]: c.md#y
        ```
        [not](in-a-block.md)
        ```
        """), ["a.md#x", "b.md", "c.md#y"])
        XCTAssertEqual(Self.anchors(in: "## The [`json`](sources/json.md) source\n<a id=\"here\"></a>\n"), ["the-json-source", "here"])
    }

    /// The contract and the origins live in Docs/: no file points at a spec outside.
    func testNothingRefersToFilesOutsideTheRepository() throws {
        let r = try Shell.run(["git", "-C", Self.root, "grep", "-n", "-E", "SPEC\\.md|ORIGINS\\.md|shared/spec|\\.\\./shared|SPEC section", "--", ".", ":!Tests/RepositoryTests/DocsTests.swift"])
        XCTAssertEqual(r.stdout, "", "references to files outside the repository")
    }

    func testTheSlugRuleMatchesGitHubs() {
        XCTAssertEqual(Self.slug("Dianping signing"), "dianping-signing")
        XCTAssertEqual(Self.slug("`watch` under systemd"), "watch-under-systemd")
        XCTAssertEqual(Self.slug("1. Video search (YouTube)"), "1-video-search-youtube")
        XCTAssertEqual(Self.anchors(in: "# A\n## A\n```\n# not a heading\n```\n"), ["a", "a-1"])
    }
}
