import CJQ

/// One compiled `jq_state`: the program's bytecode and the interpreter's stack.
///
/// Threading rule: a `jq_state` is not thread-safe, and libjq's values (`jv`) count their
/// references without atomics, so a state and every value it made are used by one thread at
/// a time. JQProgram hands a state to one run at a time through its pool, whose lock orders
/// the hand-overs; the only other thread that touches a state is the watchdog, through
/// `jq_halt` (JQWatchdog's rules). `@unchecked Sendable` only lets the pool hold it.
final class JQState: @unchecked Sendable {
    let api: UnsafePointer<tributary_jq>
    private(set) var jq: OpaquePointer
    /// Reads inputs into values of this state's thread (its scratch buffer is reused).
    var inputParser: JQInputParser
    /// Where each output is written (reused).
    var output = JQBytes()

    private init(api: UnsafePointer<tributary_jq>, jq: OpaquePointer) {
        self.api = api
        self.jq = jq
        self.inputParser = JQInputParser(api: api)
    }

    /// The value of the JSON text `input`: read by JQInputParser when it can, else by libjq's
    /// parser; an invalid value with libjq's message when it is not one JSON text.
    func parse(_ input: UnsafeRawBufferPointer) -> jv {
        if let v = inputParser.parse(input) { return v }
        return tributary_jv_parse_sized(api, input.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(clamping: input.count))
    }

    deinit {
        var p: OpaquePointer? = jq
        tributary_jq_teardown(api, &p)
    }

    /// Compiles `source` (the prelude and the program) into a new state; the compile errors,
    /// as jq reports them, when it does not compile.
    static func compile(_ source: String, api: UnsafePointer<tributary_jq>, cleanMessage: (String) -> String) -> Result<JQState, JQCompileError> {
        guard let jq = tributary_jq_init(api) else {
            return .failure(JQCompileError(messages: ["jq: cannot set up a jq state (out of memory)"]))
        }
        let state = JQState(api: api, jq: jq)
        // No module search path: `import` and `include` never read files (without one, libjq
        // 1.6 asserts on the first `import`). The prelude makes them a syntax error anyway.
        tributary_jq_set_attr(api, jq, Self.string("JQ_LIBRARY_PATH", api), tributary_jv_array(api))
        let sink = MessageSink()
        let box = Unmanaged.passRetained(sink)
        tributary_jq_set_error_cb(api, jq, collectMessage, box.toOpaque())
        let ok = source.withCString { tributary_jq_compile(api, jq, $0) } != 0
        // After compiling, libjq reports nothing more through the callback; the discarding one
        // stays so that nothing ever reaches stderr.
        tributary_jq_set_error_cb(api, jq, collectMessage, nil)
        box.release()
        guard ok else {
            let messages = sink.messages.map(cleanMessage)
            return .failure(JQCompileError(messages: messages.isEmpty ? ["jq: the program did not compile"] : messages))
        }
        return .success(state)
    }

    static func string(_ s: String, _ api: UnsafePointer<tributary_jq>) -> jv {
        var s = s
        return s.withUTF8 { b in
            b.withMemoryRebound(to: CChar.self) { tributary_jv_string_sized(api, $0.baseAddress, Int32($0.count)) }
        }
    }
}

/// Compile messages as libjq reports them, gathered while `jq_compile` runs (one thread).
private final class MessageSink {
    var messages: [String] = []
}

/// The error callback: takes (and frees) each message; keeps it when a sink is given.
private let collectMessage: jq_msg_cb = { data, message in
    guard case .success(let library) = JQLibrary.shared() else { return }
    let api = library.api
    guard let data else {
        tributary_jv_free(api, message)
        return
    }
    let sink = Unmanaged<MessageSink>.fromOpaque(data).takeUnretainedValue()
    var text: String
    if tributary_jv_get_kind(api, message) == JV_KIND_STRING {
        text = String(decoding: JQWriter(api: api).stringBytes(message), as: UTF8.self)
    } else {
        var out: [UInt8] = []
        _ = try? JQWriter(api: api).append(message, to: &out)
        text = String(decoding: out, as: UTF8.self)
    }
    tributary_jv_free(api, message)
    sink.messages.append(text)
}
