import TributaryBase
import CSQLite
import Synchronization
import Dispatch

/// Copies the state file's write-ahead log into the database file, mostly on a thread of its own.
///
/// SQLite's automatic checkpoint runs inside the commit that brings the log to 1,000 frames:
/// that batch's delivery waited for about a thousand page copies and two `fdatasync`s, half of
/// what the state cost a 1,000-item run with a million remembered ids (Docs/PERFORMANCE.md,
/// "State overhead"). Here a commit that finds 1,000 frames or more only posts a copy, and the
/// next batches are written while it runs: SQLite lets a checkpoint run beside a writer (it
/// copies the frames committed when it began). The log starts over at the first write after a
/// copy that caught up with it, which a posted copy does when the commits pause (between the
/// sources' pages, between `watch`'s cycles). Under commits that never pause, the writer copies
/// the rest itself at `ceiling` frames: what the posted copies left, and the syncs.
/// Durability is SQLite's either way: a commit is in the log before a copy reads it.
///
/// Threading rule (why `@unchecked Sendable` is sound): `connection` is used by jobs on
/// `thread` only, then closed by `stop()` after the thread has ended; the two copies never run
/// at once (`copying`, which also counts them); `queued` and `frames` are atomics. The hook
/// runs on the writer's thread, which is also the thread that calls `stop`.
package final class WALCheckpointer: @unchecked Sendable {
    /// The log's length, in frames, from which a copy is posted: SQLite's own default.
    let threshold: Int32
    /// The length from which the committing connection copies what is left itself. A posted
    /// copy that commits overtook copies what was committed when it began, and the log starts
    /// over only after a copy that caught up (and synced the file): under steady commits none
    /// does. The writer's copy, between its transactions, always catches up; it is short, as
    /// the posted copies have done the bulk of it.
    let ceiling: Int32

    private let connection: Database
    private let thread: SerialThread
    private let queued = Atomic<Bool>(false)
    /// The copies made so far, of both kinds.
    package struct Copies: Sendable {
        /// Copies run on the thread, and their time (the state benchmark reports both).
        package var posted = 0
        package var postedNanoseconds = 0
        /// Copies the writer made itself at `ceiling` (their time is in the commits').
        package var byWriter = 0
    }
    /// Held by a copy while it runs, on either thread: SQLite answers a second copy BUSY at
    /// once (not even its busy handler waits), so the writer's copy waits for the thread's here.
    /// It holds the count of copies, which is also why it is not a `Locked(())`: ThreadSanitizer
    /// sees a zero-sized value accessed outside its lock (LibraryLoader says the same).
    private let copying = Locked(Copies())
    /// The copies made so far (waits for a copy under way).
    package var made: Copies { copying.withLock { $0 } }
    /// The log's length after the last commit (the tests read it).
    let frames = Atomic<Int32>(0)

    /// Opens a second connection to the (WAL-mode) file at `path` for the copies.
    init(path: String, threshold: Int32 = 1000, ceiling: Int32 = 4000) throws(StateError) {
        self.threshold = threshold
        self.ceiling = ceiling
        connection = try Database(path: path)
        // The copy reads log frames and writes file pages itself: no page cache to speak of.
        try connection.exec("PRAGMA synchronous=NORMAL; PRAGMA cache_size=16;")
        // Started last: a thread started before a throw above would never be stopped.
        thread = SerialThread(name: "tributary-ckpt")
    }

    /// Replaces `writer`'s automatic checkpoint with posted copies. `stop(detachingFrom:)`
    /// must be called with the same connection before this object goes away.
    func attach(to writer: Database) {
        sqlite3_wal_hook(writer.handle, walCommitted, Unmanaged.passUnretained(self).toOpaque())
    }

    /// After a commit on `writer`, with `frames` in the log.
    fileprivate func committed(frames: Int32, writer: OpaquePointer?) {
        self.frames.store(frames, ordering: .relaxed)
        if frames >= ceiling {
            copying.withLock { made in
                _ = sqlite3_wal_checkpoint_v2(writer, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
                made.byWriter += 1
            }
            return
        }
        guard frames >= threshold, !queued.exchange(true, ordering: .acquiringAndReleasing) else { return }
        thread.post { [self] in
            copying.withLock { made in
                let start = DispatchTime.now().uptimeNanoseconds
                // PASSIVE: copies what no reader still needs, never waits for a reader or the
                // writer, and syncs the file when it copied everything.
                _ = sqlite3_wal_checkpoint_v2(connection.handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
                made.postedNanoseconds += Int(truncatingIfNeeded: DispatchTime.now().uptimeNanoseconds &- start)
                made.posted += 1
            }
            queued.store(false, ordering: .releasing)
        }
    }

    /// Takes the hook off `writer`, waits for a copy under way, and closes the connection.
    func stop(detachingFrom writer: Database) {
        sqlite3_wal_hook(writer.handle, nil, nil)
        thread.stop()
        connection.close()
    }
}

/// SQLite's WAL hook: called on the writer's thread after each commit, its write lock released.
private func walCommitted(_ context: UnsafeMutableRawPointer?, _ db: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ frames: Int32) -> Int32 {
    guard let context else { return SQLITE_OK }
    Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue().committed(frames: frames, writer: db)
    return SQLITE_OK
}
