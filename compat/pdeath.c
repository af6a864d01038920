/* pdeath.c: a signal to a child when its parent ends (Linux's
 * PR_SET_PDEATHSIG, FreeBSD's procctl, or a watcher process). */
#include <errno.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#if defined(HAVE_DECL_PR_SET_PDEATHSIG) && HAVE_DECL_PR_SET_PDEATHSIG
#include <sys/prctl.h>
#define PDEATH_PRCTL 1
#elif defined(HAVE_DECL_PROC_PDEATHSIG_CTL) && HAVE_DECL_PROC_PDEATHSIG_CTL && defined(HAVE_PROCCTL)
#include <sys/procctl.h>
#define PDEATH_PROCCTL 1
#elif defined(HAVE_KQUEUE) && defined(HAVE_SYS_EVENT_H)
#include <sys/event.h>
#define PDEATH_KQUEUE 1
#endif

#if !defined(PDEATH_PRCTL) && !defined(PDEATH_PROCCTL)
/* Blocks until parent or the watched process ends: by kqueue where there
 * is one, else by looking every 100 ms.  True when it was parent. */
static int
parent_ended_first(pid_t parent, pid_t watched)
{
#ifdef PDEATH_KQUEUE
	struct kevent ev[2], got;
	int kq = kqueue();

	EV_SET(&ev[0], parent, EVFILT_PROC, EV_ADD | EV_ONESHOT, NOTE_EXIT, 0, NULL);
	EV_SET(&ev[1], watched, EVFILT_PROC, EV_ADD | EV_ONESHOT, NOTE_EXIT, 0, NULL);
	if (kq >= 0 && kevent(kq, &ev[0], 1, NULL, 0, NULL) < 0)
		return errno == ESRCH;
	if (kq >= 0 && kevent(kq, &ev[1], 1, NULL, 0, NULL) == 0) {
		while (kevent(kq, NULL, 0, &got, 1, NULL) < 0 && errno == EINTR)
			continue;
		return (pid_t)got.ident == parent;
	}
#endif
	for (;;) {
		struct timespec nap = { 0, 100000000L };

		if (getppid() != watched)
			return 0;
		if (kill(parent, 0) != 0 && errno == ESRCH)
			return 1;
		nanosleep(&nap, NULL);
	}
}

/*
 * A watcher: a child of the caller, which is about to exec.  It holds no
 * descriptor (a reader of the command's output sees its end when the
 * command's goes), is in a session of its own (the terminal's signals do
 * not reach it) and takes no signal but SIGKILL.  It ends with the command
 * or, when parent goes first, after sending sig to the command.
 */
static int
watch_parent(pid_t parent, int sig)
{
	pid_t watched = getpid(), pid = fork();
	sigset_t all;

	if (pid != 0)
		return pid < 0 ? -1 : 0;
	(void)setsid();
	sigfillset(&all);
	(void)sigprocmask(SIG_SETMASK, &all, NULL);
	(void)close_range(0, ~0U, 0);
	if (parent_ended_first(parent, watched))
		(void)kill(watched, sig);
	_exit(0);
}
#endif

int
parent_death_signal(pid_t parent, int sig)
{
#if defined(PDEATH_PRCTL)
	(void)parent;
	return prctl(PR_SET_PDEATHSIG, sig);
#elif defined(PDEATH_PROCCTL)
	(void)parent;
	return procctl(P_PID, 0, PROC_PDEATHSIG_CTL, &sig);
#else
	return watch_parent(parent, sig);
#endif
}
