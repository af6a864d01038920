/*
 * compat.h: what libc (or libbsd) lacks on this platform, from compat/.
 * Included at the end of config.h, so by every file: each missing call
 * is declared under a name of its own (rlwrap_NAME) and NAME is defined
 * to it, after the system's headers, so that no declaration of theirs is
 * renamed.  The functions of rlwrap's own below (parent death, a
 * process's start time, the executable's path, the usable CPUs) are the
 * platform code the rest calls: their variants are in docs/design.md,
 * "Platforms".  Nothing here allocates but reallocarray.
 */
#ifndef RLWRAP_COMPAT_H
#define RLWRAP_COMPAT_H

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* A file's times as POSIX 2008 names them (macOS: st_mtimespec). */
#if !defined(HAVE_STRUCT_STAT_ST_MTIM) && defined(HAVE_STRUCT_STAT_ST_MTIMESPEC)
#define st_mtim st_mtimespec
#endif

#ifndef HAVE_STRLCPY
size_t rlwrap_strlcpy(char *dst, const char *src, size_t size);
#define strlcpy rlwrap_strlcpy
#endif
#ifndef HAVE_STRLCAT
size_t rlwrap_strlcat(char *dst, const char *src, size_t size);
#define strlcat rlwrap_strlcat
#endif
#ifndef HAVE_STRTONUM
long long rlwrap_strtonum(const char *s, long long lo, long long hi, const char **errstr);
#define strtonum rlwrap_strtonum
#endif
#ifndef HAVE_REALLOCARRAY
void *rlwrap_reallocarray(void *p, size_t n, size_t size);
#define reallocarray rlwrap_reallocarray
#endif
#ifndef HAVE_EXPLICIT_BZERO
void rlwrap_explicit_bzero(void *p, size_t n);
#define explicit_bzero rlwrap_explicit_bzero
#endif
#ifndef HAVE_MEMRCHR
void *rlwrap_memrchr(const void *p, int c, size_t n);
#define memrchr rlwrap_memrchr
#endif
#ifndef HAVE_CLOSE_RANGE
int rlwrap_close_range(unsigned first, unsigned last, int flags);
#define close_range rlwrap_close_range
#endif
#ifndef HAVE_PIPE2
int rlwrap_pipe2(int fds[2], int flags);
#define pipe2 rlwrap_pipe2
#endif
#ifndef HAVE_SIGTIMEDWAIT
int rlwrap_sigtimedwait(const sigset_t *set, siginfo_t *info, const struct timespec *timeout);
#define sigtimedwait rlwrap_sigtimedwait
#endif
/* poll plus a self-pipe: the signal handler calls ppoll_wake(). */
#ifdef HAVE_PPOLL
#define ppoll_wake() ((void)0)
#else
int rlwrap_ppoll(struct pollfd *fds, nfds_t n, const struct timespec *timeout, const sigset_t *mask);
void ppoll_wake(void);
#define ppoll rlwrap_ppoll
#endif
/* Without splice(2) and tee(2) both fail with ENOSYS: the relay then goes
 * by read and write (lib/child.c). */
#if defined(HAVE_SPLICE) && defined(HAVE_TEE)
#define RELAY_SPLICES 1
#else
#define RELAY_SPLICES 0
#ifndef SPLICE_F_MOVE
#define SPLICE_F_MOVE 1
#endif
#ifndef SPLICE_F_NONBLOCK
#define SPLICE_F_NONBLOCK 2
#endif
ssize_t rlwrap_splice(int in, off_t *in_off, int out, off_t *out_off, size_t n, unsigned flags);
ssize_t rlwrap_tee(int in, int out, size_t n, unsigned flags);
#define splice rlwrap_splice
#define tee rlwrap_tee
#endif
/* The title over the memory of argv (and of the environment after it,
 * moved first): ps and /proc/PID/cmdline show it.  argv's strings are
 * copied, so that the caller keeps using them. */
#ifndef HAVE_SETPROCTITLE
void rlwrap_setproctitle_init(int argc, char **argv, char **envp);
void rlwrap_setproctitle(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define setproctitle rlwrap_setproctitle
#define setproctitle_init rlwrap_setproctitle_init
#elif !defined(HAVE_SETPROCTITLE_INIT)
#define setproctitle_init(argc, argv, envp) ((void)(argc), (void)(argv), (void)(envp))
#endif
#ifndef HAVE_GETPROGNAME
const char *rlwrap_getprogname(void);
#define getprogname rlwrap_getprogname
#endif
#ifndef HAVE_SETPROGNAME
void rlwrap_setprogname(const char *name);
#define setprogname rlwrap_setprogname
#endif
#ifndef HAVE_SIGABBREV_NP
const char *rlwrap_sigabbrev_np(int sig);
#define sigabbrev_np rlwrap_sigabbrev_np
#endif
/* on_exit by atexit: the status comes from exit, err and errx, which note
 * it first (cmd/main.c ends by exit, never by a return from main). */
#ifndef HAVE_ON_EXIT
#include <err.h>
extern int rlwrap_exit_status;
int rlwrap_on_exit(void (*fn)(int status, void *arg), void *arg);
#define on_exit rlwrap_on_exit
#define exit(status) (rlwrap_exit_status = (status), exit(rlwrap_exit_status))
#define err(status, ...) (rlwrap_exit_status = (status), err(rlwrap_exit_status, __VA_ARGS__))
#define errx(status, ...) (rlwrap_exit_status = (status), errx(rlwrap_exit_status, __VA_ARGS__))
#endif
/* openpty from posix_openpt where no header has it (compat/pty.c). */
#if !defined(HAVE_PTY_H) && !defined(HAVE_UTIL_H) && !defined(HAVE_LIBUTIL_H)
struct termios;
struct winsize;
int rlwrap_openpty(int *master, int *slave, char *name, const struct termios *tio, const struct winsize *ws);
#define openpty rlwrap_openpty
#endif

/* In a child between fork and exec: sig to the calling process when the
 * process parent ends, however it ends (only async-signal-safe calls). 0,
 * or -1 with errno. */
int parent_death_signal(pid_t parent, int sig);
/* Field 22 of Linux's /proc/PID/stat, or the start time sysctl gives;
 * where neither is there, 0 for a process that lives.  -1 when the
 * process is gone or a zombie.  Comparable on one host only. */
long long process_start_time(long pid);
/* The running executable's absolute path; exe_path_init(argv[0]) first
 * where the system cannot tell (the argv[0] search).  False when unknown. */
void exe_path_init(const char *argv0);
bool exe_path(char *buf, size_t size);
/* argv0 as the shell found it: a path with a slash resolved, a bare name
 * searched in path (a PATH value). */
bool exe_path_search(const char *argv0, const char *path, char *buf, size_t size);
/* The CPUs this process may run on (its affinity mask where there is one). */
long usable_cpus(void);

#endif
