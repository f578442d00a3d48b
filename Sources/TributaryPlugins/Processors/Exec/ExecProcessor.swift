import TributaryPluginKit
import TributaryCore

/// The `exec` processor (Docs/processors/exec.md): one long-lived program per source run,
/// started without a shell on the run's first item (`ProcessSession`: its own process group,
/// the reaper the exec plugins share). For each item it gets one compact JSON line on its
/// stdin and answers one line on its stdout: an item object, an array of item objects, or
/// `null` (the item is dropped, `filtered`). Each object is read against the item rules
/// (`ItemObject`), with `source`, `type`, `kind` and `fetched` kept from the item when the
/// answer drops them.
///
/// What can go wrong, item by item (each skips that item with a warning naming the source,
/// the item and why; a skipped item is not recorded, so it comes again on the next run):
/// - an answer that is not JSON, not one of those shapes, or an object that breaks the item
///   rules;
/// - no answer within `timeout` (the program does not answer, or stopped reading its stdin):
///   the program and everything it started are ended (its whole process group);
/// - the program exits, or closes its stdin or stdout, before answering.
///
/// A program that ended (a timeout, an exit) is started again, once, for the next item; when
/// it ends a second time, the rest of the source's items in this run are skipped with one
/// warning (and counted as skipped). Its stderr lines are logged with the source's name.
///
/// Threads: all talking to the program happens on the run's own thread (`SerialThread`), so
/// its pipes are confined to it and no thread of the cooperative pool ever waits on a pipe;
/// `process` suspends meanwhile. Batches of one source that arrive at once (a source that
/// fans out over URLs) take their turn on that thread.
public struct ExecProcessor: Processor {
    public static let descriptor = ProcessorDescriptor(type: "exec", summary: "a long-lived program gets each item as a JSON line and answers it with an item, a list of items, or null",
                                                       options: [command, env, timeout]) { reader in
        make(reader)
    }

    static let command = Option.stringList("command", "program and arguments, no shell (e.g. [\"python3\", \"summarise.py\"]); it runs in the config file's folder")
        .required.checked { $0.isEmpty ? "needs at least the program to run" : nil }
    static let env = Option.stringMap("env", "extra environment variables for the program")
    static let timeout = Option.duration("timeout", atLeast: 0.001, "time the program has to answer one item; then it and everything it started are ended and the item is skipped").defaulted(30)

    let command: [String]
    let environment: [(String, String)]
    let directory: String
    let timeout: Double

    static func make(_ reader: OptionReader) -> ExecProcessor? {
        let command = reader[Self.command]
        // A missing or non-executable program is a config error (`check` catches it); only a
        // well-formed list is looked at (a string was already reported: there is no shell).
        if reader.raw(Self.command)?.arrayValue != nil, let program = command.first,
           let problem = ProgramLookup.problem(program, directory: reader.configDirectory) {
            reader.error(Self.command, "cannot run \(problem)")
        }
        let env = reader[Self.env] ?? []
        Secrets.registerCredentials(env)
        return ExecProcessor(command: command, environment: env, directory: reader.configDirectory, timeout: reader[Self.timeout])
    }

    public func start(_ context: ProcessorContext) async -> any ProcessorRun {
        Run(processor: self, context: context)
    }

    /// One source run's program.
    final class Run: ProcessorRun {
        let thread: SerialThread
        let talk: Talk
        /// Set when the run is cancelled: the exchange in progress returns, no program starts.
        let cancelled = StopFlag()

        init(processor: ExecProcessor, context: ProcessorContext) {
            thread = SerialThread(name: "tributary exec processor")
            talk = Talk(processor: processor, context: context, cancelled: cancelled)
        }

        func process(_ items: [Item]) async -> [Item] {
            let talk = self.talk
            return await withTaskCancellationHandler {
                await thread.run { talk.process(items) }
            } onCancel: {
                cancelled.set()
                talk.cancel()
            }
        }

        func finish() async {
            let talk = self.talk
            await thread.run { talk.finish() }
            thread.stop()
        }
    }

    /// Everything that talks to the program: used on the run's thread only, one call at a time
    /// (why `@unchecked Sendable` is sound); `cancel` may come from any thread and touches only
    /// the locked `current` and the session's own `cancel`.
    final class Talk: @unchecked Sendable {
        let processor: ExecProcessor
        let context: ProcessorContext
        let cancelled: StopFlag
        /// The program now, if one is up.
        private var session: ProcessSession?
        /// The same, for `cancel` from another thread.
        private let current = Locked<ProcessSession?>(nil)
        /// Programs started in this run, and ended before its end.
        private var starts = 0
        private var endings = 0
        /// The program ended twice (or could not start): the rest of the run's items are
        /// skipped, counted, without a warning each.
        private var gaveUp = false
        private var extraWarned = false

        /// How many times a program may be started in one source run.
        static let maxStarts = 2

        init(processor: ExecProcessor, context: ProcessorContext, cancelled: StopFlag) {
            self.processor = processor
            self.context = context
            self.cancelled = cancelled
        }

        var what: String { "exec processor: command \(processor.command.first ?? "")" }

        func cancel() { current.withLock { $0 }?.cancel() }

