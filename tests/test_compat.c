/* test_compat.c: the platform code of compat/: on the --enable-portable
 * build each fallback, on the default build the call libc has (the same
 * contract either way). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "unit.h"
#include "child.h"
#include "relay.h"

static void
test_string_functions(void **state)
{
	char buf[8] = "abc", big[16];
	static const char path[] = "a/b/c";
	const char *errstr = NULL;
	/* Through a volatile, or the compiler sees the overflow and refuses. */
	volatile size_t huge = SIZE_MAX / 2;

	(void)state;
	assert_int_equal(strlcpy(buf, "truncated", sizeof(buf)), 9);
	assert_string_equal(buf, "truncat");
	strlcpy(big, "ab", sizeof(big));
	assert_int_equal(strlcat(big, "cd", sizeof(big)), 4);
	assert_string_equal(big, "abcd");
	assert_int_equal(strlcat(buf, "x", sizeof(buf)), 8);
	assert_int_equal(strtonum("42", 0, 100, &errstr), 42);
	assert_null(errstr);
	assert_int_equal(strtonum("101", 0, 100, &errstr), 0);
	assert_string_equal(errstr, "too large");
	assert_int_equal(strtonum("-1", 0, 100, &errstr), 0);
	assert_string_equal(errstr, "too small");
	assert_int_equal(strtonum("4x", 0, 100, &errstr), 0);
	assert_string_equal(errstr, "invalid");
	(void)huge;
#ifndef __SANITIZE_ADDRESS__   /* ASan stops the process at the overflow itself */
	errno = 0;
	assert_null(reallocarray(NULL, huge, 4));
	assert_int_equal(errno, ENOMEM);
#endif
	assert_ptr_equal(memrchr(path, '/', 5), path + 3);
	assert_null(memrchr("abc", '/', 3));
	assert_string_equal(sigabbrev_np(SIGTERM), "TERM");
	assert_string_equal(sigabbrev_np(SIGWINCH), "WINCH");
	explicit_bzero(big, sizeof(big));
	assert_int_equal(big[0] | big[3] | big[15], 0);
}

static void
test_descriptor_calls(void **state)
{
	int fds[2], high;

	(void)state;
	assert_int_equal(pipe2(fds, O_CLOEXEC | O_NONBLOCK), 0);
	assert_true(fcntl(fds[0], F_GETFD) & FD_CLOEXEC);
	assert_true(fcntl(fds[1], F_GETFL) & O_NONBLOCK);
	high = fcntl(fds[0], F_DUPFD, 200);
	assert_true(high >= 200);
	assert_int_equal(fcntl(fds[1], F_DUPFD, high + 1), high + 1);
	assert_int_equal(close_range((unsigned)high, (unsigned)high + 1, 0), 0);
	assert_int_equal(fcntl(high, F_GETFD), -1);
	assert_int_equal(fcntl(high + 1, F_GETFD), -1);
	assert_true(fcntl(fds[0], F_GETFD) >= 0);
	close(fds[0]);
	close(fds[1]);
	assert_true(usable_cpus() >= 1);
}

/*
 * Parent death: a process P forks C, which asks for SIGTERM when P ends,
 * says so, and waits forever holding the write end of a pipe; P then
 * exits.  The pipe's end at the test (EOF) is C's death: nothing else
 * holds the write end (a watcher holds no descriptor).
 */
