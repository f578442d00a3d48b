import XCTest
import Synchronization
import TributaryTestSupport
@testable import TributaryCore
import TributaryPluginKit
@testable import TributaryBase

/// `WorkerThreads`: a source run, and each step of a fan-out, stays on the worker thread it was
/// given across its waits, and the runs are spread over all of them.
final class WorkerThreadsTests: XCTestCase {
    /// The worker the caller is on, as an identity (nil: not a worker thread).
    private static func here() -> ObjectIdentifier? { WorkerThreads.current.map(ObjectIdentifier.init) }

    /// Where tasks run, checked without an idle thread taking a job that waited (a slow or
    /// busy machine would otherwise move some): `stealAfter` an hour for `body`.
    private func withoutTaking<T>(_ body: () async throws -> T) async rethrows -> T {
        let before = WorkerThread.stealAfter.exchange(3_600_000_000_000, ordering: .relaxed)
        defer { WorkerThread.stealAfter.store(before, ordering: .relaxed) }
        return try await body()
    }

    func testNextGivesEachThreadInTurn() {
        let n = CoreShares.cores
        let picked = (0..<(3 * n)).map { _ in ObjectIdentifier(WorkerThreads.next()) }
        XCTAssertEqual(Set(picked).count, n, "one thread per core, each given in turn")
        for i in n..<picked.count { XCTAssertEqual(picked[i], picked[i - n]) }
    }

    /// The property the items' frees rely on: after a wait on another thread (the delivery
    /// thread, the curl thread's answer, a sleep), the task goes on on its own worker.
    func testATaskResumesOnItsWorkerAfterEveryWait() async {
        await withoutTaking {
            let other = SerialThread(name: "test-other")
            defer { other.stop() }
            let moved = Locked<[String]>([])
            await withTaskGroup(of: Void.self) { group in
                for t in 0..<40 {
                    let worker = WorkerThreads.next()
                    group.addTask(executorPreference: worker) {
                        let mine = ObjectIdentifier(worker)
                        for step in 0..<20 {
                            switch step % 3 {
                            case 0: await other.run {}
                            case 1: try? await Task.sleep(nanoseconds: 100_000)
                            default: await Task.yield()
                            }
                            if Self.here() != mine { moved.withLock { $0.append("task \(t) after wait \(step)") } }
                        }
                    }
                }
            }
            XCTAssertEqual(moved.withLock { $0 }, [])
        }
    }

    /// A long job does not hold up the tasks queued behind it while another thread idles (the
    /// review's probe: 266 of 299 quick sources waited out a 3-s computation on their worker):
    /// the idle thread takes them once they have waited `stealAfter`; and each task is back on
    /// its own thread at its next wait.
    func testTasksQueuedBehindALongJobAreTakenByAnIdleThread() async throws {
        try XCTSkipIf(CoreShares.cores < 2, "one worker thread: nothing to take the jobs")
        let busy = WorkerThreads.next()
        let started = Locked(false)
        let long = Task(executorPreference: busy) { () -> Double in
            started.withLock { $0 = true }
            let t0 = MutexCondition.now()
            var x = 0
            while MutexCondition.now() - t0 < 1_000_000_000 { x &+= 1 }  // a second of CPU, no wait
            return Double(x)
        }
        while !started.withLock({ $0 }) { try await Task.sleep(nanoseconds: 1_000_000) }
        let t0 = MutexCondition.now()
        let waited = Locked<[Double]>([])
        let back = Locked(0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<30 {
                group.addTask(executorPreference: busy) {
                    waited.withLock { $0.append(Double(MutexCondition.now() - t0) / 1e9) }
                    try? await Task.sleep(nanoseconds: 1_000_000)
                    // Its own thread is still busy: it may be taken again, but by a thread
                    // that is not that one.
                    if WorkerThreads.current != nil { back.withLock { $0 += 1 } }
                }
            }
        }
        _ = await long.value
        let worst = waited.withLock { $0.max() ?? 0 }
        XCTAssertLessThan(worst, 0.25, "tasks queued behind a 1-s job on their thread waited \(worst) s")
        XCTAssertEqual(back.withLock { $0 }, 30, "every task ran on a worker thread")
    }

    /// `FanOut.run`'s steps each stay on one worker, and together use all of them.
    func testFanOutStepsStayOnTheirWorkerAndUseEveryOne() async throws {
        try await withoutTaking {
            let other = SerialThread(name: "test-fanout")
            defer { other.stop() }
            let used = Locked<Set<ObjectIdentifier>>([])
            let moved = Locked<[Int]>([])
            let failures = try await FanOut.run(Array(0..<200), limit: 8) { i throws(SourceError) in
                let before = Self.here()
                await other.run {}
                try? await Task.sleep(nanoseconds: 50_000)
                let after = Self.here()
                if before == nil || before != after { moved.withLock { $0.append(i) } }
                if let after { used.withLock { _ = $0.insert(after) } }
            }
            XCTAssertTrue(failures.isEmpty)
            XCTAssertEqual(moved.withLock { $0 }, [], "steps that were not on a worker thread, or moved")
            XCTAssertEqual(used.withLock { $0.count }, CoreShares.cores)
        }
    }

    /// An engine's source runs: each source's fetch is on a worker thread before and after its
    /// deliveries (the batches are written on the delivery thread meanwhile).
    func testASourceRunStaysOnItsWorkerAcrossItsDeliveries() async {
        await withoutTaking {
            let seen = Locked<[String: [ObjectIdentifier?]]>([:])
            let sources = (0..<12).map { n in
                ConfiguredSource(settings: SourceSettings(name: "s\(n)", type: "test"),
                                 source: ThreadRecordingSource(batches: 5, record: { seen.withLock { $0["s\(n)", default: []].append(Self.here()) } }))
            }
            let engine = Engine(sources: sources, delivery: Delivery(sinks: [InMemorySink()], state: InMemoryState()),
                                transport: CannedTransport(status: 404, body: ""))
            let report = await engine.run()
            XCTAssertEqual(report.delivered, 12 * 5)
            let all = seen.withLock { $0 }
            XCTAssertEqual(all.count, 12)
            for (name, threads) in all {
                XCTAssertEqual(threads.count, 6, name)
                XCTAssertNotNil(threads.first ?? nil, "\(name) ran off the worker threads")
                XCTAssertEqual(Set(threads).count, 1, "\(name) moved between threads")
            }
            XCTAssertEqual(Set(all.values.compactMap { $0.first ?? nil }).count, min(12, CoreShares.cores), "the sources are spread over the workers")
        }
    }
}

/// Emits `batches` batches of one item, calling `record` before the first and after each.
private struct ThreadRecordingSource: FeedSource {
    let batches: Int
    let record: @Sendable () -> Void

    func fetch(_ context: FetchContext) async throws(SourceError) {
        record()
        for b in 0..<batches {
            try await context.emit([Item.test("\(context.settings.name)-\(b)", source: context.settings.name)])
            record()
        }
    }
}
