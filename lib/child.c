/*
 * The child process: spawn with blocked signals, relay its output, forward
 * signals, follow it into job-control stops, reap it, drain its pipes.
 *
 * pty mode: rlwrap -> session leader (setsid, the pty as controlling
 * terminal) -> command (its own process group, the terminal's foreground
 * group).  The command's group has a parent in its session outside the
 * group, so it is not orphaned and the kernel lets it stop; the leader waits
 * for it with WUNTRACED, as a shell does, and reports each stop and the end
 * on a pipe.  It never execs: between fork and _exit it only makes
 * async-signal-safe calls.
 *
 * Signals stay blocked except inside ppoll(2) and while writing to rlwrap's
 * stdout/stderr (a slow reader must not delay a forwarded signal).  The
 * handler forwards the plain signals itself with kill(2), which is
 * async-signal-safe; SIGCHLD, SIGTSTP, SIGCONT and (pty mode) SIGWINCH only
 * set flags that the pump loop acts on: SIGCONT is passed on to the child
 * after the terminal is taken back (once rlwrap is in the foreground).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#ifdef HAVE_SYS_SYSMACROS_H
#include <sys/sysmacros.h>
#endif
#include <sys/wait.h>
#include <termios.h>
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
static volatile sig_atomic_t got_chld, got_winch, got_cont;
static unsigned winsize_changes;  /* read by the tap's thread too: atomic */
static volatile sig_atomic_t got_tstp;        /* 1: stop; 2: stop and forward */

/* What the session leader tells rlwrap: one record per write (atomic). */
struct leader_report {
	int kind;
	int value;
};
enum { REPORT_PID, REPORT_STOP, REPORT_EXIT };

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

	ppoll_wake();
	if (sig == SIGCHLD)
		got_chld = 1;
	else if (sig == SIGTSTP)
		got_tstp = reached_child(si) ? 1 : 2;
	else if (sig == SIGWINCH && fwd_pty)
		got_winch = 1;
	else if (sig == SIGCONT)
		got_cont = 1;   /* passed on once the terminal is taken back */
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

/* In the child: sig when the parent dies, even by SIGKILL.  The parent may
 * have died before the prctl: then getppid() is no longer the pid it had
 * before the fork, and the signal would never come. */
static void
die_with(pid_t parent, int sig)
{
	if (parent_death_signal(parent, sig) != 0)
		return;
	if (getppid() != parent)
		_exit(128 + sig);
}

