/* journal.c: a server store's local journal: failing over to it, and replaying it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "holder.h"
#include "journal.h"
#include "store_backend.h"
#include "store_pg.h"

/* The server backend the journal stands in for (none without libpq). */
#ifdef HAVE_LIBPQ
static const struct store_ops *const store_server_ops = &store_pg_ops;
#else
static const struct store_ops *const store_server_ops = NULL;
#endif

/* How often a replay the server rolled back (a deadlock) is tried again. */
#define REPLAY_ATTEMPTS 8

/* busy_timeout_ms 0: a journal another process holds is skipped, not waited for. */
static bool
open_journal(const char *path, int busy_timeout_ms, struct store **out, struct store_error *err)
{
	struct store_options opts = { .busy_timeout_ms = busy_timeout_ms };

	strlcpy(opts.path, path, sizeof(opts.path));
	return store_sqlite_ops.open(&opts, out, err);
}

/*
 * "PATH.replay" exists while the journal may hold something for the server:
 * a stat() is all an open that reaches the server pays when it does not.
 * Made when a process starts using the journal and after each of its
 * commits there; removed by the replay that empties it.
 */
static void
marker_path(const char *journal_path, char *buf, size_t size)
{
	snprintf(buf, size, "%s.replay", journal_path);
}

void
journal_mark(const struct store *store)
{
	char path[PATH_MAX + 8];
	int fd;

	if (store->journal_path[0] == '\0')
		return;
	marker_path(store->journal_path, path, sizeof(path));
	if ((fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600)) >= 0)
		close(fd);
}

bool
journal_waiting(const char *journal_path)
{
	char path[PATH_MAX + 8];
	struct stat st;

	marker_path(journal_path, path, sizeof(path));
	return journal_path[0] != '\0' && stat(path, &st) == 0;
}

static void
replayer_path(const char *journal_path, char *buf, size_t size)
{
	snprintf(buf, size, "%s.replayer", journal_path);
}

int
journal_replayer_lock(const char *journal_path, bool *elsewhere, struct store_error *err)
{
	char path[PATH_MAX + 16], pid[32];
	int fd, n;

	*elsewhere = false;
	replayer_path(journal_path, path, sizeof(path));
	if (!store_make_parent_dirs(path, err))
		return -1;
	if ((fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600)) < 0) {
		set_error(err, STORE_ERR_IO, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		*elsewhere = errno == EWOULDBLOCK;
		set_error(err, STORE_ERR_LOCKED, "%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	/* The pid is for people and tests; the lock is the flock. */
	n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) == 0 && pwrite(fd, pid, (size_t)n, 0) < 0)
		errno = 0;   /* the lock holds without its note */
	return fd;
}

bool
journal_replayer_running(const char *journal_path)
{
	char path[PATH_MAX + 16];
	bool running;
	int fd;

	replayer_path(journal_path, path, sizeof(path));
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
		return false;
	running = flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
	close(fd);   /* and with it a lock taken here */
	return running;
}

/* The breaker to keep of a server's row and a journal's: the later reset
 * wins with its state and reason, counters never go back. */
static struct breaker
merged(const struct breaker *server, const struct breaker *journal)
{
	struct breaker m = journal->resets_at > server->resets_at ? *journal : *server;

	m.trips = server->trips > journal->trips ? server->trips : journal->trips;
	m.consecutive_unknown = server->consecutive_unknown > journal->consecutive_unknown ?
	    server->consecutive_unknown : journal->consecutive_unknown;
	m.last_trip_at = server->last_trip_at > journal->last_trip_at ? server->last_trip_at : journal->last_trip_at;
	m.updated_at = server->updated_at > journal->updated_at ? server->updated_at : journal->updated_at;
	if (journal->resets_at > server->resets_at)
		memset(&m.lease, 0, sizeof(m.lease));
	return m;
}

static bool
merge_breaker(struct store *server, const struct breaker *jb, struct store_error *err)
{
	struct breaker *rows, m = *jb;
	size_t count;
	bool ok;

	if (!server->ops->breakers_of(server, jb->key.account, jb->key.family, &rows, &count, err))
		return false;
	for (size_t i = 0; i < count; i++)
		if (strcmp(rows[i].key.scope, jb->key.scope) == 0)
			m = merged(&rows[i], jb);
	free(rows);
	if (m.lease.pid != 0 && strcmp(m.lease.host, jb->lease.host) == 0 && m.lease.pid == jb->lease.pid)
		memset(&m.lease, 0, sizeof(m.lease));
	ok = server->ops->breaker_save(server, &m, err) &&
	    server->ops->history_add(server, &m, "replay", 0, m.updated_at, err);
	return ok;
}

struct replay {
	struct store *server;
	struct store_error *err;
	long runs;
	bool ok;
};

/* Runs still running on this machine stay in the journal: their wrapper
 * completes them there, and a later replay carries them. */
static bool
replay_run(const struct run_row *row, void *arg)
{
	struct replay *r = arg;

	if (strcmp(row->state, "running") == 0 || row->uid[0] == '\0')
		return true;
	r->ok = r->server->ops->run_merge(r->server, row, r->err);
	r->runs += r->ok;
	return r->ok;
}

