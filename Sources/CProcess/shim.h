// Typed wrappers for the process calls Swift cannot make itself (variadic prctl and syscall,
// waitid's siginfo_t, functions glibc declares only under _GNU_SOURCE). Only wraps; never decides.
#ifndef TRIBUTARY_CPROCESS_SHIM_H
#define TRIBUTARY_CPROCESS_SHIM_H
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

// Declared by glibc only under _GNU_SOURCE, which the Glibc module does not define.
extern int pipe2(int fds[2], int flags);
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);  // glibc 2.34

/// prctl(PR_SET_CHILD_SUBREAPER, 1): orphaned descendants are reparented to this process
/// instead of init. 0 on success, -1 with errno.
static inline int tributary_set_child_subreaper(void) { return prctl(PR_SET_CHILD_SUBREAPER, 1UL, 0UL, 0UL, 0UL); }

/// 1 when this process is a child subreaper, 0 when not, -1 on error.
static inline int tributary_is_child_subreaper(void) {
    int value = 0;
    if (prctl(PR_GET_CHILD_SUBREAPER, (unsigned long)&value, 0UL, 0UL, 0UL) != 0) return -1;
    return value != 0;
}

/// A pidfd for `pid` (Linux 5.3+): readable once the process has exited. -1 with errno.
static inline int tributary_pidfd_open(pid_t pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }

/// Whether the child `pid` has exited, without reaping it (waitid with WNOWAIT): 1 exited,
/// 0 still running, -1 with errno (ECHILD: not a child of this process).
static inline int tributary_child_exited(pid_t pid) {
    siginfo_t info;
    memset(&info, 0, sizeof info);
    if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) != 0) return -1;
    return info.si_pid == pid ? 1 : 0;
}

/// pipe2(fds, O_CLOEXEC): both ends close-on-exec from the start, so a program started by
/// another thread in between cannot inherit them.
static inline int tributary_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

/// Bytes written to the pipe behind `fd` (either end) that no reader has taken yet
/// (ioctl FIONREAD); -1 with errno.
static inline int tributary_pipe_unread(int fd) {
    int n = 0;
    return ioctl(fd, FIONREAD, &n) == 0 ? n : -1;
}

/// In the child: close every descriptor from `from` up (after the dup2 actions).
static inline int tributary_spawn_closefrom(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}
#endif