static void
test_parent_death_signal(void **state)
{
	int gone[2], armed[2];
	pid_t p, c = 0;
	struct pollfd pfd;
	char byte;
	int status;

	(void)state;
	assert_int_equal(pipe(gone), 0);
	if ((p = fork()) == 0) {
		close(gone[0]);
		if (pipe(armed) != 0 || (c = fork()) < 0)
			_exit(2);
		if (c == 0) {
			close(armed[0]);
			if (parent_death_signal(getppid(), SIGTERM) != 0)
				_exit(3);
			c = getpid();
			(void)!write(gone[1], &c, sizeof(c));
			close(armed[1]);
			for (;;)
				pause();
		}
		close(armed[1]);
		close(gone[1]);
		_exit(read(armed[0], &byte, 1) == 0 ? 0 : 4);   /* C armed, then P ends */
	}
	close(gone[1]);
	assert_int_equal(waitpid(p, &status, 0), p);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(read(gone[0], &c, sizeof(c)), (ssize_t)sizeof(c));
	pfd = (struct pollfd){ .fd = gone[0], .events = POLLIN };
	/* A generous bound that only catches a hang: C lives on if it failed. */
	if (poll(&pfd, 1, 30000) != 1 || read(gone[0], &byte, 1) != 0) {
		kill(c, SIGKILL);
		fail_msg("the child outlived its parent");
	}
	close(gone[0]);
}

static void
test_start_time(void **state)
{
	long long self = process_start_time((long)getpid());
	int go[2], status;
	pid_t pid;
	char c;

	(void)state;
	assert_true(self >= 0);
	assert_true(process_start_time((long)getpid()) == self);
	assert_true(process_start_time(0) == -1);
	assert_int_equal(pipe(go), 0);
	if ((pid = fork()) == 0) {
		close(go[1]);
		_exit(read(go[0], &c, 1) < 0);
	}
	close(go[0]);
	assert_true(process_start_time((long)pid) >= 0);
	close(go[1]);
	/* Exited, not reaped: gone already.  The bound only catches a hang. */
	for (int i = 0; i < 3000 && process_start_time((long)pid) >= 0; i++)
		usleep(10000);
	assert_true(process_start_time((long)pid) == -1);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(process_start_time((long)pid) == -1);
}

static void
test_exe_path(void **state)
{
	char got[PATH_MAX], want[PATH_MAX], prog[PATH_MAX], path[PATH_MAX * 2];

	(void)state;
	assert_true(exe_path(got, sizeof(got)));
	assert_int_equal(got[0], '/');
#ifdef __linux__
	assert_non_null(realpath("/proc/self/exe", want));
	assert_string_equal(got, want);
#endif
	/* The argv[0] search: a bare name through PATH, a path with a slash. */
	snprintf(prog, sizeof(prog), "%s/prog", tmpdir);
	write_file(prog, "#!/bin/sh\n");
	assert_int_equal(chmod(prog, 0755), 0);
	assert_non_null(realpath(prog, want));
	snprintf(path, sizeof(path), "/nonexistent:%s", tmpdir);
	assert_true(exe_path_search("prog", path, got, sizeof(got)));
	assert_string_equal(got, want);
	assert_true(exe_path_search(prog, "/nonexistent", got, sizeof(got)));
	assert_string_equal(got, want);
	assert_false(exe_path_search("prog", "/nonexistent", got, sizeof(got)));
	assert_false(exe_path_search("", path, got, sizeof(got)));
}

static volatile sig_atomic_t usr2_seen;

static void
on_usr2(int sig)
{
	(void)sig;
	usr2_seen = 1;
	ppoll_wake();
}

/* A signal pending while blocked interrupts the wait that unblocks it
 * (ppoll, or poll and the self-pipe), and sigtimedwait takes one. */