/*
 * The journal's budget counters, under the journal's own origin (host and
 * path): raised to the journal's amounts, never added.  The journal keeps
 * its counters after a replay (they leave with their windows), so a row
 * replayed again, whole or grown by a later outage, counts once; a row
 * that shrank since (a settlement) keeps the larger count, erring towards
 * full like every bucket.
 */
static bool
replay_budgets(struct store *server, struct store *journal, struct store_error *err)
{
	struct budget_bucket *rows;
	size_t count;
	char origin[PATH_MAX + 256 + 2];
	bool ok = true;

	if (server->ops->budget_merge == NULL)
		return true;
	if (!journal->ops->budget_buckets(journal, NULL, NULL, &rows, &count, err))
		return false;
	holder_local_host(origin, 256);
	strlcat(origin, ":", sizeof(origin));
	strlcat(origin, journal->path, sizeof(origin));
	for (size_t i = 0; ok && i < count; i++)
		ok = server->ops->budget_merge(server, origin, &rows[i], err);
	free(rows);
	return ok;
}

/* One attempt: the journal's breakers, runs and budget counters into the
 * server, in one transaction of the server's. */
static bool
replay_once(struct store *server, struct store *journal, long *runs, long *breakers, struct store_error *err)
{
	struct replay r = { .server = server, .err = err, .ok = true };
	struct run_filter all;
	struct breaker *rows;
	size_t count;
	bool ok;

	if (!journal->ops->breakers_all(journal, &rows, &count, err))
		return false;
	if (!server->ops->begin(server, err)) {
		free(rows);
		return false;
	}
	server->in_transaction = true;
	ok = true;
	for (size_t i = 0; ok && i < count; i++)
		ok = merge_breaker(server, &rows[i], err);
	free(rows);
	run_filter_init(&all);
	ok = ok && journal->ops->runs_each(journal, &all, replay_run, &r, err) && r.ok &&
	    replay_budgets(server, journal, err);
	server->in_transaction = false;
	if (!ok) {
		server->ops->rollback(server);
		return false;
	}
	*runs = r.runs;
	*breakers = (long)count;
	return server->ops->commit(server, err);
}

/*
 * The journal, when there is one, into the server, then cleared; the
 * journal is locked throughout (BEGIN IMMEDIATE), so that two rlwrap on
 * this machine never replay it both.  A failure leaves it for the next.
 */
static bool
replay(struct store *server, struct store_error *err)
{
	char marker[PATH_MAX + 8];
	struct store *journal;
	struct stat st;
	bool ok = false;

	marker_path(server->journal_path, marker, sizeof(marker));
	if (server->journal_path[0] == '\0' || stat(marker, &st) != 0)
		return true;
	if (!open_journal(server->journal_path, 0, &journal, err))
		return false;
	if (!journal->ops->begin(journal, err)) {
		journal->ops->close(journal);
		return err->status == STORE_ERR_LOCKED;   /* another process is at it */
	}
	/* Inside the lock: a writer after this commit makes it again. */
	unlink(marker);
	for (int attempt = 1; !ok && attempt <= REPLAY_ATTEMPTS; attempt++) {
		ok = replay_once(server, journal, &server->replayed_runs, &server->replayed_breakers, err);
		if (!ok && err->status != STORE_ERR_RETRY)
			break;
	}
	ok = ok && journal->ops->clear_replayed(journal, err) && journal->ops->commit(journal, err);
	if (!ok) {
		journal->ops->rollback(journal);
		journal_mark(server);
	}
	journal->ops->close(journal);
	return ok;
}

/*
 * The store's own breaker: "PATH.away" (beside the journal) is touched when
 * the server did not answer; for the window after its mtime the opens of
 * this host go to the journal without asking the server again, so that an
 * outage costs one connect timeout per window, not one per spawn.  The
 * first open after the window asks.  $RLWRAP_STORE_AWAY_MS sets the window
 * (tests; 0 turns it off).
 */
static double
away_window(void)
{
	const char *env = getenv("RLWRAP_STORE_AWAY_MS");
	const char *bad = NULL;
	long long ms;

	if (env == NULL || *env == '\0')
		return JOURNAL_AWAY_SECS;
	ms = strtonum(env, 0, 3600000, &bad);
	return bad != NULL ? JOURNAL_AWAY_SECS : (double)ms / 1000;
}

static void
away_path(const char *journal_path, char *buf, size_t size)
{
	snprintf(buf, size, "%s.away", journal_path);
}

/* Seconds since the server last did not answer, within the window; -1 else. */
static double
away_since(const char *journal_path)
{
	char path[PATH_MAX + 8];
	struct timespec now;
	struct stat st;
	double ago;

	away_path(journal_path, path, sizeof(path));
	if (stat(path, &st) != 0)
		return -1;
	clock_gettime(CLOCK_REALTIME, &now);
	ago = (double)(now.tv_sec - st.st_mtim.tv_sec) + (double)(now.tv_nsec - st.st_mtim.tv_nsec) / 1e9;
	return ago >= 0 && ago < away_window() ? ago : -1;
}

