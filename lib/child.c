/*
 * The child process: spawn with blocked signals, relay its output, forward
 * signals, follow it into job-control stops, reap it, drain its pipes.
 *
 * Signals stay blocked except inside ppoll(2) and while writing to rlwrap's
 * stdout/stderr (a slow reader must not delay a forwarded signal).  The
 * handler forwards the plain signals itself with kill(2), which is
 * async-signal-safe; SIGCHLD, SIGTSTP and (pty mode) SIGWINCH only set flags
 * that the pump loop acts on.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"

static const int caught_signals[] = {
	SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH, SIGCONT,  /* forwarded */
	SIGTSTP, SIGCHLD
};
#define CAUGHT_COUNT (sizeof(caught_signals) / sizeof(caught_signals[0]))

static struct sigaction saved_actions[CAUGHT_COUNT];
static struct sigaction saved_pipe;
static sigset_t saved_mask, run_mask;
static bool signals_caught;

static volatile sig_atomic_t fwd_pid;         /* the child, 0 once reaped */
static volatile sig_atomic_t fwd_same_group;  /* terminal signals reach the child too */
static volatile sig_atomic_t fwd_pty;         /* SIGWINCH resizes the pty instead */
static volatile sig_atomic_t got_chld, got_winch;
static volatile sig_atomic_t got_tstp;        /* 1: stop; 2: stop and forward */

/* Did this signal already reach the child without our help? */
static bool
reached_child(const siginfo_t *si)
{
#ifdef SI_KERNEL
	if (si->si_code == SI_KERNEL && fwd_same_group)
		return true;   /* from our terminal, to the whole foreground group */
#endif
	return si->si_code == SI_USER && si->si_pid == fwd_pid;
}

static void
forward(int sig, const siginfo_t *si)
{
	pid_t pid = fwd_pid;

	if (pid > 0 && !reached_child(si))
		kill(pid, sig);
}

static void
on_signal(int sig, siginfo_t *si, void *uctx)
{
	int saved_errno = errno;

	if (sig == SIGCHLD)
		got_chld = 1;
	else if (sig == SIGTSTP)
		got_tstp = reached_child(si) ? 1 : 2;
	else if (sig == SIGWINCH && fwd_pty)
		got_winch = 1;
	else
		forward(sig, si);
	errno = saved_errno;
}

int
child_signals_catch(void)
{
	struct sigaction sa, ign;
	sigset_t caught;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;   /* no SA_RESTART: a signal interrupts a blocked write */
	sigfillset(&sa.sa_mask);
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigemptyset(&caught);
	for (size_t i = 0; i < CAUGHT_COUNT; i++)
		sigaddset(&caught, caught_signals[i]);
	if (sigprocmask(SIG_BLOCK, &caught, &saved_mask) < 0)
		return -1;
	for (size_t i = 0; i < CAUGHT_COUNT; i++)
		if (sigaction(caught_signals[i], &sa, &saved_actions[i]) < 0)
			return -1;
	if (sigaction(SIGPIPE, &ign, &saved_pipe) < 0)
		return -1;
	run_mask = saved_mask;
	for (size_t i = 0; i < CAUGHT_COUNT; i++)
		sigdelset(&run_mask, caught_signals[i]);
	signals_caught = true;
	return 0;
}

/* Async-signal-safe: also used in the child between fork and exec. */
static void
restore_signals(void)
{
	for (size_t i = 0; i < CAUGHT_COUNT; i++)
		sigaction(caught_signals[i], &saved_actions[i], NULL);
	sigaction(SIGPIPE, &saved_pipe, NULL);
	sigprocmask(SIG_SETMASK, &saved_mask, NULL);
}

void
child_signals_release(void)
{
	if (!signals_caught)
		return;
	fwd_pid = 0;
	restore_signals();
	signals_caught = false;
}

int
exec_error_exit_code(int err)
{
	return err == ENOENT || err == ENOTDIR ? 127 : 126;
}

