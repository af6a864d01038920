/* store_sqlite.c: the SQLite backend: the state file, its migrations, and the rows. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "outcome.h"
#include "runs_table.h"
#include "store_backend.h"
#include "store_sqlite.h"

/* Schema steps: step i takes user_version i to i + 1.  Never edit a step
 * that has shipped; add one. */
static const char *const schema_steps[STORE_SCHEMA_VERSION] = {
	/* 0 -> 1: breakers, their history, the run history. */
	"CREATE TABLE breakers (account TEXT NOT NULL, family TEXT NOT NULL, scope TEXT NOT NULL,"
	" state TEXT NOT NULL DEFAULT 'closed', reason TEXT, resets_at REAL, reset_source TEXT,"
	" trips INTEGER NOT NULL DEFAULT 0, consecutive_unknown INTEGER NOT NULL DEFAULT 0,"
	" last_trip_at REAL, last_message TEXT, updated_at REAL,"
	" PRIMARY KEY (account, family, scope));"
	"CREATE TABLE breaker_history (id INTEGER PRIMARY KEY, at REAL NOT NULL, account TEXT NOT NULL,"
	" family TEXT NOT NULL, scope TEXT NOT NULL, event TEXT NOT NULL, state TEXT NOT NULL,"
	" reason TEXT, resets_at REAL, reset_source TEXT, trips INTEGER, run_id INTEGER, message TEXT);"
	"CREATE INDEX breaker_history_at ON breaker_history (at);"
	"CREATE TABLE runs (id INTEGER PRIMARY KEY, argv TEXT, cwd TEXT, family TEXT, model TEXT,"
	" account TEXT, started_at REAL, ended_at REAL, exit_code INTEGER, term_signal INTEGER,"
	" reason TEXT, confidence REAL, terminal INTEGER, scope TEXT, http_status INTEGER,"
	" error_type TEXT, limit_type TEXT, resets_at REAL, reset_source TEXT, message TEXT,"
	" line INTEGER, after_output INTEGER, input_tokens INTEGER, output_tokens INTEGER, cost_usd REAL);"
	"CREATE INDEX runs_started_at ON runs (started_at);",
	/* 1 -> 2: probe leases, waits and refusals, what recover needs. */
	"ALTER TABLE breakers ADD COLUMN probe_pid INTEGER;"
	"ALTER TABLE breakers ADD COLUMN probe_start_time INTEGER;"
	"ALTER TABLE breakers ADD COLUMN probe_host TEXT;"
	"ALTER TABLE breakers ADD COLUMN probe_expires REAL;"
	"ALTER TABLE runs ADD COLUMN argv_redacted INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE runs ADD COLUMN source TEXT;"
	"ALTER TABLE runs ADD COLUMN recovered_by INTEGER;"
	"CREATE INDEX runs_family_started_at ON runs (family, started_at);"
	"CREATE TABLE waits (id INTEGER PRIMARY KEY, at REAL NOT NULL, kind TEXT NOT NULL,"
	" account TEXT, family TEXT, scope TEXT, model TEXT, reason TEXT, resets_at REAL,"
	" reset_source TEXT, until REAL, pid INTEGER);"
	"CREATE INDEX waits_at ON waits (at);",
	/* 2 -> 3: runs from spawn to exit (state NULL: finished, from before),
	 * their owners' liveness, the queue for concurrency slots. */
	"ALTER TABLE runs ADD COLUMN state TEXT;"
	"ALTER TABLE runs ADD COLUMN host TEXT;"
	"ALTER TABLE runs ADD COLUMN pid INTEGER;"
	"ALTER TABLE runs ADD COLUMN pid_start_time INTEGER;"
	"ALTER TABLE runs ADD COLUMN alive_until REAL;"
	"CREATE INDEX runs_running ON runs (account, family) WHERE state = 'running';"
	"CREATE TABLE slot_queue (id INTEGER PRIMARY KEY, at REAL NOT NULL, account TEXT NOT NULL,"
	" family TEXT NOT NULL, model TEXT, host TEXT NOT NULL, pid INTEGER NOT NULL,"
	" pid_start_time INTEGER, alive_until REAL NOT NULL);"
	"ALTER TABLE waits ADD COLUMN host TEXT;"
	"ALTER TABLE waits ADD COLUMN ended_at REAL;",
	/* 3 -> 4: a run's identity, the same in a server's local journal and on
	 * the server, so that a replay never records a run twice (the server's
	 * unique index sees to that; a file needs none). */
	"ALTER TABLE runs ADD COLUMN uid TEXT;",
	/* 4 -> 5: the exact argv (the JSON argv is for reading), recover's claims. */
	"ALTER TABLE runs ADD COLUMN argv_exact TEXT;"
	"ALTER TABLE runs ADD COLUMN claim_pid INTEGER;"
	"ALTER TABLE runs ADD COLUMN claim_start_time INTEGER;"
	"ALTER TABLE runs ADD COLUMN claim_host TEXT;"
	"ALTER TABLE runs ADD COLUMN claimed_at REAL;",
	/* 5 -> 6: budget counters, one row per key, width and bucket. */
	"CREATE TABLE budget_counters (account TEXT NOT NULL, family TEXT NOT NULL, width REAL NOT NULL,"
	" bucket REAL NOT NULL, tokens REAL NOT NULL DEFAULT 0, usd REAL NOT NULL DEFAULT 0,"
	" runs REAL NOT NULL DEFAULT 0, PRIMARY KEY (account, family, width, bucket));",
	/* 6 -> 7: max_concurrent = auto, one limit per key. */
	"CREATE TABLE adaptive_limits (account TEXT NOT NULL, family TEXT NOT NULL,"
	" limit_now INTEGER NOT NULL, successes INTEGER NOT NULL DEFAULT 0, changed_at REAL NOT NULL,"
	" why TEXT, PRIMARY KEY (account, family));",
	/* 7 -> 8: budget counters per model too (model-scoped budgets), and per
	 * origin (a server's replayed journals; here always ""). */
	"CREATE TABLE budget_buckets (account TEXT NOT NULL, family TEXT NOT NULL,"
	" model TEXT NOT NULL DEFAULT '', width REAL NOT NULL, bucket REAL NOT NULL,"
	" origin TEXT NOT NULL DEFAULT '', tokens REAL NOT NULL DEFAULT 0, usd REAL NOT NULL DEFAULT 0,"
	" runs REAL NOT NULL DEFAULT 0, PRIMARY KEY (account, family, model, width, bucket, origin));"
	"INSERT INTO budget_buckets (account, family, width, bucket, tokens, usd, runs)"
	" SELECT account, family, width, bucket, tokens, usd, runs FROM budget_counters;"
	"DROP TABLE budget_counters;",
	/* 8 -> 9: recovery's chain (a re-run names its origin), the
	 * account's environment, the writer's signature, refusals, and why
	 * recover gave up on a run. */
	"ALTER TABLE runs ADD COLUMN origin INTEGER;"
	"ALTER TABLE runs ADD COLUMN env TEXT;"
	"ALTER TABLE runs ADD COLUMN hmac TEXT;"
	"ALTER TABLE runs ADD COLUMN refused_by TEXT;"
	"ALTER TABLE runs ADD COLUMN recover_note TEXT;"
	"CREATE INDEX runs_origin ON runs (origin) WHERE origin IS NOT NULL;"
	"ALTER TABLE breakers ADD COLUMN ramp_started REAL;"
	"ALTER TABLE breakers ADD COLUMN ramp_released INTEGER;",
	/* 9 -> 10: the agents' usage readings, the newest per key and window. */
	"CREATE TABLE usage_readings (account TEXT NOT NULL, family TEXT NOT NULL, win TEXT NOT NULL,"
	" model TEXT NOT NULL DEFAULT '', window_secs REAL, used REAL, status TEXT, resets_at REAL,"
	" at REAL NOT NULL, PRIMARY KEY (account, family, win));",
	/* 10 -> 11: host leases (holder.h): a host's runs live while it renews. */
	"CREATE TABLE hosts (host TEXT PRIMARY KEY, alive_until REAL NOT NULL);",
	/* 11 -> 12: a slot waiter's look at the head of its key's queue is one
	 * indexed row (the server's reason; here it keeps both schemas alike). */
	"CREATE INDEX IF NOT EXISTS slot_queue_key ON slot_queue (account, family, id);",
};

