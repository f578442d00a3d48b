/// The state file a command will open, and how to name it in a message.
public struct StateFileChoice: Sendable {
    public let path: String
    /// `tributary.json: state.path`, `--state`, or a sentence for the default.
    public let origin: String

    public init(path: String, origin: String) {
        self.path = path
        self.origin = origin
    }
}

extension Config {
    /// Every problem the machine would give a run of these sources writing to these sinks and
    /// this state file (nil: no state), one message each, in config order. Nothing is created
    /// or changed (a folder is tried with a name that is removed at once).
    public func preflight(sources: [ConfiguredSource], sinks: [ConfiguredSink], state: StateFileChoice?) -> [String] {
        var problems: [String] = []
        if let state, let problem = FileAccess.outputProblem(state.path, replaced: true) {
            problems.append("\(state.origin): \(problem)")
        }
        for s in sources { problems += s.checks.compactMap { $0.run() } }
        for s in sinks { problems += s.checks.compactMap { $0.run() } }
        return problems
    }
}
