import Foundation
import TributaryCLI
import TributaryCore
import TributaryPluginKit
import TributaryPlugins

/// Every file (or block of a file) in the repository that is generated from a declaration:
/// the option tables of Docs/ and the schema (the option declarations), the synopsis of
/// README.md and Docs/ and the man page and completion scripts (the command table), the HTML
/// entity table (WHATWG's, as Python holds it) and the slug folding table (Foundation's
/// folding). `make generate` writes them all (`tributary-generate`); RepositoryTests'
/// `GeneratedFilesTests` fails when one on disk differs from what the declarations give.
///
/// Foundation is fine here: this module is never linked into the binary.
public enum GeneratedFiles {
    /// A file as it must be: its path from the package root and its whole content.
    public struct File: Sendable {
        public let path: String
        public let content: String
        /// Mode 755 rather than 644 (an example program copied from a plugin's folder).
        public let executable: Bool

        public init(path: String, content: String, executable: Bool = false) {
            self.path = path
            self.content = content
            self.executable = executable
        }
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        init(_ d: String) { description = d }
    }

    /// What every generated file must hold, given the repository at `root` (pages keep their
    /// text outside the generated blocks).
    public static func all(root: String) throws -> [File] {
        var pages: [String: String] = [:]
        func page(_ path: String) throws -> String {
            if let p = pages[path] { return p }
            guard let text = try? String(contentsOfFile: root + "/" + path, encoding: .utf8) else { throw Failure("\(path): missing (every registered type has its page)") }
            return text
        }
        // A plugin's page is written in its folder (`README.md`) and copied to Docs/: its table
        // goes into the folder's page, then the copy is made.
        let folderPage = try PluginFolders.pages(root: root)
        for block in DocTables.blocks {
            let path = folderPage[block.page] ?? block.page
            pages[path] = try Blocks.replace(in: try page(path), name: "options" + (block.name.map { " " + $0 } ?? ""), with: block.table, file: path)
        }
        let usage = "```\n" + CommandLineDocs.usage + "```"
        for path in ["README.md", "Docs/contract.md", "Docs/configuration.md"] {
            pages[path] = try Blocks.replace(in: try page(path), name: "synopsis", with: usage, file: path)
        }
        let worked = "Docs/writing-a-source.md"
        pages[worked] = try WorkedExamples.fill(try page(worked), root: root, file: worked)
        let slug = "Sources/TributaryPlugins/Sources/Feed/SlugFolding.swift"
        pages[slug] = try Blocks.replace(in: try page(slug), name: "slug table", with: SlugTable.ranges(), file: slug, swift: true)
        var executable = Set<String>()
        for f in try PluginFolders.copies(root: root, read: page) {
            pages[f.path] = f.content
            if f.executable { executable.insert(f.path) }
        }
        var files = pages.sorted { $0.key < $1.key }.map { File(path: $0.key, content: $0.value, executable: executable.contains($0.key)) }
        files.append(File(path: "Sources-config/tributary.schema.json", content: String(decoding: JSONWriter.prettyPrinted(ConfigSchema.generate(BuiltinRegistry.standard)), as: UTF8.self)))
        files.append(File(path: "Docs/man/tributary.1", content: CommandLineDocs.manPage))
        for shell in CommandLineDocs.shells {
            let name = ["bash": "tributary.bash", "zsh": "_tributary", "fish": "tributary.fish"][shell] ?? shell
            files.append(File(path: "Sources-config/completions/\(name)", content: CommandLineDocs.completion(shell) ?? ""))
        }
        files.append(File(path: "Sources/TributaryPluginKit/Text/HTMLEntities.swift", content: try EntityTable.swift(root: root)))
        return files
    }

    /// The files that differ from what they must hold (or are missing), with a short reason.
    public static func stale(root: String) throws -> [(path: String, why: String)] {
        try all(root: root).compactMap { f in
            guard let have = try? String(contentsOfFile: root + "/" + f.path, encoding: .utf8) else { return (f.path, "missing") }
            if f.executable && !FileManager.default.isExecutableFile(atPath: root + "/" + f.path) { return (f.path, "not executable") }
            guard have != f.content else { return nil }
            let a = have.components(separatedBy: "\n"), b = f.content.components(separatedBy: "\n")
            let line = zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }.map { $0.offset + 1 } ?? min(a.count, b.count) + 1
            return (f.path, "differs from line \(line)")
        }
    }

    /// Writes every file that differs; returns their paths.
    @discardableResult
    public static func write(root: String) throws -> [String] {
        var written: [String] = []
        for f in try all(root: root) {
            let path = root + "/" + f.path
            let fm = FileManager.default
            if (try? String(contentsOfFile: path, encoding: .utf8)) == f.content && (!f.executable || fm.isExecutableFile(atPath: path)) { continue }
            try fm.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try f.content.write(toFile: path, atomically: true, encoding: .utf8)
            if f.executable { try fm.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path) }
            written.append(f.path)
        }
        return written
    }
}

