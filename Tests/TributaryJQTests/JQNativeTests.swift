import XCTest
import TributaryJSON
@testable import TributaryJQ

/// `JQNative` against libjq itself: every program it takes gives, on every input, exactly the
/// outputs libjq gives (values, key order, numbers as jq prints them), or it declines and libjq
/// runs; programs outside its kind are left to libjq.
final class JQNativeTests: XCTestCase {
    static let inputs: [String] = [
        #"{"id":"a:1","source":"s","type":"json","kind":"video","title":"Swift concurrency","url":"https://e.org/1","image":"https://e.org/1.jpg","author":"Ana","published":"2026-11-30T10:00:00Z","fetched":"2026-12-01T00:00:00Z","tags":["swift","talk"],"data":{"views":10,"channel_id":"c-9","live_broadcast_content":"none","f":1.5,"one":1.0,"big":12345678901234567890,"max":9223372036854775807,"tiny":1e-7,"exp":1E2,"neg0":-0,"arr":[1,2,{"b":2,"a":1}],"obj":{"b":2,"a":1}}}"#,
        #"{"id":"a:2","source":"s","type":"json","kind":"video","title":"Ação em São Paulo","fetched":"2026-12-01T00:00:00Z","data":{"views":500,"channel_id":"c-7","live_broadcast_content":"live","arr":[],"obj":{}}}"#,
        #"{"id":"a:3","source":"s","type":"json","kind":"entry","title":"Cafe\u0301 \"quoted\" <b>&amp;</b> \u2028","summary":"line\nbreak\ttab","fetched":"2026-12-01T00:00:00Z","tags":[],"data":{"views":7,"flag":true,"nothing":null,"s":"10"}}"#,
        #"{"id":"a:4","title":"","data":null,"tags":null}"#,
        #"{"id":"a:5","title":"x","data":{"views":"many","channel_id":null}}"#,
        #"{"id":"a:6","title":"Café","data":{"views":1e400,"list":["a","b"],"nested":{"deep":{"deeper":[1.10,2.50]}}}}"#,
    ]

    static let programs: [String] = [
        ".", "", "  .  ", ".title", ".data.views", ".missing.deeper", ".data.nothing.x", ".data[\"views\"]", ".[\"data\"].views", ".\"data\".views",
        ".data.channel = .data.channel_id | del(.data.channel_id)",
        #"select(.data.live_broadcast_content == "none") | {id, source, type, kind, title, url: .image, author, published, tags: [.kind, .source]}"#,
        "del(.data.nope)", "del(.nope.deeper)", "del(.data)", "del(.data.obj.a)", "del(.title)",
        ".a.b.c = 1", ".title = .data.views", ".data.views = null", ".data = {}", ".new = [.tags, .missing]", ".title = (.data.views, .kind)",
        "select(.data.views > 100)", "select(.data.views >= 10 and .data.views < 600)", "select(.tags == null or .data.views == 7)",
        "select(.data.views != 10)", "select(.data.views <= 7)", "select(.title < \"S\")", "select(.title > .kind)",
        ".title // \"x\"", ".missing // .title", "(.missing, .data.nothing) // 1", "(.title, .missing, .kind) // 1", ".data.flag // false",
        ".data.views == 10.0", ".data.f == 1.5", ".data.one == 1", ".data.s == 10", ".data.obj == {a: 1, b: 2}", ".data.arr == [1, 2, {a: 1, b: 2}]",
        "select(. == .)", "[.tags, .missing]", "{a: 1, a: 2}", "{x: .data | .views}", "{\"k e y\": .title, t: true, f: false, n: null}",
        "., .", "empty", ". | not", ".data.flag | not", "select(.tags)", "[.tags]", "{tags}", "[]", "{}",
        ".data.big", ".data.max", ".data.tiny", ".data.exp", ".data.neg0", ".data.one", ".data", ".data.nested", "3.0", "1e2", "0.1",
        "[.data.views, 2.50, 100000000000000000000]", "{id, title: (.title // \"none\")}", "select(.data.views == 500) | .title",
        ".id, .title | . == \"x\"", "[.title, .kind] | select(. != null)", "(.data.views > 5) and (.kind == \"video\")",
        ".data.views < .data.f", "null < false", "false < true", "true < 0", "0 < \"\"", "select(.data.views) | .id",
        ".tags = [\"a\", \"b\"] | .tags", ".data.views = .data.views | .data", "{a: .data.views, b: .data.f} | .a = .b",
    ]