static void
test_signal_waits(void **state)
{
	struct sigaction sa = { .sa_handler = on_usr2 }, old;
	struct timespec bound = { 30, 0 }, brief = { 0, 20000000L };
	sigset_t usr2, saved, open_mask;
	int fds[2];
	struct pollfd pfd;

	(void)state;
	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);
	sigaction(SIGUSR2, &sa, &old);
	sigprocmask(SIG_BLOCK, &usr2, &saved);
	assert_int_equal(pipe(fds), 0);
	pfd = (struct pollfd){ .fd = fds[0], .events = POLLIN };
	raise(SIGUSR2);
	sigprocmask(SIG_BLOCK, NULL, &open_mask);
	sigdelset(&open_mask, SIGUSR2);
	assert_int_equal(ppoll(&pfd, 1, &bound, &open_mask), -1);
	assert_int_equal(errno, EINTR);
	assert_true(usr2_seen);
	assert_int_equal(write(fds[1], "x", 1), 1);
	assert_int_equal(ppoll(&pfd, 1, &bound, &open_mask), 1);
	assert_true(pfd.revents & POLLIN);
	raise(SIGUSR2);
	assert_int_equal(sigtimedwait(&usr2, NULL, &bound), SIGUSR2);
	assert_int_equal(sigtimedwait(&usr2, NULL, &brief), -1);
	assert_int_equal(errno, EAGAIN);
	sigprocmask(SIG_SETMASK, &saved, NULL);
	sigaction(SIGUSR2, &old, NULL);
	close(fds[0]);
	close(fds[1]);
}

static int tap_fd = -1;
static size_t tapped;

static void
count_tap(enum child_stream stream, const char *buf, size_t len, void *arg)
{
	char drop[4096];

	(void)arg;
	if (stream != CHILD_OUT)
		return;
	tapped += len;
	for (size_t left = len; buf == NULL && left > 0;) {
		ssize_t n = read(tap_fd, drop, left < sizeof(drop) ? left : sizeof(drop));

		if (n <= 0)
			break;
		left -= (size_t)n;
	}
}

/* In a process whose stdout is a pipe: the relay with the tap's tee
 * asked for.  Exits with the command's status, or 100 when the tap
 * missed bytes. */
static void __attribute__((noreturn))
relay_process(size_t want)
{
	static char sh[] = "sh", dash_c[] = "-c", script[] = "i=0; while [ $i -lt 2000 ]; do "
	    "echo 0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz"
	    "0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz; "
	    "i=$((i+1)); done; exit 7";
	char *argv[] = { sh, dash_c, script, NULL };
	struct child_spec spec = { .argv = argv, .drain_ms = CHILD_DRAIN_MS, .tap = count_tap, .tap_tee = true };
	struct child c;
	int tp[2];

	if (pipe(tp) != 0 || child_signals_catch() != 0)
		_exit(101);
	fcntl(tp[0], F_SETFL, O_NONBLOCK);
	tap_fd = tp[0];
	spec.tap_pipe = tp[1];
	if (child_spawn(&c, &spec) != SPAWN_OK || relay_pump(&c, &spec) != 0)
		_exit(102);
	child_signals_release();
	_exit(tapped != want ? 100 : wait_status_exit_code(c.status));
}

/*
 * The relay where splice(2) and tee(2) are missing (the portable build)
 * or taken (the default build): every byte reaches stdout in order, the
 * tap sees as many, the command's status comes through.
 */
static void
test_relay_without_splice(void **state)
{
	const size_t want = 2000 * 145;
	int out[2], status;
	char buf[65536];
	size_t got = 0;
	bool intact = true;
	pid_t pid;
	ssize_t n;

	(void)state;
	assert_int_equal(pipe(out), 0);
	if ((pid = fork()) == 0) {
		dup2(out[1], STDOUT_FILENO);
		close(out[0]);
		close(out[1]);
		relay_process(want);
	}
	close(out[1]);
	while ((n = read(out[0], buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++)
			intact = intact && buf[i] == ((got + (size_t)i) % 145 == 144 ? '\n' :
			    "0123456789abcdefghijklmnopqrstuvwxyz"[((got + (size_t)i) % 145) % 36]);
		got += (size_t)n;
	}
	close(out[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(got, want);
	assert_true(intact);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 7);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_string_functions),
		cmocka_unit_test(test_descriptor_calls),
		cmocka_unit_test(test_parent_death_signal),
		cmocka_unit_test(test_start_time),
		cmocka_unit_test(test_exe_path),
		cmocka_unit_test(test_signal_waits),
		cmocka_unit_test(test_relay_without_splice),
	};

	(void)argc;
	exe_path_init(argv[0]);
	return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
