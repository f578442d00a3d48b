// The command line as the C runtime hands it over. glibc calls each function of the
// executable's .init_array with (argc, argv, envp), before main and before any Swift code.
// The Swift runtime instead finds argv by walking back from `environ` on the initial stack
// (ArgvGrabber in its CommandLine.cpp), which fails once a preloaded library's constructor
// has called setenv and moved `environ` to the heap (libfaketime does): CommandLine.arguments
// is then empty, and the program took that for a bare `tributary`.
#include "CBuildInfo.h"

#include <stddef.h>

static int saved_argc = -1;
static char **saved_argv = NULL;

__attribute__((constructor(101), used))
static void tributary_save_arguments(int argc, char **argv, char **envp) {
    (void)envp;
    saved_argc = argc;
    saved_argv = argv;
}

int tributary_argc(void) {
    return saved_argc;
}

char **tributary_argv(void) {
    return saved_argv;
}
