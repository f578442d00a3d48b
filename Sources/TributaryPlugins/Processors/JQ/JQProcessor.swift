import TributaryPluginKit
import TributaryJQ
import TributaryCore

/// The `jq` processor (Docs/processors/jq.md): a jq program, compiled once when the config is
/// loaded, run in process (libjq, `JQProgram`) on each item's JSON line.
///
/// - Each output must be an item object (`ItemObject`: `id` and `title` required, the
///   contract's types); `source`, `type`, `kind` and `fetched` are kept from the input when the
///   output drops them. Several outputs make several items; none drops the item (`filtered`).
/// - A runtime error, the time limit, too many outputs, or an output that breaks the item rules
///   skips the item as a whole (none of its outputs goes on), with a warning naming the item
///   and jq's message (`skipped`); it is not recorded, so it comes again on the next run.
///
/// Threads: `process` runs in the source's task, on whatever thread of the cooperative pool;
/// each run of the program takes one of the program's `jq_state`s for itself (JQProgram's
/// pool), so a state is never used by two threads at once. A run is CPU work bounded by
/// `timeout` (a program that loops is stopped before its next instruction).
public struct JQProcessor: Processor {
    public static let descriptor = ProcessorDescriptor(type: "jq", summary: "a jq program (jq 1.6, in process) reshapes, drops or multiplies each item",
                                                       options: [expr, timeout]) { reader in
        make(reader)
    }

    static let expr = Option.string("expr", "the jq program run on each item (the item object in, item objects out: empty drops it, several outputs make several items)").required
        .checked { $0.isEmpty ? "expected a jq program, found an empty string" : nil }
    static let timeout = Option.duration("timeout", atLeast: 0.001, "time limit per item (wall time); a run past it is stopped and the item skipped").defaulted(JQProcessor.defaultTimeout)

    /// The default time limit per item, in seconds (JQLimits.defaultTimeLimit).
    static let defaultTimeout = 1.0

    let program: JQProgram

    init(program: JQProgram) { self.program = program }

    /// Compiles `expr`; a program that does not compile is an error on the key, with jq's
    /// message (`sources[0] ("x").process[0].expr: jq: error: ...`).
    static func make(_ reader: OptionReader) -> JQProcessor? {
        let text = reader[expr]
        guard !text.isEmpty else { return nil }  // reported by the option's own check
        let limits = JQLimits(timeLimit: JQTime.duration(seconds: reader[timeout]))
        switch JQProgram.compile(text, limits: limits) {
        case .success(let p): return JQProcessor(program: p)
        case .failure(let e):
            reader.error(expr, e.description)
            return nil
        }
    }

    public func start(_ context: ProcessorContext) async -> any ProcessorRun {
        Run(program: program, context: context)
    }

    struct Run: ProcessorRun {
        let program: JQProgram
        let context: ProcessorContext

        func process(_ items: [Item]) async -> [Item] {
            var out: [Item] = []
            out.reserveCapacity(items.count)
            var line: [UInt8] = []
            line.reserveCapacity(1024)
            for item in items {
                line.removeAll(keepingCapacity: true)
                if program.native == nil { item.appendJSON(into: &line) }
                switch JQProcessor.transform(item, line: line, program: program) {
                case .success(let made):
                    if made.isEmpty { context.filtered(item) } else { out.append(contentsOf: made) }
                case .failure(let reason):
                    context.skip(item, reason: reason.message)
                }
            }
            return out
        }
    }

    /// What the program makes of one item: its outputs as items, or why the item is skipped.
    /// A program of the plain kind runs on the item's value without libjq (`JQNative`), which
    /// declines whenever jq would fail or do something it does not model; then libjq runs it.
    static func transform(_ item: Item, line: [UInt8], program: JQProgram) -> Result<[Item], ItemObjectError> {
        if let native = program.native {
            let value = item.jsonValue()
            let times = ItemObject.InputTimes(value)
            guard let values = native.run(value) else { return libjq(item, line: line, program: program) }
            return items(values.count) { i throws(ItemObjectError) in try ItemObject.read(values[i], input: item, times: times) }
        }
        return libjq(item, line: line, program: program)
    }

    /// The same through libjq, on the item's JSON line (`line`, or written here when empty).
    static func libjq(_ item: Item, line: [UInt8], program: JQProgram) -> Result<[Item], ItemObjectError> {
        var text = line
        if text.isEmpty { item.appendJSON(into: &text) }
        var outputs: [JQOutput] = []
        let failure = text.withUnsafeBytes { raw in program.run(json: raw) { outputs.append($0) } }
        if let failure { return .failure(ItemObjectError(failure.description)) }
        return items(outputs.count) { i throws(ItemObjectError) in try ItemObject.read(json: outputs[i].json, input: item) }
    }

    /// The program's `count` outputs read as items, or the first one that is not an item.
    static func items(_ count: Int, _ read: (Int) throws(ItemObjectError) -> Item) -> Result<[Item], ItemObjectError> {
        var made: [Item] = []
        made.reserveCapacity(count)
        for i in 0..<count {
            do throws(ItemObjectError) {
                made.append(try read(i))
            } catch {
                let which = count == 1 ? "the program's output" : "output \(i + 1) of \(count)"
                return .failure(ItemObjectError("jq: \(which) is not an item: \(error.message)"))
            }
        }
        return .success(made)
    }
}

/// Durations as the options read them (seconds) and as TributaryJQ takes them.
enum JQTime {
    static func duration(seconds: Double) -> Duration {
        guard seconds.isFinite, seconds > 0 else { return .zero }
        if seconds >= 1e9 { return .seconds(1_000_000_000) }
        return .nanoseconds(Int64((seconds * 1e9).rounded()))
    }
}
