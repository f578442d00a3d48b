import Dispatch
import TributaryCLI
#if canImport(Glibc)
import Glibc
#endif

// No top-level `await`: that would make all of main async and start the concurrency runtime
// (threads, the main-queue drain) before the first line runs, which --version, help, sources
// and check, finished in `start`, never need.
switch TributaryCommand.start(TributaryCommand.processArguments()) {
case .finished(let code, let kept):
    // What the command left to the exit is held while the process ends (`end` never returns).
    withExtendedLifetime(kept) { end(code) }
case .needsTasks(let job):
    Task { end(await job.run()) }
    dispatchMain()
}

/// Ends the process without running the C library's exit handlers (libcrypto's
/// `OPENSSL_cleanup`, C++ static destructors): threads of ours may still be on their way out
/// when the command returns (the state's thread after `stop`, libcurl's, the cooperative pool),
/// and a thread must never meet a library tearing itself down under it. A `run` in CI crashed
/// once that way: SIGSEGV in a `memcpy` on the state's thread after the summary was printed.
/// Nothing is lost: every output is written with write(2) as it is produced, the sinks and the
/// state are closed before the command returns, and stdio, which nothing here uses, is flushed.
func end(_ code: Int32) -> Never {
    fflush(nil)
    _exit(code)
}
