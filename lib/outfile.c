/* outfile.c: output files opened without following a symlink someone else
 * planted, never onto rlwrap's own files, never blocking. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#ifdef HAVE_SYS_SYSMACROS_H
#include <sys/sysmacros.h>
#endif
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

/* Whether a file of this kind may be written: a regular file, /dev/null or
 * a terminal (ttys, the console, ptys: Linux's majors 4, 5 and 136-143);
 * else what it is.  Nothing else is opened to find out: opening a FIFO
 * blocks, and a device may act on being opened. */
static const char *
refused_kind(const struct stat *st)
{
	struct stat null;
	unsigned maj;

	if (S_ISREG(st->st_mode))
		return NULL;
	if (S_ISCHR(st->st_mode)) {
		maj = major(st->st_rdev);
		if (stat("/dev/null", &null) == 0 && st->st_rdev == null.st_rdev)
			return NULL;
		if (maj == 4 || (maj == 5 && minor(st->st_rdev) != 2) || (maj >= 136 && maj <= 143))
			return NULL;
		return "a device";
	}
	return S_ISFIFO(st->st_mode) ? "a FIFO" : S_ISSOCK(st->st_mode) ? "a socket" :
	    S_ISDIR(st->st_mode) ? "a directory" : S_ISBLK(st->st_mode) ? "a block device" : "not a file";
}

/* path with its directory resolved (out: PATH_MAX); false when that does
 * not exist either. */
static bool
resolve_dir(const char *path, char *out)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX], real[PATH_MAX];
	int n;

	if (slash == NULL)
		strlcpy(dir, ".", sizeof(dir));
	else if (slash == path)
		strlcpy(dir, "/", sizeof(dir));
	else if ((size_t)(slash - path) < sizeof(dir))
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	else
		return false;
	if (realpath(dir, real) == NULL)
		return false;
	n = snprintf(out, PATH_MAX, "%s/%s", strcmp(real, "/") == 0 ? "" : real, slash != NULL ? slash + 1 : path);
	return n > 0 && n < PATH_MAX;
}

/* The name path stands for (out: PATH_MAX): the file it resolves to, or
 * for a dangling symlink the name that file will have, or path itself
 * with its directory resolved. */
static bool
canonical(const char *path, char *out)
{
	char cur[PATH_MAX], link[PATH_MAX], next[2 * PATH_MAX];
	ssize_t n;

	if (strlcpy(cur, path, sizeof(cur)) >= sizeof(cur))
		return false;
	for (int hops = 0; hops < 40; hops++) {
		if (realpath(cur, out) != NULL)
			return true;
		if ((n = readlink(cur, link, sizeof(link) - 1)) < 0)
			break;
		link[n] = '\0';
		if (link[0] == '/' || strrchr(cur, '/') == NULL)
			snprintf(next, sizeof(next), "%s", link);
		else
			snprintf(next, sizeof(next), "%.*s/%s", (int)(strrchr(cur, '/') - cur), cur, link);
		if (strlcpy(cur, next, sizeof(cur)) >= sizeof(cur))
			return false;
	}
	return resolve_dir(cur, out);
}

/* Which of own's files path (st: what it is, NULL when nothing) names, by
 * name or inode; NULL when none. */
static const char *
own_match(const char *path, const struct stat *st, const struct own_files *own)
{
	char name[PATH_MAX], theirs[PATH_MAX];
	bool named = canonical(path, name);
	struct stat ost;

	for (size_t i = 0; own != NULL && i < own->n; i++) {
		if (st != NULL && stat(own->file[i].path, &ost) == 0 && ost.st_dev == st->st_dev &&
		    ost.st_ino == st->st_ino)
			return own->file[i].what;
		if (named && canonical(own->file[i].path, theirs) && strcmp(name, theirs) == 0)
			return own->file[i].what;
	}
	return NULL;
}

static bool
refuse_own(const char *path, const char *what, char *err, size_t errlen)
{
	char why[128];

	snprintf(why, sizeof(why), "rlwrap's own file (%s): refused, not written", what);
	return fail(err, errlen, path, why);
}