static bool sqlite_begin(struct store *store, struct store_error *err);
static bool sqlite_commit(struct store *store, struct store_error *err);
static void sqlite_rollback(struct store *store);
static void sqlite_close(struct store *store);

bool
db_error(struct store_error *err, const char *path, sqlite3 *db, int rc, const char *doing)
{
	const char *why = db != NULL ? sqlite3_errmsg(db) : sqlite3_errstr(rc);

	switch (rc & 0xff) {
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return set_error(err, STORE_ERR_LOCKED, "%s: %s: locked by another process past the busy timeout (%s)",
		    path, doing, why);
	case SQLITE_READONLY:
	case SQLITE_PERM:
		return set_error(err, STORE_ERR_READONLY, "%s: %s: not writable (%s)", path, doing, why);
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
		return set_error(err, STORE_ERR_CORRUPT, "%s: %s: corrupt or not a database (%s)", path, doing, why);
	case SQLITE_CANTOPEN:
		return set_error(err, STORE_ERR_OPEN, "%s: %s: cannot open (%s)", path, doing, why);
	default:
		return set_error(err, STORE_ERR_IO, "%s: %s: %s", path, doing, why);
	}
}

/* Creates the file 0600 when it does not exist yet (SQLite would use 0644). */
static bool
create_file(const char *path, struct store_error *err)
{
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	if (fd >= 0) {
		close(fd);
		return true;
	}
	if (errno == EEXIST)
		return true;
	return set_error(err, errno == EACCES || errno == EROFS ? STORE_ERR_READONLY : STORE_ERR_OPEN,
	    "%s: cannot create: %s", path, strerror(errno));
}

static bool
read_version(struct store *store, int *version, struct store_error *err)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db_of(store), "PRAGMA user_version", -1, &st, NULL);

	if (rc != SQLITE_OK)
		return db_error(err, store->path, db_of(store), rc, "reading the schema version");
	rc = sqlite3_step(st);
	*version = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return db_error(err, store->path, db_of(store), rc, "reading the schema version");
	return true;
}

/* An unversioned file that already has tables is someone else's database. */
static bool
check_foreign(struct store *store, struct store_error *err)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db_of(store), "SELECT count(*) FROM sqlite_master", -1, &st, NULL);
	int tables;

	if (rc != SQLITE_OK)
		return db_error(err, store->path, db_of(store), rc, "reading the schema");
	rc = sqlite3_step(st);
	tables = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return db_error(err, store->path, db_of(store), rc, "reading the schema");
	if (tables > 0)
		return set_error(err, STORE_ERR_CORRUPT, "%s: not an rlwrap state file (tables but no schema version)",
		    store->path);
	return true;
}

static bool
exec_sql(struct store *store, const char *sql, const char *doing, struct store_error *err)
{
	int rc = sqlite3_exec(db_of(store), sql, NULL, NULL, NULL);

	return rc == SQLITE_OK || db_error(err, store->path, db_of(store), rc, doing);
}

