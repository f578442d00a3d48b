import Foundation
import TributaryCore
import TributaryPlugins
import TributaryPluginKit
import XCTest

/// The options tables in Docs/ are generated from the option declarations, like
/// `tributary sources` and the JSON Schema: each sits between markers and must equal what the
/// declarations give. `UPDATE_DOCS=1 swift test --filter DocTablesTests` rewrites them.
final class DocTablesTests: XCTestCase {
    static let command = "UPDATE_DOCS=1 swift test --filter DocTablesTests"
    static func begin(_ name: String?) -> String {
        "<!-- options\(name.map { " " + $0 } ?? ""): begin (generated from the declarations by `\(command)`; do not edit) -->"
    }
    static let end = "<!-- options: end -->"

    /// A Markdown table of `specs`: key, type, default, description (the declaration's help).
    /// Nested objects add a row per option, keyed `parent.key` (`parent[].key` in a list), except
    /// `filter`, which has its own tables in configuration.md (and all of them without `expand`).
    static func table(_ specs: [OptionSpec], expand: Bool = true) -> String {
        var lines = ["| key | type | default | description |", "|---|---|---|---|"]
        func add(_ specs: [OptionSpec], prefix: String) {
            for s in specs {
                let key = prefix + s.name
                let def = s.required ? "required" : s.defaultText.map { s.defaultIsValue ? code($0) : $0 } ?? ""
                lines.append("| `\(key)` | \(s.readableType) | \(cell(def)) | \(cell(s.help)) |")
                guard expand, s.name != FilterOptions.filter.spec.name || !prefix.isEmpty else { continue }
                switch s.kind {
                case .object(let sub): add(sub, prefix: key + ".")
                case .objectList(let sub): add(sub, prefix: key + "[].")
                default: break
                }
            }
        }
        add(specs, prefix: "")
        return lines.joined(separator: "\n")
    }

    static func code(_ text: String) -> String {
        if text.isEmpty { return "`\"\"`" }
        return text.contains("`") ? "``\(text)``" : "`\(text)`"
    }

