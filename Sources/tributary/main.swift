import Dispatch
import TributaryCLI
#if canImport(Glibc)
import Glibc
#endif

// No top-level `await`: that would make all of main async and start the concurrency runtime
// (threads, the main-queue drain) before the first line runs, which --version, help, sources
// and check, finished in `start`, never need.
switch TributaryCommand.start(TributaryCommand.processArguments()) {
case .finished(let code):
    exit(code)
case .needsTasks(let job):
    Task { exit(await job.run()) }
    dispatchMain()
}