/* Brings the schema to STORE_SCHEMA_VERSION inside one BEGIN IMMEDIATE. */
static bool
migrate(struct store *store, struct store_error *err)
{
	char sql[64];
	int version;

	if (!sqlite_begin(store, err))
		return false;
	if (!read_version(store, &version, err) || (version == 0 && !check_foreign(store, err)))
		goto fail;
	for (; version < STORE_SCHEMA_VERSION; version++)
		if (!exec_sql(store, schema_steps[version], "migrating the schema", err))
			goto fail;
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", STORE_SCHEMA_VERSION);
	if (!exec_sql(store, sql, "migrating the schema", err) || !sqlite_commit(store, err))
		goto fail;
	store->version = STORE_SCHEMA_VERSION;
	return true;
fail:
	sqlite_rollback(store);
	return false;
}

/* "file:PATH?immutable=1": a WAL file we cannot write (nor its -shm) is still
 * readable as a snapshot. */
static bool
immutable_uri(const char *path, char *uri, size_t size)
{
	size_t n = strlcpy(uri, "file:", size);
	int w;

	for (; *path != '\0'; path++, n += (size_t)w) {
		if (strchr("?#%", *path) != NULL)
			w = snprintf(uri + n, size - n, "%%%02X", (unsigned char)*path);
		else
			w = snprintf(uri + n, size - n, "%c", *path);
		if (w < 0 || (size_t)w >= size - n)
			return false;
	}
	return strlcat(uri, "?immutable=1", size) < size;
}

/*
 * WAL frames: every process that opens the store first (nobody else has it
 * open) indexes the whole WAL again, so a closing process empties it once it
 * holds WAL_FRAMES_KEPT frames; a long-lived one checkpoints at SQLite's own
 * default on the way.
 */
#define WAL_FRAMES_KEPT 64
#define WAL_FRAMES_MAX 1000

/* After each commit: how many frames the WAL holds now. */
static int
note_wal_frames(void *arg, sqlite3 *db, const char *name, int frames)
{
	((struct sqlite_store *)arg)->wal_frames = frames;
	if (frames >= WAL_FRAMES_MAX)
		sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
	return SQLITE_OK;
}

/* SQLite counts every allocation under a global mutex for sqlite3_status(),
 * which rlwrap never asks: a fifth of the library's own instructions in a
 * short run.  Takes effect only before the library's first use (the first
 * open, before any thread of ours opens a store); later calls are refused
 * harmlessly. */
static void
configure_library(void)
{
	static bool done;

	if (!done)
		(void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	done = true;
}

/* Only a regular file is a store (SQLite would write /dev/null-journal
 * next to /dev/null), and a named path's directory must exist. */
static bool
check_path(const struct store_options *opts, struct store_error *err)
{
	char dir[PATH_MAX], *slash;
	struct stat st;
	bool missing;

	if (stat(opts->path, &st) == 0)
		return S_ISREG(st.st_mode) ? true : set_error(err, STORE_ERR_OPEN,
		    "%s: not a regular file (%s): a state file is a file of its own", opts->path,
		    S_ISDIR(st.st_mode) ? "a directory" : S_ISCHR(st.st_mode) ? "a device" : "a special file");
	if (!opts->parent_must_exist || opts->read_only)
		return true;
	strlcpy(dir, opts->path, sizeof(dir));
	if ((slash = strrchr(dir, '/')) == NULL || slash == dir)
		return true;
	*slash = '\0';
	errno = 0;
	if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
		return true;
	missing = errno == ENOENT;   /* stat failed, or errno 0 after a success (not a directory) */
	return set_error(err, STORE_ERR_OPEN, "%s: %s %s; only the default location's directory is "
	    "created", opts->path, dir, missing ? "does not exist" : "is not a directory");
}

static bool
open_db(struct sqlite_store *sq, const struct store_options *opts, struct store_error *err)
{
	int flags = opts->read_only ? SQLITE_OPEN_READONLY | SQLITE_OPEN_URI : SQLITE_OPEN_READWRITE;
	char uri[PATH_MAX + 32];
	int rc;

	if (!check_path(opts, err))
		return false;
	if (!opts->read_only && (!store_make_parent_dirs(opts->path, err) || !create_file(opts->path, err)))
		return false;
	configure_library();
	if (opts->read_only && !immutable_uri(opts->path, uri, sizeof(uri)))
		return set_error(err, STORE_ERR_OPEN, "%s: path too long", opts->path);
	rc = sqlite3_open_v2(opts->read_only ? uri : opts->path, &sq->db, flags | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK)
		return db_error(err, opts->path, sq->db, rc, "opening");
	sqlite3_busy_timeout(sq->db, opts->busy_timeout_ms);
	if (!opts->read_only && sqlite3_db_readonly(sq->db, "main") == 1)
		return set_error(err, STORE_ERR_READONLY, "%s: not writable (opened read-only)", opts->path);
	/* The WAL stays between runs (docs/design.md section 6): the last
	 * connection to close neither checkpoints nor deletes it, unless
	 * sqlite_close() says so; note_wal_frames() replaces the autocheckpoint. */
	sqlite3_db_config(sq->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)NULL);
	sqlite3_wal_hook(sq->db, note_wal_frames, sq);
	return true;
}

/* The journal mode in force ("wal", "delete", ...); false when it cannot be read. */
static bool
journal_mode(struct store *store, char *mode, size_t size, int *rc)
{
	sqlite3_stmt *st;

	*rc = sqlite3_prepare_v2(db_of(store), "PRAGMA journal_mode", -1, &st, NULL);
	if (*rc != SQLITE_OK)
		return false;
	if ((*rc = sqlite3_step(st)) == SQLITE_ROW)
		column_text(st, 0, mode, size);
	sqlite3_finalize(st);
	return *rc == SQLITE_ROW;
}

