import CSystem

/// The process's freed heap memory, given back to the kernel at a point where a phase of work
/// has ended and the next one allocates from other threads. glibc keeps freed memory in the
/// arena of the thread that freed it, and a thread allocating from another arena does not reuse
/// it: a large config, loaded on the main thread, and the run that follows on the worker
/// threads added up in peak RSS. The callers say which phase ended.
public enum FreedMemory {
    public static func giveBack() { _ = tributary_malloc_trim() }
}
