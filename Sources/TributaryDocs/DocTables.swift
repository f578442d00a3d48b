import Foundation
import TributaryCore
import TributaryPluginKit
import TributaryPlugins

/// The options tables of Docs/, generated from the option declarations like `tributary
/// sources` and the JSON Schema: each sits between `<!-- options NAME: begin -->` and
/// `<!-- options: end -->`.
public enum DocTables {
    /// A Markdown table of `specs`: key, type, default, description (the declaration's help).
    /// Nested objects add a row per option, keyed `parent.key` (`parent[].key` in a list), except
    /// `filter`, which has its own tables in configuration.md (and all of them without `expand`).
    public static func table(_ specs: [OptionSpec], expand: Bool = true) -> String {
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
                case .objectMap(let sub): add(sub, prefix: key + ".<name>.")
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

    /// Every generated table: the page, the block's name (nil: the page's only one) and the table.
    public static var blocks: [(page: String, name: String?, table: String)] {
        var out: [(String, String?, String)] = []
        for d in BuiltinRegistry.standard.sources { out.append(("Docs/sources/\(d.type).md", nil, table(d.options))) }
        for d in BuiltinRegistry.standard.sinks { out.append(("Docs/sinks/\(d.type).md", nil, table(d.options))) }
        for d in BuiltinRegistry.standard.processors { out.append(("Docs/processors/\(d.type).md", nil, table(d.options))) }
        out.append(("Docs/writing-a-source.md", "hn", table(HackerNewsSource.options.map(\.spec))))
        out.append(("Docs/sinks.md", "feed-file", table(FeedFileOptions.all.map(\.spec))))
        let conf = "Docs/configuration.md"
        out.append((conf, "top-level", table(ConfigLoader.topLevel, expand: false)))
        out.append((conf, "defaults", table(CommonOptions.Defaults.all.map(\.spec))))
        out.append((conf, "http", table(CommonOptions.HTTP.all.map(\.spec))))
        out.append((conf, "state", table(CommonOptions.State.all.map(\.spec))))
        out.append((conf, "metrics", table(CommonOptions.Metrics.all.map(\.spec))))
        out.append((conf, "stories", table(StorySettings.Options.all.map(\.spec))))
        out.append(("Docs/stories.md", nil, table(StorySettings.Options.all.map(\.spec))))
        out.append((conf, "source", table(CommonOptions.source.map(\.spec))))
        out.append((conf, "sink", table(CommonOptions.sink.map(\.spec))))
        out.append((conf, "filter", table(FilterOptions.all.map(\.spec), expand: false)))
        out.append((conf, "filter-rule", table(FilterOptions.Rule.all.map(\.spec))))
        return out
    }
}