    /// Programs the evaluator must leave to libjq.
    static let notNative: [String] = [
        ".title |= ascii_upcase", ".a + 1", "$ENV.HOME", ".a?", ".[0]", ".[]", "# c\n.", "\"\\(.a)\"", ".a as $x | $x",
        "if . then 1 else 2 end", "..", "-1", ".data.views += 1", ".a // .b = 1 = 2", "del(.a, .b)", "del(.)", "length", "{(.k): 1}",
        "{\"a\"}", "{if: 1}", "1e1000", ".a == .b == .c", ".title | test(\"x\")", "\"\\u00e9\"", "map(.)", "(.a).b", ".a .b", "reduce .[] as $x (0; .)",
    ]

    func parse(_ text: String) throws -> JSONValue { try JSONParser.parse(Array(text.utf8)) }

    func testEveryProgramGivesWhatLibjqGivesOrDeclines() throws {
        var ran = 0, declined = 0
        for text in Self.programs {
            guard case .success(let program) = JQProgram.compile(text) else { XCTFail("\(text) did not compile"); continue }
            let native = try XCTUnwrap(program.native, "\(text) is of the plain kind")
            for input in Self.inputs {
                let libjq = program.run(Array(input.utf8))
                let value = try parse(input)
                let before = JSONWriter.serialize(value)
                defer { XCTAssertEqual(JSONWriter.serialize(value), before, "\(text) changed its input") }
                guard let mine = native.run(value) else {
                    declined += 1
                    continue
                }
                ran += 1
                switch libjq {
                case .failure(let e):
                    XCTFail("\(text) on \(input.prefix(40)): libjq failed (\(e)) where the evaluator gave \(mine.map { String(decoding: JSONWriter.serialize($0), as: UTF8.self) })")
                case .success(let outputs):
                    let theirs = try outputs.map { String(decoding: JSONWriter.serialize(try JSONParser.parse($0.json)), as: UTF8.self) }
                    let ours = mine.map { String(decoding: JSONWriter.serialize($0), as: UTF8.self) }
                    XCTAssertEqual(ours, theirs, "\(text) on \(input.prefix(40))")
                }
            }
        }
        print("JQNativeTests: \(ran) ran, \(declined) declined"); XCTAssertGreaterThan(ran, declined * 4, "the evaluator declines too often: \(ran) ran, \(declined) declined")
    }

    func testItDeclinesWhereJqFails() throws {
        // Indexing a string, ordering objects: jq's errors, so libjq runs them and says so.
        for (text, input) in [(".title.x", Self.inputs[0]), ("select(.data.obj < .data.obj)", Self.inputs[0]), (".data.views.x = 1", Self.inputs[0]),
                              ("del(.title.x)", Self.inputs[0]), ("{a: (1, 2)}", Self.inputs[0]), ("(1, 2) == 1", Self.inputs[0])] {
            guard case .success(let program) = JQProgram.compile(text) else { XCTFail("\(text)"); continue }
            XCTAssertNotNil(program.native, text)
            XCTAssertNil(program.native?.run(try parse(input)), text)
        }
        // More outputs than the limit: libjq's own message.
        guard case .success(let p) = JQProgram.compile("(.,.)|(.,.)|(.,.)|(.,.)", limits: JQLimits(maxOutputs: 10)) else { return XCTFail() }
        XCTAssertNil(p.native?.run(try parse(Self.inputs[0])))
        guard case .failure = p.run(Array(Self.inputs[0].utf8)) else { return XCTFail("libjq ran past the limit") }
    }

    func testProgramsOutsideItsKindAreLeftToLibjq() {
        for text in Self.notNative {
            XCTAssertNil(JQNative.compile(text), text)
        }
    }
}