/* In the command: descriptors, signals, exec.  Reports errno on failure. */
static void __attribute__((noreturn))
exec_command(const struct child_spec *spec, pid_t parent, int out, int err, int slave, int report)
{
	int e;

	if (spec->die_with_parent)
		die_with(parent, SIGTERM);
	if (spec->use_pty ? pty_enter_foreground(slave, spec->stderr_on_pty) < 0
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
send_report(int fd, int kind, int value)
{
	struct leader_report r = { kind, value };

	while (write(fd, &r, sizeof(r)) < 0 && errno == EINTR)
		continue;
}

/* The leader's life: start the command, then report its stops and its end. */
static void __attribute__((noreturn))
leader_wait(pid_t pid, int status_fd)
{
	int st;

	send_report(status_fd, REPORT_PID, (int)pid);
	for (;;) {
		if (waitpid(pid, &st, WUNTRACED) < 0) {
			if (errno == EINTR)
				continue;
			_exit(127);
		}
		if (WIFSTOPPED(st)) {
			send_report(status_fd, REPORT_STOP, WSTOPSIG(st));
			continue;
		}
		send_report(status_fd, REPORT_EXIT, st);
		_exit(0);
	}
}

/*
 * In the session leader.  fds: the child's ends (err, slave, report,
 * status write ends) and rlwrap's (master and read ends, closed here:
 * holding the master would keep the terminal from hanging up when rlwrap
 * is gone).  Signals stay blocked: the leader is not in the terminal's
 * foreground group, and rlwrap signals the command directly.
 */
static void __attribute__((noreturn))
run_leader(const struct child_spec *spec, pid_t parent, int err, int slave, int report,
    int status_fd, const int close_fds[], size_t nclose)
{
	pid_t pid, self = getpid();
	int e;

	for (size_t i = 0; i < nclose; i++)
		if (close_fds[i] >= 0)
			close(close_fds[i]);
	/* With rlwrap gone, the leader goes at once (its signals are blocked:
	 * only SIGKILL reaches it), and the command gets its SIGTERM. */
	if (spec->die_with_parent)
		die_with(parent, SIGKILL);
	if (pty_make_controlling(slave) < 0 || (pid = fork()) < 0)
		goto fail;
	if (pid == 0)
		exec_command(spec, self, -1, err, slave, report);
	(void)setpgid(pid, pid);   /* as the command does itself: no race either way */
	close(report);
	close(slave);
	if (err >= 0)
		close(err);
	leader_wait(pid, status_fd);
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

/* Does a write to fd never wait for a reader?  A regular file, or a memory
 * device such as /dev/null: a write there finishes without a signal's
 * help, so it needs no unblocking of the caught signals around it. */
static bool
fd_never_waits(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && (S_ISREG(st.st_mode) || (S_ISCHR(st.st_mode) && major(st.st_rdev) == 1));
}

static void
child_init(struct child *c)
{
	memset(c, 0, sizeof(*c));
	c->pid = -1;
	c->fd[CHILD_OUT] = c->fd[CHILD_ERR] = -1;
	c->dest[CHILD_OUT] = STDOUT_FILENO;
	c->dest[CHILD_ERR] = STDERR_FILENO;
	for (int i = 0; i < CHILD_STREAMS; i++)
		c->dest_quick[i] = fd_never_waits(c->dest[i]);
	c->pty_master = -1;
	c->leader = -1;
	c->leader_fd = -1;
	ansi_screen_init(&c->screen);
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

/* pty mode: forks the session leader; its first report names the command. */
static void
fork_leader(struct child *c, const struct child_spec *spec, int fds[10])
{
	int *err = fds + 2, *report = fds + 4, *slave = fds + 6, *status = fds + 8;
	const int theirs[] = { c->pty_master, err[0], report[0], status[0] };
	struct leader_report r;
	ssize_t n;
	pid_t parent = getpid();

	c->leader = fork();
	if (c->leader == 0)
		run_leader(spec, parent, err[1], *slave, report[1], status[1], theirs, 4);
	if (c->leader < 0)
		return;
	close_fd(&status[1]);
	while ((n = read(status[0], &r, sizeof(r))) < 0 && errno == EINTR)
		continue;
	/* No report: the leader failed before the fork; the report pipe says why. */
	c->pid = n == (ssize_t)sizeof(r) && r.kind == REPORT_PID ? (pid_t)r.value : 0;
	c->leader_fd = status[0];
	status[0] = -1;
	(void)fcntl(c->leader_fd, F_SETFL, O_NONBLOCK);
}

/* Waits for a command that could not be executed to be gone. */
static void
reap_failed(struct child *c)
{
	pid_t pid = c->leader > 0 ? c->leader : c->pid;

	while (pid > 0 && waitpid(pid, &c->status, 0) < 0 && errno == EINTR)
		continue;
	c->reaped = true;
	c->leader = -1;
	fwd_pid = 0;
	child_close(c);
}

enum spawn_result
child_spawn(struct child *c, const struct child_spec *spec)
{
	/* out[2], err[2], report[2], slave, (unused), status[2] */
	int fds[10] = { -1, -1, -1, -1, -1, -1, -1, -1, -1, -1 };
	int *out = fds, *err = fds + 2, *report = fds + 4, *slave = fds + 6, *status = fds + 8;
	pid_t parent = getpid();

	child_init(c);
	if (pipe2(report, O_CLOEXEC) < 0 || open_streams(c, spec, out, err, slave) < 0 ||
	    (spec->use_pty && pipe2(status, O_CLOEXEC) < 0))
		return spawn_failed(c, fds, 10);
	fwd_pty = spec->use_pty;
	fwd_same_group = !spec->use_pty;
	if (spec->use_pty) {
		fork_leader(c, spec, fds);
		if (c->leader < 0)
			return spawn_failed(c, fds, 10);
	} else if ((c->pid = vfork()) == 0) {
		/* vfork: no page tables copied, and none of rlwrap's pages left
		 * copy-on-write after the exec.  exec_command() touches only its
		 * own frame, and the caught signals stay blocked until it has set
		 * them back to their defaults. */
		exec_command(spec, parent, out[1], err[1], *slave, report[1]);
	} else if (c->pid < 0) {
		return spawn_failed(c, fds, 10);
	}
	fwd_pid = c->pid;
	for (int i = 0; i < 10; i++)
		if (i != 0 && i != 2 && i != 4)   /* all but the read ends */
			close_fd(&fds[i]);
	c->error = exec_outcome(report[0]);
	close_fd(&report[0]);
	c->tee_ok = spec->tap_tee && spec->tap != NULL && !spec->use_pty;
	if (c->error == 0 && c->pid > 0)
		return SPAWN_OK;
	if (c->error == 0)
		c->error = EIO;
	reap_failed(c);
	return SPAWN_EXEC_FAILED;
}

bool
child_relay_batch(bool batch)
{
#ifdef SCHED_BATCH
	struct sched_param none = { 0 };

	if (sched_getscheduler(0) != (batch ? SCHED_OTHER : SCHED_BATCH))
		return false;
	return sched_setscheduler(0, batch ? SCHED_BATCH : SCHED_OTHER, &none) == 0;
#else
	(void)batch;
	return false;
#endif
}

void
child_close(struct child *c)
{
	for (int i = 0; i < CHILD_STREAMS; i++)
		close_fd(&c->fd[i]);
	c->pty_master = -1;   /* it was fd[CHILD_OUT] */
	close_fd(&c->leader_fd);
}

/* ---- the pump ---- */

static void
close_stream(struct child *c, int i)
{
	if (c->fd[i] == c->pty_master)
		c->pty_master = -1;
	close_fd(&c->fd[i]);
}

/* Writes all of buf to a terminal (rlwrap's own bytes, not the child's). */
static void
put_all(int fd, const char *p, size_t len)
{
	while (fd >= 0 && len > 0) {
		ssize_t n = write(fd, p, len);

		if (n > 0) {
			p += n;
			len -= (size_t)n;
		} else if (n < 0 && errno == EAGAIN) {
			struct pollfd w = { .fd = fd, .events = POLLOUT };

			(void)poll(&w, 1, 1000);
		} else if (n < 0 && errno != EINTR) {
			return;
		}
	}
}

/*
 * Stops rlwrap with sig, as the default action would; returns once continued
 * (or at once, where the kernel discards the stop: an orphaned group).  A
 * child's SIGSTOP becomes SIGTSTP here: SIGSTOP is never discarded, and
 * rlwrap stopped for good with nobody to continue it would strand the
 * terminal and the child.
 */
static void
stop_self(int sig)
{
	struct sigaction dfl, old;
	sigset_t one, mask;

	if (sig == SIGSTOP)
		sig = SIGTSTP;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&one);
	sigaddset(&one, sig);
	sigaction(sig, &dfl, &old);
	sigprocmask(SIG_BLOCK, &one, &mask);
	raise(sig);
	sigprocmask(SIG_UNBLOCK, &one, NULL);   /* stops here until SIGCONT */
	sigprocmask(SIG_SETMASK, &mask, NULL);
	sigaction(sig, &old, NULL);
}

/* The command's process group (pty mode), else the command. */
static pid_t
child_target(const struct child *c)
{
	return c->leader >= 0 ? -c->pid : c->pid;
}

/* Are we in the foreground of our terminal (so we may change it, and read
 * it)?  Yes when there is none. */
static bool
in_foreground(const struct child *c, const struct child_spec *spec)
{
	int fd = spec->term != NULL && spec->term->fd >= 0 ? spec->term->fd : c->dest[CHILD_OUT];

	if (fd < 0 || !isatty(fd))
		return true;
	return tcgetpgrp(fd) == getpgrp();
}

/* The terminal as the child had it: raw, its screen, its size.  Only in
 * the foreground (bg continues us without the terminal; touching it then
 * would stop us with SIGTTOU): else when a later SIGCONT brings us there. */
static void
take_terminal(struct child *c, const struct child_spec *spec)
{
	char seq[ANSI_RESTORE_MAX];
	size_t n;
	pid_t fg;

	if (!c->terminal_given_back)
		return;
	if (!in_foreground(c, spec))
		return;
	c->terminal_given_back = false;
	n = spec->track_screen ? ansi_screen_reenter(&c->screen, seq) : 0;
	if (n > 0)
		put_all(c->dest[CHILD_OUT], seq, n);
	if (spec->term != NULL && spec->term->fd >= 0) {
		term_enter_raw(spec->term, spec->term->fd);
		if (c->pty_master >= 0 && pty_copy_winsize(spec->term->fd, c->pty_master))
			__atomic_add_fetch(&winsize_changes, 1, __ATOMIC_RELEASE);
	}
	/* Its screen was put away under it: ask it to draw it again. */
	if (n > 0 && c->pty_master >= 0 && !c->reaped && (fg = tcgetpgrp(c->pty_master)) > 0)
		kill(-fg, SIGWINCH);
	if (c->held && !c->reaped && kill(child_target(c), SIGCONT) < 0)
		kill(c->pid, SIGCONT);
	c->held = false;
}

/* Lets the signals that came while we were stopped through (the handler
 * forwards them), so the child sees them before it runs again, as it
 * would have without us. */
static void
deliver_pending(void)
{
	sigset_t blocked;

	sigprocmask(SIG_SETMASK, &run_mask, &blocked);
	sigprocmask(SIG_SETMASK, &blocked, NULL);
}

/* The terminal taken back (in the foreground), then the child running:
 * what it draws as it continues lands on its own screen, at its size. */
static void
continue_child(struct child *c, const struct child_spec *spec)
{
	take_terminal(c, spec);
	if (c->pid <= 0 || c->reaped)
		return;
	/* Still in the background: a command on the terminal itself would stop
	 * at its first draw or mode change (SIGTTOU), so it stays stopped,
	 * held, until take_terminal() finds us in the foreground; unless a
	 * signal that came meanwhile (kill %1: TERM, then CONT) is for it to
	 * act on, which it does only running. */
	if (c->terminal_given_back && c->pty_master >= 0 && !c->signalled) {
		c->held = true;
		return;
	}
	if (kill(child_target(c), SIGCONT) < 0)
		kill(c->pid, SIGCONT);
}

/* After a stop: the pending signals (the SIGCONT that ended the stop is
 * this resumption's), then the child continued. */
/* A signal for the command, come while we were stopped (not yet let through). */
static bool
signal_for_child_pending(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 };
	sigset_t pending;

	if (sigpending(&pending) != 0)
		return true;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigismember(&pending, sigs[i]) == 1)
			return true;
	return false;
}

static void
resume_child(struct child *c, const struct child_spec *spec)
{
	c->signalled = signal_for_child_pending();
	deliver_pending();
	got_cont = 0;
	continue_child(c, spec);
}

/* Stops with the child (job control), with the terminal as rlwrap found
 * it; then continues it when we continue. */
static void
suspend_self(struct child *c, const struct child_spec *spec, int sig)
{
	char seq[ANSI_RESTORE_MAX];

	if (!c->terminal_given_back) {
		if (spec->track_screen)
			put_all(c->dest[CHILD_OUT], seq, ansi_screen_restore(&c->screen, false, seq));
		if (spec->term != NULL)
			term_restore(spec->term);
		c->terminal_given_back = true;
	}
	stop_self(sig);
	/* Continued in the background (bg): stopped again as the command itself
	 * would be, for output (the shell says "Stopped (tty output)"); where
	 * the kernel discards that (an orphaned group), it is held instead. */
	if (c->pty_master >= 0 && !in_foreground(c, spec) && !signal_for_child_pending())
		stop_self(SIGTTOU);
	got_tstp = 0;   /* a stop that came with this one is done */
	resume_child(c, spec);
}

/*
 * SIGTSTP for rlwrap.  Without a pty the child shares our group: stop with
 * it (forwarding the signal when it did not reach the child).  With one,
 * the signal goes to the command's group, as the terminal's Ctrl-Z would,
 * and rlwrap stops when the command does (the leader reports it).
 */
static void
handle_tstp(struct child *c, const struct child_spec *spec)
{
	int how = got_tstp;

	got_tstp = 0;
	if (c->leader >= 0) {
		if (c->pid > 0 && !c->reaped && kill(-c->pid, SIGTSTP) < 0)
			kill(c->pid, SIGTSTP);
		return;
	}
	if (how == 2 && c->pid > 0 && !c->reaped)
		kill(c->pid, SIGTSTP);
	suspend_self(c, spec, SIGTSTP);
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

/* The command has ended with wait status st. */
static void
child_ended(struct child *c, const struct child_spec *spec, int st, struct timespec *deadline)
{
	c->status = st;
	c->reaped = true;
	c->stdin_open = false;
	fwd_pid = 0;
	note_unread(c);
	deadline_after(deadline, spec->drain_ms);
}

static char pump_buf[CHILD_BUF_SIZE];   /* what relay() reads into */
static void relay(struct child *c, const struct child_spec *spec, int i, char *buf);

/*
 * The child has stopped: what it wrote before, and what its terminal
 * echoed (the ^Z), is relayed first, so it lands on the screen it was
 * written for and the screen suspend_self() puts away is the one it left.
 * From the pump's flags only, never inside relay() (the buffer is its).
 */
static void
follow_stop(struct child *c, const struct child_spec *spec, int sig)
{
	for (int i = 0; i < CHILD_STREAMS; i++)
		if (c->fd[i] >= 0)
			relay(c, spec, i, pump_buf);
	suspend_self(c, spec, sig);
}

/* Reads what the session leader reported: stops to follow, the end. */
static void
read_reports(struct child *c, const struct child_spec *spec, struct timespec *deadline)
{
	struct leader_report r;
	ssize_t n;

	while (c->leader_fd >= 0 && !c->reaped) {
		n = read(c->leader_fd, &r, sizeof(r));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n != (ssize_t)sizeof(r)) {   /* the leader is gone */
			close_fd(&c->leader_fd);
			return;
		}
		if (r.kind == REPORT_STOP)
			follow_stop(c, spec, r.value);
		else if (r.kind == REPORT_EXIT)
			child_ended(c, spec, r.value, deadline);
	}
}

/* The session leader has ended: its last report says how the command did,
 * else (it was killed) its own status stands for the command's. */
static void
leader_ended(struct child *c, const struct child_spec *spec, int st, struct timespec *deadline)
{
	c->leader = -1;
	read_reports(c, spec, deadline);
	close_fd(&c->leader_fd);
	if (!c->reaped)
		child_ended(c, spec, st, deadline);
}

/* Reaps every exited child of ours; notes ours, follows its stops. */
static void
reap(struct child *c, const struct child_spec *spec, struct timespec *deadline)
{
	int st;
	pid_t pid;

	while ((pid = waitpid(-1, &st, WNOHANG | WUNTRACED)) > 0) {
		if (pid == c->leader && !WIFSTOPPED(st))
			leader_ended(c, spec, st, deadline);
		else if (pid == c->leader)
			kill(pid, SIGCONT);   /* the leader only waits: never leave it stopped */
		else if (pid != c->pid || c->leader >= 0 || c->reaped)
			continue;
		else if (WIFSTOPPED(st))
			follow_stop(c, spec, WSTOPSIG(st));
		else
			child_ended(c, spec, st, deadline);
	}
}

static void
handle_flags(struct child *c, const struct child_spec *spec, struct timespec *deadline)
{
	read_reports(c, spec, deadline);
	if (got_chld) {
		got_chld = 0;
		reap(c, spec, deadline);
	}
	if (got_tstp)
		handle_tstp(c, spec);
	if (got_cont) {
		got_cont = 0;
		continue_child(c, spec);
	}
	if (got_winch) {
		got_winch = 0;
		if (c->pty_master >= 0 && spec->term != NULL && spec->term->fd >= 0 &&
		    pty_copy_winsize(spec->term->fd, c->pty_master))
			__atomic_add_fetch(&winsize_changes, 1, __ATOMIC_RELEASE);
	}
}

static void
wait_writable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };

	(void)poll(&p, 1, -1);
}