/*
 * Switching to WAL needs the database to itself, and SQLite answers BUSY at
 * once (without the busy handler) when that would deadlock with another
 * opener doing the same; so the switch is retried for the busy timeout, and
 * skipped when another process already made it.
 */
static bool
enable_wal(struct store *store, int timeout_ms, struct store_error *err)
{
	char mode[16] = "";
	int rc = SQLITE_OK;

	for (int waited = 0; !journal_mode(store, mode, sizeof(mode), &rc) || strcmp(mode, "wal") != 0;
	    waited += 20) {
		if (rc == SQLITE_ROW)
			rc = sqlite3_exec(db_of(store), "PRAGMA journal_mode = WAL", NULL, NULL, NULL);
		if (rc == SQLITE_OK && journal_mode(store, mode, sizeof(mode), &rc) && strcmp(mode, "wal") != 0)
			return set_error(err, STORE_ERR_IO, "%s: the journal mode stays %s, not wal",
			    store->path, mode);
		if (rc != SQLITE_OK && rc != SQLITE_ROW &&
		    ((rc != SQLITE_BUSY && rc != SQLITE_LOCKED) || waited >= timeout_ms))
			return db_error(err, store->path, db_of(store), rc, "enabling WAL");
		if (rc != SQLITE_ROW)
			sqlite3_sleep(20);
	}
	/* Commits wait for no disk; a checkpoint does (docs/design.md section 6). */
	return exec_sql(store, "PRAGMA synchronous = NORMAL", "enabling WAL", err);
}

/* A WAL that a closing process could not empty (the disk was full when it
 * tried, or it was killed) is emptied by the next opener, before its own
 * commits need the room: without waiting for others, as at close. */
/* A WAL frame is a page and this header. */
#define WAL_FRAME_HEADER 24

/* The database's page size (4096 unless it was made otherwise). */
static off_t
page_size(struct sqlite_store *sq)
{
	sqlite3_stmt *st;
	off_t size = 4096;

	if (sqlite3_prepare_v2(sq->db, "PRAGMA page_size", -1, &st, NULL) != SQLITE_OK)
		return size;
	if (sqlite3_step(st) == SQLITE_ROW)
		size = (off_t)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return size;
}

