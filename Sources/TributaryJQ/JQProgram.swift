import CJQ
import TributaryBase

/// A jq program (the jq 1.6 language, run by libjq in process), compiled once from its text
/// and then run on any number of inputs, from any number of threads.
///
/// ```swift
/// switch JQProgram.compile(#".title |= ascii_upcase"#) {
/// case .failure(let e): print("sources[2].process[0].expr: \(e)")   // jq's own message
/// case .success(let program):
///     switch program.run(Array(line.utf8)) {
///     case .success(let outputs): ...          // zero or more JQOutput, compact JSON each
///     case .failure(let e): ...                // JQRunError: jq's message, time limit, ...
///     }
/// }
/// ```
///
/// What a program can use: every jq 1.6 builtin, `$ENV` (the environment when the program was
/// compiled) and `env` (when it runs), `$__loc__`, except these, which fail the run with a
/// message saying so: `input`, `inputs` (a program sees one input at a time), `debug`,
/// `stderr` (nothing is written to the process's stderr), `input_filename`,
/// `input_line_number` (inputs are not files), `halt`, `halt_error` (a program ends an input,
/// not the process; the time limit needs `jq_halt` to itself), `modulemeta`; and `import` /
/// `include` are syntax errors (no module is ever read from disk). `error(null)` behaves as
/// `empty`, as in jq 1.6.
///
/// Threads: runs may come from any threads at once. Each run takes a `jq_state` of its own
/// from the program's pool and gives it back when done, so a state is used by one thread at
/// a time and never by two at once (JQState); the pool grows to the number of threads that
/// run the program at the same time, each new state compiled from the text (jq 1.6 compiles
/// its builtins with every program: 20-50 ms, once per state).
///
/// Time limit: each run is bounded by `limits.timeLimit` (JQWatchdog) and `limits.maxOutputs`.
public final class JQProgram: Sendable {
    /// The program as written.
    public let text: String
    public let limits: JQLimits
    /// What is compiled: the prelude and the program, on the program's first line.
    private let source: String
    private let library: JQLibrary
    private let pool: Locked<[JQState]>
    /// The program compiled for `JQNative` too, when it is of the plain kind that evaluator
    /// takes (paths, `select`, `del`, `=`, comparisons, object and array construction): callers
    /// holding a `JSONValue` run it there first and come here when it declines.
    public let native: JQNative?

    private init(text: String, limits: JQLimits, source: String, library: JQLibrary, first: JQState) {
        self.text = text
        self.limits = limits
        self.source = source
        self.library = library
        self.pool = Locked([first])
        self.native = JQNative.compile(text, maxOutputs: limits.maxOutputs)
    }

    /// Compiles `text`. The error carries jq's messages (line numbers are the program's own).
    public static func compile(_ text: String, limits: JQLimits = JQLimits()) -> Result<JQProgram, JQCompileError> {
        let library: JQLibrary
        switch JQLibrary.shared() {
        case .success(let l): library = l
        case .failure(let e): return .failure(JQCompileError(messages: [e.message]))
        }
        guard !text.utf8.contains(0) else {
            return .failure(JQCompileError(messages: ["jq: error: the program contains a NUL character"]))
        }
        let source = prelude + (isEmptyProgram(text) ? "." : text)
        switch JQState.compile(source, api: library.api, cleanMessage: cleanMessage) {
        case .failure(let e): return .failure(e)
        case .success(let state):
            return .success(JQProgram(text: text, limits: limits, source: source, library: library, first: state))
        }
    }

    /// Runs the program on `input`, one JSON text (an item line, without its newline).
    public func run(_ input: [UInt8]) -> Result<[JQOutput], JQRunError> {
        input.withUnsafeBytes { run(json: $0) }
    }

    /// Runs the program on the JSON text in `input`.
    public func run(json input: UnsafeRawBufferPointer) -> Result<[JQOutput], JQRunError> {
        var outputs: [JQOutput] = []
        if let e = run(json: input, each: { outputs.append($0) }) { return .failure(e) }
        return .success(outputs)
    }

    /// Runs the program on `input`, handing each output to `each` as it comes; nil when the run
    /// completed, or why it failed (after which the outputs already handed over must not be used:
    /// an input whose run fails is skipped as a whole). `each` runs inside the time limit: keep
    /// it quick (collect, do not write to a sink from it).
    public func run(json input: UnsafeRawBufferPointer, each: (JQOutput) -> Void) -> JQRunError? {
        let state: JQState
        switch checkout() {
        case .success(let s): state = s
        case .failure(let e): return e
        }
        let api = library.api
        let parsed = state.parse(input)
        if tributary_jv_get_kind(api, parsed) == JV_KIND_INVALID {
            let message = tributary_jv_invalid_get_msg(api, parsed)
            let text = messageText(message)
            tributary_jv_free(api, message)
            checkin(state)
            return .invalidInput(text)
        }
        let jq = state.jq
        tributary_jq_start(api, jq, parsed)
        let watchdog = JQWatchdog.shared
        let ticket = watchdog.begin(jq, deadline: JQWatchdog.now() &+ Self.nanoseconds(limits.timeLimit))
        let writer = JQWriter(api: api)
        var failure: JQRunError?
        var count = 0
        while true {
            let v = tributary_jq_next(api, jq)
            if tributary_jv_get_kind(api, v) == JV_KIND_INVALID {
                if tributary_jv_invalid_has_msg(api, tributary_jv_copy(api, v)) != 0 {
                    let message = tributary_jv_invalid_get_msg(api, v)
                    failure = .runtime(messageText(message))
                    tributary_jv_free(api, message)
                } else {
                    tributary_jv_free(api, v)
                }
                break
            }
            count += 1
            if count > limits.maxOutputs {
                tributary_jv_free(api, v)
                failure = .tooManyOutputs(limits.maxOutputs)
                break
            }
            state.output.removeAll()
            do {
                try writer.append(v, to: &state.output)
            } catch {
                tributary_jv_free(api, v)
                failure = .runtime("an output nests deeper than \(JQWriter.maxDepth) arrays and objects")
                break
            }
            let output = JQOutput(kind: Self.kind(tributary_jv_get_kind(api, v)), json: state.output.bytes,
                                  text: tributary_jv_get_kind(api, v) == JV_KIND_STRING ? String(decoding: writer.stringBytes(v), as: UTF8.self) : nil)
            tributary_jv_free(api, v)
            each(output)
        }
        if watchdog.end(ticket) {
            // Stopped by the watchdog: drop the state (JQWatchdog's last rule).
            return .timeLimit(limits.timeLimit)
        }
        checkin(state)
        return failure
    }

