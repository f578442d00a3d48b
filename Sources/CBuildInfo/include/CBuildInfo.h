#ifndef TRIBUTARY_CBUILDINFO_H
#define TRIBUTARY_CBUILDINFO_H

/// The git commit the binary was built from: `git rev-parse --short HEAD`, with `-dirty` when
/// the work tree had uncommitted changes, or "unknown" (a build without `make`).
const char *tributary_build_commit(void);

/// argc as the C runtime passed it to the constructors (arguments.c), or -1 when none ran.
int tributary_argc(void);

/// argv as the C runtime passed it, with argc entries and a NULL after them, or NULL.
char **tributary_argv(void);

#endif