/// Generated blocks inside hand-written files, between a begin and an end marker line.
enum Blocks {
    static let command = "make generate"

    static func begin(_ name: String, swift: Bool) -> String {
        swift ? "    // \(name): begin (generated by `\(command)`; do not edit)"
              : "<!-- \(name): begin (generated by `\(command)`; do not edit) -->"
    }

    static func end(_ name: String, swift: Bool) -> String {
        swift ? "    // \(name): end" : "<!-- \(name.hasPrefix("options") ? "options" : name): end -->"
    }

    /// `text` with the lines between `name`'s markers replaced by `body` (the begin line is
    /// found by its start, so an older wording of the marker is rewritten too).
    static func replace(in text: String, name: String, with body: String, file: String, swift: Bool = false) throws -> String {
        var lines = text.components(separatedBy: "\n")
        let head = swift ? "    // \(name): begin" : "<!-- \(name): begin"
        guard let start = lines.firstIndex(where: { $0.hasPrefix(head) }) else { throw GeneratedFiles.Failure("\(file): no line starting \"\(head)\"") }
        let endLine = end(name, swift: swift)
        guard let stop = lines[(start + 1)...].firstIndex(of: endLine) else { throw GeneratedFiles.Failure("\(file): no \"\(endLine)\" after \"\(head)\"") }
        lines.replaceSubrange(start...stop, with: [begin(name, swift: swift)] + body.components(separatedBy: "\n") + [endLine])
        return lines.joined(separator: "\n")
    }
}

/// The code blocks of a page that follow a `<!-- worked example: PATH ... -->` line: that file,
/// byte for byte (Docs/writing-a-source.md shows what the tests compile and run).
enum WorkedExamples {
    static let marker = "<!-- worked example: "

    static func fill(_ text: String, root: String, file: String) throws -> String {
        var lines = text.components(separatedBy: "\n")
        var i = 0
        while i < lines.count {
            defer { i += 1 }
            guard lines[i].hasPrefix(marker) else { continue }
            let path = String(lines[i].dropFirst(marker.count).prefix { $0 != " " })
            guard i + 1 < lines.count, lines[i + 1] == "```swift", let close = lines[(i + 2)...].firstIndex(of: "```") else {
                throw GeneratedFiles.Failure("\(file):\(i + 1): a ```swift block must follow the marker of \(path)")
            }
            guard let code = try? String(contentsOfFile: root + "/" + path, encoding: .utf8) else { throw GeneratedFiles.Failure("\(file):\(i + 1): no file \(path)") }
            var body = code.components(separatedBy: "\n")
            if body.last == "" { body.removeLast() }
            lines.replaceSubrange((i + 2)..<close, with: body)
        }
        return lines.joined(separator: "\n")
    }
}

/// The slug alphabet's folding table of `SlugFolding`: every scalar from U+0080 to U+2FFFF
/// whose Foundation fold (diacritic-, case- and width-insensitive, then lower case) keeps any of
/// `a-z 0-9 . _`, grouped by what it folds to, as ranges.
enum SlugTable {
    static func fold(_ u: Unicode.Scalar) -> String {
        let f = String(Character(u)).folding(options: [.diacriticInsensitive, .caseInsensitive, .widthInsensitive], locale: nil).lowercased()
        return String(f.unicodeScalars.filter { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "." || $0 == "_" }.map(Character.init))
    }

    static func ranges() -> String {
        var byFold: [String: [ClosedRange<UInt32>]] = [:]
        for v in UInt32(0x80)...0x2FFFF {
            guard let u = Unicode.Scalar(v), u.properties.generalCategory != .nonspacingMark else { continue }
            let f = fold(u)
            guard !f.isEmpty else { continue }
            if let last = byFold[f]?.last, last.upperBound + 1 == v {
                byFold[f]![byFold[f]!.count - 1] = last.lowerBound...v
            } else {
                byFold[f, default: []].append(v...v)
            }
        }
        func hex(_ v: UInt32) -> String { "0x" + String(format: "%04X", v) }
        var lines: [String] = []
        for (folded, ranges) in byFold.sorted(by: { $0.key < $1.key }) {
            let items = ranges.map { "\(hex($0.lowerBound))...\(hex($0.upperBound))" }
            var line = "        (\"\(folded)\", ["
            var first = true
            for item in items {
                let piece = (first ? "" : ", ") + item
                if !first && line.count + piece.count > 100 {
                    lines.append(line + ",")
                    line = "            " + item
                } else {
                    line += piece
                }
                first = false
            }
            lines.append(line + "]),")
        }
        return lines.joined(separator: "\n")
    }
}

/// HTMLText's named character references, from Python's `html.entities.html5` (WHATWG's
/// table), through Tools/generate-html-entities.py.
enum EntityTable {
    static func swift(root: String) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", root + "/Tools/generate-html-entities.py", "--stdout"]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw GeneratedFiles.Failure("Tools/generate-html-entities.py failed (\(p.terminationStatus))") }
        return String(decoding: data, as: UTF8.self)
    }
}
