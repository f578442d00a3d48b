import Foundation
import XCTest
import Synchronization
@testable import TributaryState
import TributaryTestSupport
import CSQLite

/// The state file's write-ahead log is copied into the file by `WALCheckpointer`, on a thread of
/// its own, instead of inside the commit that fills it: the log still starts over, stays
/// bounded when the copies fall behind, and the file holds every commit after close.
final class StateCheckpointTests: XCTestCase {
    /// Polls `done` every 10 ms for at most `seconds`.
    private func eventually(_ seconds: Double = 20, _ done: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try done() { return true }
            usleep(10_000)
        }
        return try done()
    }

    func testCommitsPostTheCopyAndEveryIdSurvivesClose() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let path = dir.path + "/s.sqlite"
        let store = try SQLiteState(path: path, lockTimeout: 1)
        let checkpointer = try XCTUnwrap(store.checkpointer)
        var written = 0
        // Random ids land on random pages: 30 batches of 100 write thousands of frames.
        for batch in 0..<30 {
            let tx = try store.begin()
            let ids = (0..<100).map { EmittedID(id: "item:\(batch):\($0)", source: "s", hash: "h") }
            let known = try tx.claim(ids, now: 1_000)
            XCTAssertTrue(known.allSatisfy { $0 == nil })
            try tx.commit()
            written += ids.count
        }
        XCTAssertTrue(eventually { checkpointer.made.posted >= 1 }, "no copy ran on the checkpoint thread")
        // The log starts over at the first write after a copy that caught up with it: a small
        // commit then finds a short log (a copy overtaken by commits is followed by another).
        var attempt = 0
        let restarted = try eventually {
            attempt += 1
            let copiesBefore = checkpointer.made.posted
            let tx = try store.begin()
            _ = try tx.claim([EmittedID(id: "late:\(attempt)", source: "s", hash: "h")], now: 1_000)
            try tx.commit()
            written += 1
            if checkpointer.frames.load(ordering: .relaxed) < checkpointer.threshold { return true }
            _ = eventually(5) { checkpointer.made.posted > copiesBefore }
            return false
        }
        XCTAssertTrue(restarted, "the log never started over: \(checkpointer.frames.load(ordering: .relaxed)) frames")
        store.close()
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + "-wal"), "the last connection's close copies and removes the log")

        let again = try SQLiteState(path: path, lockTimeout: 1)
        defer { again.close() }
        let tx = try again.begin()
        let ids = (0..<30).flatMap { b in (0..<100).map { EmittedID(id: "item:\(b):\($0)", source: "s", hash: "h") } }
            + (1...attempt).map { EmittedID(id: "late:\($0)", source: "s", hash: "h") }
        XCTAssertEqual(ids.count, written)
        let known = try tx.claim(ids, now: 2_000)
        tx.rollback()
        XCTAssertEqual(known.filter { $0 != nil }.count, written, "an id committed before close is missing after it")
    }

    /// A raw WAL-mode database with `checkpointer` on it, and a commit of `pages` pages of rows.
    private func database(_ dir: TempDir) throws -> Database {
        let db = try Database(path: dir.path + "/raw.sqlite")
        try db.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; CREATE TABLE t(k INTEGER PRIMARY KEY, v BLOB);")
        return db
    }

    private func commit(_ db: Database, pages: Int, from k: inout Int) throws {
        try db.transaction { () throws(StateError) in
            for _ in 0..<pages {
                // A 3,000-byte row: one leaf page of its own.
                try db.statement("INSERT INTO t(k, v) VALUES(?, randomblob(3000))").bind(1, k).run()
                k += 1
            }
        }
    }

    func testTheWriterCopiesItselfPastTheCeiling() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let db = try database(dir)
        // No copy is ever posted: only the committing connection's own copy keeps the log short.
        let checkpointer = try WALCheckpointer(path: dir.path + "/raw.sqlite", threshold: .max, ceiling: 300)
        checkpointer.attach(to: db)
        var k = 0, longest: Int32 = 0, shortAgain = false
        for _ in 0..<40 {
            try commit(db, pages: 40, from: &k)
            let frames = checkpointer.frames.load(ordering: .relaxed)
            longest = max(longest, frames)
            if longest >= 300 && frames < 300 { shortAgain = true }
        }
        checkpointer.stop(detachingFrom: db)
        XCTAssertGreaterThanOrEqual(longest, 300, "the commits did not reach the ceiling: the test proves nothing")
        XCTAssertLessThan(longest, 300 + 60, "the log grew past the ceiling and one commit")
        XCTAssertTrue(shortAgain, "the log never started over after the writer's copy")
        XCTAssertEqual(checkpointer.made.posted, 0)
        db.close()
    }

    func testTheCeilingHoldsWhilePostedCopiesRun() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let db = try database(dir)
        // Copies are posted from 100 frames and overtaken by commits that never pause: the
        // writer's own copy at 400 must wait for the thread's (SQLite answers a second copy BUSY).
        let checkpointer = try WALCheckpointer(path: dir.path + "/raw.sqlite", threshold: 100, ceiling: 400)
        checkpointer.attach(to: db)
        var k = 0, longest: Int32 = 0
        for _ in 0..<80 {
            try commit(db, pages: 40, from: &k)
            longest = max(longest, checkpointer.frames.load(ordering: .relaxed))
        }
        checkpointer.stop(detachingFrom: db)
        XCTAssertGreaterThan(checkpointer.made.posted, 0, "no copy was posted")
        XCTAssertLessThan(longest, 400 + 60, "the log grew past the ceiling and one commit")
        db.close()
    }

    func testPostedCopiesKeepTheLogShortWithoutTheWriter() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let db = try database(dir)
        // The writer never copies: only the posted copies let the log start over.
        let checkpointer = try WALCheckpointer(path: dir.path + "/raw.sqlite", threshold: 100, ceiling: .max)
        checkpointer.attach(to: db)
        var k = 0
        for _ in 0..<40 { try commit(db, pages: 40, from: &k) }
        XCTAssertTrue(eventually { checkpointer.made.posted >= 1 })
        let restarted = try eventually {
            let copiesBefore = checkpointer.made.posted
            try commit(db, pages: 1, from: &k)
            if checkpointer.frames.load(ordering: .relaxed) < 100 { return true }
            _ = eventually(5) { checkpointer.made.posted > copiesBefore }
            return false
        }
        XCTAssertTrue(restarted, "the log never started over: \(checkpointer.frames.load(ordering: .relaxed)) frames")
        checkpointer.stop(detachingFrom: db)
        // The hook is off: commits past the threshold post nothing to the stopped thread (a
        // post after stop() traps).
        for _ in 0..<5 { try commit(db, pages: 40, from: &k) }
        let count = try db.statement("SELECT count(*) FROM t")
        XCTAssertTrue(try count.step())
        XCTAssertEqual(count.int(0), k)
        sqlite3_reset(count.stmt)
        db.close()
    }
}
