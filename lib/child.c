/*
 * The child process: spawn with blocked signals, and the signal handler
 * that forwards signals and raises the flags the relay (relay.c) acts on.
 *
 * pty mode: rlwrap -> session leader (setsid, the pty as controlling
 * terminal) -> command (its own process group, the terminal's foreground
 * group).  The command's group has a parent in its session outside the
 * group, so it is not orphaned and the kernel lets it stop; the leader waits
 * for it with WUNTRACED, as a shell does, and reports each stop and the end
 * on a pipe.  It never execs: between fork and _exit it only makes
 * async-signal-safe calls.
 *
 * Signals stay blocked except where the relay lets them through (inside
 * ppoll(2), and while writing to rlwrap's stdout/stderr).  The handler
 * forwards the plain signals itself with kill(2), which is
 * async-signal-safe; SIGCHLD, SIGTSTP, SIGCONT and (pty mode) SIGWINCH only
 * raise flags that the relay's loop takes (child_flag_take): SIGCONT is
 * passed on to the child after the terminal is taken back (once rlwrap is
 * in the foreground).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#ifdef HAVE_SYS_SYSMACROS_H
#include <sys/sysmacros.h>
#endif
#include <sys/wait.h>
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

void
child_close(struct child *c)
{
	for (int i = 0; i < CHILD_STREAMS; i++)
		close_fd(&c->fd[i]);
	c->pty_master = -1;   /* it was fd[CHILD_OUT] */
	close_fd(&c->leader_fd);
}


int
child_flag(enum child_flag f)
{
	switch (f) {
	case CHILD_FLAG_CHLD: return got_chld;
	case CHILD_FLAG_TSTP: return got_tstp;
	case CHILD_FLAG_CONT: return got_cont;
	case CHILD_FLAG_WINCH: return got_winch;
	}
	return 0;
}

int
child_flag_take(enum child_flag f)
{
	int v = child_flag(f);

	if (v == 0)
		return 0;
	switch (f) {
	case CHILD_FLAG_CHLD: got_chld = 0; break;
	case CHILD_FLAG_TSTP: got_tstp = 0; break;
	case CHILD_FLAG_CONT: got_cont = 0; break;
	case CHILD_FLAG_WINCH: got_winch = 0; break;
	}
	return v;
}

const sigset_t *
child_run_mask(void)
{
	return &run_mask;
}

void
child_forget(void)
{
	fwd_pid = 0;
}

void
child_winsize_note(void)
{
	__atomic_add_fetch(&winsize_changes, 1, __ATOMIC_RELEASE);
}

unsigned
child_winsize_changes(void)
{
	return __atomic_load_n(&winsize_changes, __ATOMIC_ACQUIRE);
}