static void
empty_long_wal(struct sqlite_store *sq, const char *path, int busy_timeout_ms)
{
	char wal[PATH_MAX + 8];
	struct stat st;

	snprintf(wal, sizeof(wal), "%s-wal", path);
	if (stat(wal, &st) != 0 || st.st_size < (off_t)WAL_FRAMES_KEPT * (page_size(sq) + WAL_FRAME_HEADER))
		return;
	sqlite3_busy_timeout(sq->db, 0);
	sqlite3_wal_checkpoint_v2(sq->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
	sqlite3_busy_timeout(sq->db, busy_timeout_ms);
}

static bool
sqlite_open(const struct store_options *opts, struct store **out, struct store_error *err)
{
	struct sqlite_store *sq = calloc(1, sizeof(*sq));
	struct store *store = &sq->base;

	*out = NULL;
	if (sq == NULL)
		return set_error(err, STORE_ERR_IO, "%s: out of memory", opts->path);
	store->ops = &store_sqlite_ops;
	strlcpy(store->path, opts->path, sizeof(store->path));
	store->keep_runs = opts->keep_runs;
	store->keep_days = opts->keep_days;
	if (!open_db(sq, opts, err) || !read_version(store, &store->version, err))
		goto fail;
	if (store->version > STORE_SCHEMA_VERSION) {
		set_error(err, STORE_ERR_VERSION, "%s: schema version %d is newer than this rlwrap knows (%d); "
		    "left untouched: upgrade rlwrap or set RLWRAP_DB to another file",
		    opts->path, store->version, STORE_SCHEMA_VERSION);
		goto fail;
	}
	if (opts->read_only) {
		if (store->version != STORE_SCHEMA_VERSION) {
			set_error(err, STORE_ERR_VERSION, "%s: schema version %d, not %d, and a read-only open "
			    "cannot migrate it", opts->path, store->version, STORE_SCHEMA_VERSION);
			goto fail;
		}
		*out = store;
		return true;
	}
	if (!enable_wal(store, opts->busy_timeout_ms, err) ||
	    (store->version < STORE_SCHEMA_VERSION && !migrate(store, err)))
		goto fail;
	empty_long_wal(sq, opts->path, opts->busy_timeout_ms);
	*out = store;
	return true;
fail:
	sqlite_close(store);
	return false;
}

/*
 * A connection that changed a breaker copies the WAL into the database file
 * before it goes, so that a reader who may not write the file (it opens it
 * immutable, without the WAL) still sees every trip and reset; so does one
 * that left the WAL long.  TRUNCATE empties the WAL when nobody else uses
 * it; with others about it does what it can without waiting for them, and
 * they keep the WAL short themselves.
 */
static void
sqlite_close(struct store *store)
{
	struct sqlite_store *sq = (struct sqlite_store *)(void *)store;

	if (sq->breakers_changed || sq->wal_frames >= WAL_FRAMES_KEPT) {
		sqlite3_busy_timeout(sq->db, 0);
		sqlite3_wal_checkpoint_v2(sq->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
	}
	sqlite3_close_v2(sq->db);
	free(store);
}

static bool
sqlite_begin(struct store *store, struct store_error *err)
{
	return exec_sql(store, "BEGIN IMMEDIATE", "starting a transaction", err);
}

static bool
sqlite_commit(struct store *store, struct store_error *err)
{
	if (exec_sql(store, "COMMIT", "committing", err))
		return true;
	sqlite_rollback(store);
	return false;
}

static void
sqlite_rollback(struct store *store)
{
	if (!sqlite3_get_autocommit(db_of(store)))
		sqlite3_exec(db_of(store), "ROLLBACK", NULL, NULL, NULL);
}

void
bind_text(sqlite3_stmt *st, int index, const char *s)
{
	if (s == NULL || *s == '\0')
		sqlite3_bind_null(st, index);
	else
		sqlite3_bind_text(st, index, s, -1, SQLITE_TRANSIENT);
}

/* Binds NULL for the value that means "unknown". */
static void
bind_double(sqlite3_stmt *st, int index, double v, double null_value)
{
	if (v == null_value)
		sqlite3_bind_null(st, index);
	else
		sqlite3_bind_double(st, index, v);
}

static void
bind_int(sqlite3_stmt *st, int index, long long v, long long null_value)
{
	if (v == null_value)
		sqlite3_bind_null(st, index);
	else
		sqlite3_bind_int64(st, index, v);
}

void
column_text(sqlite3_stmt *st, int index, char *buf, size_t size)
{
	const unsigned char *s = sqlite3_column_text(st, index);

	strlcpy(buf, s != NULL ? (const char *)s : "", size);
}

#define BREAKER_COLUMNS "account, family, scope, state, reason, resets_at, reset_source, trips," \
	" consecutive_unknown, last_trip_at, last_message, probe_pid, probe_start_time, probe_host," \
	" probe_expires, updated_at, ramp_started, ramp_released"

static void
breaker_from_row(sqlite3_stmt *st, struct breaker *b)
{
	char reason[32];

	memset(b, 0, sizeof(*b));
	column_text(st, 0, b->key.account, sizeof(b->key.account));
	column_text(st, 1, b->key.family, sizeof(b->key.family));
	column_text(st, 2, b->key.scope, sizeof(b->key.scope));
	b->state = breaker_state_from_name((const char *)sqlite3_column_text(st, 3));
	column_text(st, 4, reason, sizeof(reason));
	if (!reason_from_name(reason, &b->reason))
		b->reason = REASON_NONE;
	b->resets_at = sqlite3_column_double(st, 5);
	column_text(st, 6, b->reset_source, sizeof(b->reset_source));
	b->trips = (long)sqlite3_column_int64(st, 7);
	b->consecutive_unknown = (long)sqlite3_column_int64(st, 8);
	b->last_trip_at = sqlite3_column_double(st, 9);
	column_text(st, 10, b->last_message, sizeof(b->last_message));
	b->lease.pid = (long)sqlite3_column_int64(st, 11);
	b->lease.start_time = sqlite3_column_int64(st, 12);
	column_text(st, 13, b->lease.host, sizeof(b->lease.host));
	b->lease.expires_at = sqlite3_column_double(st, 14);
	b->updated_at = sqlite3_column_double(st, 15);
	b->ramp_started = sqlite3_column_double(st, 16);
	b->ramp_released = (long)sqlite3_column_int64(st, 17);
}

/* Steps st to the end, collecting breaker rows into a new array. */
static bool
collect_breakers(struct store *store, sqlite3_stmt *st, struct breaker **rows, size_t *count,
    struct store_error *err)
{
	struct breaker *list = NULL, *grown;
	size_t n = 0;
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if ((grown = reallocarray(list, n + 1, sizeof(*list))) == NULL) {
			free(list);
			return set_error(err, STORE_ERR_IO, "%s: out of memory", store->path);
		}
		list = grown;
		breaker_from_row(st, &list[n++]);
	}
	if (rc != SQLITE_DONE) {
		free(list);
		return db_error(err, store->path, db_of(store), rc, "reading breakers");
	}
	*rows = list;
	*count = n;
	return true;
}

static bool
sqlite_breakers_of(struct store *store, const char *account, const char *family,
    struct breaker **rows, size_t *count, struct store_error *err)
{
	sqlite3_stmt *st;
	bool ok;
	int rc = sqlite3_prepare_v2(db_of(store), "SELECT " BREAKER_COLUMNS " FROM breakers"
	    " WHERE account = ?1 AND family = ?2 ORDER BY scope", -1, &st, NULL);

	*rows = NULL;
	*count = 0;
	if (rc != SQLITE_OK)
		return db_error(err, store->path, db_of(store), rc, "reading breakers");
	sqlite3_bind_text(st, 1, account, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, family, -1, SQLITE_STATIC);
	ok = collect_breakers(store, st, rows, count, err);
	sqlite3_finalize(st);
	return ok;
}

static bool
sqlite_breakers_all(struct store *store, struct breaker **rows, size_t *count, struct store_error *err)
{
	sqlite3_stmt *st;
	bool ok;
	int rc = sqlite3_prepare_v2(db_of(store), "SELECT " BREAKER_COLUMNS " FROM breakers"
	    " ORDER BY family, scope, account", -1, &st, NULL);

	*rows = NULL;
	*count = 0;
	if (rc != SQLITE_OK)
		return db_error(err, store->path, db_of(store), rc, "reading breakers");
	ok = collect_breakers(store, st, rows, count, err);
	sqlite3_finalize(st);
	return ok;
}

static bool
sqlite_breaker_save(struct store *store, const struct breaker *b, struct store_error *err)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db_of(store), "INSERT OR REPLACE INTO breakers (" BREAKER_COLUMNS ")"
	    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)", -1, &st,
	    NULL);

	if (rc != SQLITE_OK)
		return db_error(err, store->path, db_of(store), rc, "saving a breaker");
	sqlite3_bind_text(st, 1, b->key.account, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, b->key.family, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, b->key.scope, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, breaker_state_name(b->state), -1, SQLITE_STATIC);
	bind_text(st, 5, b->reason != REASON_NONE ? reason_name(b->reason) : NULL);
	bind_double(st, 6, b->resets_at, 0);
	bind_text(st, 7, b->reset_source);
	sqlite3_bind_int64(st, 8, b->trips);
	sqlite3_bind_int64(st, 9, b->consecutive_unknown);
	bind_double(st, 10, b->last_trip_at, 0);
	bind_text(st, 11, b->last_message);
	bind_int(st, 12, b->lease.pid, 0);
	bind_int(st, 13, b->lease.pid != 0 ? b->lease.start_time : 0, 0);
	bind_text(st, 14, b->lease.pid != 0 ? b->lease.host : NULL);
	bind_double(st, 15, b->lease.pid != 0 ? b->lease.expires_at : 0, 0);
	bind_double(st, 16, b->updated_at, 0);
	bind_double(st, 17, b->ramp_started, 0);
	bind_int(st, 18, b->ramp_started > 0 ? b->ramp_released : 0, 0);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	((struct sqlite_store *)(void *)store)->breakers_changed = true;
	return rc == SQLITE_DONE || db_error(err, store->path, db_of(store), rc, "saving a breaker");
}

