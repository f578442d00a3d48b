import XCTest
import TributaryCore
import TributaryPlugins
import TributaryTestSupport

/// A sink whose reader went away (`SinkError.readerGone`) stops the run quietly, whichever sink
/// it is: the engine has no case for one sink (the stdout sink uses the same error through
/// `FDOutput`).
final class ReaderGoneTests: XCTestCase {
    let config = #"""
    {"sources":[{"name":"a","type":"json","url":"https://example.test/a","items":"items","fields":{"id":"id","title":"t"}}]}
    """#

    func run(_ sink: InMemorySink) async throws -> EngineHarness.Outcome {
        let dir = TempDir()
        defer { dir.remove() }
        EngineHarness.record(dir, [(url: "https://example.test/a", status: 200, body: #"{"items":[{"id":1,"t":"one"},{"id":2,"t":"two"}]}"#)])
        return try await EngineHarness.run(config: config, registry: BuiltinRegistry.standard, transport: try ReplayTransport(directory: dir.path),
                                           directory: dir.path, sink: sink)
    }

    func testAnySinkWhoseReaderWentAwayStopsTheRunQuietly() async throws {
        let outcome = try await run(InMemorySink(failWith: .readerGone("socket 7")))
        XCTAssertTrue(outcome.report.outputClosed)
        XCTAssertNil(outcome.report.sinkError, "a reader gone is not a sink failure")
        XCTAssertEqual(outcome.report.exitCode, 0)
        XCTAssertEqual(outcome.report.sources.map(\.status), [.stopped("output closed")])
    }

    func testAnyOtherSinkErrorIsAFailure() async throws {
        let outcome = try await run(InMemorySink(failWith: SinkError("disk full")))
        XCTAssertFalse(outcome.report.outputClosed)
        XCTAssertEqual(outcome.report.sinkError?.message, "disk full")
        XCTAssertEqual(outcome.report.exitCode, 3)
    }

    func testTheMessageNamesTheOutput() {
        XCTAssertEqual(SinkError.readerGone("stdout").message, "stdout was closed by its reader")
        XCTAssertTrue(SinkError.readerGone("fd 5").isOutputClosed)
        XCTAssertFalse(SinkError("x").isOutputClosed)
        XCTAssertEqual(FDOutput(fd: 1).name, "stdout")
        XCTAssertEqual(FDOutput(fd: 9).name, "fd 9")
    }
}
