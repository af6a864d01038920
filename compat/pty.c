/* pty.c: openpty(3) from POSIX's posix_openpt where no header declares it
 * (<pty.h> on Linux, <util.h> on macOS, <libutil.h> on FreeBSD). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#if !defined(HAVE_PTY_H) && !defined(HAVE_UTIL_H) && !defined(HAVE_LIBUTIL_H)
int
rlwrap_openpty(int *master, int *slave, char *name, const struct termios *tio, const struct winsize *ws)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY), s = -1, e;
	const char *path;

	if (m < 0)
		return -1;
	if (grantpt(m) != 0 || unlockpt(m) != 0 || (path = ptsname(m)) == NULL ||
	    (s = open(path, O_RDWR | O_NOCTTY)) < 0)
		goto fail;
	if ((tio != NULL && tcsetattr(s, TCSANOW, tio) != 0) ||
	    (ws != NULL && ioctl(s, TIOCSWINSZ, ws) != 0))
		goto fail;
	(void)name;   /* rlwrap passes NULL: ptsname's buffer is not kept */
	*master = m;
	*slave = s;
	return 0;
fail:
	e = errno;
	close(m);
	if (s >= 0)
		close(s);
	errno = e;
	return -1;
}
#endif
