// What Swift's Glibc module leaves out (it is not built with _GNU_SOURCE) and the base kit
// (TributaryBase) needs: the dynamic loader's dlinfo and its Dl_serinfo search-path list, and
// malloc_trim. Declarations only; dlopen, dlsym, dlinfo and malloc_trim are in libc itself
// (glibc 2.34 and later), so nothing is linked. Only wraps; never decides.
#ifndef TRIBUTARY_CSYSTEM_SHIM_H
#define TRIBUTARY_CSYSTEM_SHIM_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <dlfcn.h>
#include <malloc.h>

/// malloc_trim(0): gives the free memory of every malloc arena back to the kernel. 1 when some
/// was given back.
static inline int tributary_malloc_trim(void) { return malloc_trim(0); }
#endif