int
wait_status_exit_code(int status)
{
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

int
wait_status_signal(int status)
{
	return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

/* ---- spawning ---- */

/* dup2 that also works when from == to (clearing close-on-exec). */
static int
move_fd(int from, int to)
{
	if (from == to)
		return fcntl(to, F_SETFD, 0);
	return dup2(from, to) < 0 ? -1 : 0;
}

/* In the child: SIGTERM when the parent dies, even by SIGKILL.  The parent
 * may have died before the prctl: then getppid() is no longer the pid it
 * had before the fork, and the signal would never come. */
static void
die_with(pid_t parent)
{
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0)
		return;
	if (getppid() != parent)
		_exit(128 + SIGTERM);
}

/* In the child: descriptors, signals, exec.  Reports errno on failure. */
static void __attribute__((noreturn))
exec_child(const struct child_spec *spec, pid_t parent, int out, int err, int slave, int report)
{
	int e;

	if (spec->die_with_parent)
		die_with(parent);
	if (spec->use_pty ? pty_make_controlling(slave, spec->stderr_on_pty) < 0
	    : move_fd(out, STDOUT_FILENO) < 0)
		goto fail;
	if (err >= 0 && move_fd(err, STDERR_FILENO) < 0)
		goto fail;
	restore_signals();
	execvp(spec->argv[0], spec->argv);
fail:
	e = errno;
	while (write(report, &e, sizeof(e)) < 0 && errno == EINTR)
		continue;
	_exit(127);
}

static void
close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* A pipe whose read end (ours) is non-blocking; both ends close-on-exec. */
static int
output_pipe(int fds[2])
{
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -1;
#ifdef F_SETPIPE_SZ
	(void)fcntl(fds[0], F_SETPIPE_SZ, 1024 * 1024);  /* fewer wake-ups; best effort */
#endif
	return fcntl(fds[0], F_SETFL, O_NONBLOCK);
}

/* The child's end of each stream: pty slave and/or pipes. */
static int
open_streams(struct child *c, const struct child_spec *spec, int out[2], int err[2], int *slave)
{
	if (spec->use_pty) {
		if (pty_open(STDIN_FILENO, &c->pty_master, slave) < 0)
			return -1;
		c->fd[CHILD_OUT] = c->pty_master;
		c->stdin_open = true;
	} else {
		if (output_pipe(out) < 0)
			return -1;
		c->fd[CHILD_OUT] = out[0];
	}
	if (!spec->use_pty || !spec->stderr_on_pty) {
		if (output_pipe(err) < 0)
			return -1;
		c->fd[CHILD_ERR] = err[0];
	}
	return 0;
}

static void
child_init(struct child *c)
{
	memset(c, 0, sizeof(*c));
	c->pid = -1;
	c->fd[CHILD_OUT] = c->fd[CHILD_ERR] = -1;
	c->dest[CHILD_OUT] = STDOUT_FILENO;
	c->dest[CHILD_ERR] = STDERR_FILENO;
	c->pty_master = -1;
}

/* Waits for exec: 0 when it happened, else the child's errno. */
static int
exec_outcome(int report)
{
	int e = 0;
	ssize_t n;

	while ((n = read(report, &e, sizeof(e))) < 0 && errno == EINTR)
		continue;
	return n == (ssize_t)sizeof(e) ? e : 0;
}

static enum spawn_result
spawn_failed(struct child *c, int fds[], size_t nfds)
{
	c->error = errno;
	for (size_t i = 0; i < nfds; i++)
		close_fd(&fds[i]);
	child_close(c);
	return SPAWN_FAILED;
}

enum spawn_result
child_spawn(struct child *c, const struct child_spec *spec)
{
	int fds[7] = { -1, -1, -1, -1, -1, -1, -1 };  /* out[2], err[2], report[2], slave */
	int *out = fds, *err = fds + 2, *report = fds + 4, *slave = fds + 6;
	pid_t parent;

	child_init(c);
	if (pipe2(report, O_CLOEXEC) < 0 || open_streams(c, spec, out, err, slave) < 0)
		return spawn_failed(c, fds, 7);
	fwd_pty = spec->use_pty;
	fwd_same_group = !spec->use_pty;
	parent = getpid();
	c->pid = fork();
	if (c->pid < 0)
		return spawn_failed(c, fds, 7);
	if (c->pid == 0)
		exec_child(spec, parent, out[1], err[1], *slave, report[1]);
	fwd_pid = c->pid;
	close_fd(&out[1]);
	close_fd(&err[1]);
	close_fd(&report[1]);
	close_fd(slave);
	c->error = exec_outcome(report[0]);
	close_fd(&report[0]);
	c->tee_ok = spec->tap_tee && spec->tap != NULL && !spec->use_pty;
	if (c->error == 0)
		return SPAWN_OK;
	while (waitpid(c->pid, &c->status, 0) < 0 && errno == EINTR)
		continue;
	c->reaped = true;
	fwd_pid = 0;
	child_close(c);
	return SPAWN_EXEC_FAILED;
}

void
child_close(struct child *c)
{
	for (int i = 0; i < CHILD_STREAMS; i++)
		close_fd(&c->fd[i]);
	c->pty_master = -1;   /* it was fd[CHILD_OUT] */
}

/* ---- the pump ---- */

static void
close_stream(struct child *c, int i)
{
	if (c->fd[i] == c->pty_master)
		c->pty_master = -1;
	close_fd(&c->fd[i]);
}

/* Stops with the child (job control), then continues it when we continue. */
static void
suspend_self(struct child *c, const struct child_spec *spec)
{
	struct sigaction dfl, old;
	sigset_t tstp;

	if (spec->term != NULL)
		term_restore(spec->term);
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&tstp);
	sigaddset(&tstp, SIGTSTP);
	sigaction(SIGTSTP, &dfl, &old);
	raise(SIGTSTP);
	sigprocmask(SIG_UNBLOCK, &tstp, NULL);   /* stops here until SIGCONT */
	sigprocmask(SIG_BLOCK, &tstp, NULL);
	sigaction(SIGTSTP, &old, NULL);
	if (spec->term != NULL && spec->term->fd >= 0) {
		term_enter_raw(spec->term, spec->term->fd);
		if (c->pty_master >= 0)
			pty_copy_winsize(spec->term->fd, c->pty_master);
	}
	if (c->pid > 0 && !c->reaped)
		kill(c->pid, SIGCONT);
}

