import Foundation
import TributaryCore
import TributaryPostgres

/// The state a test runs on: a SQLite file in the test's folder, or a fresh schema on this test
/// process's PostgreSQL server (`PostgresServer.shared()`). Suites that test what the state
/// guarantees run every test once per backend (`StateUnderTest.backends`), so both backends
/// are held to one set of tests.
public struct StateUnderTest {
    public enum Backend: String, CaseIterable, Sendable {
        case sqlite
        case postgres
    }

    /// Every backend, SQLite first.
    public static let backends = Backend.allCases

    /// A fresh state of every kind, named: in memory, then each of `backends` (a SQLite file in
    /// a new folder, a new PostgreSQL schema), for suites that hold every backend to one test.
    public static func everyBackend() throws -> [(name: String, state: any StateBackend)] {
        var out: [(name: String, state: any StateBackend)] = [("memory", InMemoryState())]
        for b in backends { out.append((b.rawValue, try StateUnderTest(b, dir: TempDir()).open())) }
        return out
    }

    public let backend: Backend
    /// The SQLite file's folder (the test's own).
    public let dir: TempDir
    /// The PostgreSQL schema of this test (unique per test).
    public let schema: String
    public let server: PostgresServer?
    /// `state.lease` for PostgreSQL (nil: the default, 2m).
    public let lease: String?

    public init(_ backend: Backend, dir: TempDir, lease: String? = nil) throws {
        self.backend = backend
        self.dir = dir
        self.lease = lease
        schema = "t_" + UUID().uuidString.prefix(8).lowercased()
        server = backend == .postgres ? try PostgresServer.shared() : nil
    }

    /// Another state of the same backend: a new folder (the caller removes it) and schema.
    public func fresh() throws -> StateUnderTest { try StateUnderTest(backend, dir: TempDir(), lease: lease) }

    /// The config's `"state"` object; `extra` (`,"key":value`) is added to it.
    public func json(_ extra: String = "") -> String {
        switch backend {
        case .sqlite:
            return #"{"path":"state.sqlite"\#(extra)}"#
        case .postgres:
            let leaseKey = lease.map { #","lease":"\#($0)""# } ?? ""
            return #"{"url":"\#(server!.url())","schema":"\#(schema)"\#(leaseKey)\#(extra)}"#
        }
    }

    /// The same state, opened in the test process (a SQLite file takes its run lock: close it
    /// before the binary runs again).
    public func open() throws -> any StateBackend {
        switch backend {
        case .sqlite: return try SQLiteState(path: dir.path + "/state.sqlite", lockTimeout: 1)
        case .postgres: return try PostgresState(url: PostgresURL(server!.url())!, schema: schema)
        }
    }

    /// Whether other processes share this state at the same time (leases, no run lock).
    public var isShared: Bool { backend == .postgres }

    /// Waits until leases a killed process held have run out (`lease` seconds); no wait for SQLite.
    public func waitForLeasesToExpire() {
        guard isShared else { return }
        let seconds = lease.flatMap(Durations.parse) ?? Leases.defaultDuration
        usleep(UInt32((seconds + 0.3) * 1e6))
    }
}
