/* outfile.c: output files opened without following a symlink someone else planted. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"

static bool
fail(char *err, size_t errlen, const char *path, const char *why)
{
	snprintf(err, errlen, "%s: %s", path, why);
	return false;
}

/* May path be opened?  *link: it is a final symlink the user (or root)
 * owns, to be followed; false when the link is someone else's. */
static bool
allowed(const char *path, bool *link, char *err, size_t errlen)
{
	struct stat st;
	char why[80];

	*link = lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
	if (!*link || st.st_uid == geteuid() || st.st_uid == 0)
		return true;
	snprintf(why, sizeof(why), "a symlink owned by uid %u, not by you: not followed", (unsigned)st.st_uid);
	return fail(err, errlen, path, why);
}

static int
open_allowed(const char *path, int flags, char *err, size_t errlen)
{
	bool link;
	int fd;

	if (!allowed(path, &link, err, errlen))
		return -1;
	/* O_NOFOLLOW: a link planted after the check is refused all the same */
	fd = open(path, flags | O_CLOEXEC | (link ? 0 : O_NOFOLLOW), 0600);
	if (fd < 0) {
		int saved = errno;

		fail(err, errlen, path, saved == ELOOP ? "became a symlink: not followed" : strerror(saved));
		errno = saved;
	}
	return fd;
}

int
outfile_open(const char *path, char *err, size_t errlen)
{
	return open_allowed(path, O_WRONLY | O_CREAT, err, errlen);
}

bool
outfile_truncate(int fd, const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && ftruncate(fd, 0) != 0)
		return fail(err, errlen, path, strerror(errno));
	return true;
}

bool
outfile_is(int fd, const char *path)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* "DIR/.NAME.XXXXXX" next to target. */
static bool
temp_name(const char *target, char *tmp, size_t size)
{
	const char *slash = strrchr(target, '/');
	int n;

	if (slash == NULL)
		n = snprintf(tmp, size, ".%s.XXXXXX", target);
	else
		n = snprintf(tmp, size, "%.*s/.%s.XXXXXX", (int)(slash - target), target, slash + 1);
	return n > 0 && (size_t)n < size;
}

/* Where a replacement goes: path, or the target of an allowed link; false
 * (*in_place) when it is not a regular file (a FIFO, a terminal, a pipe
 * through /dev/stdout) and is written where it is instead. */
static bool
replace_target(const char *path, char *target, size_t size, bool *in_place, char *err, size_t errlen)
{
	struct stat st;
	bool link;

	if (!allowed(path, &link, err, errlen))
		return false;
	*in_place = stat(path, &st) == 0 && !S_ISREG(st.st_mode);
	if (*in_place || !link) {
		strlcpy(target, path, size);
		return true;
	}
	if (realpath(path, target) == NULL) {
		*in_place = true;   /* a dangling link the user made: written through */
		strlcpy(target, path, size);
	}
	return true;
}

bool
outfile_check(const char *path, char *err, size_t errlen)
{
	char target[PATH_MAX], tmp[PATH_MAX + 16];
	bool in_place;
	int fd;

	if (!replace_target(path, target, sizeof(target), &in_place, err, errlen))
		return false;
	if (in_place) {
		if ((fd = open_allowed(path, O_WRONLY | O_CREAT | O_NONBLOCK, err, errlen)) < 0)
			return errno == ENXIO;   /* a FIFO with no reader yet */
		close(fd);
		return true;
	}
	if (!temp_name(target, tmp, sizeof(tmp)))
		return fail(err, errlen, path, "path too long");
	if ((fd = mkstemp(tmp)) < 0)
		return fail(err, errlen, path, strerror(errno));
	close(fd);
	unlink(tmp);
	return true;
}

static bool
write_all(int fd, const char *data, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, data, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		data += n;
		len -= (size_t)n;
	}
	return true;
}

static bool
write_in_place(const char *path, const char *data, size_t len, char *err, size_t errlen)
{
	int fd = open_allowed(path, O_WRONLY | O_CREAT | O_TRUNC, err, errlen);
	bool ok;

	if (fd < 0)
		return false;
	ok = write_all(fd, data, len);
	if (close(fd) != 0 || !ok)
		return fail(err, errlen, path, strerror(errno));
	return true;
}

bool
outfile_replace(const char *path, const char *data, size_t len, char *err, size_t errlen)
{
	char target[PATH_MAX], tmp[PATH_MAX + 16];
	bool in_place, ok;
	int fd;

	if (!replace_target(path, target, sizeof(target), &in_place, err, errlen))
		return false;
	if (in_place)
		return write_in_place(path, data, len, err, errlen);
	if (!temp_name(target, tmp, sizeof(tmp)))
		return fail(err, errlen, path, "path too long");
	if ((fd = mkstemp(tmp)) < 0)
		return fail(err, errlen, path, strerror(errno));
	ok = write_all(fd, data, len);
	if (close(fd) != 0 || !ok || rename(tmp, target) != 0) {
		fail(err, errlen, path, strerror(errno));
		unlink(tmp);
		return false;
	}
	return true;
}