static bool
sqlite_history_add(struct store *store, const struct breaker *b, const char *event,
    long long run_id, double at, struct store_error *err)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db_of(store), "INSERT INTO breaker_history (at, account, family, scope,"
	    " event, state, reason, resets_at, reset_source, trips, run_id, message)"
	    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)", -1, &st, NULL);

	if (rc != SQLITE_OK)
		return db_error(err, store->path, db_of(store), rc, "writing breaker history");
	sqlite3_bind_double(st, 1, at);
	sqlite3_bind_text(st, 2, b->key.account, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, b->key.family, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, b->key.scope, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, event, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, breaker_state_name(b->state), -1, SQLITE_STATIC);
	bind_text(st, 7, b->reason != REASON_NONE ? reason_name(b->reason) : NULL);
	bind_double(st, 8, b->resets_at, 0);
	bind_text(st, 9, b->reset_source);
	sqlite3_bind_int64(st, 10, b->trips);
	bind_int(st, 11, run_id, 0);
	bind_text(st, 12, b->last_message);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE || db_error(err, store->path, db_of(store), rc, "writing breaker history");
}

/* Binds a value from the runs table. */
static void
bind_value(sqlite3_stmt *st, int index, const struct db_value *v)
{
	switch (v->type) {
	case DB_TEXT:
		sqlite3_bind_text(st, index, v->text, -1, SQLITE_TRANSIENT);
		break;
	case DB_INT:
		sqlite3_bind_int64(st, index, v->i);
		break;
	case DB_REAL:
		sqlite3_bind_double(st, index, v->r);
		break;
	case DB_NULL:
		sqlite3_bind_null(st, index);
		break;
	}
}

/* Column i of the current row; text borrowed from the statement. */
static void
column_value(sqlite3_stmt *st, int i, struct db_value *v)
{
	memset(v, 0, sizeof(*v));
	switch (sqlite3_column_type(st, i)) {
	case SQLITE_NULL:
		v->type = DB_NULL;
		break;
	case SQLITE_INTEGER:
		v->type = DB_INT;
		v->i = sqlite3_column_int64(st, i);
		break;
	case SQLITE_FLOAT:
		v->type = DB_REAL;
		v->r = sqlite3_column_double(st, i);
		break;
	default:
		v->type = DB_TEXT;
		v->text = (const char *)sqlite3_column_text(st, i);
		break;
	}
}

/* A new row, or (run->id set) the completion of a running one. */
bool
sqlite_write_run(struct store *store, const struct run_row *run, long long *run_id, struct store_error *err)
{
	char sql[2048];
	sqlite3_stmt *st;
	struct db_value v;
	int rc, n = 0;

	if (!(run->id != 0 ? runs_update_sql("runs", '?', sql, sizeof(sql))
	    : runs_insert_sql("runs", '?', sql, sizeof(sql))))
		return set_error(err, STORE_ERR_IO, "%s: the runs insert does not fit", store->path);
	if ((rc = sqlite3_prepare_v2(db_of(store), sql, -1, &st, NULL)) != SQLITE_OK)
		return db_error(err, store->path, db_of(store), rc, "recording the run");
	for (size_t i = 0; i < run_columns_count; i++) {
		if (!run_column_written(&run_columns[i], run->id != 0))
			continue;
		run_column_value(run, &run_columns[i], &v);
		bind_value(st, ++n, &v);
	}
	if (run->id != 0)
		sqlite3_bind_int64(st, ++n, run->id);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_error(err, store->path, db_of(store), rc, "recording the run");
	*run_id = run->id != 0 ? run->id : sqlite3_last_insert_rowid(db_of(store));
	return true;
}

/* History pruned in batches, as on a server (store_pg.c): by the write of
 * every PRUNE_EVERY-th run id, not by every spawn, so that a run's writes
 * are its own rows only; the file may hold up to that many rows past
 * keep_runs. */
#define PRUNE_EVERY 64

/* History pruned on write, when due: runs beyond keep_runs, and everything
 * older than keep_days. */
