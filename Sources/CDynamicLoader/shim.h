// The dynamic loader's GNU extensions, which Swift's Glibc module leaves out (it is not built
// with _GNU_SOURCE): dlinfo and its Dl_serinfo search-path list. Declarations only; dlopen,
// dlsym and dlinfo are in libc itself (glibc 2.34 and later), so nothing is linked.
#ifndef TRIBUTARY_CDYNAMICLOADER_SHIM_H
#define TRIBUTARY_CDYNAMICLOADER_SHIM_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <dlfcn.h>
#endif
