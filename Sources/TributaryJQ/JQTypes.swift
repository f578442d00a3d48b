/// The bounds one run of a program on one input is held to.
public struct JQLimits: Sendable, Equatable {
    /// The default time limit per item: far above what a program that terminates needs (a few
    /// to some tens of microseconds per item), short enough that a program that loops costs a
    /// run one second per item.
    public static let defaultTimeLimit: Duration = .seconds(1)
    /// The default cap on outputs per item.
    public static let defaultMaxOutputs = 10_000

    /// How long one input may take, in wall time, from the first instruction to the last
    /// output written. A run still going then is stopped before its next jq instruction
    /// (JQWatchdog) and fails with `JQRunError.timeLimit`. Wall time, not CPU time: reading a
    /// thread's CPU clock is a system call per input (2 µs on the development machine, a
    /// quarter of a typical run); the default is so far above what a program that ends needs
    /// that only a machine stalled for a second can stop one that would have ended.
    public var timeLimit: Duration
    /// How many outputs one input may produce; one more fails the run with
    /// `JQRunError.tooManyOutputs` (`range(1e18)` would otherwise fill memory until the time
    /// limit).
    public var maxOutputs: Int

    public init(timeLimit: Duration = JQLimits.defaultTimeLimit, maxOutputs: Int = JQLimits.defaultMaxOutputs) {
        self.timeLimit = timeLimit
        self.maxOutputs = maxOutputs
    }
}

/// The JSON type of an output.
public enum JQKind: Sendable, Equatable {
    case null, boolean, number, string, array, object
}

/// One output of a program: its compact JSON text, as `jq -c` prints it.
public struct JQOutput: Sendable, Equatable, CustomStringConvertible {
    public let kind: JQKind
    /// Compact JSON (UTF-8): keys in the order jq keeps them, non-ASCII characters as
    /// themselves, control characters and DEL as `\uXXXX` (except `\b \t \n \f \r`), numbers as
    /// jq 1.6 prints its doubles. Byte for byte what `jq -c` writes for the same value.
    public let json: [UInt8]
    /// For a string output, its text (what `jq -r` prints, without the newline); nil otherwise.
    public let text: String?

    public init(kind: JQKind, json: [UInt8], text: String? = nil) {
        self.kind = kind
        self.json = json
        self.text = text
    }

    public var description: String { String(decoding: json, as: UTF8.self) }
}

/// A program that did not compile, or that libjq could not be loaded to compile.
public struct JQCompileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// jq's own messages in the order it reported them, trailing whitespace removed, e.g.
    /// `jq: error: syntax error, unexpected $end (Unix shell quoting issues?) at <top-level>,
    /// line 1:\n.a |` then `jq: 1 compile error`. A message that names a place keeps jq's
    /// second line, the program's line there.
    public let messages: [String]

    public init(messages: [String]) { self.messages = messages }

    /// One line for a config error: the first line of each error message joined with `; `, and
    /// jq's count in parentheses: `jq: error: syntax error, unexpected $end (Unix shell quoting
    /// issues?) at <top-level>, line 1 (1 compile error)`.
    public var description: String {
        var parts: [String] = []
        var count: String?
        for m in messages {
            let first = m.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? m
            if first.hasPrefix("jq: "), first.hasSuffix(" compile error") || first.hasSuffix(" compile errors"),
               first.dropFirst(4).first?.isNumber == true {
                count = String(first.dropFirst(4))
                continue
            }
            parts.append(first.hasSuffix(":") ? String(first.dropLast()) : first)
        }
        var s = parts.isEmpty ? "jq: the program did not compile" : parts.joined(separator: "; ")
        if let count { s += " (\(count))" }
        return s
    }
}

/// Why a run on one input gave no outputs to use. A run that fails gives none of the outputs
/// it may have produced before failing.
public enum JQRunError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The program raised an error (`error(...)`, `.a` on a number, ...): jq's message, the
    /// error's string as it is, or `(not a string): <compact JSON>` for any other value, as the
    /// jq command prints it.
    case runtime(String)
    /// The run was stopped at the time limit.
    case timeLimit(Duration)
    /// The program gave more outputs than the limit.
    case tooManyOutputs(Int)
    /// The input was not one JSON text: jq's parser's message.
    case invalidInput(String)
    /// jq could not be set up on this thread (libjq missing, or out of memory).
    case unavailable(String)

    public var description: String {
        switch self {
        case .runtime(let m): return "jq: error: \(m)"
        case .timeLimit(let d): return "jq: the program ran longer than the time limit (\(JQLimits.describe(d))) on this input and was stopped"
        case .tooManyOutputs(let n): return "jq: the program gave more than \(n) outputs for one input"
        case .invalidInput(let m): return "jq: the input is not JSON: \(m)"
        case .unavailable(let m): return m
        }
    }
}

extension JQLimits {
    /// `1s`, `250ms`, `1.5s`: how the documentation and messages write a time limit.
    public static func describe(_ d: Duration) -> String {
        let (s, atto) = d.components
        let ms = s * 1000 + atto / 1_000_000_000_000_000
        if ms % 1000 == 0 { return "\(ms / 1000)s" }
        if ms >= 1000 { return "\(Double(ms) / 1000)s" }
        return "\(ms)ms"
    }
}
