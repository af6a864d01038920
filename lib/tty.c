/* Pseudo-terminal set-up and terminal modes. */
#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "tty.h"

static bool
get_winsize(int like_fd, struct winsize *ws)
{
	int fds[] = { like_fd, STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO };

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (fds[i] >= 0 && ioctl(fds[i], TIOCGWINSZ, ws) == 0 && ws->ws_row > 0)
			return true;
	return false;
}

int
pty_open(int like_fd, int *master, int *slave)
{
	struct termios tio, *tiop = NULL;
	struct winsize ws, *wsp = NULL;
	int flags;

	if (like_fd >= 0 && tcgetattr(like_fd, &tio) == 0)
		tiop = &tio;
	memset(&ws, 0, sizeof(ws));
	if (get_winsize(like_fd, &ws))
		wsp = &ws;
	if (openpty(master, slave, NULL, tiop, wsp) < 0)
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
pty_make_controlling(int slave, bool with_stderr)
{
	if (setsid() < 0 || ioctl(slave, TIOCSCTTY, 0) < 0)
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
