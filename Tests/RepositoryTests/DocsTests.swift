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

    static func anchors(in text: String) -> Set<String> {
        var seen: [String: Int] = [:]
        var out = Set<String>()
        var inCode = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inCode.toggle(); continue }
            guard !inCode, line.hasPrefix("#") else { continue }
            let title = line.drop(while: { $0 == "#" }).trimmingCharacters(in: .whitespaces)
            let base = slug(title)
            let n = seen[base, default: 0]
            seen[base] = n + 1
            out.insert(n == 0 ? base : "\(base)-\(n)")
        }
        return out
    }

    /// `[text](target)` links outside code blocks and inline code.
    static func links(in text: String) -> [String] {
        var out: [String] = []
        var inCode = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inCode.toggle(); continue }
            if inCode { continue }
            // Drop inline code spans first.
            let plain = line.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 0 }.map(\.element).joined()
            var rest = Substring(plain)
            while let open = rest.range(of: "](") {
                let after = rest[open.upperBound...]
                guard let close = after.firstIndex(of: ")") else { break }
                out.append(String(after[..<close]))
                rest = after[close...]
            }
        }
        return out
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
                var isDir: ObjCBool = false
                guard FileManager.default.fileExists(atPath: Self.root + "/" + target, isDirectory: &isDir) else {
                    broken.append("\(file): \(link): no file \(target)")
                    continue
                }
                if parts.count == 2, !parts[1].isEmpty {
                    guard target.hasSuffix(".md"), let body = try? String(contentsOfFile: Self.root + "/" + target, encoding: .utf8) else {
                        broken.append("\(file): \(link): an anchor into a file that is not Markdown")
                        continue
                    }
                    if !Self.anchors(in: body).contains(parts[1]) { broken.append("\(file): \(link): no heading #\(parts[1]) in \(target)") }
                }
            }
        }
        XCTAssertGreaterThan(checked, 80, "the check found the links")
        XCTAssertEqual(broken, [])
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
