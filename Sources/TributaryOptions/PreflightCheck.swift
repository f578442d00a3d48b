import TributaryBase
import TributaryJSON

/// One test of the machine a config runs on, declared by an option (`Option.preflighted`):
/// a program that must exist, a folder that must be writable. The loader collects them with
/// each source and sink; `check` runs those of the enabled sources, every sink and the state
/// file, and `run`, `watch` and `test` run those of what they will use before anything is
/// fetched, so a run never fails on them after the fetching is done.
public struct PreflightCheck: Sendable {
    /// Where the option is: `tributary.json: sinks[0].path`.
    public let location: String
    let test: @Sendable () -> String?

    public init(location: String, _ test: @escaping @Sendable () -> String?) {
        self.location = location
        self.test = test
    }

    /// The error, `tributary.json: sinks[0].path: cannot create folder /proc/nope (...)`, or nil.
    public func run() -> String? {
        guard let problem = test() else { return nil }
        // `[0]: ...` is about an element: `command[0]: ...`.
        return location + (problem.hasPrefix("[") ? "" : ": ") + problem
    }
}
