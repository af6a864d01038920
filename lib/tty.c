/* Pseudo-terminal set-up and terminal modes. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#if defined(HAVE_PTY_H)
#include <pty.h>
#elif defined(HAVE_UTIL_H)
#include <util.h>
#elif defined(HAVE_LIBUTIL_H)
#include <termios.h>
#include <libutil.h>
#endif
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "tty.h"

/* A size from $COLUMNS and $LINES, else 80x24: for a child with no
 * terminal of ours to copy. */
static void
default_winsize(struct winsize *ws)
{
	const char *cols = getenv("COLUMNS"), *lines = getenv("LINES");
	long long n;

	ws->ws_col = 80;
	ws->ws_row = 24;
	if (cols != NULL && (n = strtonum(cols, 1, USHRT_MAX, NULL)) > 0)
		ws->ws_col = (unsigned short)n;
	if (lines != NULL && (n = strtonum(lines, 1, USHRT_MAX, NULL)) > 0)
		ws->ws_row = (unsigned short)n;
}

void
pty_window_size(int like_fd, struct winsize *ws)
{
	int fds[] = { like_fd, STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO };

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (fds[i] >= 0 && ioctl(fds[i], TIOCGWINSZ, ws) == 0 && ws->ws_row > 0 && ws->ws_col > 0)
			return;
	default_winsize(ws);
}

int
pty_open(int like_fd, int *master, int *slave)
{
	struct termios tio, *tiop = NULL;
	struct winsize ws;
	int flags;

	if (like_fd >= 0 && tcgetattr(like_fd, &tio) == 0)
		tiop = &tio;
	memset(&ws, 0, sizeof(ws));
	pty_window_size(like_fd, &ws);
	if (openpty(master, slave, NULL, tiop, &ws) < 0)
		return -1;
	flags = fcntl(*master, F_GETFL);
	if (flags < 0 || fcntl(*master, F_SETFL, flags | O_NONBLOCK) < 0 ||
	    fcntl(*master, F_SETFD, FD_CLOEXEC) < 0 || fcntl(*slave, F_SETFD, FD_CLOEXEC) < 0) {
		int saved = errno;

		close(*master);
		close(*slave);
		errno = saved;
		return -1;
	}
	return 0;
}

int
pty_make_controlling(int slave)
{
	if (setsid() < 0 || ioctl(slave, TIOCSCTTY, 0) < 0)
		return -1;
	return 0;
}

int
pty_enter_foreground(int slave, bool with_stderr)
{
	sigset_t ttou, old;
	int rc;

	/* Not yet in the foreground, tcsetpgrp would stop us with SIGTTOU. */
	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	if (setpgid(0, 0) < 0 || sigprocmask(SIG_BLOCK, &ttou, &old) < 0)
		return -1;
	rc = tcsetpgrp(slave, getpid());
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (rc < 0)
		return -1;
	if (dup2(slave, STDIN_FILENO) < 0 || dup2(slave, STDOUT_FILENO) < 0)
		return -1;
	if (with_stderr && dup2(slave, STDERR_FILENO) < 0)
		return -1;
	return 0;
}

bool
pty_copy_winsize(int from, int master)
{
	struct winsize ws;

	if (ioctl(from, TIOCGWINSZ, &ws) < 0)
		return false;
	return ioctl(master, TIOCSWINSZ, &ws) == 0;
}

void
term_mode_init(struct term_mode *t)
{
	t->fd = -1;
	t->raw = false;
}

int
term_enter_raw(struct term_mode *t, int fd)
{
	struct termios raw;

	if (t->fd < 0) {
		if (tcgetattr(fd, &t->saved) < 0)
			return -1;
		t->fd = fd;
	}
	raw = t->saved;
	cfmakeraw(&raw);
	raw.c_cc[VMIN] = 1;
	raw.c_cc[VTIME] = 0;
	if (tcsetattr(fd, TCSADRAIN, &raw) < 0)
		return -1;
	t->raw = true;
	return 0;
}

void
term_restore(struct term_mode *t)
{
	if (t->fd < 0 || !t->raw)
		return;
	while (tcsetattr(t->fd, TCSADRAIN, &t->saved) < 0 && errno == EINTR)
		continue;
	t->raw = false;
}
