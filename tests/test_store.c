/* Unit tests for lib/store/store.c: private files, schema migrations, a newer
 * schema left untouched, errors by kind, and pruning. */
#include "unit.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "breaker.h"
#include "conf.h"
#include "journal.h"
#include "store.h"
#include "unit_store.h"

static void
test_store_creates_private_files(void **state)
{
	struct store_options opts = { .busy_timeout_ms = 100 };
	struct store_error err;
	struct store *store;
	struct stat st;
	char dir[128];

	snprintf(dir, sizeof(dir), "%s/new/sub", tmpdir);
	snprintf(opts.path, sizeof(opts.path), "%s/state.db", dir);
	assert_true(store_open(&opts, &store, &err));
	assert_int_equal(store_schema_version(store), STORE_SCHEMA_VERSION);
	store_close(store);
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_int_equal(stat(opts.path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	/* Opening again is idempotent. */
	assert_true(store_open(&opts, &store, &err));
	store_close(store);
}

static void
sql(const char *path, const char *text)
{
	sqlite3 *db;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	if (sqlite3_exec(db, text, NULL, NULL, NULL) != SQLITE_OK)
		fail_msg("sql: %s", sqlite3_errmsg(db));
	sqlite3_close(db);
}

static void
test_migration_from_version_1(void **state)
{
	struct store_options opts = { .busy_timeout_ms = 100 };
	struct store_error err;
	struct store *store;
	struct breaker *rows;
	size_t count;

	snprintf(opts.path, sizeof(opts.path), "%s/v1.db", tmpdir);
	/* What rlwrap schema version 1 wrote. */
	sql(opts.path, "CREATE TABLE breakers (account TEXT NOT NULL, family TEXT NOT NULL, scope TEXT NOT NULL,"
	    " state TEXT NOT NULL DEFAULT 'closed', reason TEXT, resets_at REAL, reset_source TEXT,"
	    " trips INTEGER NOT NULL DEFAULT 0, consecutive_unknown INTEGER NOT NULL DEFAULT 0,"
	    " last_trip_at REAL, last_message TEXT, updated_at REAL, PRIMARY KEY (account, family, scope));"
	    "CREATE TABLE breaker_history (id INTEGER PRIMARY KEY, at REAL NOT NULL, account TEXT NOT NULL,"
	    " family TEXT NOT NULL, scope TEXT NOT NULL, event TEXT NOT NULL, state TEXT NOT NULL,"
	    " reason TEXT, resets_at REAL, reset_source TEXT, trips INTEGER, run_id INTEGER, message TEXT);"
	    "CREATE TABLE runs (id INTEGER PRIMARY KEY, argv TEXT, cwd TEXT, family TEXT, model TEXT,"
	    " account TEXT, started_at REAL, ended_at REAL, exit_code INTEGER, term_signal INTEGER,"
	    " reason TEXT, confidence REAL, terminal INTEGER, scope TEXT, http_status INTEGER,"
	    " error_type TEXT, limit_type TEXT, resets_at REAL, reset_source TEXT, message TEXT,"
	    " line INTEGER, after_output INTEGER, input_tokens INTEGER, output_tokens INTEGER, cost_usd REAL);"
	    "INSERT INTO breakers (account, family, scope, state, reason, resets_at, reset_source, trips)"
	    " VALUES ('default', 'codex', '*', 'open', 'usage-limit', 1796050000, 'provider', 3);"
	    "PRAGMA user_version = 1;");
	assert_true(store_open(&opts, &store, &err));
	assert_int_equal(store_schema_version(store), STORE_SCHEMA_VERSION);
	assert_true(store_breakers_of(store, "default", "codex", &rows, &count, &err));
	assert_int_equal(count, 1);
	assert_int_equal(rows[0].trips, 3);
	assert_int_equal(rows[0].state, BREAKER_OPEN);
	assert_true(rows[0].resets_at == 1796050000);
	free(rows);
	store_close(store);
	/* Twice is the same as once. */
	assert_true(store_open(&opts, &store, &err));
	assert_int_equal(store_schema_version(store), STORE_SCHEMA_VERSION);
	store_close(store);
}

static char *
slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	char *buf = malloc(1 << 20);

	assert_non_null(fp);
	*len = fread(buf, 1, 1 << 20, fp);
	fclose(fp);
	return buf;
}

static void
test_newer_version_refused_untouched(void **state)
{
	struct store_options opts = { .busy_timeout_ms = 100 };
	struct store_error err;
	struct store *store;
	size_t before_len, after_len;
	char *before, *after, wal[PATH_MAX + 8];

	snprintf(opts.path, sizeof(opts.path), "%s/v99.db", tmpdir);
	sql(opts.path, "CREATE TABLE future (x); PRAGMA user_version = 99;");
	before = slurp(opts.path, &before_len);
	assert_false(store_open(&opts, &store, &err));
	assert_null(store);
	assert_int_equal(err.status, STORE_ERR_VERSION);
	assert_non_null(strstr(err.message, "schema version 99 is newer"));
	after = slurp(opts.path, &after_len);
	assert_int_equal(before_len, after_len);
	assert_memory_equal(before, after, before_len);
	snprintf(wal, sizeof(wal), "%s-wal", opts.path);
	assert_int_not_equal(access(wal, F_OK), 0);
	free(before);
	free(after);
}

static void
test_store_errors(void **state)
{
	struct store_options opts = { .busy_timeout_ms = 100 };
	struct store_error err;
	struct store *store;
	int fd;

	/* Random bytes: corrupt. */
	snprintf(opts.path, sizeof(opts.path), "%s/junk.db", tmpdir);
	fd = open(opts.path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	for (int i = 0; i < 64; i++)
		assert_int_equal(write(fd, "\x13\x37 not sqlite at all, just bytes\xff\xfe\x01\x02xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", 64), 64);
	close(fd);
	assert_false(store_open(&opts, &store, &err));
	assert_int_equal(err.status, STORE_ERR_CORRUPT);
	/* Someone else's database. */
	snprintf(opts.path, sizeof(opts.path), "%s/foreign.db", tmpdir);
	sql(opts.path, "CREATE TABLE t (x);");
	assert_false(store_open(&opts, &store, &err));
	assert_int_equal(err.status, STORE_ERR_CORRUPT);
	/* A directory that cannot be created. */
	strlcpy(opts.path, "/proc/rlwrap-no/state.db", sizeof(opts.path));
	assert_false(store_open(&opts, &store, &err));
	assert_true(err.status == STORE_ERR_OPEN || err.status == STORE_ERR_READONLY);
	/* A server that is not there (or a build without libpq). */
	strlcpy(opts.path, "postgresql://u:pw@127.0.0.1:1/rlwrap", sizeof(opts.path));
	store_options_server(&opts, NULL, 0, 0, STORE_POOL_AUTO);
	assert_false(store_open(&opts, &store, &err));
#ifdef HAVE_LIBPQ
	assert_int_equal(err.status, STORE_ERR_UNREACHABLE);
	assert_non_null(strstr(err.message, "postgresql://u:***@127.0.0.1:1/rlwrap"));
#else
	assert_int_equal(err.status, STORE_ERR_UNSUPPORTED);
#endif
	assert_null(strstr(err.message, "pw@"));
}

static void
test_pruning(void **state)
{
	struct store_options opts = { .busy_timeout_ms = 100, .keep_runs = 3, .keep_days = 1 };
	struct store_error err;
	struct store *store;
	struct config cfg;
	struct fail_signal ok;
	struct family_counts *counts;
	size_t n;

	config_defaults(&cfg);
	signal_of(&ok, REASON_NONE, "", 0);
	snprintf(opts.path, sizeof(opts.path), "%s/prune.db", tmpdir);
	assert_true(store_open(&opts, &store, &err));
	/* In batches: the 63rd run's write prunes nothing, the 64th's does. */
	for (int i = 0; i < 63; i++)
		record(store, &cfg, "default", "", &ok, NOW + i, NOW + i, NULL);
	assert_true(store_family_counts(store, 0, &counts, &n, &err));
	assert_int_equal(n, 1);
	assert_int_equal(counts[0].runs, 63);
	free(counts);
	record(store, &cfg, "default", "", &ok, NOW + 63, NOW + 63, NULL);
	assert_true(store_family_counts(store, 0, &counts, &n, &err));
	assert_int_equal(counts[0].runs, 3);
	free(counts);
	store_close(store);
	/* Two days later, without a count, the old ones go by age at the next
	 * batch (run 128). */
	opts.keep_runs = 0;
	assert_true(store_open(&opts, &store, &err));
	for (int i = 0; i < 63; i++)
		record(store, &cfg, "default", "", &ok, NOW + 2 * 86400 + i, NOW + 2 * 86400 + i, NULL);
	assert_true(store_family_counts(store, 0, &counts, &n, &err));
	assert_int_equal(counts[0].runs, 66);
	free(counts);
	record(store, &cfg, "default", "", &ok, NOW + 2 * 86400 + 63, NOW + 2 * 86400 + 63, NULL);
	assert_true(store_family_counts(store, 0, &counts, &n, &err));
	assert_int_equal(counts[0].runs, 64);
	free(counts);
	store_close(store);
}

static void
test_state_file_writers_and_identity(void **state)
{
	struct store_options opts = { .busy_timeout_ms = 100 };
	struct store_error err;
	struct store *store;
	char dir[128], moved[PATH_MAX + 8], why[PATH_MAX + 64];

	(void)state;
	snprintf(dir, sizeof(dir), "%s/private", tmpdir);
	snprintf(opts.path, sizeof(opts.path), "%s/state.db", dir);
	assert_true(store_open(&opts, &store, &err));
	assert_false(store_writable_by_others(store, why, sizeof(why)));
	assert_int_equal(chmod(opts.path, 0666), 0);
	assert_true(store_writable_by_others(store, why, sizeof(why)));
	assert_non_null(strstr(why, "is world-writable (mode 0666)"));
	assert_int_equal(chmod(opts.path, 0600), 0);
	assert_int_equal(chmod(dir, 0770), 0);
	assert_true(store_writable_by_others(store, why, sizeof(why)));
	assert_non_null(strstr(why, "private is group-writable (mode 0770)"));
	assert_int_equal(chmod(dir, 01777), 0);   /* sticky, like /tmp */
	assert_false(store_writable_by_others(store, why, sizeof(why)));
	assert_int_equal(chmod(dir, 0700), 0);
	/* The path no longer names the file opened. */
	assert_false(store_path_moved(store));
	snprintf(moved, sizeof(moved), "%s.old", opts.path);
	assert_int_equal(rename(opts.path, moved), 0);
	assert_true(store_path_moved(store));
	store_close(store);
}

/* The replayer's lock: one holder per journal, its pid in the file; the
 * marker says whether anything waits. */
static void
test_journal_replayer_lock(void **state)
{
	char journal[256], marker[300], text[32] = "";
	struct store_error err;
	bool elsewhere;
	int fd, again, lockfile;

	snprintf(journal, sizeof(journal), "%s/jr/journal.db", tmpdir);
	snprintf(marker, sizeof(marker), "%s.replay", journal);
	assert_false(journal_waiting(journal));
	assert_false(journal_replayer_running(journal));
	assert_false(journal_waiting(""));
	fd = journal_replayer_lock(journal, &elsewhere, &err);   /* makes the directory */
	assert_true(fd >= 0);
	assert_true(journal_replayer_running(journal));
	again = journal_replayer_lock(journal, &elsewhere, &err);
	assert_int_equal(again, -1);
	assert_true(elsewhere);
	snprintf(marker, sizeof(marker), "%s.replayer", journal);
	assert_true((lockfile = open(marker, O_RDONLY)) >= 0);
	assert_true(read(lockfile, text, sizeof(text) - 1) > 0);
	close(lockfile);
	assert_int_equal(strtol(text, NULL, 10), (long)getpid());
	close(fd);
	assert_false(journal_replayer_running(journal));
	fd = journal_replayer_lock(journal, &elsewhere, &err);
	assert_true(fd >= 0);
	close(fd);
	snprintf(marker, sizeof(marker), "%s.replay", journal);
	assert_true((lockfile = open(marker, O_WRONLY | O_CREAT, 0600)) >= 0);
	close(lockfile);
	assert_true(journal_waiting(journal));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_store_creates_private_files),
		cmocka_unit_test(test_migration_from_version_1),
		cmocka_unit_test(test_newer_version_refused_untouched),
		cmocka_unit_test(test_store_errors),
		cmocka_unit_test(test_pruning),
		cmocka_unit_test(test_state_file_writers_and_identity),
		cmocka_unit_test(test_journal_replayer_lock),
	};

	return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
