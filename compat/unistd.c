/* unistd.c: descriptors, signals and the process title where libc lacks
 * the calls (pipe2, close_range, sigtimedwait, setproctitle, getprogname). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef HAVE_PIPE2
/* Not atomic with a fork in another thread: the descriptors are without
 * close-on-exec for the moment between the two calls. */
int
rlwrap_pipe2(int fds[2], int flags)
{
	if (pipe(fds) != 0)
		return -1;
	for (int i = 0; i < 2; i++)
		if (((flags & O_CLOEXEC) && fcntl(fds[i], F_SETFD, FD_CLOEXEC) != 0) ||
		    ((flags & O_NONBLOCK) && fcntl(fds[i], F_SETFL, fcntl(fds[i], F_GETFL) | O_NONBLOCK) != 0)) {
			int e = errno;

			close(fds[0]);
			close(fds[1]);
			errno = e;
			return -1;
		}
	return 0;
}
#endif

#ifndef HAVE_CLOSE_RANGE
/* Async-signal-safe (a forked child calls it): a loop up to the
 * descriptor limit.  No flags are known. */
int
rlwrap_close_range(unsigned first, unsigned last, int flags)
{
	long max = sysconf(_SC_OPEN_MAX);

	if (flags != 0 || first > last) {
		errno = EINVAL;
		return -1;
	}
	if (max < 0 || max > 65536)
		max = 65536;
	for (unsigned fd = first; fd <= last && fd < (unsigned)max; fd++)
		(void)close((int)fd);
	return 0;
}
#endif

#ifndef HAVE_SIGTIMEDWAIT
#ifndef NSIG
#define NSIG 65
#endif
/* sigwait(2) (POSIX) takes a signal once sigpending shows one of set;
 * until then it looks every 10 ms.  set is blocked, as sigtimedwait
 * wants. */
int
rlwrap_sigtimedwait(const sigset_t *set, siginfo_t *info, const struct timespec *timeout)
{
	struct timespec now, end;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += timeout->tv_sec;
	if ((end.tv_nsec += timeout->tv_nsec) >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	for (;;) {
		struct timespec nap = { 0, 10000000L };
		sigset_t pending;

		sigpending(&pending);
		for (int sig = 1; sig < NSIG; sig++) {
			sigset_t one;
			int got;

			if (!sigismember(set, sig) || !sigismember(&pending, sig))
				continue;
			sigemptyset(&one);
			sigaddset(&one, sig);
			if (sigwait(&one, &got) == 0) {
				if (info != NULL) {
					memset(info, 0, sizeof(*info));
					info->si_signo = got;
				}
				return got;
			}
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > end.tv_sec || (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec)) {
			errno = EAGAIN;
			return -1;
		}
		nanosleep(&nap, NULL);
	}
}
#endif

#ifndef HAVE_SETPROCTITLE
static char *title_area;
static size_t title_size;

/* The contiguous strings of argv, then of envp, are the area; what
 * points into it is copied out first. */
void
rlwrap_setproctitle_init(int argc, char **argv, char **envp)
{
	char *start, *end, **moved;
	size_t n = 0;

	if (argc < 1 || argv[0] == NULL)
		return;
	start = argv[0];
	end = start + strlen(start);
	for (int i = 1; i < argc && argv[i] == end + 1; i++)
		end = argv[i] + strlen(argv[i]);
	while (envp != NULL && envp[n] != NULL)
		n++;
	if ((moved = calloc(n + 1, sizeof(*moved))) == NULL)
		return;
	for (size_t i = 0; i < n; i++) {
		if (envp[i] == end + 1)
			end = envp[i] + strlen(envp[i]);
		if ((moved[i] = strdup(envp[i])) == NULL)
			return;
	}
	for (int i = 0; i < argc; i++)
		if ((argv[i] = strdup(argv[i])) == NULL)
			return;
	environ = moved;
#ifdef __GLIBC__
	/* err(3) names the program by these: into the copy of argv[0] when
	 * they pointed into the area. */
	if (program_invocation_name == start)
		program_invocation_name = argv[0];
	if (program_invocation_short_name >= start && program_invocation_short_name <= end)
		program_invocation_short_name = argv[0] + (program_invocation_short_name - start);
#endif
	title_area = start;
	title_size = (size_t)(end - start);
}

void
rlwrap_setproctitle(const char *fmt, ...)
{
	va_list ap;
	int n;

	if (title_area == NULL || title_size < 2)
		return;
	memset(title_area, 0, title_size + 1);
	n = snprintf(title_area, title_size, "%s: ", getprogname());
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < title_size)
		vsnprintf(title_area + n, title_size - (size_t)n, fmt, ap);
	va_end(ap);
}
#endif

#ifndef HAVE_GETPROGNAME
static const char *progname = "rlwrap";

const char *
rlwrap_getprogname(void)
{
	return progname;
}
#endif

#ifndef HAVE_SETPROGNAME
void
rlwrap_setprogname(const char *name)
{
#ifndef HAVE_GETPROGNAME
	const char *slash = strrchr(name, '/');

	progname = slash != NULL ? slash + 1 : name;
#ifdef __GLIBC__
	static char copy[64];

	strlcpy(copy, progname, sizeof(copy));
	program_invocation_short_name = copy;   /* what err(3) says */
#endif
#else
	(void)name;
#endif
}
#endif

#ifndef HAVE_ON_EXIT
int rlwrap_exit_status;
static void (*exit_fn)(int, void *);
static void *exit_arg;

static void
call_exit_fn(void)
{
	exit_fn(rlwrap_exit_status, exit_arg);
}

/* One function (rlwrap registers one). */
int
rlwrap_on_exit(void (*fn)(int status, void *arg), void *arg)
{
	if (exit_fn != NULL)
		return -1;
	exit_fn = fn;
	exit_arg = arg;
	return atexit(call_exit_fn);
}
#endif

#ifndef HAVE_SIGABBREV_NP
/* The name without "SIG" (glibc's sigabbrev_np), NULL when not known. */
const char *
rlwrap_sigabbrev_np(int sig)
{
	static const struct { int sig; const char *name; } names[] = {
		{ SIGHUP, "HUP" }, { SIGINT, "INT" }, { SIGQUIT, "QUIT" }, { SIGILL, "ILL" },
		{ SIGTRAP, "TRAP" }, { SIGABRT, "ABRT" }, { SIGBUS, "BUS" }, { SIGFPE, "FPE" },
		{ SIGKILL, "KILL" }, { SIGUSR1, "USR1" }, { SIGSEGV, "SEGV" }, { SIGUSR2, "USR2" },
		{ SIGPIPE, "PIPE" }, { SIGALRM, "ALRM" }, { SIGTERM, "TERM" }, { SIGCHLD, "CHLD" },
		{ SIGCONT, "CONT" }, { SIGSTOP, "STOP" }, { SIGTSTP, "TSTP" }, { SIGTTIN, "TTIN" },
		{ SIGTTOU, "TTOU" }, { SIGURG, "URG" }, { SIGXCPU, "XCPU" }, { SIGXFSZ, "XFSZ" },
		{ SIGVTALRM, "VTALRM" }, { SIGPROF, "PROF" }, { SIGWINCH, "WINCH" }, { SIGSYS, "SYS" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].sig == sig)
			return names[i].name;
	return NULL;
}
#endif
