/* host_lease.c: renewing this host's lease in the store (host_lease.h). */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "breaker_memo.h"
#include "host_lease.h"

static double
timespec_secs(const struct timespec *t)
{
	return (double)t->tv_sec + (double)t->tv_nsec / 1e9;
}

/* The stamp's mtime, 0 when it cannot be read or was just made (empty:
 * a renewal writes its one byte). */
static double
stamp_time(int fd)
{
	struct stat st;

	if (fstat(fd, &st) != 0 || st.st_size == 0)
		return 0;
	return timespec_secs(&st.st_mtim);
}

bool
holder_lease_due(const char *stamp, double every)
{
	struct timespec now;
	double last;
	bool due;
	int fd;

	if (stamp == NULL || *stamp == '\0')
		return true;
	/* A stamp that cannot be made: renew (a lease too often costs a write,
	 * a lease never renewed frees this host's runs). */
	if ((fd = open(stamp, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600)) < 0)
		return true;
	/* Whoever holds the lock decides; the others leave it to them. */
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		close(fd);
		return false;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	last = stamp_time(fd);
	due = fabs(timespec_secs(&now) - last) >= every;
	if (due && (last > 0 || write(fd, "1", 1) != 1))
		(void)futimens(fd, NULL);
	close(fd);
	return due;
}

bool
holder_lease_renew(struct store *store, const char *stamp, const char *host, double now, double every,
    double ttl, struct store_error *err)
{
	return !holder_lease_due(stamp, every) || store_host_renew(store, host, now + ttl, err);
}

/* FNV-1a: a short stable name for a host in a file name. */
static unsigned long long
host_hash(const char *host)
{
	unsigned long long h = 14695981039346656037ULL;

	for (; *host != '\0'; host++)
		h = (h ^ (unsigned char)*host) * 1099511628211ULL;
	return h;
}

/* A file store's stamp: in the state directory (the journal's), named for
 * the file and the host, so that a spawn's gate is not a write of its
 * own to renew a lease another process of the host renewed a second ago. */
static bool
file_lease_stamp(const struct store_options *opts, const char *host, char *buf, size_t size)
{
	const char *slash = strrchr(opts->journal_path, '/');
	int k;

	if (slash == NULL)
		return false;
	k = snprintf(buf, size, "%.*s/file-%016llx-%016llx.lease", (int)(slash - opts->journal_path),
	    opts->journal_path, host_hash(opts->path), host_hash(host));
	return k > 0 && (size_t)k < size;
}

bool
holder_lease_stamp(const struct store_options *opts, const char *host, char *buf, size_t size)
{
	size_t n;
	int k;

	if (!store_is_server_url(opts->path))
		return file_lease_stamp(opts, host, buf, size);
	if (!memo_path(opts, buf, size) || (n = strlen(buf)) < 5 || strcmp(buf + n - 5, ".memo") != 0)
		return false;
	k = snprintf(buf + n - 5, size - (n - 5), "-%016llx.lease", host_hash(host));
	return k > 0 && (size_t)k < size - (n - 5);
}
