import TributaryPluginKit
import TributaryCore

/// The `exec` sink: runs a program (no shell, in the config file's folder) once per batch, with
/// the batch's items as JSON Lines on its stdin (each line exactly as the `jsonl` sink writes
/// it, then end of file). Exit status 0 means the items are written; anything else (another
/// status, a signal, the timeout, a program that cannot start) is a sink failure naming the
/// program, what happened and the last line of its stderr (bounded, redacted), so the engine
/// does not record the batch and the next run hands it over again.
///
/// The program runs under `ChildProcess`: its stdout is read and dropped (stdout carries items
/// only), its stderr is read in bounded memory, a timeout or the run's interruption kills it
/// with everything it started, and a program that does not read its stdin cannot hold the run.
/// A program that exits 0 without taking all its input is still written, with a warning.
///
/// With a `template` (Docs/templates.md), each of its outputs is one line of the program's
/// stdin instead (a string as it is, any other value as compact JSON); a batch whose items
/// gave no output at all does not start the program.
///
/// `check` already fails when the program does not exist or is not executable (`ProgramLookup`).
public final class ExecSink: Sink {
    public static let descriptor = SinkDescriptor(type: "exec", summary: "run a program once per batch with the items (or a template's outputs) as lines on its stdin", options: options,
                                                  makeWithTemplate: { reader, template in ExecSink(reader: reader, template: template) })

    static let command = Option.stringList("command", "program and arguments, no shell (e.g. [\"python3\", \"deliver.py\"]); it runs in the config file's folder")
        .required.checked { $0.isEmpty ? "needs at least the program to run" : nil }
    static let timeout = Option.duration("timeout", atLeast: 0.001, "time the program has for one batch; then it and everything it started are killed").defaulted(30)
    public static let options: [any OptionDeclaration] = [command, timeout]

    let command: [String]
    let directory: String
    let timeout: Double
    /// The compiled `template`: its outputs are the lines.
    let template: (any ItemTemplate)?

    private let handOff = BatchHandOff()

    init(command: [String], directory: String, timeout: Double = 30, template: (any ItemTemplate)? = nil) {
        self.command = command
        self.directory = directory
        self.timeout = timeout
        self.template = template
    }

    convenience init(reader: OptionReader, template: (any ItemTemplate)? = nil) {
        let command = reader[Self.command]
        // Only a well-formed list (a string was already reported: there is no shell).
        if reader.raw(Self.command)?.arrayValue != nil, let program = command.first,
           let problem = ProgramLookup.problem(program, directory: reader.configDirectory) {
            reader.error(Self.command, "cannot run \(problem)")
        }
        self.init(command: command, directory: reader.configDirectory, timeout: reader[Self.timeout], template: template)
    }

    /// How messages name the program: `exec sink: command ./deliver.py`.
    var what: String { "exec sink: command \(command.first ?? "")" }

    public func open(_ context: SinkContext) throws(SinkError) {
        handOff.open(context)
    }

    public func write(_ items: [Item]) throws(SinkError) {
        guard !items.isEmpty else { return }
        var input: [UInt8] = []
        input.reserveCapacity(items.count * 512)
        if let template {
            for (_, outputs) in TemplateRendering.render(items, with: template, context: handOff.context, sink: "exec") {
                for o in outputs {
                    input.append(contentsOf: o.text)
                    input.append(0x0A)
                }
            }
            guard !input.isEmpty else { return }
        } else {
            for item in items {
                item.appendJSON(into: &input)
                input.append(0x0A)
            }
        }
        let child = ChildProcess(command: command, environment: [], directory: directory, timeout: timeout, maxOutput: 0, input: input, keepsStdout: false)
        let ran = handOff.wait { try await child.run { _ in } }
        let notWritten = "; \(items.count) item\(items.count == 1 ? "" : "s") not written: the batch is not recorded and is handed over again next run"
        let outcome: ChildProcess.Outcome
        switch ran {
        case .success(let o): outcome = o
        case .failure(let e as ChildProcess.LaunchError): throw failure("\(what): \(e.description)\(notWritten)")
        case .failure: throw failure("\(what): interrupted before it started\(notWritten)")
        }
        var lastLine: String { outcome.stderr.last.map { " (last stderr line: \(ChildProcess.bounded($0)))" } ?? "" }
        switch outcome.ending {
        case .cancelled:
            throw failure("\(what): interrupted and killed\(notWritten)")
        case .timedOut:
            throw failure("\(what): timed out after \(Durations.format(timeout)) and was killed\(lastLine)\(notWritten)")
        case .exited, .lingered, .overflow:
            break
        }
        if let sig = outcome.signal {
            throw failure("\(what): killed by signal \(sig)\(ChildProcess.signalName(sig).map { " (\($0))" } ?? "")\(lastLine)\(notWritten)")
        }
        guard let code = outcome.exitCode else { throw failure("\(what): its exit status could not be read\(notWritten)") }
        if code != 0 {
            throw failure("\(what): exited with status \(code), expected 0\(lastLine)\(notWritten)")
        }
        if outcome.inputUnwritten > 0 {
            handOff.context.warn("\(what): exited 0 before reading all of its input (\(outcome.inputUnwritten) of \(input.count) bytes never reached it); the items count as written")
        }
        if outcome.othersKilled > 0 {
            let n = outcome.othersKilled
            handOff.context.warn("\(what): \(n) process\(n == 1 ? "" : "es") still running after the program exited \(n == 1 ? "was" : "were") killed")
        }
    }

    private func failure(_ message: String) -> SinkError {
        SinkError(Redactor.redactText(message))
    }
}
