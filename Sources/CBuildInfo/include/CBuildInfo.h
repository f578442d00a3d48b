#ifndef TRIBUTARY_CBUILDINFO_H
#define TRIBUTARY_CBUILDINFO_H

/// The git commit the binary was built from: `git rev-parse --short HEAD`, with `-dirty` when
/// the work tree had uncommitted changes, or "unknown" (a build without `make`).
const char *tributary_build_commit(void);

#endif
