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

    private static func spin(_ ns: UInt64) {
        let t0 = MutexCondition.now()
        var x = 0
        while MutexCondition.now() &- t0 < ns { x &+= 1 }
        if x == -1 { print(x) }
    }

    /// Jobs queued on a thread while it runs, behind a long one queued just before them (a
    /// task group's children, which inherit their parent's thread): the idle thread takes them
    /// one by one, not after the long one (a second review's finding: the thread had swapped
    /// its whole queue into a batch of its own, out of reach).
    func testJobsQueuedTogetherWithALongOneAreTaken() async throws {
        try XCTSkipIf(CoreShares.cores < 2, "one worker thread: nothing to take the jobs")
        let b = WorkerThreads.next()
        let t0 = MutexCondition.now()
        let waited = Locked<[Double]>([])
        await Task(executorPreference: b) { @Sendable in
            await withTaskGroup(of: Void.self) { group in
                group.addTask { Self.spin(1_000_000_000) }
                for _ in 0..<30 {
                    group.addTask { waited.withLock { $0.append(Double(MutexCondition.now() - t0) / 1e9) } }
                }
            }
        }.value
        let worst = waited.withLock { $0.max() ?? 0 }
        XCTAssertEqual(waited.withLock { $0.count }, 30)
        XCTAssertLessThan(worst, 0.25, "children queued with a 1-s child waited \(worst) s")
    }

    /// A task taken by an idle thread goes on there until it suspends, not back to its busy
    /// thread at its next call of a nonisolated async function (each such call is an executor
    /// switch, which sent it back, and it waited `stealAfter` again: 200 calls took 0.85 s).
    func testATakenTaskGoesOnUntilItSuspends() async throws {
        try XCTSkipIf(CoreShares.cores < 2, "one worker thread: nothing to take the jobs")
        let b = WorkerThreads.next()
        let started = Locked(false)
        let long = Task(executorPreference: b) { @Sendable in
            started.withLock { $0 = true }
            Self.spin(1_000_000_000)
        }
        while !started.withLock({ $0 }) { try await Task.sleep(nanoseconds: 1_000_000) }
        let t0 = MutexCondition.now()
        let elapsed = await Task(executorPreference: b) { @Sendable () -> Double in
            for _ in 0..<200 { await hopWithoutSuspending() }
            return Double(MutexCondition.now() - t0) / 1e9
        }.value
        await long.value
        XCTAssertLessThan(elapsed, 0.1, "200 calls behind a 1-s job on their thread took \(elapsed) s")
    }

    /// An idle thread costs little while its peer runs many short jobs (each job queued behind
    /// a running one woke it: 31% of a core, 80,000 wake-ups a second).
    func testAnIdleThreadCostsLittleWhileItsPeerRunsShortJobs() async throws {
        try XCTSkipIf(CoreShares.cores != 2, "measures the one peer of a 2-core machine")
        let b = WorkerThreads.next()
        let idle = WorkerThreads.all.first { $0 !== b }!
        let other = SerialThread(name: "test-peer-cost")
        defer { other.stop() }
        let before = (Self.cpuTicks(of: b), Self.cpuTicks(of: idle))
        // Without taking: on a busy machine the idle thread would take some of the jobs, and
        // their work is not what this measures.
        await withoutTaking {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<8 {
                    group.addTask(executorPreference: b) {
                        for i in 0..<20_000 {
                            if i % 2 == 0 { await other.run {} } else { await Task.yield() }
                        }
                    }
                }
            }
        }
        let busy = Self.cpuTicks(of: b) - before.0, spent = Self.cpuTicks(of: idle) - before.1
        XCTAssertLessThan(Double(spent), max(3, 0.1 * Double(busy)), "the idle thread spent \(spent) ticks while its peer spent \(busy)")
    }

    /// The CPU clock ticks (user and system) of a worker thread, from /proc.
    private static func cpuTicks(of worker: WorkerThread) -> Int {
        let name = worker.name
        guard let tids = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else { return 0 }
        for tid in tids {
            guard let comm = try? String(contentsOfFile: "/proc/self/task/\(tid)/comm", encoding: .utf8),
                  comm.trimmingCharacters(in: .whitespacesAndNewlines) == name,
                  let stat = try? String(contentsOfFile: "/proc/self/task/\(tid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
        }
        return 0
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

/// A nonisolated async function that never suspends: calling it is an executor switch.
private func hopWithoutSuspending() async {}