static void
handle_tstp(struct child *c, const struct child_spec *spec)
{
	int how = got_tstp;

	got_tstp = 0;
	if (how == 2 && c->pid > 0 && !c->reaped)
		kill(c->pid, SIGTSTP);
	suspend_self(c, spec);
}

static void
deadline_after(struct timespec *t, int ms)
{
	clock_gettime(CLOCK_MONOTONIC, t);
	t->tv_sec += ms / 1000;
	t->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (t->tv_nsec >= 1000000000L) {
		t->tv_sec++;
		t->tv_nsec -= 1000000000L;
	}
}

/* Time left until t, zero when past. */
static struct timespec
time_left(const struct timespec *t)
{
	struct timespec now, left = { 0, 0 };

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec > t->tv_sec || (now.tv_sec == t->tv_sec && now.tv_nsec >= t->tv_nsec))
		return left;
	left.tv_sec = t->tv_sec - now.tv_sec;
	left.tv_nsec = t->tv_nsec - now.tv_nsec;
	if (left.tv_nsec < 0) {
		left.tv_sec--;
		left.tv_nsec += 1000000000L;
	}
	return left;
}

static bool
job_control_stop(int sig)
{
	return sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/*
 * What the child wrote before it exited is all in its pipes: that much is
 * read whatever the drain bound says (a loaded machine may not run us
 * within it); only what grandchildren add later is bounded.
 */
static void
note_unread(struct child *c)
{
	for (int i = 0; i < CHILD_STREAMS; i++) {
		int n = 0;

		c->unread[i] = c->fd[i] >= 0 && ioctl(c->fd[i], FIONREAD, &n) == 0 && n > 0 ? (size_t)n : 0;
	}
}

static bool
unread_left(const struct child *c)
{
	for (int i = 0; i < CHILD_STREAMS; i++)
		if (c->fd[i] >= 0 && c->unread[i] > 0)
			return true;
	return false;
}

/* Reaps every exited child of ours; notes ours, follows its stops (pty). */
static void
reap(struct child *c, const struct child_spec *spec, struct timespec *deadline)
{
	int st;
	pid_t pid;

	while ((pid = waitpid(-1, &st, WNOHANG | (spec->use_pty ? WUNTRACED : 0))) > 0) {
		if (pid != c->pid || c->reaped)
			continue;
		if (WIFSTOPPED(st)) {
			if (job_control_stop(WSTOPSIG(st)))
				suspend_self(c, spec);
			continue;
		}
		c->status = st;
		c->reaped = true;
		c->stdin_open = false;
		fwd_pid = 0;
		note_unread(c);
		deadline_after(deadline, spec->drain_ms);
	}
}

static void
handle_flags(struct child *c, const struct child_spec *spec, struct timespec *deadline)
{
	if (got_chld) {
		got_chld = 0;
		reap(c, spec, deadline);
	}
	if (got_tstp)
		handle_tstp(c, spec);
	if (got_winch) {
		got_winch = 0;
		if (c->pty_master >= 0 && spec->term != NULL && spec->term->fd >= 0)
			pty_copy_winsize(spec->term->fd, c->pty_master);
	}
}

static void
wait_writable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };

	(void)poll(&p, 1, -1);
}

