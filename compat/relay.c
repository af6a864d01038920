/* relay.c: what lib/relay.c needs where the kernel lacks it: no
 * splice(2) or tee(2) (the relay then reads and writes), and ppoll(2) as
 * poll(2) plus a self-pipe the signal handler writes to. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#if !defined(HAVE_SPLICE) || !defined(HAVE_TEE)
ssize_t
rlwrap_splice(int in, off_t *in_off, int out, off_t *out_off, size_t n, unsigned flags)
{
	errno = ENOSYS;
	return -1;
}

ssize_t
rlwrap_tee(int in, int out, size_t n, unsigned flags)
{
	errno = ENOSYS;
	return -1;
}
#endif

#ifndef HAVE_PPOLL
#define PPOLL_MAX 32

static int wake_pipe[2] = { -1, -1 };

/* From a signal handler: async-signal-safe, never blocks (a full pipe
 * already wakes the poll). */
void
ppoll_wake(void)
{
	int e = errno;

	if (wake_pipe[1] >= 0)
		(void)write(wake_pipe[1], "", 1);
	errno = e;
}

static int
wake_pipe_open(void)
{
	int fds[2];

	if (wake_pipe[0] >= 0)
		return 0;
	if (pipe(fds) != 0)
		return -1;
	for (int i = 0; i < 2; i++) {
		fcntl(fds[i], F_SETFD, FD_CLOEXEC);
		fcntl(fds[i], F_SETFL, fcntl(fds[i], F_GETFL) | O_NONBLOCK);
	}
	wake_pipe[0] = fds[0];
	wake_pipe[1] = fds[1];
	return 0;
}

static void
wake_pipe_drain(void)
{
	char buf[64];

	while (read(wake_pipe[0], buf, sizeof(buf)) > 0)
		continue;
}

/*
 * The caller has the signals blocked and has looked at its flags: a byte
 * in the pipe now is from a signal it has seen, and is dropped.  A signal
 * taken between the unblocking and the poll writes a byte the poll sees,
 * so that none is slept through.  Returns as ppoll does: -1 and EINTR when
 * a handler ran and nothing else was ready.
 */
int
rlwrap_ppoll(struct pollfd *fds, nfds_t n, const struct timespec *timeout, const sigset_t *mask)
{
	struct pollfd all[PPOLL_MAX + 1];
	sigset_t saved;
	int ms = -1, r, e;

	if (n > PPOLL_MAX || wake_pipe_open() != 0) {
		errno = n > PPOLL_MAX ? EINVAL : errno;
		return -1;
	}
	if (timeout != NULL)
		ms = (int)(timeout->tv_sec * 1000 + (timeout->tv_nsec + 999999) / 1000000);
	for (nfds_t i = 0; i < n; i++)
		all[i] = fds[i];
	all[n] = (struct pollfd){ .fd = wake_pipe[0], .events = POLLIN };
	wake_pipe_drain();
	pthread_sigmask(SIG_SETMASK, mask, &saved);
	r = poll(all, n + 1, ms);
	e = errno;
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	for (nfds_t i = 0; i < n; i++)
		fds[i].revents = all[i].revents;
	if (r > 0 && all[n].revents != 0) {
		wake_pipe_drain();
		if (--r == 0) {
			errno = EINTR;
			return -1;
		}
	}
	errno = e;
	return r;
}
#endif