static bool
prune(struct store *store, long long last_run_id, double now, struct store_error *err)
{
	static const char *const sql[] = {
		"DELETE FROM runs WHERE ?1 > 0 AND id <= ?2 - ?1 AND coalesce(state, '') <> 'running'",
		"DELETE FROM runs WHERE ?3 > 0 AND started_at < ?4 AND coalesce(state, '') <> 'running'",
		"DELETE FROM breaker_history WHERE ?3 > 0 AND at < ?4",
		"DELETE FROM waits WHERE ?3 > 0 AND at < ?4",
	};

	if (last_run_id % PRUNE_EVERY != 0)
		return true;
	for (size_t i = 0; i < sizeof(sql) / sizeof(sql[0]); i++) {
		sqlite3_stmt *st;
		int rc = sqlite3_prepare_v2(db_of(store), sql[i], -1, &st, NULL);

		if (rc != SQLITE_OK)
			return db_error(err, store->path, db_of(store), rc, "pruning history");
		sqlite3_bind_int64(st, 1, store->keep_runs);
		sqlite3_bind_int64(st, 2, last_run_id);
		sqlite3_bind_int64(st, 3, store->keep_days);
		sqlite3_bind_double(st, 4, now - (double)store->keep_days * 86400);
		rc = sqlite3_step(st);
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE)
			return db_error(err, store->path, db_of(store), rc, "pruning history");
	}
	return true;
}

static bool
sqlite_run_add(struct store *store, const struct run_row *run, double now,
    long long *run_id, struct store_error *err)
{
	return sqlite_write_run(store, run, run_id, err) && prune(store, *run_id, now, err);
}

static bool
sqlite_wait_add(struct store *store, const struct wait_record *wait, long long *wait_id,
    struct store_error *err)
{
	const struct breaker *b = wait->blocking;
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db_of(store), "INSERT INTO waits (at, kind, account, family, scope, model,"
	    " reason, resets_at, reset_source, until, pid, host)"
	    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)", -1, &st, NULL);

	if (rc != SQLITE_OK)
		return db_error(err, store->path, db_of(store), rc, "recording a wait");
	sqlite3_bind_double(st, 1, wait->at);
	sqlite3_bind_text(st, 2, wait->kind, -1, SQLITE_STATIC);
	bind_text(st, 3, b != NULL ? b->key.account : wait->account);
	bind_text(st, 4, b != NULL ? b->key.family : wait->family);
	bind_text(st, 5, b != NULL ? b->key.scope : NULL);
	bind_text(st, 6, wait->model);
	bind_text(st, 7, b != NULL ? reason_name(b->reason) : wait->why);
	bind_double(st, 8, b != NULL ? b->resets_at : 0, 0);
	bind_text(st, 9, b != NULL ? b->reset_source : NULL);
	bind_double(st, 10, wait->until, 0);
	bind_int(st, 11, wait->pid, 0);
	bind_text(st, 12, wait->host);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_error(err, store->path, db_of(store), rc, "recording a wait");
	if (wait_id != NULL)
		*wait_id = sqlite3_last_insert_rowid(db_of(store));
	return true;
}

/* Rows of (family[, runs, failures]) from sql, whose ?1 is since; without
 * the counts (counted false) runs and failures are -1. */
static bool
family_rows(struct store *store, const char *sql, bool counted, double since,
    struct family_counts **rows, size_t *count, struct store_error *err)
{
	struct family_counts *list = NULL, *grown;
	sqlite3_stmt *st;
	size_t n = 0;
	int rc = sqlite3_prepare_v2(db_of(store), sql, -1, &st, NULL);

	*rows = NULL;
	*count = 0;
	if (rc != SQLITE_OK)
		return db_error(err, store->path, db_of(store), rc, "counting runs");
	sqlite3_bind_double(st, 1, since);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && (grown = reallocarray(list, n + 1, sizeof(*list))) != NULL) {
		list = grown;
		column_text(st, 0, list[n].family, sizeof(list[n].family));
		list[n].runs = counted ? (long)sqlite3_column_int64(st, 1) : -1;
		list[n++].failures = counted ? (long)sqlite3_column_int64(st, 2) : -1;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(list);
		return rc == SQLITE_ROW ? set_error(err, STORE_ERR_IO, "%s: out of memory", store->path)
		    : db_error(err, store->path, db_of(store), rc, "counting runs");
	}
	*rows = list;
	*count = n;
	return true;
}

static bool
sqlite_family_counts(struct store *store, double since, struct family_counts **rows,
    size_t *count, struct store_error *err)
{
	return family_rows(store, "SELECT coalesce(family, '?'), count(*),"
	    " sum(coalesce(reason, 'none') <> 'none') FROM runs WHERE started_at >= ?1"
	    " AND state <> 'refused' GROUP BY 1 ORDER BY 1", true, since, rows, count, err);
}

/* Walks the (family, started_at) index only: a few hundred microseconds on
 * 10000 runs, where counting reads every row (status --short is for a
 * prompt). */
static bool
sqlite_families_since(struct store *store, double since, struct family_counts **rows,
    size_t *count, struct store_error *err)
{
	return family_rows(store, "SELECT f.family FROM (SELECT DISTINCT family FROM runs"
	    " WHERE family IS NOT NULL) f WHERE EXISTS (SELECT 1 FROM runs r"
	    " WHERE r.family = f.family AND r.started_at >= ?1) ORDER BY 1", false, since, rows, count, err);
}

static bool
sqlite_runs_each(struct store *store, const struct run_filter *f, run_row_cb cb, void *arg,
    struct store_error *err)
{
	struct db_value params[RUN_FILTER_PARAMS_MAX], v;
	char sql[8192];
	struct run_row row;
	sqlite3_stmt *st;
	size_t nparams;
	int rc;

