import Foundation

/// How one source did in a run.
public struct SourceReport: Sendable {
    public enum Status: Sendable, Equatable {
        case ok
        case failed(String)
        /// Not run to the end for a reason that is not the source's fault (stdout closed).
        case stopped(String)
    }
    public let name: String
    public let type: String
    public let status: Status
    /// Items the source returned (after `max_items`).
    public let fetched: Int
    /// Items delivered to the sinks (new to this run, not duplicates of another source's).
    public let new: Int
    public let seconds: Double
}

/// The outcome of a run, from which the CLI derives the summary and the exit code.
public struct RunReport: Sendable {
    public var sources: [SourceReport] = []
    public var sinkError: SinkError?
    public var outputClosed = false
    public var delivered = 0

    /// SPEC.md section 1: 3 when a sink failed, 1 when a source failed, else 0.
    public var exitCode: Int32 {
        if sinkError != nil { return 3 }
        if sources.contains(where: { if case .failed = $0.status { return true } else { return false } }) { return 1 }
        return 0
    }
}

/// Progress as the run goes, for the live line and logs.
public enum EngineEvent: Sendable {
    case started(total: Int)
    case finished(SourceReport, done: Int, total: Int, items: Int, failures: Int)
    case warning(source: String, message: String)
    case log(source: String, message: String)
}

/// Runs the selected sources concurrently, isolates each one's failure, drops duplicate ids
/// within the run, and hands each source's items to every sink as soon as that source is done.
/// It never prints: everything it has to say goes through `observer` and the report.
public struct Engine: Sendable {
    public let sources: [ConfiguredSource]
    public let sinks: [any Sink]
    public let transport: any HTTPTransport

    public init(sources: [ConfiguredSource], sinks: [any Sink], transport: any HTTPTransport) {
        self.sources = sources
        self.sinks = sinks
        self.transport = transport
    }

    public func run(observer: @escaping @Sendable (EngineEvent) -> Void = { _ in }) async -> RunReport {
        let fetched = Timestamp(seconds: Timestamp.now().seconds.rounded(.down))
        var report = RunReport()
        var seen = Set<String>()
        var failures = 0
        var itemsSoFar = 0
        observer(.started(total: sources.count))
        await withTaskGroup(of: (Int, Result<[Item], SourceError>, Double).self) { group in
            for (index, configured) in sources.enumerated() {
                let settings = configured.settings
                let client = HTTPClient(transport: transport, retries: settings.retries, timeout: settings.timeout)
                let context = FetchContext(
                    settings: settings, http: client, fetched: fetched,
                    warn: { observer(.warning(source: settings.name, message: $0)) },
                    log: { observer(.log(source: settings.name, message: $0)) })
                group.addTask {
                    let start = DispatchTime.now().uptimeNanoseconds
                    let result: Result<[Item], SourceError>
                    do {
                        result = .success(try await configured.source.fetch(context))
                    } catch let error as SourceError {
                        result = .failure(Task.isCancelled ? SourceError("interrupted", partial: error.partial) : error)
                    } catch {
                        result = .failure(SourceError("\(error)"))
                    }
                    return (index, result, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
                }
            }
            for await (index, result, seconds) in group {
                let settings = sources[index].settings
                var items: [Item]
                var status = SourceReport.Status.ok
                switch result {
                case .success(let list): items = list
                case .failure(let e):
                    items = e.partial
                    if report.outputClosed {
                        status = .stopped("output closed")  // cancelled because the reader left: not a failure
                    } else {
                        status = .failed(e.message)
                        failures += 1
                    }
                }
                if let cap = settings.maxItems, items.count > cap { items = Array(items.prefix(cap)) }
                var batch: [Item] = []
                batch.reserveCapacity(items.count)
                for item in items where seen.insert(item.id).inserted { batch.append(item) }
                var delivered = 0
                if report.sinkError == nil && !report.outputClosed && !batch.isEmpty {
                    do throws(SinkError) {
                        for sink in sinks { try sink.write(batch) }
                        delivered = batch.count
                    } catch {
                        if error.isOutputClosed { report.outputClosed = true } else { report.sinkError = error }
                        group.cancelAll()
                    }
                }
                report.delivered += delivered
                itemsSoFar += items.count
                let r = SourceReport(name: settings.name, type: settings.type, status: status, fetched: items.count, new: delivered, seconds: seconds)
                report.sources.append(r)
                observer(.finished(r, done: report.sources.count, total: sources.count, items: itemsSoFar, failures: failures))
            }
        }
        for sink in sinks {
            do throws(SinkError) { try sink.close() } catch {
                if error.isOutputClosed { report.outputClosed = true } else if report.sinkError == nil { report.sinkError = error }
            }
        }
        report.sources.sort { a, b in
            (sources.firstIndex { $0.settings.name == a.name } ?? 0) < (sources.firstIndex { $0.settings.name == b.name } ?? 0)
        }
        return report
    }
}