/* Writes all of buf with the caught signals deliverable; -1 when fd is gone. */
static int
write_out(struct child *c, const struct child_spec *spec, int fd, const char *p, size_t len)
{
	sigset_t blocked;
	int rc = 0;

	sigprocmask(SIG_SETMASK, &run_mask, &blocked);
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n > 0) {
			p += n;
			len -= (size_t)n;
		} else if (n < 0 && errno == EAGAIN) {
			wait_writable(fd);
		} else if (n < 0 && errno != EINTR) {
			rc = -1;
			break;
		}
		if (got_tstp)
			handle_tstp(c, spec);
	}
	sigprocmask(SIG_SETMASK, &blocked, NULL);
	return rc;
}

/* Writes out what the hold kept and stops holding. */
static void
hold_flush(struct child *c, const struct child_spec *spec, struct child_hold *h)
{
	if (c->dest[CHILD_OUT] >= 0 && h->len > 0 &&
	    write_out(c, spec, c->dest[CHILD_OUT], h->buf, h->len) < 0) {
		c->dest[CHILD_OUT] = -1;
		close_stream(c, CHILD_OUT);
	}
	free(h->buf);
	h->buf = NULL;
	h->len = 0;
	h->holding = false;
}

/* True when the hold kept the chunk; false when it is to be written now
 * (not holding, or the hold just gave up at its bound). */
static bool
hold_keep(struct child *c, const struct child_spec *spec, const char *buf, size_t n)
{
	struct child_hold *h = spec->hold;
	char *grown;

	if (!h->holding)
		return false;
	if (h->len + n > h->max || (grown = realloc(h->buf, h->len + n)) == NULL) {
		h->overflowed = true;
		hold_flush(c, spec, h);
		return false;
	}
	memcpy(grown + h->len, buf, n);
	h->buf = grown;
	h->len += n;
	return true;
}

/* Waits, signals deliverable, until fd takes bytes. */
static void
wait_writable_signals(struct child *c, const struct child_spec *spec, int fd)
{
	sigset_t blocked;

	sigprocmask(SIG_SETMASK, &run_mask, &blocked);
	wait_writable(fd);
	sigprocmask(SIG_SETMASK, &blocked, NULL);
	if (got_tstp)
		handle_tstp(c, spec);
}

enum spliced { SPLICED, UNSPLICEABLE, DEST_GONE };

