import Foundation
import XCTest
@testable import TributaryCore
@testable import TributaryBase
@testable import TributaryJSON
@testable import TributaryOptions
@testable import TributaryHTTP
@testable import TributaryState
@testable import TributaryPostgres
@testable import TributaryPluginKit
import TributaryTestSupport

/// The totals `status` and the metrics read: written in the batch's and the run's
/// transactions, migrated into a schema-1 file from what it holds, readable while another
/// process holds the file.
final class StateTotalsTests: XCTestCase {
    func testBatchesAndRunsAddUpAndARollbackAddsNothing() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let store = try SQLiteState(path: dir.path + "/s.sqlite", lockTimeout: 1)
        defer { store.close() }
        let tx = try store.begin()
        try tx.addSourceCounts(SourceCounts(source: "a", type: "json", fetched: 3, new: 2, now: 100))
        try tx.addCounters([StateCounter(.httpRequests, "200", 2), StateCounter(.sinkWritten, "jsonl", 2)])
        try tx.commit()
        let lost = try store.begin()
        try lost.addSourceCounts(SourceCounts(source: "a", type: "json", fetched: 9, new: 9, now: 150))
        try lost.addCounters([StateCounter(.httpRequests, "200", 9)])
        lost.rollback()
        let more = try store.begin()
        try more.addSourceCounts(SourceCounts(source: "a", type: "json", fetched: 1, new: 0, now: 200))
        try more.addCounters([StateCounter(.httpRequests, "200", 1), StateCounter(.httpRequests, "error", 1), StateCounter(.sinkFailures, "jsonl", 0)])
        try more.recordRun(RunRecord(source: "a", type: "json", success: false, error: "boom", nextDue: 900, now: 200, seconds: 0.25))
        try more.commit()
        let a = try XCTUnwrap(try store.sourceStates(["a"])["a"])
        XCTAssertEqual(a.fetchedTotal, 4)
        XCTAssertEqual(a.emittedTotal, 2)
        XCTAssertEqual(a.lastNew, 100, "a batch with nothing new keeps the time of the last new item")
        XCTAssertEqual(a.firstRecorded, 100)
        XCTAssertEqual(a.failures, 1)
        XCTAssertEqual(a.failuresTotal, 1)
        XCTAssertEqual(a.lastDuration, 0.25)
        XCTAssertEqual(a.lastError, "boom")
        XCTAssertEqual(a.type, "json")
        XCTAssertEqual(try store.counters(), [StateCounter(.httpRequests, "200", 3), StateCounter(.httpRequests, "error", 1), StateCounter(.sinkWritten, "jsonl", 2)])

        let metrics = Metrics(sources: [("a", "json"), ("never", "feed")], states: try store.sourceStates(["a", "never"]), counters: try store.counters(), sinks: ["jsonl", "rss"])
        let text = metrics.text
        XCTAssertTrue(text.contains("tributary_source_fetched_items_total{source=\"a\",type=\"json\"} 4\n"), text)
        XCTAssertTrue(text.contains("tributary_source_new_items_total{source=\"never\",type=\"feed\"} 0\n"), text)
        XCTAssertTrue(text.contains("tributary_source_up{source=\"a\",type=\"json\"} 0\n"), text)
        XCTAssertTrue(text.contains("tributary_source_duration_seconds{source=\"a\",type=\"json\"} 0.25\n"), text)
        XCTAssertFalse(text.contains("tributary_source_last_success_timestamp_seconds{"), "no sample without a success")
        XCTAssertTrue(text.contains("tributary_http_requests_total{status=\"error\"} 1\n"), text)
        XCTAssertTrue(text.contains("tributary_sink_failures_total{sink=\"rss\"} 0\n"), text)
        XCTAssertTrue(text.contains("# TYPE tributary_source_up gauge\n"), text)
        XCTAssertTrue(text.contains("tributary_source_last_new_timestamp_seconds{source=\"a\",type=\"json\"} 100\n"), text)
        XCTAssertFalse(text.contains("tributary_source_last_new_timestamp_seconds{source=\"never\""), "no sample before a new item")
        XCTAssertTrue(text.contains("# TYPE tributary_source_stale gauge\n"), text)
        XCTAssertTrue(text.contains("tributary_source_stale{source=\"a\",type=\"json\"} 0\n"), "no expect_new_within: never stale: \(text)")