        func process(_ items: [Item]) -> [Item] {
            var out: [Item] = []
            out.reserveCapacity(items.count)
            var line: [UInt8] = []
            line.reserveCapacity(1024)
            for (index, item) in items.enumerated() {
                if cancelled.isSet { break }
                if gaveUp {
                    context.count(ProcessingTally.Label.skipped.name)
                    continue
                }
                guard let session = running() else {
                    // It could not start: said once in `running`.
                    context.count(ProcessingTally.Label.skipped.name, items.count - index)
                    break
                }
                line.removeAll(keepingCapacity: true)
                item.appendJSON(into: &line)
                let answer = session.exchange(line, timeout: processor.timeout)
                if session.extraLines > 0 && !extraWarned {
                    extraWarned = true
                    context.warn("\(what): printed more than one line for an item; a line that answers no item is dropped (one line out for each line in)")
                }
                switch answer {
                case .line(let bytes):
                    switch read(bytes, input: item) {
                    case .success(let made):
                        if made.isEmpty { context.filtered(item) } else { out.append(contentsOf: made) }
                    case .failure(let e):
                        context.skip(item, reason: "\(what): \(e.message)")
                    }
                case .cancelled:
                    return out
                case .timedOut:
                    let ending = end(session, grace: 0)
                    context.skip(item, reason: "\(what): no answer within \(Durations.format(processor.timeout)) (timeout); the program and everything it started were ended\(ending)")
                    afterEnding(skippedNow: true)
                case .tooLong(let n):
                    let ending = end(session, grace: 0)
                    context.skip(item, reason: "\(what): its answer grew past \(n) bytes without a newline; the program was ended\(ending)")
                    afterEnding(skippedNow: true)
                case .ended(let cause):
                    let ending = session.end(grace: 1)
                    forget()
                    reportDropped(ending)
                    context.skip(item, reason: "\(what): the program \(cause.description) before answering (it \(ending.description))\(others(ending))")
                    afterEnding(skippedNow: true)
                }
            }
            return out
        }

        /// The run's program, started if none is up (nil: it could not start, or may not
        /// start again).
        private func running() -> ProcessSession? {
            if let session { return session }
            guard !gaveUp, !cancelled.isSet, starts < Self.maxStarts else { return nil }
            starts += 1
            let context = self.context
            do {
                let s = try ProcessSession(command: processor.command, environment: processor.environment, directory: processor.directory) { line in
                    context.log(line)
                }
                session = s
                current.withLock { $0 = s }
                return s
            } catch {
                gaveUp = true
                context.warn("\(what): \(error.description); this run's items of the source are skipped (they come again next run)")
                return nil
            }
        }

        /// Ends the program; says how, for a skip's reason.
        private func end(_ s: ProcessSession, grace: Double) -> String {
            let ending = s.end(grace: grace)
            forget()
            reportDropped(ending)
            return others(ending)
        }

        /// A program's stderr lines past the cap (per start of the program), counted once.
        private func reportDropped(_ ending: ProcessSession.Ending) {
            guard ending.stderrDropped > 0 else { return }
            context.warn("\(what): \(ending.stderrDropped) more stderr line\(ending.stderrDropped == 1 ? "" : "s") not logged")
        }

        private func others(_ ending: ProcessSession.Ending) -> String {
            let n = ending.othersKilled
            return n > 0 ? " (\(n) more process\(n == 1 ? "" : "es") it started killed)" : ""
        }

        private func forget() {
            session = nil
            current.withLock { $0 = nil }
        }

        /// The program ended before the run did: the next item starts it again, once.
        private func afterEnding(skippedNow: Bool) {
            endings += 1
            guard starts >= Self.maxStarts, !gaveUp else { return }
            gaveUp = true
            context.warn("\(what): the program ended again (\(endings) times in this run, started \(starts) times); the rest of this run's items of the source are skipped (they come again next run)")
        }

        /// One answer line: `null`, an item object, or an array of item objects.
        func read(_ bytes: [UInt8], input: Item) -> Result<[Item], ItemObjectError> {
            let value: JSONValue
            do { value = try JSONParser.parse(bytes) } catch {
                return .failure(ItemObjectError("its answer is not JSON (\(error)): \(Self.shown(bytes))"))
            }
            switch value {
            case .null:
                return .success([])
            case .object:
                do throws(ItemObjectError) { return .success([try ItemObject.read(value, input: input)]) } catch {
                    return .failure(ItemObjectError("its answer is not an item: \(error.message)"))
                }
            case .array(let a):
                var made: [Item] = []
                made.reserveCapacity(a.count)
                for (i, v) in a.enumerated() {
                    do throws(ItemObjectError) { made.append(try ItemObject.read(v, input: input)) } catch {
                        return .failure(ItemObjectError("its answer's item [\(i)] is not an item: \(error.message)"))
                    }
                }
                return .success(made)
            default:
                return .failure(ItemObjectError("its answer is \(value.typeName) \(Self.shown(bytes)), expected an item object, an array of item objects, or null"))
            }
        }

        /// An answer line in a message: at most 200 characters.
        static func shown(_ bytes: [UInt8]) -> String {
            let text = String(decoding: bytes.prefix(800), as: UTF8.self)
            return text.count > 200 || bytes.count > 800 ? String(text.prefix(200)) + "..." : text
        }

        /// The run is over: the program gets end of file on its stdin and a moment to exit.
        func finish() {
            guard let session else { return }
            let ending = session.end(grace: cancelled.isSet ? 0 : ProcessSession.closeGrace)
            forget()
            reportDropped(ending)
        }
    }
}