/* Moves the n bytes just teed from the child's pipe to rlwrap's stdout. */
static enum spliced
splice_out(struct child *c, const struct child_spec *spec, size_t n)
{
	bool moved = false;

	while (n > 0) {
		ssize_t m = splice(c->fd[CHILD_OUT], NULL, c->dest[CHILD_OUT], NULL, n, SPLICE_F_MOVE);

		if (m > 0) {
			n -= (size_t)m;
			moved = true;
		} else if (m < 0 && errno == EAGAIN) {
			wait_writable_signals(c, spec, c->dest[CHILD_OUT]);
		} else if (m < 0 && errno == EINVAL && !moved) {
			return UNSPLICEABLE;   /* a terminal, an O_APPEND file, ... */
		} else if (m <= 0 && errno != EINTR) {
			return DEST_GONE;
		}
	}
	return SPLICED;
}

/* The n teed bytes by read and write instead (false: rlwrap's stdout is gone). */
static bool
copy_out(struct child *c, const struct child_spec *spec, size_t n, char *buf)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(c->fd[CHILD_OUT], buf + got, n - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	return write_out(c, spec, c->dest[CHILD_OUT], buf, got) == 0;
}

/* Are there bytes in the pipe (a tee that would block: the tap is full)? */
static bool
bytes_waiting(int fd)
{
	int n = 0;

	return ioctl(fd, FIONREAD, &n) == 0 && n > 0;
}

/*
 * stdout by tee(2) into the tap's pipe and splice(2) to rlwrap's stdout.
 * False when the kernel will not (nothing was relayed then): the caller
 * relays by read and write from then on.
 */
static bool
relay_tee(struct child *c, const struct child_spec *spec, char *buf)
{
	for (int round = 0; round < 8 && c->fd[CHILD_OUT] >= 0; round++) {
		ssize_t n = tee(c->fd[CHILD_OUT], spec->tap_pipe, CHILD_BUF_SIZE, SPLICE_F_NONBLOCK);
		int error = errno;
		enum spliced how = SPLICED;

		if (n < 0 && error == EINTR)
			continue;
		if (n < 0 && error == EAGAIN && bytes_waiting(c->fd[CHILD_OUT])) {
			wait_writable_signals(c, spec, spec->tap_pipe);
			continue;
		}
		if (n < 0)
			return error == EAGAIN || round > 0;
		if (n == 0) {
			close_stream(c, CHILD_OUT);
			return true;
		}
		c->unread[CHILD_OUT] = c->unread[CHILD_OUT] > (size_t)n ? c->unread[CHILD_OUT] - (size_t)n : 0;
		if ((how = splice_out(c, spec, (size_t)n)) == UNSPLICEABLE) {
			c->tee_ok = false;
			how = copy_out(c, spec, (size_t)n, buf) ? SPLICED : DEST_GONE;
		}
		if (how == DEST_GONE) {
			c->dest[CHILD_OUT] = -1;
			close_stream(c, CHILD_OUT);
		}
		spec->tap(CHILD_OUT, NULL, (size_t)n, spec->tap_arg);
		if (!c->tee_ok || (size_t)n < CHILD_BUF_SIZE)
			return true;
	}
	return true;
}

/* Reads what a stream has (a few buffers at most), relays it and taps it. */
static void
relay(struct child *c, const struct child_spec *spec, int i, char *buf)
{
	if (i == CHILD_OUT && c->tee_ok && spec->hold == NULL && c->dest[i] >= 0) {
		if (relay_tee(c, spec, buf))
			return;
		c->tee_ok = false;
	}
	for (int round = 0; round < 8 && c->fd[i] >= 0; round++) {
		ssize_t n = read(c->fd[i], buf, CHILD_BUF_SIZE);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {   /* EOF, or EIO from a pty whose slave is gone */
			close_stream(c, i);
			return;
		}
		c->unread[i] = c->unread[i] > (size_t)n ? c->unread[i] - (size_t)n : 0;
		if (i == CHILD_OUT && spec->hold != NULL && hold_keep(c, spec, buf, (size_t)n))
			;
		else if (c->dest[i] >= 0 && write_out(c, spec, c->dest[i], buf, (size_t)n) < 0) {
			/* Our reader is gone: so is the child's, as without rlwrap. */
			c->dest[i] = -1;
			close_stream(c, i);
		}
		if (spec->tap != NULL)
			spec->tap((enum child_stream)i, buf, (size_t)n, spec->tap_arg);
		if (spec->hold != NULL && spec->hold->holding && spec->hold->release)
			hold_flush(c, spec, spec->hold);
		if ((size_t)n < CHILD_BUF_SIZE)
			return;
	}
}