        // tributary_source_stale is what `status` calls stale: expect_new_within past the last
        // new item, enabled; a source the state has never seen is not stale.
        func stale(_ settings: [SourceSettings], now: Double) -> String {
            var m = metrics
            m.judgeStaleness(settings, now: now)
            return m.text.split(separator: "\n").filter { $0.hasPrefix("tributary_source_stale{") }.joined(separator: "\n")
        }
        let aSettings = SourceSettings(name: "a", type: "json", expectNewWithin: 60)
        let never = SourceSettings(name: "never", type: "feed", expectNewWithin: 60)
        XCTAssertEqual(stale([aSettings, never], now: 160), "tributary_source_stale{source=\"a\",type=\"json\"} 0\ntributary_source_stale{source=\"never\",type=\"feed\"} 0")
        XCTAssertEqual(stale([aSettings, never], now: 161), "tributary_source_stale{source=\"a\",type=\"json\"} 1\ntributary_source_stale{source=\"never\",type=\"feed\"} 0")
        var off = aSettings
        off.enabled = false
        XCTAssertEqual(stale([off, never], now: 1000), "tributary_source_stale{source=\"a\",type=\"json\"} 0\ntributary_source_stale{source=\"never\",type=\"feed\"} 0", "disabled: not stale")
    }

    func testLabelValuesAreEscaped() {
        XCTAssertEqual(Metrics.escapeLabel(#"a"b\c"# + "\nd"), #"a\"b\\c\nd"#)
    }

    func testASchemaOneFileIsMigratedFromWhatItHolds() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let path = dir.path + "/old.sqlite"
        let v1 = SQLiteState.migrations[0].sql + """
            INSERT INTO emitted VALUES('x:1', 'old', 10, 10, 'h'), ('x:2', 'old', 20, 20, 'h'), ('x:3', 'other', 5, 5, 'h');
            INSERT INTO sources(name, type, last_run, last_success, failures, next_due, last_error, in_config) VALUES('old', 'feed', 30, 25, 2, 40, 'down', 30);
            PRAGMA user_version = 1;
            """
        let made = try Shell.run(["sqlite3", path], stdin: v1)
        XCTAssertEqual(made.status, 0, made.stderr)
        // Read as it is (status beside an older writer): no totals yet, nothing changed.
        let reader = try XCTUnwrap(try SQLiteState.readOnly(path: path))
        XCTAssertEqual(try reader.sourceStates(["old"])["old"]?.emittedTotal, 0)
        XCTAssertEqual(try reader.counters(), [])
        reader.close()
        XCTAssertEqual(try Shell.run(["sqlite3", path, "PRAGMA user_version"]).stdout, "1\n")

        let store = try SQLiteState(path: path, lockTimeout: 1)
        let old = try XCTUnwrap(try store.sourceStates(["old"])["old"])
        XCTAssertEqual(old.emittedTotal, 2)
        XCTAssertEqual(old.lastNew, 20)
        XCTAssertEqual(old.firstRecorded, 10)
        XCTAssertEqual(old.failuresTotal, 2)
        XCTAssertEqual(old.lastSuccess, 25)
        // Read beside the writer that holds the lock.
        let beside = try XCTUnwrap(try SQLiteState.readOnly(path: path))
        XCTAssertEqual(try beside.sourceStates(["old"])["old"]?.emittedTotal, 2)
        beside.close()
        store.close()
        XCTAssertEqual(try Shell.run(["sqlite3", path, "PRAGMA user_version"]).stdout, "\(SQLiteState.schemaVersion)\n")
        XCTAssertNil(try SQLiteState.readOnly(path: dir.path + "/missing.sqlite"), "no file: no state")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.path + "/missing.sqlite"), "reading creates nothing")
    }
}
