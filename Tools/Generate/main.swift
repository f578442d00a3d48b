// `make generate`: writes every generated file of the repository (GeneratedFiles) that differs
// from what the declarations give, and names them. `--check`: writes nothing, exits 1 when any
// is stale.
import Foundation
import TributaryDocs

let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
do {
    if CommandLine.arguments.contains("--check") {
        let stale = try GeneratedFiles.stale(root: root)
        for s in stale { FileHandle.standardError.write(Data("stale: \(s.path): \(s.why)\n".utf8)) }
        exit(stale.isEmpty ? 0 : 1)
    }
    let written = try GeneratedFiles.write(root: root)
    FileHandle.standardError.write(Data((written.isEmpty ? "every generated file is up to date\n" : written.map { "wrote \($0)\n" }.joined()).utf8))
} catch {
    FileHandle.standardError.write(Data("tributary-generate: \(error)\n".utf8))
    exit(2)
}
