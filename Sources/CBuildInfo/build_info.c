// The commit comes from generated/commit.h, which the Makefile writes (git-ignored) and
// rewrites only when its content changes, so a new commit recompiles this file and relinks,
// nothing else. A plain `swift build` without the header says "unknown".
#include "CBuildInfo.h"

#if __has_include("generated/commit.h")
#include "generated/commit.h"
#endif

#ifndef TRIBUTARY_COMMIT
#define TRIBUTARY_COMMIT "unknown"
#endif

const char *tributary_build_commit(void) {
    return TRIBUTARY_COMMIT;
}