/* Writes all of buf with the caught signals deliverable (but where the
 * write cannot wait: two system calls a chunk saved); -1 when fd is gone. */
static int
write_out(struct child *c, const struct child_spec *spec, int fd, const char *p, size_t len)
{
	sigset_t blocked;
	bool quick = (fd == c->dest[CHILD_OUT] && c->dest_quick[CHILD_OUT]) ||
	    (fd == c->dest[CHILD_ERR] && c->dest_quick[CHILD_ERR]);
	int rc = 0;

	if (!quick)
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
	if (!quick)
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
	if (spec->track_screen)   /* a terminal: splice(2) will not write to one */
		ansi_screen_feed(&c->screen, buf, got);
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
		if (i == CHILD_OUT && spec->track_screen)
			ansi_screen_feed(&c->screen, buf, (size_t)n);
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

/*
 * pty mode, stdin not a terminal, at its end: the child is told the way its
 * terminal mode lets it hear it.  Canonical: the EOF character at the start
 * of a line (after a second one, which ends a line in progress), so read()
 * returns 0.  Raw: a terminal has no end of input but a hangup, so once the
 * child has read all it was given, its foreground group gets SIGHUP (the
 * terminal stays open: its last words are relayed).
 */
static void
end_input(struct child *c)
{
	struct termios tio;

	c->input_ended = true;
	if (tcgetattr(c->pty_master, &tio) < 0)
		return;
	if (!(tio.c_lflag & ICANON)) {
		c->hangup_due = true;
		return;
	}
	c->input[0] = c->input[1] = (char)tio.c_cc[VEOF];
	c->input_len = c->input_mid_line ? 2 : 1;
	c->input_off = 0;
}

/* Has the child read everything written to its terminal?  Asked with
 * poll(2) on the slave, which (unlike FIONREAD) first moves in what the
 * kernel has not yet handed to the line discipline. */
static bool
input_taken(int master)
{
	char name[128];
	struct pollfd p = { .events = POLLIN };
	int n;

	if (ptsname_r(master, name, sizeof(name)) != 0 ||
	    (p.fd = open(name, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)) < 0)
		return true;
	while ((n = poll(&p, 1, 0)) < 0 && errno == EINTR)
		continue;
	close(p.fd);
	return n == 0;
}

static void
hang_up(struct child *c)
{
	pid_t fg = tcgetpgrp(c->pty_master);

	c->hangup_due = false;
	if (fg <= 0 || c->reaped)
		return;
	kill(-fg, SIGHUP);
	kill(-fg, SIGCONT);
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
		c->input_mid_line = c->input[n - 1] != '\n' && c->input[n - 1] != '\r';
		return;
	}
	c->stdin_open = false;
	if (n == 0 && !isatty(STDIN_FILENO))
		end_input(c);
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

enum { PFD_OUT, PFD_ERR, PFD_STDIN, PFD_LEADER, PFD_COUNT };

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
	/* Not while the terminal is given back: reading it from the background
	 * would stop us (SIGTTIN). */
	if (c->pty_master >= 0 && c->stdin_open && c->input_len == 0 && !c->terminal_given_back) {
		pfd[PFD_STDIN].fd = STDIN_FILENO;
		pfd[PFD_STDIN].events = POLLIN;
	}
	pfd[PFD_LEADER].fd = c->leader_fd;
	pfd[PFD_LEADER].events = POLLIN;
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

/* How long ppoll may wait: until the drain deadline once the child is gone
 * and nothing it wrote is left; in short steps while a hangup waits for the
 * child to read its input, or while we run in the background (fg of a
 * running job sends no signal: we look for the terminal); else for ever. */
static const struct timespec *
poll_timeout(const struct child *c, struct timespec *left)
{
	static const struct timespec step = { 0, 20 * 1000000L }, bg_step = { 0, 100 * 1000000L };

	if (c->reaped)
		return unread_left(c) ? NULL : left;
	if (c->hangup_due && c->input_len == 0)
		return &step;
	return c->terminal_given_back ? &bg_step : NULL;
}

/* The sooner of the pump's own timeout (NULL: none) and what is left until
 * spec->soon is due. */
static const struct timespec *
soon_timeout(const struct timespec *pump, const struct timespec *soon_at, struct timespec *out)
{
	*out = time_left(soon_at);
	if (pump != NULL && (pump->tv_sec < out->tv_sec ||
	    (pump->tv_sec == out->tv_sec && pump->tv_nsec < out->tv_nsec)))
		return pump;
	return out;
}

/* spec->soon, once it is due (*due cleared then). */
static void
soon_if_due(const struct child_spec *spec, const struct timespec *soon_at, bool *due)
{
	struct timespec left;

	if (!*due)
		return;
	left = time_left(soon_at);
	if (left.tv_sec == 0 && left.tv_nsec == 0) {
		*due = false;
		spec->soon(spec->soon_arg);
	}
}

int
child_pump(struct child *c, const struct child_spec *spec)
{
	char *buf = pump_buf;
	struct pollfd pfd[PFD_COUNT];
	struct timespec deadline = { 0, 0 }, left = { 0, 0 }, soon_at, until_soon;
	bool soon_due = spec->soon != NULL;

	if (soon_due)
		deadline_after(&soon_at, spec->soon_ms);
	for (;;) {
		soon_if_due(spec, &soon_at, &soon_due);
		handle_flags(c, spec, &deadline);
		if (c->reaped) {
			left = time_left(&deadline);
			if (!output_open(c) || (left.tv_sec == 0 && left.tv_nsec == 0 && !unread_left(c)))
				break;
		} else if (c->hangup_due && c->input_len == 0 && input_taken(c->pty_master)) {
			hang_up(c);
		}
		take_terminal(c, spec);
		if (ppoll(pfd, build_pollfds(c, pfd), soon_due ? soon_timeout(poll_timeout(c, &left),
		    &soon_at, &until_soon) : poll_timeout(c, &left), &run_mask) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		service(c, spec, pfd, buf);
	}
	child_close(c);
	return 0;
}

unsigned
child_winsize_changes(void)
{
	return __atomic_load_n(&winsize_changes, __ATOMIC_ACQUIRE);
}
