import XCTest
import Glibc
@testable import TributaryJQ

/// Compiling and running jq programs: jq's own messages for compile and runtime errors,
/// outputs, the builtins a program may not use, text and numbers.
final class JQProgramTests: XCTestCase {
    func compile(_ text: String, limits: JQLimits = JQLimits(), file: StaticString = #filePath, line: UInt = #line) throws -> JQProgram {
        switch JQProgram.compile(text, limits: limits) {
        case .success(let p): return p
        case .failure(let e):
            XCTFail("\(text) did not compile: \(e.messages)", file: file, line: line)
            throw e
        }
    }

    func compileError(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> JQCompileError? {
        switch JQProgram.compile(text) {
        case .success:
            XCTFail("\(text) compiled", file: file, line: line)
            return nil
        case .failure(let e): return e
        }
    }

    /// The outputs' JSON texts, or the error's description.
    func run(_ text: String, _ input: String = #"{"id":"a:1","title":"Hello","n":1}"#, limits: JQLimits = JQLimits()) throws -> Result<[String], JQRunError> {
        try compile(text, limits: limits).run(Array(input.utf8)).map { $0.map(\.description) }
    }

    // MARK: Compile errors

    func testASyntaxErrorCarriesJQsMessageWithoutThePrelude() throws {
        let e = try XCTUnwrap(compileError(".a |"))
        XCTAssertEqual(e.messages, ["jq: error: syntax error, unexpected $end (Unix shell quoting issues?) at <top-level>, line 1:\n.a |", "jq: 1 compile error"])
        XCTAssertEqual(e.description, "jq: error: syntax error, unexpected $end (Unix shell quoting issues?) at <top-level>, line 1 (1 compile error)")
        XCTAssertFalse(e.messages.joined().contains("not available in tributary"), "the prelude shows through: \(e.messages)")
    }

    func testLineNumbersAreTheProgramsOwn() throws {
        let e = try XCTUnwrap(compileError("# rename\n.title as $t\n| {id, title: $t\n"))
        XCTAssertTrue(e.messages[0].hasPrefix("jq: error: syntax error, unexpected $end"), e.messages[0])
        XCTAssertTrue(e.messages[0].contains("at <top-level>, line 3:"), e.messages[0])
        let undefined = try XCTUnwrap(compileError(".\n| foo(1)"))
        XCTAssertEqual(undefined.description, "jq: error: foo/1 is not defined at <top-level>, line 2 (1 compile error)")
        XCTAssertEqual(try run("$__loc__").get(), [#"{"file":"<top-level>","line":1}"#])
        XCTAssertEqual(try run("\n\n$__loc__.line").get(), ["3"])
    }

    func testSeveralErrorsAreAllReported() throws {
        let e = try XCTUnwrap(compileError("foo | bar"))
        XCTAssertEqual(e.description, "jq: error: foo/0 is not defined at <top-level>, line 1; jq: error: bar/0 is not defined at <top-level>, line 1 (2 compile errors)")
        XCTAssertEqual(e.messages.count, 3)
    }

    func testImportAndIncludeNeverReadModules() throws {
        // Without a search path libjq 1.6 asserts (the process aborts) on `$ORIGIN/`; with the
        // prelude before the program every import is a syntax error.
        for text in [#"import "foo" as f; ."#, #"include "foo"; ."#, #"import "foo" as f {search: "$ORIGIN/"}; f::x"#,
                     #"import "data" as $d {search: "/etc"}; $d"#] {
            let e = try XCTUnwrap(compileError(text))
            XCTAssertTrue(e.description.contains("syntax error, unexpected import") || e.description.contains("syntax error, unexpected include"), e.description)
        }
        XCTAssertEqual(try run(#""a" | modulemeta"#), .failure(.runtime("modulemeta is not available in tributary: a program cannot load modules")))
    }

    func testANulCharacterIsRefused() throws {
        XCTAssertEqual(compileError(".a\u{0}.b")?.description, "jq: error: the program contains a NUL character")
    }

    func testAnEmptyProgramIsIdentityAsInJQ() throws {
        XCTAssertEqual(try run("", #"{"b":1}"#).get(), [#"{"b":1}"#])
        XCTAssertEqual(try run("  # nothing but a comment\n\n", #"{"b":1}"#).get(), [#"{"b":1}"#])
    }

    // MARK: Runtime errors

    func testARuntimeErrorIsJQsMessageAndNoOutputIsKept() throws {
        XCTAssertEqual(try run(".n.b"), .failure(.runtime(#"Cannot index number with string "b""#)))
        XCTAssertEqual(try run(".title, error(\"bad item\")"), .failure(.runtime("bad item")))
        XCTAssertEqual(try run(#"error({"code": 1})"#), .failure(.runtime(#"(not a string): {"code":1}"#)))
        XCTAssertEqual(JQRunError.runtime("bad item").description, "jq: error: bad item")
        // error(null) is jq 1.6's `empty`: the outputs around it stay.
        XCTAssertEqual(try run("1, error(null), 2").get(), ["1", "2"])
        // try/catch works as in jq.
        XCTAssertEqual(try run(#"try error("x") catch ("caught " + .)"#).get(), [#""caught x""#])
    }

    func testAStateIsReusedAfterARuntimeError() throws {
        let p = try compile(".a.b")
        XCTAssertEqual(p.run(Array(#"{"a":1}"#.utf8)), .failure(.runtime(#"Cannot index number with string "b""#)))
        XCTAssertEqual(try p.run(Array(#"{"a":{"b":2}}"#.utf8)).get().map(\.description), ["2"])
        XCTAssertEqual(p.idleStates, 1)
    }

    func testInvalidInputIsReportedWithJQsParserMessage() throws {
        let p = try compile(".")
        guard case .failure(.invalidInput(let m)) = p.run(Array(#"{"a":"#.utf8)) else { return XCTFail("accepted") }
        XCTAssertTrue(m.contains("Unfinished JSON term"), m)
        guard case .failure(.invalidInput(let extra)) = p.run(Array("1 2".utf8)) else { return XCTFail("accepted two values") }
        XCTAssertTrue(extra.contains("Unexpected extra JSON values"), extra)
        XCTAssertEqual(try p.run(Array(#"{"a":1}"#.utf8)).get().map(\.description), [#"{"a":1}"#])
    }

    // MARK: Outputs

    func testOutputsAreCompactWithJQsKeyOrder() throws {
        XCTAssertEqual(try run(#"{title, id, x: [1, {b: 2, a: 1}]}"#).get(), [#"{"title":"Hello","id":"a:1","x":[1,{"b":2,"a":1}]}"#])
        XCTAssertEqual(try run(".z = 1 | .id = \"b:2\"").get(), [#"{"id":"b:2","title":"Hello","n":1,"z":1}"#])
        XCTAssertEqual(try run("del(.title) | .title = \"T\"").get(), [#"{"id":"a:1","n":1,"title":"T"}"#])
    }

    func testSeveralOutputsEmptyAndKinds() throws {
        let p = try compile(#".title, .n, null, true, [.n], {n}, "x\ty""#)
        let outs = try p.run(Array(#"{"title":"Hello","n":1}"#.utf8)).get()
        XCTAssertEqual(outs.map(\.description), [#""Hello""#, "1", "null", "true", "[1]", #"{"n":1}"#, #""x\ty""#])
        XCTAssertEqual(outs.map(\.kind), [.string, .number, .null, .boolean, .array, .object, .string])
        XCTAssertEqual(outs.map(\.text), ["Hello", nil, nil, nil, nil, nil, "x\ty"])
        XCTAssertEqual(try run("empty").get(), [])
        XCTAssertEqual(try run("select(.n > 5)").get(), [])
        XCTAssertEqual(try run("range(3) as $i | {id: \"a:\\($i)\"}").get(), [#"{"id":"a:0"}"#, #"{"id":"a:1"}"#, #"{"id":"a:2"}"#])
    }

    func testTheOutputCapFailsTheRun() throws {
        XCTAssertEqual(try run("range(10)", limits: JQLimits(maxOutputs: 10)).get().count, 10)
        XCTAssertEqual(try run("range(11)", limits: JQLimits(maxOutputs: 10)), .failure(.tooManyOutputs(10)))
        XCTAssertEqual(try run("repeat(1)"), .failure(.tooManyOutputs(JQLimits.defaultMaxOutputs)))
    }

    func testAnOutputNestedTooDeeplyIsRefused() throws {
        XCTAssertEqual(try run("reduce range(600) as $i (0; [.]) | flatten | length").get(), ["1"])
        XCTAssertEqual(try run("reduce range(512) as $i (0; [.])").get().first?.count, 1025)
        XCTAssertEqual(try run("reduce range(513) as $i (0; [.])"), .failure(.runtime("an output nests deeper than 512 arrays and objects")))
    }

    func testUnicodeAndEscapesAsJQWritesThem() throws {
        let input = #"{"t":"é😀東京 \"q\" \\ \u0001\u007f\u001f/\n\t\r\b\f\u2028","k":"Привет"}"#
        XCTAssertEqual(try run(".", input).get(), [#"{"t":"é😀東京 \"q\" \\ \u0001\u007f\u001f/\n\t\r\b\f"# + "\u{2028}" + #"","k":"Привет"}"#])
        XCTAssertEqual(try run(".t | length", input).get(), ["21"])
        XCTAssertEqual(try run(#".k | ascii_downcase | explode | length"#, input).get(), ["6"])
        XCTAssertEqual(try run(#"{t: ("ü" + .k)} | .t"#, input).get(), [#""üПривет""#])
        // Bytes that are not UTF-8 become U+FFFD, as jq reads them.
        var bad = Array(#"{"a":"x"#.utf8) + [0xFF, 0xFE] + Array(#""}"#.utf8)
        XCTAssertEqual(try compile(".a").run(bad).get().first?.text, "x\u{FFFD}\u{FFFD}")
        bad = Array(#""\ud800""#.utf8)
        guard case .failure(.invalidInput) = try compile(".").run(bad) else { return XCTFail("a lone surrogate was accepted") }
    }

    /// jq 1.6 keeps every number as a double: integers beyond 2^53 lose their last digits, and
    /// jq prints doubles with up to 17 significant digits.
    func testNumbersAreDoublesAsInJQ16() throws {
        let input = #"{"max":9223372036854775807,"big":9007199254740993,"huge":1e400,"small":1e-400,"f":0.1,"i":3.0,"neg":-0,"e":1.5e300}"#
        XCTAssertEqual(try run(".", input).get(), [#"{"max":9223372036854776000,"big":9007199254740992,"huge":1.7976931348623157e+308,"small":0,"f":0.1,"i":3,"neg":-0,"e":1.5e+300}"#])
        XCTAssertEqual(try run(".max == 9223372036854775808", input).get(), ["true"])
        XCTAssertEqual(try run("[.max | tostring, (. + 1 == .)]", input).get(), [#"["9223372036854776000",true]"#])
        XCTAssertEqual(try run("[nan, infinite, -infinite, 1e1000]").get(), ["[null,1.7976931348623157e+308,-1.7976931348623157e+308,1.7976931348623157e+308]"])
    }

    // MARK: $ENV, env and the builtins that are not available

    func testEnvironmentIsAvailable() throws {
        setenv("TRIBUTARY_JQ_TEST", "from the environment", 1)
        defer { unsetenv("TRIBUTARY_JQ_TEST") }
        XCTAssertEqual(try run("$ENV.TRIBUTARY_JQ_TEST").get(), [#""from the environment""#])
        XCTAssertEqual(try run("env.TRIBUTARY_JQ_TEST").get(), [#""from the environment""#])
        XCTAssertEqual(try run("env | type").get(), [#""object""#])
    }

    func testBuiltinsThatAreNotAvailableFailWithAClearMessage() throws {
        let cases: [(String, String)] = [
            ("input", "input is not available in tributary: a program runs on one input at a time"),
            ("[inputs]", "inputs is not available in tributary: a program runs on one input at a time"),
            ("_input", "_input is not available in tributary: a program runs on one input at a time"),
            ("debug", "debug is not available in tributary: a program cannot write to stderr; error(...) fails an input with a message"),
            (".title | stderr", "stderr is not available in tributary: a program cannot write to stderr; error(...) fails an input with a message"),
            ("input_filename", "input_filename is not available in tributary: inputs do not come from files"),
            ("input_line_number", "input_line_number is not available in tributary: inputs do not come from files"),
            ("halt", "halt is not available in tributary: use empty to drop an input, error(...) to fail it"),
            (#""x" | halt_error"#, "halt_error is not available in tributary: use empty to drop an input, error(...) to fail it"),
            (#""x" | halt_error(1)"#, "halt_error is not available in tributary: use empty to drop an input, error(...) to fail it"),
            ("1, (2 | halt)", "halt is not available in tributary: use empty to drop an input, error(...) to fail it"),
        ]
        for (text, message) in cases {
            XCTAssertEqual(try run(text), .failure(.runtime(message)), text)
        }
        // try/catch sees the error like any other; a program's own definitions win.
        XCTAssertEqual(try run("try input catch \"no input\"").get(), [#""no input""#])
        XCTAssertEqual(try run("def debug: .; .n | debug").get(), ["1"])
    }

    func testAMissingLibraryIsAClearError() {
        guard case .failure(let e) = JQLibrary.open("libjq-not-here.so.1") else { return XCTFail("opened") }
        XCTAssertTrue(e.message.hasPrefix("jq programs need libjq (libjq-not-here.so.1, Debian package libjq1), which could not be loaded: "), e.message)
    }
}