static bool
refuse_kind(const char *path, const char *kind, char *err, size_t errlen)
{
	char why[128];

	snprintf(why, sizeof(why), "not a regular file (%s): refused, not written", kind);
	return fail(err, errlen, path, why);
}

bool
outfile_guard(const char *path, const struct own_files *own, char *err, size_t errlen)
{
	struct stat st;
	bool link, exists;
	const char *what;

	if (!allowed(path, &link, err, errlen))
		return false;
	exists = stat(path, &st) == 0;
	if (exists && (what = refused_kind(&st)) != NULL)
		return refuse_kind(path, what, err, errlen);
	if ((what = own_match(path, exists ? &st : NULL, own)) != NULL)
		return refuse_own(path, what, err, errlen);
	return true;
}

/* The guard again on what was opened (a file swapped in after the check). */
static bool
opened_allowed(int fd, const char *path, const struct own_files *own, char *err, size_t errlen)
{
	struct stat st, ost;
	const char *kind;

	if (fstat(fd, &st) != 0)
		return fail(err, errlen, path, strerror(errno));
	if ((kind = refused_kind(&st)) != NULL)
		return refuse_kind(path, kind, err, errlen);
	for (size_t i = 0; own != NULL && i < own->n; i++)
		if (stat(own->file[i].path, &ost) == 0 && ost.st_dev == st.st_dev && ost.st_ino == st.st_ino)
			return refuse_own(path, own->file[i].what, err, errlen);
	return true;
}

/* -1 (errno set) when it cannot be opened, OUTFILE_REFUSED when it may not. */
static int
open_allowed(const char *path, int flags, const struct own_files *own, char *err, size_t errlen)
{
	bool link;
	int fd;

	if (!outfile_guard(path, own, err, errlen))
		return OUTFILE_REFUSED;
	(void)allowed(path, &link, err, errlen);
	/* O_NOFOLLOW: a link planted after the check is refused all the same;
	 * O_NONBLOCK: a FIFO swapped in after it cannot hang the open */
	fd = open(path, flags | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | (link ? 0 : O_NOFOLLOW), 0600);
	if (fd < 0) {
		int saved = errno;

		fail(err, errlen, path, saved == ELOOP ? "became a symlink: not followed" : strerror(saved));
		errno = saved;
		return -1;
	}
	if (!opened_allowed(fd, path, own, err, errlen)) {
		close(fd);
		return OUTFILE_REFUSED;
	}
	(void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);   /* a terminal's writes wait */
	return fd;
}

int
outfile_open(const char *path, const struct own_files *own, char *err, size_t errlen)
{
	return open_allowed(path, O_WRONLY | O_CREAT, own, err, errlen);
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
 * (*in_place) when it is not a regular file (a terminal or /dev/null, the
 * only others the guard lets through) and is written where it is instead. */
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
outfile_check(const char *path, const struct own_files *own, char *err, size_t errlen)
{
	char target[PATH_MAX], tmp[PATH_MAX + 16];
	bool in_place;
	int fd;

	if (!outfile_guard(path, own, err, errlen) ||
	    !replace_target(path, target, sizeof(target), &in_place, err, errlen))
		return false;
	if (in_place) {
		if ((fd = open_allowed(path, O_WRONLY | O_CREAT, own, err, errlen)) < 0)
			return false;
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
write_in_place(const char *path, const struct own_files *own, const char *data, size_t len,
    char *err, size_t errlen)
{
	int fd = open_allowed(path, O_WRONLY | O_CREAT | O_TRUNC, own, err, errlen);
	bool ok;

	if (fd < 0)
		return false;
	ok = write_all(fd, data, len);
	if (close(fd) != 0 || !ok)
		return fail(err, errlen, path, strerror(errno));
	return true;
}

bool
outfile_replace(const char *path, const struct own_files *own, const char *data, size_t len,
    char *err, size_t errlen)
{
	char target[PATH_MAX], tmp[PATH_MAX + 16];
	bool in_place, ok;
	int fd;

	if (!outfile_guard(path, own, err, errlen) ||
	    !replace_target(path, target, sizeof(target), &in_place, err, errlen))
		return false;
	if (in_place)
		return write_in_place(path, own, data, len, err, errlen);
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
