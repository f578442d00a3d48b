import Foundation
import XCTest
@testable import TributaryCore
@testable import TributaryBase
@testable import TributaryJSON
@testable import TributaryOptions
@testable import TributaryHTTP
@testable import TributaryState
@testable import TributaryPostgres
@testable import TributaryPluginKit
@testable import TributaryPlugins
import TributaryTestSupport

/// `-c DIR` (a folder of `*.json` files), which sources an unset variable stops, and the
/// machine checks (`PreflightCheck`) the loader collects.
final class ConfigFolderTests: XCTestCase {
    func feed(_ name: String, _ extra: String = "") -> String {
        #"{"name":"\#(name)","type":"feed","url":"https://e.org/\#(name).xml"\#(extra)}"#
    }

    func load(_ path: String, env: [String: String] = [:], selection: SourceSelection = .enabled) throws(ConfigError) -> Config {
        try ConfigLoader.load(path: path, registry: BuiltinRegistry.standard, environment: { env[$0] }, selection: selection)
    }

    func errors(_ path: String, env: [String: String] = [:], selection: SourceSelection = .enabled) -> [String] {
        do {
            _ = try load(path, env: env, selection: selection)
            XCTFail("expected config errors")
            return []
        } catch {
            return error.messages
        }
    }

    func testAFolderIsItsJSONFilesInNameOrder() throws {
        let dir = TempDir()
        defer { dir.remove() }
        _ = dir.write("conf/20-news.json", #"{"sources":[\#(feed("b")),\#(feed("c"))],"sinks":[{"type":"jsonl","path":"out/b.jsonl"}]}"#)
        _ = dir.write("conf/10-base.json", #"{"state":{"path":"state/s.sqlite"},"http":{"replay":"rec"},"defaults":{"timeout":"5s"},"sources":[\#(feed("a"))]}"#)
        _ = dir.write("conf/30-more.json", #"{"sources":[\#(feed("d"))],"sinks":[{"type":"rss","path":"feed.xml"}]}"#)
        _ = dir.write("conf/notes.txt", "not a config")
        _ = dir.write("conf/.20-news.json.swp.json", "{ not json")
        _ = dir.write("conf/sub/99.json", "{ not read: a subfolder }")
        let c = try load(dir.path + "/conf")
        XCTAssertEqual(c.files.map { ($0 as NSString).lastPathComponent }, ["10-base.json", "20-news.json", "30-more.json"])
        XCTAssertEqual(c.sources.map(\.settings.name), ["a", "b", "c", "d"])
        XCTAssertEqual(c.sources.map(\.settings.timeout), [5, 5, 5, 5], "defaults from one file apply to every file's sources")
        XCTAssertEqual(c.sinks.map(\.type), ["jsonl", "rss"])
        XCTAssertEqual(c.statePath, dir.path + "/conf/state/s.sqlite", "relative to the file it is written in")
        XCTAssertEqual(c.stateOrigin, dir.path + "/conf/10-base.json: state.path")
        XCTAssertEqual(c.replayDirectory, dir.path + "/conf/rec")
        XCTAssertEqual((c.sinks[0].sink as? JSONLSink)?.path, dir.path + "/conf/out/b.jsonl")
        XCTAssertEqual(c.file, dir.path + "/conf")
    }

    func testNoSinksInAnyFileMeansStdoutAndPathsResolveAgainstTheirOwnFile() throws {
        let dir = TempDir()
        defer { dir.remove() }
        _ = dir.write("conf/a.json", #"{"sources":[{"name":"p","type":"exec","command":["./plugin.sh"]}]}"#)
        _ = dir.write("conf/b.json", #"{"sources":[]}"#)
        let c = try load(dir.path + "/conf")
        XCTAssertEqual(c.sinks.map(\.type), ["stdout"])
        XCTAssertEqual((c.sources[0].source as? ExecSource)?.directory, dir.path + "/conf")
        XCTAssertEqual(c.sources[0].checks.map(\.location), [dir.path + "/conf/a.json: sources[0] (\"p\").command"])
    }

    func testSectionsInTwoFilesAndDuplicateNamesNameBothFiles() {
        let dir = TempDir()
        defer { dir.remove() }
        _ = dir.write("c/1.json", #"{"http":{"concurrency":4},"sources":[\#(feed("x")),\#(feed("y"))]}"#)
        _ = dir.write("c/2.json", #"{"http":{"concurrency":8},"state":{},"sources":[\#(feed("y")),\#(feed("z")),\#(feed("z"))]}"#)
        _ = dir.write("c/3.json", #"{"state":{"retention":"2d"},"sources":[{"name":"w","type":"feed","url":"ftp://no"}]}"#)
        let e = errors(dir.path + "/c")
        let f1 = dir.path + "/c/1.json", f2 = dir.path + "/c/2.json", f3 = dir.path + "/c/3.json"
        XCTAssertEqual(e, [
            #"\#(f2): (top level): "http" is already set in \#(f1) (defaults, http, state, metrics and stories may each be set in only one file of a config folder)"#,
            #"\#(f2): sources[0] ("y").name: "y" is already used by \#(f1): sources[1]"#,
            #"\#(f2): sources[2] ("z").name: "z" is already used by sources[1]"#,
            #"\#(f3): (top level): "state" is already set in \#(f2) (defaults, http, state, metrics and stories may each be set in only one file of a config folder)"#,
            #"\#(f3): sources[0] ("w").url: expected an http://, https:// or file: URL, found "ftp://no""#,
        ])
    }

    func testEveryFilesSyntaxErrorsComeAtOnce() {
        let dir = TempDir()
        defer { dir.remove() }
        _ = dir.write("c/a.json", "{\n  \"sources\": [,]\n}")
        _ = dir.write("c/b.json", #"{"sources":[]}"#)
        _ = dir.write("c/c.json", "[]")
        XCTAssertEqual(errors(dir.path + "/c"), [
            dir.path + "/c/a.json:2:15: unexpected ',', expected a value",
            dir.path + "/c/c.json: the config must be a JSON object, found array",
        ])
    }

    func testAnEmptyFolderOrOneWithoutJSONIsAnError() {
        let dir = TempDir()
        defer { dir.remove() }
        try? FileManager.default.createDirectory(atPath: dir.path + "/empty", withIntermediateDirectories: true)
        _ = dir.write("other/readme.txt", "x")
        _ = dir.write("other/.hidden.json", "{}")
        for folder in ["empty", "other"] {
            XCTAssertEqual(errors(dir.path + "/" + folder), ["\(dir.path)/\(folder): the config folder has no *.json file (it is read as the config files in it, in name order)"])
        }
        // A folder named *.json is not skipped silently (issue 19, finding 8): as nginx's
        // `include` fails on one, it is an error naming it.
        _ = dir.write("sub/dir.json/x.json", "{}")
        XCTAssertEqual(errors(dir.path + "/sub"), ["\(dir.path)/sub/dir.json: cannot read this *.json file of the config folder: a folder, not a regular file"])
    }

    /// Entries are opened by their bytes: a name that is not UTF-8 is read, and shown with
    /// `\xNN`; control characters in a name are shown the same way.
    func testNamesAreOpenedByTheirBytes() throws {
        let dir = TempDir()
        defer { dir.remove() }
        _ = dir.write("c/1.json", #"{"sources":[\#(feed("a"))]}"#)
        let name: [UInt8] = Array((dir.path + "/c/2-").utf8) + [0xC3, 0xA9, 0xFF, 0x1B] + Array(".json".utf8)
        let fd = open(name.map { CChar(bitPattern: $0) } + [0], O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        XCTAssertGreaterThanOrEqual(fd, 0)
        let text = Array(#"{"sources":[\#(feed("b"))],"sinks":[{"type":"jsonl","path":"out/x.jsonl","mode":"rewrite"}]}"#.utf8)
        _ = text.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        XCTAssertEqual(errors(dir.path + "/c"), [#"\#(dir.path)/c/2-é\xFF\x1B.json: sinks[0].mode: expected one of "append", "truncate", found "rewrite""#])
        XCTAssertEqual(ConfigFolder.shown(Array("a\u{85}b\\".utf8)), "a\\xC2\\x85b\\", "a C1 control too; a backslash as itself")
    }

    // MARK: unset variables

    func testAnUnsetVariableStopsOnlyTheSourcesThatRun() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let path = dir.write("t.json", #"""
        {"sources":[
          {"name":"a","type":"feed","url":"https://e.org/a.xml"},
          {"name":"b","type":"feed","url":"${FEED_B}","headers":{"Authorization":"Bearer ${TOKEN_B}"}},
          {"name":"c","type":"feed","url":"https://e.org/c.xml?k=${KEY_C}","enabled":false},
          {"name":"d","type":"exec","command":["${PLUGIN}"],"timeout":"${T}"}
        ]}
        """#)
        // run (every enabled source): b and d are stopped, c is disabled.
        XCTAssertEqual(errors(path), [
            "\(path): sources[1].url: environment variable FEED_B is not set (write ${FEED_B:-default} to give a default)",
            "\(path): sources[1].headers.Authorization: environment variable TOKEN_B is not set (write ${TOKEN_B:-default} to give a default)",
            "\(path): sources[3].command[0]: environment variable PLUGIN is not set (write ${PLUGIN:-default} to give a default)",
            "\(path): sources[3].timeout: environment variable T is not set (write ${T:-default} to give a default)",
        ], "each unset variable once, and no follow-up error about the value it left")
        // run --only a / test a: the others' variables are not needed.
        let only = try load(path, selection: .named(["a"]))
        XCTAssertEqual(only.sources.map(\.settings.name), ["a", "b", "c", "d"])
        XCTAssertEqual(only.sources[0].unresolved, [])
        XCTAssertEqual(only.sources[1].unresolved.count, 2)
        XCTAssertTrue(only.sources[2].unresolved[0].hasSuffix(#"sources[2].url: environment variable KEY_C is not set (write ${KEY_C:-default} to give a default)"#))
        XCTAssertEqual(only.sources[3].checks.count, 0, "a program from an unset variable is not looked for")
        // --only c runs the disabled source, so its variable is needed.
        XCTAssertEqual(errors(path, selection: .named(["c"])).count, 1)
        XCTAssertEqual(try load(path, env: ["KEY_C": "k"], selection: .named(["c"])).sources[2].unresolved, [])
    }

    func testTopLevelSectionsAndSinksNeedEveryVariable() {
        let dir = TempDir()
        defer { dir.remove() }
        let path = dir.write("t.json", #"{"state":{"path":"${STATE}"},"sources":[],"sinks":[{"type":"jsonl","path":"${OUT}"}]}"#)
        XCTAssertEqual(errors(path, selection: .named([])).map { $0.replacingOccurrences(of: path + ": ", with: "") }, [
            "state.path: environment variable STATE is not set (write ${STATE:-default} to give a default)",
            "sinks[0].path: environment variable OUT is not set (write ${OUT:-default} to give a default)",
        ])
    }

    // MARK: machine checks

    func testOutputFoldersAndProgramsAreCheckedOnlyWhenAsked() throws {
        let dir = TempDir()
        defer { dir.remove() }
        _ = dir.write("plugin.sh", "#!/bin/sh\n")
        let path = dir.write("t.json", #"""
        {"sources":[{"name":"x","type":"exec","command":["./plugin.sh"]},{"name":"y","type":"exec","command":["no-such-program-tributary"]}],
         "sinks":[{"type":"jsonl","path":"/proc/nope/items.jsonl"},{"type":"jsonl","path":"-"},{"type":"rss","path":"out/deep/feed.xml"}]}
        """#)
        let c = try load(path)  // loading checks nothing on the machine
        let problems = c.preflight(sources: c.sources, sinks: c.sinks, state: StateFileChoice(path: "/proc/nope/s.sqlite", origin: "\(path): state.path"))
        XCTAssertEqual(problems, [
            "\(path): state.path: cannot create folder /proc/nope (No such file or directory)",
            "\(path): sources[0] (\"x\").command[0]: program \"./plugin.sh\" (\(dir.path)/plugin.sh) is not executable (chmod +x)",
            "\(path): sources[1] (\"y\").command[0]: program \"no-such-program-tributary\" not found in PATH (PATH=\(ProcessInfo.processInfo.environment["PATH"] ?? ""))",
            "\(path): sinks[0].path: cannot create folder /proc/nope (No such file or directory)",
        ])
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.path + "/out"), "a folder that could be created is not left behind")
        chmod(dir.path + "/plugin.sh", 0o755)
        XCTAssertEqual(c.preflight(sources: [c.sources[0]], sinks: [c.sinks[2]], state: nil), [])
    }
}
