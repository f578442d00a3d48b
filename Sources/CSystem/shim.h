// What Swift's Glibc module leaves out (it is not built with _GNU_SOURCE) and the base kit
// (TributaryBase) needs: the dynamic loader's dlinfo and its Dl_serinfo search-path list,
// malloc_trim, the CPUs this process may run on, and the calling thread's id. Declarations only; dlopen, dlsym, dlinfo and malloc_trim are in libc itself
// (glibc 2.34 and later), so nothing is linked. Only wraps; never decides.
#ifndef TRIBUTARY_CSYSTEM_SHIM_H
#define TRIBUTARY_CSYSTEM_SHIM_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <dlfcn.h>
#include <malloc.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

/// The calling thread's kernel id (gettid), for calls that take a thread (setpriority).
static inline int tributary_gettid(void) { return (int)syscall(SYS_gettid); }

/// malloc_trim(0): gives the free memory of every malloc arena back to the kernel. 1 when some
/// was given back.
static inline int tributary_malloc_trim(void) { return malloc_trim(0); }

/// The CPUs this process may run on (sched_getaffinity: `taskset`, a container's cpuset), or 0
/// when that cannot be read.
static inline int tributary_cpus_allowed(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
    return CPU_COUNT(&set);
}
#endif
