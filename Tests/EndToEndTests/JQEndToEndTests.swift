import Foundation
import XCTest
import TributaryCore
import TributaryTestSupport

/// The `jq` processor and `{"jq": ...}` field mappings through the release binary: a program
/// reshapes, drops and multiplies items; what it gives is read against the item rules; a
/// program that does not compile is a config error naming the key; one that fails or loops on
/// one item skips that item only, which comes again on the next run. The jq command itself
/// (Debian's jq 1.6) reads the same items to say what the program should have given.
final class JQEndToEndTests: XCTestCase {
    static let body = #"""
    {"items":[
      {"id":1,"name":"Swift concurrency","tags":["swift"],"views":10,"url":"https://e.org/v/1","published":"2026-11-30T10:00:00Z","channel":"c-9"},
      {"id":2,"name":"Rust news","tags":["rust"],"views":500,"url":"https://e.org/v/2","published":"2026-11-30T11:00:00Z","channel":"c-7"},
      {"id":3,"name":"Ação em São Paulo","views":7,"url":"https://e.org/v/3","published":"2026-11-30T12:00:00Z","channel":"c-9"}
    ]}
    """#

    /// A `json` source over the loopback server, `process` as given, a JSON Lines file and a
    /// state file in `dir`.
    @discardableResult
    func config(_ dir: TempDir, url: String, process: String?, fields: String? = nil, extra: String = "") -> String {
        let f = fields ?? #"{"id":"id","title":"name","url":"url","tags":"tags","published":"published","data":{"views":"views","channel":"channel"}}"#
        return dir.write("tributary.json", #"""
        {\#(extra)"state":{"path":"state.sqlite"},"sources":[{"name":"api","type":"json","url":"\#(url)","items":"items",
          "fields":\#(f)\#(process.map { #","process":"# + $0 } ?? "")}],
         "sinks":[{"type":"jsonl","path":"out/items.jsonl"}]}
        """#)
    }

    func lines(_ text: String?) -> [JSONValue] {
        (text ?? "").split(separator: "\n").compactMap { try? JSONParser.parse(String($0)) }
    }

    func ids(_ text: String?) -> [String] { lines(text).compactMap { $0[path: "id"]?.stringValue } }

    /// The jq command's compact outputs for `program` on each line of `input`.
    func jqCommand(_ program: String, _ input: String) throws -> [JSONValue] {
        let r = try Shell.run(["jq", "-c", program], stdin: input)
        XCTAssertEqual(r.status, 0, r.stderr)
        return r.stdoutLines.filter { !$0.isEmpty }.map { try! JSONParser.parse($0) }
    }

    func testAProgramReshapesEachItemAsTheJqCommandWould() throws {
        let server = try LoopbackServer { _ in .text(Self.body) }
        let dir = TempDir()
        defer { server.stop(); dir.remove() }
        // The items as the source gives them, without a processor.
        let plain = try BinaryRunner.run(["run", "-c", config(dir, url: server.baseURL + "/items", process: nil), "--no-state", "--jsonl"])
        XCTAssertEqual(plain.status, 0, plain.stderr)
        let program = #".data.channel_id = .data.channel | del(.data.channel) | .title |= ascii_upcase | .tags = ((.tags // []) + ["seen"])"#
        let process = #"[{"type":"jq","expr":"\#(program.replacingOccurrences(of: "\"", with: "\\\""))"}]"#
        let r = try BinaryRunner.run(["run", "-c", config(dir, url: server.baseURL + "/items", process: process), "--no-state", "--jsonl"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let got = lines(r.stdout)
        let want = try jqCommand(program, plain.stdout)
        XCTAssertEqual(got.count, 3)
        // Field for field what jq gives (the item line writes the contract's key order).
        for (g, w) in zip(got, want) {
            for key in ["id", "source", "type", "kind", "title", "url", "published", "tags", "data"] {
                XCTAssertEqual(g[path: KeyPath(stringLiteral: key)], w[path: KeyPath(stringLiteral: key)], "\(key) of \(g[path: "id"]?.stringValue ?? "?")")
            }
        }
        XCTAssertEqual(got[2][path: "title"]?.stringValue, "AçãO EM SãO PAULO", "jq 1.6's ascii_upcase leaves non-ASCII letters alone")
        XCTAssertEqual(got[0][path: "data"]?.objectValue?.entries.map { $0.key } ?? [], ["views", "channel_id"])
        let schema = try SchemaValidator.itemSchema()
        for line in r.stdout.split(separator: "\n") { XCTAssertEqual(schema.validate(line: String(line)), [], String(line)) }
    }

    func testEmptyDropsAndCountsFilteredAndADroppedItemComesWhenTheProgramLetsItThrough() throws {
        let server = try LoopbackServer { _ in .text(Self.body) }
        let dir = TempDir()
        defer { server.stop(); dir.remove() }
        let keep = #"[{"type":"jq","expr":"select(.data.views >= 10)"}]"#
        let first = try BinaryRunner.run(["run", "-c", config(dir, url: server.baseURL + "/items", process: keep)])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(ids(dir.read("out/items.jsonl")), ["api:1", "api:2"])
        XCTAssertTrue(first.stderr.contains("3 fetched  2 new  1 filtered"), first.stderr)
        // The dropped item was not recorded: a program that keeps it emits it now, and only it.
        let second = try BinaryRunner.run(["run", "-c", config(dir, url: server.baseURL + "/items", process: #"[{"type":"jq","expr":"."}]"#)])
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertEqual(ids(dir.read("out/items.jsonl")), ["api:1", "api:2", "api:3"])
        XCTAssertTrue(second.stderr.contains("3 fetched  1 new"), second.stderr)
    }

    func testSeveralOutputsMakeSeveralItemsEachRecordedOnce() throws {
        let server = try LoopbackServer { _ in .text(Self.body) }
        let dir = TempDir()
        defer { server.stop(); dir.remove() }
        // One item per tag, with its own id; `source`, `type` and `fetched` dropped by the program
        // are kept from the input.
        let program = #"[{"type":"jq","expr":"(.tags // [\"untagged\"])[] as $t | {id: (.id + \":\" + $t), title: (.title + \" #\" + $t), url}"}]"#
        let first = try BinaryRunner.run(["run", "-c", config(dir, url: server.baseURL + "/items", process: program)])
        XCTAssertEqual(first.status, 0, first.stderr)
        let items = lines(dir.read("out/items.jsonl"))
        XCTAssertEqual(items.compactMap { $0[path: "id"]?.stringValue }, ["api:1:swift", "api:2:rust", "api:3:untagged"])
        XCTAssertEqual(items.compactMap { $0[path: "title"]?.stringValue }, ["Swift concurrency #swift", "Rust news #rust", "Ação em São Paulo #untagged"])
        for item in items {
            XCTAssertEqual(item[path: "source"]?.stringValue, "api")
            XCTAssertEqual(item[path: "type"]?.stringValue, "json")
            XCTAssertNotNil(item[path: "fetched"]?.stringValue)
            XCTAssertNil(item[path: "tags"], "a field the program dropped is gone")
        }
        let doubled = #"[{"type":"jq","expr":"., (.id += \":copy\" | .title += \" (copy)\")"}]"#
        let second = try BinaryRunner.run(["run", "-c", config(dir, url: server.baseURL + "/items", process: doubled)])
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertEqual(ids(dir.read("out/items.jsonl")).suffix(6), ["api:1", "api:1:copy", "api:2", "api:2:copy", "api:3", "api:3:copy"])
        let third = try BinaryRunner.run(["run", "-c", config(dir, url: server.baseURL + "/items", process: doubled)])
        XCTAssertEqual(third.status, 0, third.stderr)
        XCTAssertEqual(ids(dir.read("out/items.jsonl")).count, 9, "each output recorded once: \(third.stderr)")
    }

    func testAProgramThatDoesNotCompileIsAConfigErrorNamingTheKey() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let path = dir.write("feeds.json", #"""
        {"sources":[
          {"name":"a","type":"json","url":"http://127.0.0.1:9/a","items":"items","fields":{"title":"t"}},
          {"name":"b","type":"json","url":"http://127.0.0.1:9/b","items":"items","fields":{"title":"t"}},
          {"name":"c","type":"json","url":"http://127.0.0.1:9/c","items":"items","fields":{"title":"t"},
           "process":[{"type":"jq","expr":".title |= (titel"}]}],
         "sinks":[{"type":"stdout"}]}
        """#)
        for command in [["check", "-c", path], ["run", "-c", path]] {
            let r = try BinaryRunner.run(command)
            XCTAssertEqual(r.status, 2, "\(command[0]): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("feeds.json: sources[2]"), r.stderr)
            XCTAssertTrue(r.stderr.contains(".process[0].expr: jq: error: syntax error"), r.stderr)
            XCTAssertTrue(r.stderr.contains("compile error"), r.stderr)
        }
        // An unknown function is jq's compile error too, with its line.
        _ = dir.write("feeds.json", #"{"sources":[{"name":"a","type":"json","url":"http://127.0.0.1:9/a","items":"items","fields":{"title":"t"},"process":[{"type":"filter","max_age":"1d"},{"type":"jq","expr":"1 +\ntitel"}]}],"sinks":[{"type":"stdout"}]}"#)
        let r = try BinaryRunner.run(["check", "-c", path])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains(".process[1].expr: jq: error: titel/0 is not defined at <top-level>, line 2"), r.stderr)
    }

    func testARuntimeErrorSkipsThatItemOnlyAndItComesAgainNextRun() throws {
        let server = try LoopbackServer { _ in .text(Self.body) }
        let dir = TempDir()
        defer { server.stop(); dir.remove() }
        let failing = #"[{"type":"jq","expr":"if .data.views == 500 then error(\"too popular: \\(.data.views)\") else . end"}]"#
        let first = try BinaryRunner.run(["run", "-c", config(dir, url: server.baseURL + "/items", process: failing)])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(ids(dir.read("out/items.jsonl")), ["api:1", "api:3"])
        XCTAssertTrue(first.stderr.contains("warning: api: api:2: skipped: jq: error: too popular: 500"), first.stderr)
        XCTAssertTrue(first.stderr.contains("1 skipped"), first.stderr)
        // Not recorded: the item comes again once the program lets it through.
        let second = try BinaryRunner.run(["run", "-c", config(dir, url: server.baseURL + "/items", process: nil)])
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertEqual(ids(dir.read("out/items.jsonl")), ["api:1", "api:3", "api:2"])
    }

    func testAnOutputThatBreaksTheItemRulesIsRefusedWithTheField() throws {
        let server = try LoopbackServer { _ in .text(Self.body) }
        let dir = TempDir()
        defer { server.stop(); dir.remove() }
        let cases: [(String, String)] = [
            (#"if .data.views == 7 then del(.title) else . end"#, "title: missing"),
            (#"if .data.views == 7 then .url = \"/relative\" else . end"#, #"url: expected an absolute http(s) URL, found \"/relative\""#),
            (#"if .data.views == 7 then .tags = [1] else . end"#, "tags[0]: expected a string, found the number 1"),
            (#"if .data.views == 7 then .colour = \"red\" else . end"#, #"\"colour\" is not an item field"#),
            (#"if .data.views == 7 then 42 else . end"#, "expected an item object, found the number 42"),
            (#"if .data.views == 7 then .published = \"yesterday\" else . end"#, "published: expected an RFC 3339 time"),
        ]
        for (program, message) in cases {
            let r = try BinaryRunner.run(["run", "-c", config(dir, url: server.baseURL + "/items", process: #"[{"type":"jq","expr":"\#(program)"}]"#), "--no-state", "--jsonl"])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(ids(r.stdout), ["api:1", "api:2"], program)
            XCTAssertTrue(r.stderr.contains("api:3: skipped: jq: the program's output is not an item: " + message.replacingOccurrences(of: #"\""#, with: "\"")), "\(program): \(r.stderr)")
        }
    }

    func testAProgramThatLoopsIsStoppedAtTheTimeLimitAndTheOthersGoOn() throws {
        let server = try LoopbackServer { _ in .text(Self.body) }
        let dir = TempDir()
        defer { server.stop(); dir.remove() }
        let looping = #"[{"type":"jq","expr":"if .data.views == 10 then last(repeat(1)) else . end","timeout":"200ms"}]"#
        let start = Date()
        let r = try BinaryRunner.run(["run", "-c", config(dir, url: server.baseURL + "/items", process: looping)])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(start), 20, "stopped, not run to the end")
        XCTAssertEqual(ids(dir.read("out/items.jsonl")), ["api:2", "api:3"])
        XCTAssertTrue(r.stderr.contains("api:1: skipped: jq: the program ran longer than the time limit (200ms) on this input and was stopped"), r.stderr)
        // The time limit is an option with a floor, checked when the config is loaded.
        let bad = try BinaryRunner.run(["check", "-c", config(dir, url: server.baseURL + "/items", process: #"[{"type":"jq","expr":".","timeout":"0s"}]"#)])
        XCTAssertEqual(bad.status, 2, bad.stderr)
        XCTAssertTrue(bad.stderr.contains(".process[0].timeout"), bad.stderr)
    }

    func testInputAndDebugAreUnavailableAndEnvIsThere() throws {
        let server = try LoopbackServer { _ in .text(Self.body) }
        let dir = TempDir()
        defer { server.stop(); dir.remove() }
        let env = #"[{"type":"jq","expr":".data.who = $ENV.TRIBUTARY_TEST_WHO | .data.home = env.TRIBUTARY_TEST_WHO"}]"#
        let r = try BinaryRunner.run(["run", "-c", config(dir, url: server.baseURL + "/items", process: env), "--no-state", "--jsonl"], env: ["TRIBUTARY_TEST_WHO": "ana"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(lines(r.stdout).compactMap { $0[path: "data.who"]?.stringValue }, ["ana", "ana", "ana"])
        XCTAssertEqual(lines(r.stdout).compactMap { $0[path: "data.home"]?.stringValue }, ["ana", "ana", "ana"])
        for (builtin, message) in [("input", "input is not available in tributary"), ("debug", "debug is not available in tributary"),
                                   ("input_filename", "input_filename is not available in tributary")] {
            let r = try BinaryRunner.run(["run", "-c", config(dir, url: server.baseURL + "/items", process: #"[{"type":"jq","expr":"\#(builtin)"}]"#), "--no-state", "--jsonl"])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(r.stdout, "", builtin)
            XCTAssertTrue(r.stderr.contains(message), "\(builtin): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("3 skipped"), r.stderr)
        }
    }

    func testDefaultsProcessAppliesToEverySourceWithoutItsOwn() throws {
        let server = try LoopbackServer { _ in .text(Self.body) }
        let dir = TempDir()
        defer { server.stop(); dir.remove() }
        let path = dir.write("tributary.json", #"""
        {"defaults":{"process":[{"type":"jq","expr":".tags = [\"default\"]"}]},"sources":[
          {"name":"a","type":"json","url":"\#(server.baseURL)/items","items":"items","fields":{"id":"id","title":"name"}},
          {"name":"b","type":"json","url":"\#(server.baseURL)/items","items":"items","fields":{"id":"id","title":"name"},
           "process":[{"type":"jq","expr":".tags = [\"own\"]"}]}],
         "sinks":[{"type":"stdout","format":"jsonl"}]}
        """#)
        let r = try BinaryRunner.run(["run", "-c", path, "--no-state"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let got = lines(r.stdout)
        XCTAssertEqual(Set(got.filter { $0[path: "source"]?.stringValue == "a" }.compactMap { $0[path: "tags"]?.arrayValue?.first?.stringValue }), ["default"])
        XCTAssertEqual(Set(got.filter { $0[path: "source"]?.stringValue == "b" }.compactMap { $0[path: "tags"]?.arrayValue?.first?.stringValue }), ["own"])
    }

    // MARK: {"jq": ...} in a json source's fields

    func testAFieldMappingRunsAProgramOnTheRecord() throws {
        let server = try LoopbackServer { _ in .text(Self.body) }
        let dir = TempDir()
        defer { server.stop(); dir.remove() }
        let fields = #"""
        {"id":"id","title":{"jq":".name + \" (\" + (.views | tostring) + \" views)\""},"url":"url",
         "tags":{"jq":"[.channel, (if .views > 100 then \"popular\" else empty end)]"},
         "published":"published","data":{"views":"views","score":{"jq":".views / 10 | floor"},"none":{"jq":"empty"}}}
        """#
        let r = try BinaryRunner.run(["run", "-c", config(dir, url: server.baseURL + "/items", process: nil, fields: fields), "--no-state", "--jsonl"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let got = lines(r.stdout)
        XCTAssertEqual(got.compactMap { $0[path: "title"]?.stringValue }, ["Swift concurrency (10 views)", "Rust news (500 views)", "Ação em São Paulo (7 views)"])
        XCTAssertEqual(got[1][path: "tags"]?.arrayValue?.compactMap(\.stringValue), ["c-7", "popular"])
        XCTAssertEqual(got.compactMap { $0[path: "data.score"]?.numberValue?.int64 }, [1, 50, 0])
        XCTAssertNil(got[0][path: "data.none"], "a program without output is a field without value")

        // A program that gives a wrong type is a mapping error like a key path to the wrong
        // type: the page fails (the source's mapping does not fit it), naming the record, the
        // field and the program.
        let wrong = #"{"id":"id","title":{"jq":"if .views == 500 then {} else .name end"}}"#
        let w = try BinaryRunner.run(["run", "-c", config(dir, url: server.baseURL + "/items", process: nil, fields: wrong), "--no-state", "--jsonl"])
        XCTAssertEqual(w.status, 1, w.stderr)
        XCTAssertTrue(w.stderr.contains("items[1]: expected string or number from the jq program of fields.title, found object"), w.stderr)

        // One that does not compile is a config error on its key.
        let broken = #"{"id":"id","title":{"jq":".name |"},"data":{"x":{"jq":"nope(1)"}}}"#
        let c = try BinaryRunner.run(["check", "-c", config(dir, url: server.baseURL + "/items", process: nil, fields: broken)])
        XCTAssertEqual(c.status, 2, c.stderr)
        XCTAssertTrue(c.stderr.contains(".fields.title: jq: error: syntax error"), c.stderr)
        XCTAssertTrue(c.stderr.contains(".fields.data.x: jq: error: nope/1 is not defined"), c.stderr)
        // And a mapping object with another key is refused before any jq.
        let other = #"{"id":"id","title":{"jq":".name","then":"x"}}"#
        let o = try BinaryRunner.run(["check", "-c", config(dir, url: server.baseURL + "/items", process: nil, fields: other)])
        XCTAssertEqual(o.status, 2, o.stderr)
        XCTAssertTrue(o.stderr.contains(#"fields.title: expected {"jq": "<program>"}, found the key "then""#), o.stderr)
    }
}