	if (!runs_select_sql("runs", sql, sizeof(sql)) ||
	    !run_filter_sql(f, '?', sql, sizeof(sql), params, &nparams))
		return set_error(err, STORE_ERR_IO, "%s: the history query does not fit", store->path);
	if ((rc = sqlite3_prepare_v2(db_of(store), sql, -1, &st, NULL)) != SQLITE_OK)
		return db_error(err, store->path, db_of(store), rc, "reading the run history");
	for (size_t i = 0; i < nparams; i++)
		bind_value(st, (int)i + 1, &params[i]);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		run_row_clear(&row);
		for (size_t i = 0; i < run_columns_count; i++) {
			column_value(st, (int)i, &v);
			run_column_set(&row, &run_columns[i], &v);
		}
		run_row_finish(&row);
		if (!cb(&row, arg)) {
			rc = SQLITE_DONE;
			break;
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE || db_error(err, store->path, db_of(store), rc, "reading the run history");
}

static bool
sqlite_run_mark_recovered(struct store *store, long long id, long long by, struct store_error *err)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db_of(store), "UPDATE runs SET recovered_by = ?1 WHERE id = ?2",
	    -1, &st, NULL);

	if (rc != SQLITE_OK)
		return db_error(err, store->path, db_of(store), rc, "marking a run recovered");
	sqlite3_bind_int64(st, 1, by);
	sqlite3_bind_int64(st, 2, id);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE || db_error(err, store->path, db_of(store), rc, "marking a run recovered");
}

static bool
sqlite_run_note(struct store *store, long long id, const char *note, struct store_error *err)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db_of(store), "UPDATE runs SET recover_note = ?1 WHERE id = ?2", -1, &st, NULL);

	if (rc != SQLITE_OK)
		return db_error(err, store->path, db_of(store), rc, "noting why a run is not re-run");
	sqlite3_bind_text(st, 1, note, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, id);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE || db_error(err, store->path, db_of(store), rc, "noting why a run is not re-run");
}

static bool
sqlite_run_settle(struct store *store, const struct run_outcome *o, struct store_error *err)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db_of(store), "UPDATE runs SET state = 'finished', exit_code = ?3,"
	    " term_signal = ?4, reason = ?5, ended_at = ?6 WHERE id = ?1 AND uid = ?2"
	    " AND state IN ('running', 'lost')", -1, &st, NULL);

	if (rc != SQLITE_OK)
		return db_error(err, store->path, db_of(store), rc, "settling a run's journaled outcome");
	sqlite3_bind_int64(st, 1, o->run_id);
	sqlite3_bind_text(st, 2, o->uid, -1, SQLITE_STATIC);
	if (o->term_signal != 0)
		sqlite3_bind_null(st, 3);
	else
		sqlite3_bind_int(st, 3, o->exit_code);
	sqlite3_bind_int(st, 4, o->term_signal);
	sqlite3_bind_text(st, 5, reason_name(o->reason), -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 6, o->ended_at);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE || db_error(err, store->path, db_of(store), rc, "settling a run's journaled outcome");
}

static bool
sqlite_clear_replayed(struct store *store, struct store_error *err)
{
	return exec_sql(store, "DELETE FROM breakers; DELETE FROM breaker_history; DELETE FROM waits;"
	    " DELETE FROM runs WHERE coalesce(state, '') <> 'running'", "clearing the replayed journal", err);
}

static bool
sqlite_run_claim_set(struct store *store, long long id, const struct probe_lease *holder, double now,
    struct store_error *err)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db_of(store), "UPDATE runs SET claim_pid = ?2, claim_start_time = ?3,"
	    " claim_host = ?4, claimed_at = ?5 WHERE id = ?1", -1, &st, NULL);

	if (rc != SQLITE_OK)
		return db_error(err, store->path, db_of(store), rc, "claiming a run");
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, holder->pid);
	sqlite3_bind_int64(st, 3, holder->start_time);
	sqlite3_bind_text(st, 4, holder->host, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 5, now);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE || db_error(err, store->path, db_of(store), rc, "claiming a run");
}

const struct store_ops store_sqlite_ops = {
	.name = "sqlite",
	.open = sqlite_open,
	.close = sqlite_close,
	.begin = sqlite_begin,
	.commit = sqlite_commit,
	.rollback = sqlite_rollback,
	.breakers_of = sqlite_breakers_of,
	.breakers_all = sqlite_breakers_all,
	.breaker_save = sqlite_breaker_save,
	.history_add = sqlite_history_add,
	.run_add = sqlite_run_add,
	.wait_add = sqlite_wait_add,
	.wait_end = sqlite_wait_end,
	.run_start = sqlite_run_start,
	.host_renew = sqlite_host_renew,
	.host_lease = sqlite_host_lease,
	.run_mark_lost = sqlite_run_mark_lost,
	.running = sqlite_running,
	.ticket_add = sqlite_ticket_add,
	.ticket_remove = sqlite_ticket_remove,
	.ticket_renew = sqlite_ticket_renew,
	.tickets = sqlite_tickets,
	.budget_add = sqlite_budget_add,
	.budget_prune = sqlite_budget_prune,
	.adaptive_limits = sqlite_adaptive_limits,
	.adaptive_save = sqlite_adaptive_save,
	.readings_save = sqlite_readings_save,
	.readings = sqlite_readings,
	.budget_buckets = sqlite_budget_buckets,
	.wait_totals = sqlite_wait_totals,
	.family_counts = sqlite_family_counts,
	.families_since = sqlite_families_since,
	.runs_each = sqlite_runs_each,
	.run_mark_recovered = sqlite_run_mark_recovered,
	.run_note = sqlite_run_note,
	.run_settle = sqlite_run_settle,
	.clear_replayed = sqlite_clear_replayed,
	.run_claim_set = sqlite_run_claim_set,
};