    // MARK: The pool

    private func checkout() -> Result<JQState, JQRunError> {
        if let s = pool.withLock({ $0.popLast() }) { return .success(s) }
        switch JQState.compile(source, api: library.api, cleanMessage: Self.cleanMessage) {
        case .success(let s): return .success(s)
        case .failure(let e): return .failure(.unavailable(e.description))
        }
    }

    private func checkin(_ state: JQState) {
        pool.withLock { $0.append(state) }
    }

    /// States compiled so far and idle (tests read it).
    var idleStates: Int { pool.withLock { $0.count } }

    // MARK: Text

    /// Definitions put before every program, on its first line, so that line numbers in
    /// messages and `$__loc__` stay the program's own: the builtins a program may not use,
    /// each made an error that says why. A program's own definitions of these names win, as
    /// any jq definition shadows the builtins.
    static let prelude: String = {
        let unavailable: [(String, String)] = [
            ("input", "a program runs on one input at a time"),
            ("_input", "a program runs on one input at a time"),
            ("inputs", "a program runs on one input at a time"),
            ("debug", "a program cannot write to stderr; error(...) fails an input with a message"),
            ("stderr", "a program cannot write to stderr; error(...) fails an input with a message"),
            ("input_filename", "inputs do not come from files"),
            ("input_line_number", "inputs do not come from files"),
            ("halt", "use empty to drop an input, error(...) to fail it"),
            ("halt_error", "use empty to drop an input, error(...) to fail it"),
            ("halt_error(f)", "use empty to drop an input, error(...) to fail it"),
            ("modulemeta", "a program cannot load modules"),
        ]
        return unavailable.map { name, why in
            let bare = name.split(separator: "(").first.map(String.init) ?? name
            return "def \(name): error(\"\(bare) is not available in tributary: \(why)\"); "
        }.joined()
    }()

    /// True when `text` has nothing but whitespace and comments: jq runs that as `.`.
    static func isEmptyProgram(_ text: String) -> Bool {
        text.split(separator: "\n", omittingEmptySubsequences: true).allSatisfy { line in
            let t = line.drop(while: { $0 == " " || $0 == "\t" || $0 == "\r" })
            return t.isEmpty || t.first == "#"
        }
    }

    /// A compile message as the program's author should read it: the prelude taken out of the
    /// program line jq quotes (always line 1 for the prelude), trailing whitespace removed.
    static func cleanMessage(_ message: String) -> String {
        var lines = message.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for i in lines.indices where i > 0 && lines[i].hasPrefix(prelude) {
            lines[i] = String(lines[i].dropFirst(prelude.count))
        }
        var text = lines.joined(separator: "\n")
        while let last = text.last, last == " " || last == "\n" || last == "\t" { text.removeLast() }
        return text
    }

    /// An error's message: a string as it is, anything else as jq prints it,
    /// `(not a string): <json>`. Does not consume `message`.
    private func messageText(_ message: jv) -> String {
        let api = library.api
        let writer = JQWriter(api: api)
        if tributary_jv_get_kind(api, message) == JV_KIND_STRING {
            return String(decoding: writer.stringBytes(message), as: UTF8.self)
        }
        var out: [UInt8] = []
        _ = try? writer.append(message, to: &out)
        return "(not a string): " + String(decoding: out, as: UTF8.self)
    }

    private static func kind(_ k: jv_kind) -> JQKind {
        switch k {
        case JV_KIND_NULL: return .null
        case JV_KIND_TRUE, JV_KIND_FALSE: return .boolean
        case JV_KIND_NUMBER: return .number
        case JV_KIND_STRING: return .string
        case JV_KIND_ARRAY: return .array
        default: return .object
        }
    }

    /// `d` in nanoseconds, from 0 (a negative duration) to about 290 years.
    static func nanoseconds(_ d: Duration) -> UInt64 {
        let (s, atto) = d.components
        guard s >= 0 else { return 0 }
        guard s < 9_000_000_000 else { return 9_000_000_000 * 1_000_000_000 }
        return UInt64(s) * 1_000_000_000 + UInt64(max(atto, 0) / 1_000_000_000)
    }
}