    /// A table cell: `|` escaped, also inside code spans (GitHub reads `\|` there as `|`); outside
    /// code spans, `<` (`<key>` would read as an HTML tag) and `*` (emphasis) too.
    static func cell(_ text: String) -> String {
        text.split(separator: "`", omittingEmptySubsequences: false).enumerated().map { i, part in
            var p = part.replacingOccurrences(of: "|", with: "\\|")
            if i % 2 == 0 { p = p.replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: "*", with: "\\*") }
            return p
        }.joined(separator: "`")
    }

    /// Every generated table: the page, the block's name (nil: the page's only one) and the specs.
    static var blocks: [(page: String, name: String?, table: String)] {
        var out: [(String, String?, String)] = []
        for d in BuiltinRegistry.standard.sources { out.append(("Docs/sources/\(d.type).md", nil, table(d.options))) }
        for d in BuiltinRegistry.standard.sinks { out.append(("Docs/sinks/\(d.type).md", nil, table(d.options))) }
        out.append(("Docs/writing-a-source.md", "hn", table(HackerNewsSource.options.map(\.spec))))
        out.append(("Docs/sinks.md", "feed-file", table(FeedFileOptions.all.map(\.spec))))
        let conf = "Docs/configuration.md"
        out.append((conf, "top-level", table(ConfigLoader.topLevel, expand: false)))
        out.append((conf, "defaults", table(CommonOptions.Defaults.all.map(\.spec))))
        out.append((conf, "http", table(CommonOptions.HTTP.all.map(\.spec))))
        out.append((conf, "state", table(CommonOptions.State.all.map(\.spec))))
        out.append((conf, "metrics", table(CommonOptions.Metrics.all.map(\.spec))))
        out.append((conf, "source", table(CommonOptions.source.map(\.spec))))
        out.append((conf, "sink", table(CommonOptions.sink.map(\.spec))))
        out.append((conf, "filter", table(FilterOptions.all.map(\.spec), expand: false)))
        out.append((conf, "filter-rule", table(FilterOptions.Rule.all.map(\.spec))))
        return out
    }

    enum BlockError: Error, CustomStringConvertible {
        case missing(String)
        var description: String { switch self { case .missing(let s): return s } }
    }

    /// The range of the lines between the block's markers.
    static func bodyRange(_ lines: [String], name: String?) throws(BlockError) -> Range<Int> {
        let b = begin(name)
        guard let start = lines.firstIndex(of: b) else { throw .missing("no line \(b)") }
        guard let stop = lines[(start + 1)...].firstIndex(of: end) else { throw .missing("no \(end) after \(b)") }
        return (start + 1)..<stop
    }

    /// A readable line diff, `-` what the page has, `+` what the declarations give.
    static func diff(_ old: [String], _ new: [String]) -> String {
        new.difference(from: old).map { change in
            switch change {
            case .remove(let i, let line, _): return "line \(i + 1): - \(line)"
            case .insert(let i, let line, _): return "line \(i + 1): + \(line)"
            }
        }.joined(separator: "\n")
    }

    func testOptionTablesMatchTheDeclarations() throws {
        let update = ProcessInfo.processInfo.environment["UPDATE_DOCS"] == "1"
        var problems: [String] = []
        var pages: [String: [String]] = [:]
        for block in Self.blocks {
            let path = packageRoot + "/" + block.page
            if pages[block.page] == nil {
                guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                    problems.append("\(block.page): missing (every registered type has its page)")
                    continue
                }
                pages[block.page] = text.components(separatedBy: "\n")
            }
            var lines = pages[block.page]!
            let range: Range<Int>
            do { range = try Self.bodyRange(lines, name: block.name) } catch {
                problems.append("\(block.page): \(error)")
                continue
            }
            let want = block.table.components(separatedBy: "\n")
            let have = Array(lines[range])
            guard have != want else { continue }
            if update {
                lines.replaceSubrange(range, with: want)
                pages[block.page] = lines
            } else {
                problems.append("\(block.page): the options table\(block.name.map { " \"\($0)\"" } ?? "") differs from the declarations (run \(Self.command)):\n\(Self.diff(have, want))")
            }
        }
        if update {
            for (page, lines) in pages {
                let path = packageRoot + "/" + page
                let text = lines.joined(separator: "\n")
                if (try? String(contentsOfFile: path, encoding: .utf8)) != text { try text.write(toFile: path, atomically: true, encoding: .utf8) }
            }
        }
        XCTAssertEqual(problems, [], problems.joined(separator: "\n\n"))
    }

    func testEveryPageWithMarkersBelongsToARegisteredType() throws {
        let types = Set(BuiltinRegistry.standard.sources.map { "sources/\($0.type).md" } + BuiltinRegistry.standard.sinks.map { "sinks/\($0.type).md" })
        for folder in ["sources", "sinks"] {
            for file in try FileManager.default.contentsOfDirectory(atPath: packageRoot + "/Docs/" + folder) where file.hasSuffix(".md") {
                XCTAssertTrue(types.contains(folder + "/" + file), "Docs/\(folder)/\(file) is no registered type's page")
            }
        }
    }

    func testTheTableShowsKindsDefaultsAndNestedKeys() {
        let t = Self.table([
            CommonOptions.interval.spec, CommonOptions.enabled.spec, CommonOptions.quota.spec,
            Option.choice("mode", ["a", "b"], "x | y, `<a*b>` <b*c>").defaulted("a").spec,
        ])
        XCTAssertEqual(t, """
        | key | type | default | description |
        |---|---|---|---|
        | `interval` | duration (at least 1s) | defaults.interval (15m) | how often `watch` (and `run --respect-schedule`) runs it, at least 1s |
        | `enabled` | bool | `true` | false skips the source |
        | `quota` | object |  | request budget: skip the source once `requests` were made in the current `per` window |
        | `quota.requests` | integer (at least 1) | required | requests allowed per window |
        | `quota.per` | duration (at least 1s) | required | window length, e.g. "1d" |
        | `mode` | one of `a`, `b` | `a` | x \\| y, `<a*b>` &lt;b\\*c> |
        """)
    }
}