/* pty mode: stdin bytes into the master. */
static void
read_input(struct child *c)
{
	ssize_t n = read(STDIN_FILENO, c->input, sizeof(c->input));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n > 0) {
		c->input_len = (size_t)n;
		c->input_off = 0;
		return;
	}
	c->stdin_open = false;
	if (n == 0 && !isatty(STDIN_FILENO)) {
		/* End of piped input: end-of-file for the child's terminal too. */
		struct termios tio;

		c->input[0] = tcgetattr(c->pty_master, &tio) == 0 ? (char)tio.c_cc[VEOF] : 4;
		c->input_len = 1;
		c->input_off = 0;
	}
}

static void
write_input(struct child *c)
{
	ssize_t n = write(c->pty_master, c->input + c->input_off, c->input_len - c->input_off);

	if (n > 0)
		c->input_off += (size_t)n;
	else if (n < 0 && errno != EINTR && errno != EAGAIN)
		c->input_off = c->input_len;   /* the terminal is gone: drop it */
	if (c->input_off >= c->input_len)
		c->input_len = c->input_off = 0;
}

enum { PFD_OUT, PFD_ERR, PFD_STDIN, PFD_COUNT };

static nfds_t
build_pollfds(const struct child *c, struct pollfd pfd[PFD_COUNT])
{
	for (int i = 0; i < PFD_COUNT; i++) {
		pfd[i].fd = -1;
		pfd[i].events = 0;
		pfd[i].revents = 0;
	}
	for (int i = 0; i < CHILD_STREAMS; i++) {
		pfd[i].fd = c->fd[i];
		pfd[i].events = POLLIN;
	}
	if (c->pty_master >= 0 && c->input_len > 0)
		pfd[PFD_OUT].events |= POLLOUT;
	if (c->pty_master >= 0 && c->stdin_open && c->input_len == 0) {
		pfd[PFD_STDIN].fd = STDIN_FILENO;
		pfd[PFD_STDIN].events = POLLIN;
	}
	return PFD_COUNT;
}

static void
service(struct child *c, const struct child_spec *spec, struct pollfd pfd[PFD_COUNT], char *buf)
{
	if (pfd[PFD_STDIN].revents != 0)
		read_input(c);
	if ((pfd[PFD_OUT].revents & POLLOUT) && c->pty_master >= 0)
		write_input(c);
	for (int i = 0; i < CHILD_STREAMS; i++)
		if (pfd[i].revents & (POLLIN | POLLHUP | POLLERR))
			relay(c, spec, i, buf);
}

static bool
output_open(const struct child *c)
{
	return c->fd[CHILD_OUT] >= 0 || c->fd[CHILD_ERR] >= 0;
}

int
child_pump(struct child *c, const struct child_spec *spec)
{
	static char buf[CHILD_BUF_SIZE];
	struct pollfd pfd[PFD_COUNT];
	struct timespec deadline = { 0, 0 }, left;

	for (;;) {
		handle_flags(c, spec, &deadline);
		if (c->reaped) {
			left = time_left(&deadline);
			if (!output_open(c) || (left.tv_sec == 0 && left.tv_nsec == 0 && !unread_left(c)))
				break;
		}
		if (ppoll(pfd, build_pollfds(c, pfd), c->reaped && !unread_left(c) ? &left : NULL,
		    &run_mask) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		service(c, spec, pfd, buf);
	}
	child_close(c);
	return 0;
}