static void
away_note(const char *journal_path)
{
	char path[PATH_MAX + 8];
	int fd;

	away_path(journal_path, path, sizeof(path));
	if ((fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600)) >= 0) {
		(void)futimens(fd, NULL);
		close(fd);
	}
}

/* The server could not be reached: the journal stands in for it. */
static bool
open_in_place_of(const struct store_options *opts, struct store **out, struct store_error *err)
{
	struct store_error journal_err;
	char why[512];

	strlcpy(why, err->message, sizeof(why));
	if (!open_journal(opts->journal_path, STORE_BUSY_TIMEOUT_MS, out, &journal_err))
		return false;
	strlcpy((*out)->journal_path, opts->journal_path, sizeof((*out)->journal_path));
	journal_mark(*out);
	snprintf((*out)->notice, sizeof((*out)->notice), "%.200s; recording in the local journal "
	    "%.200s until the server answers again", why, opts->journal_path);
	/* What status shows: the server this journal stands in for. */
#ifdef HAVE_LIBPQ
	pg_display_url(opts->path, (*out)->server, sizeof((*out)->server));
#endif
	err->status = STORE_OK;
	return true;
}

bool
journal_open_server(const struct store_options *opts, struct store **out, struct store_error *err)
{
	struct store_error replay_err;
	double ago;

	if (store_server_ops == NULL)
		return set_error(err, STORE_ERR_UNSUPPORTED, "PostgreSQL stores are not supported by this build "
		    "(built without libpq)");
	if (opts->trust_away && !opts->read_only && opts->journal_path[0] != '\0' &&
	    (ago = away_since(opts->journal_path)) >= 0) {
		set_error(err, STORE_ERR_UNREACHABLE, "the server did not answer %.1f s ago (not asked again for "
		    "%.0f s)", ago, away_window());
		return open_in_place_of(opts, out, err);
	}
	if (store_server_ops->open(opts, out, err)) {
		strlcpy((*out)->journal_path, opts->journal_path, sizeof((*out)->journal_path));
		if (!opts->read_only && !replay(*out, &replay_err))
			snprintf((*out)->notice, sizeof((*out)->notice), "the local journal %.200s could not be "
			    "replayed yet: %.250s", opts->journal_path, replay_err.message);
		return true;
	}
	if (err->status != STORE_ERR_UNREACHABLE || opts->journal_path[0] == '\0' || opts->read_only)
		return false;
	if (!open_in_place_of(opts, out, err))
		return false;
	away_note(opts->journal_path);   /* after the journal made its directory */
	return true;
}

bool
journal_fail_over(struct store *store, struct store_error *err)
{
	struct store_error journal_err;
	char why[512];

	if (store->journal_path[0] == '\0' || store->ops->run_merge == NULL)
		return false;
	strlcpy(why, err->message, sizeof(why));
	if (store->journal == NULL &&
	    !open_journal(store->journal_path, STORE_BUSY_TIMEOUT_MS, &store->journal, &journal_err))
		return false;
	store->on_journal = true;
	journal_mark(store);
	away_note(store->journal_path);
	snprintf(store->notice, sizeof(store->notice), "%.200s; recording in the local journal %.200s "
	    "until the server answers again", why, store->journal_path);
	return true;
}

static bool
count_pending(const struct run_row *row, void *arg)
{
	long *runs = arg;

	*runs += strcmp(row->state, "running") != 0;
	return true;
}

bool
store_journal_state(struct store *store, struct journal_state *out, struct store_error *err)
{
	struct store *journal = NULL;
	struct run_filter all;
	struct breaker *rows;
	struct stat st;
	size_t count;
	bool ok;

	memset(out, 0, sizeof(*out));
	strlcpy(out->server, store->server[0] != '\0' ? store->server :
	    store->ops->run_merge != NULL ? store->path : "", sizeof(out->server));
	if (out->server[0] == '\0')
		return true;
	strlcpy(out->path, store->journal_path, sizeof(out->path));
	out->in_use = store->on_journal || store->server[0] != '\0';
	out->replayed_runs = store->replayed_runs;
	out->replayed_breakers = store->replayed_breakers;
	if (out->path[0] == '\0' || stat(out->path, &st) != 0)
		return true;
	journal = store->server[0] != '\0' ? store : store->journal;
	if (journal == NULL && !open_journal(out->path, STORE_BUSY_TIMEOUT_MS, &journal, err))
		return false;
	run_filter_init(&all);
	ok = journal->ops->breakers_all(journal, &rows, &count, err) &&
	    journal->ops->runs_each(journal, &all, count_pending, &out->pending_runs, err);
	if (ok) {
		out->pending_breakers = (long)count;
		free(rows);
	}
	if (journal != store && journal != store->journal)
		journal->ops->close(journal);
	return ok;
}

bool
store_on_journal(const struct store *store)
{
	return store->on_journal || store->server[0] != '\0';
}

const char *
store_take_notice(struct store *store, char *buf, size_t size)
{
	strlcpy(buf, store->notice, size);
	store->notice[0] = '\0';
	return buf;
}
