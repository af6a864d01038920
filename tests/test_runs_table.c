/* test_runs_table.c: the runs table's one column list, against the SQLite
 * schema and through a write and a read. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>
#ifdef HAVE_LIBPQ
#include <libpq-fe.h>
#endif

#include "history.h"
#include "runs_table.h"
#include "store.h"

#define NOW 1796040000.0   /* 2026-11-30T12:00:00Z */

static char tmpdir[64];

static int
make_tmpdir(void **state)
{
	(void)state;
	strlcpy(tmpdir, "/tmp/rlwrap-test-XXXXXX", sizeof(tmpdir));
	assert_non_null(mkdtemp(tmpdir));
	return 0;
}

static int
remove_tmpdir(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd);
}

/* RLWRAP_TEST_BACKEND=postgresql: the store is a fresh schema on RLWRAP_TEST_PG. */
static const char *
test_server(void)
{
	const char *backend = getenv("RLWRAP_TEST_BACKEND"), *url = getenv("RLWRAP_TEST_PG");

	return backend != NULL && strcmp(backend, "postgresql") == 0 && url != NULL ? url : NULL;
}

static struct store *
open_store(const char *name, char *path, size_t size)
{
	struct store_options opts = { .busy_timeout_ms = 2000 };
	struct store_error err;
	struct store *store;
	char schema[64];

	snprintf(opts.path, sizeof(opts.path), "%s/%s", tmpdir, name);
	if (test_server() != NULL) {
		snprintf(schema, sizeof(schema), "u%ld_%.*s", (long)getpid(), (int)strcspn(name, "."), name);
		strlcpy(opts.path, test_server(), sizeof(opts.path));
		store_options_server(&opts, schema, 0, 0, STORE_POOL_AUTO);
	}
	strlcpy(path, opts.path, size);
	if (!store_open(&opts, &store, &err))
		fail_msg("store_open: %s", err.message);
	return store;
}

static bool
column_listed(const char *name)
{
	for (size_t i = 0; i < run_columns_count; i++)
		if (strcmp(run_columns[i].name, name) == 0)
			return true;
	return false;
}

/* The server's runs table (name as open_store() made it) has exactly the listed columns. */
static void
server_schema_matches_columns(const char *name)
{
#ifdef HAVE_LIBPQ
	char schema[64];
	const char *params[1] = { schema };
	PGconn *conn = PQconnectdb(test_server());
	PGresult *res;

	snprintf(schema, sizeof(schema), "u%ld_%s", (long)getpid(), name);
	assert_int_equal(PQstatus(conn), CONNECTION_OK);
	res = PQexecParams(conn, "SELECT column_name FROM information_schema.columns WHERE table_schema = $1"
	    " AND table_name = 'runs'", 1, NULL, params, NULL, NULL, 0);
	assert_int_equal(PQresultStatus(res), PGRES_TUPLES_OK);
	for (int i = 0; i < PQntuples(res); i++)
		if (!column_listed(PQgetvalue(res, i, 0)))
			fail_msg("runs.%s is not in run_columns[]", PQgetvalue(res, i, 0));
	assert_int_equal(PQntuples(res), run_columns_count);
	PQclear(res);
	PQfinish(conn);
#else
	fail_msg("RLWRAP_TEST_BACKEND=postgresql in a build without libpq");
#endif
}

/* The SQLite migrations and the column table describe the same table. */
static void
test_sqlite_schema_matches_columns(void **state)
{
	char path[4096];
	struct store *store = open_store("schema.db", path, sizeof(path));
	sqlite3 *db;
	sqlite3_stmt *st;
	size_t seen = 0;

	(void)state;
	store_close(store);
	if (test_server() != NULL) {
		server_schema_matches_columns("schema");
		return;
	}
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info('runs')", -1, &st, NULL),
	    SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);

		if (!column_listed(name))
			fail_msg("runs.%s is not in run_columns[]", name);
		seen++;
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	assert_int_equal(seen, run_columns_count);
}

/* A row read back, with copies of the strings that pointed into the result. */
struct kept_row {
	struct run_row row;
	char argv[256], cwd[64], family[64], model[64], account[64], source[16];
};

static bool
keep_row(const struct run_row *row, void *arg)
{
	struct kept_row *out = arg;

	out->row = *row;
	strlcpy(out->argv, row->argv_json != NULL ? row->argv_json : "", sizeof(out->argv));
	out->row.argv_json = row->argv_json != NULL ? out->argv : NULL;
	out->row.cwd = strcpy(out->cwd, row->cwd);
	out->row.family = strcpy(out->family, row->family);
	out->row.model = strcpy(out->model, row->model);
	out->row.account = strcpy(out->account, row->account);
	out->row.source = strcpy(out->source, row->source);
	return false;
}

static void
read_newest(struct store *store, struct kept_row *kept)
{
	struct run_filter f;
	struct store_error err;

	run_filter_init(&f);
	f.limit = 1;
	if (!store_runs_each(store, &f, keep_row, kept, &err))
		fail_msg("store_runs_each: %s", err.message);
}

/* Every field written comes back in the same field. */
static void
test_full_row_round_trips(void **state)
{
	char path[4096];
	struct store *store = open_store("full.db", path, sizeof(path));
	struct run_row in;
	struct kept_row kept;
	const struct run_row *out = &kept.row;
	struct store_error err;
	long long id;

	(void)state;
	memset(&in, 0, sizeof(in));
	signal_init(&in.signal);
	in.argv_json = "[\"claude\",\"-p\",\"hi\"]";
	in.argv_redacted = true;
	in.cwd = "/src/app";
	in.family = "claude";
	in.model = "claude-sonnet-4";
	in.account = "team";
	in.source = "wrap";
	in.started_at = NOW - 10.25;
	in.ended_at = NOW;
	in.exit_code = 3;
	in.term_signal = 15;
	in.signal.reason = REASON_USAGE_LIMIT;
	in.signal.confidence = 0.8;
	in.signal.terminal = true;
	strlcpy(in.signal.scope, "family", sizeof(in.signal.scope));
	in.signal.http_status = 429;
	strlcpy(in.signal.error_type, "rate_limit_error", sizeof(in.signal.error_type));
	strlcpy(in.signal.limit_type, "five_hour", sizeof(in.signal.limit_type));
	in.signal.resets_at = NOW + 3600;
	in.signal.reset_source = RESET_SRC_TEXT;
	strlcpy(in.signal.message, "limit reached", sizeof(in.signal.message));
	in.signal.line = 42;
	in.signal.after_output = true;
	in.usage = (struct run_usage){ 1200, 340, 0.125, false };
	assert_true(store_run_add(store, &in, NOW, &id, &err));
	read_newest(store, &kept);
	assert_int_equal(out->id, id);
	assert_string_equal(out->argv_json, in.argv_json);
	assert_true(out->argv_redacted);
	assert_string_equal(out->cwd, "/src/app");
	assert_string_equal(out->family, "claude");
	assert_string_equal(out->model, "claude-sonnet-4");
	assert_string_equal(out->account, "team");
	assert_string_equal(out->source, "wrap");
	assert_true(out->started_at == in.started_at && out->ended_at == in.ended_at);
	assert_int_equal(out->exit_code, 3);
	assert_int_equal(out->term_signal, 15);
	assert_int_equal(out->signal.reason, REASON_USAGE_LIMIT);
	assert_true(fabs(out->signal.confidence - 0.8) < 1e-9);
	assert_true(out->signal.terminal);
	assert_string_equal(out->signal.scope, "family");
	assert_int_equal(out->signal.http_status, 429);
	assert_string_equal(out->signal.error_type, "rate_limit_error");
	assert_string_equal(out->signal.limit_type, "five_hour");
	assert_true(out->signal.resets_at == NOW + 3600);
	assert_int_equal(out->signal.reset_source, RESET_SRC_TEXT);
	assert_string_equal(out->signal.message, "limit reached");
	assert_int_equal(out->signal.line, 42);
	assert_true(out->signal.after_output);
	assert_int_equal(out->usage.input_tokens, 1200);
	assert_int_equal(out->usage.output_tokens, 340);
	assert_true(out->usage.cost_usd == 0.125);
	assert_int_equal(out->recovered_by, 0);
	/* The signal's copies follow the row. */
	assert_string_equal(out->signal.family, "claude");
	assert_int_equal(out->signal.exit_code, 3);
	assert_true(store_run_mark_recovered(store, id, 77, &err));
	read_newest(store, &kept);
	assert_int_equal(out->recovered_by, 77);
	store_close(store);
}

/* A row of unknowns stores NULLs and reads back as unknowns, not zeros. */
static void
test_unknowns_round_trip(void **state)
{
	char path[4096];
	struct store *store = open_store("unknown.db", path, sizeof(path));
	struct run_row in;
	struct kept_row kept;
	const struct run_row *out = &kept.row;
	struct store_error err;
	long long id;

	(void)state;
	memset(&in, 0, sizeof(in));
	signal_init(&in.signal);
	in.exit_code = -1;
	in.usage = (struct run_usage){ -1, -1, -1, false };
	in.started_at = in.ended_at = NOW;
	assert_true(store_run_add(store, &in, NOW, &id, &err));
	read_newest(store, &kept);
	assert_null(out->argv_json);
	assert_string_equal(out->cwd, "");
	assert_string_equal(out->family, "");
	assert_int_equal(out->exit_code, -1);
	assert_int_equal(out->term_signal, 0);
	assert_int_equal(out->signal.reason, REASON_NONE);
	assert_int_equal(out->signal.http_status, 0);
	assert_int_equal(out->signal.reset_source, RESET_SRC_NONE);
	assert_true(out->signal.resets_at == 0);
	assert_int_equal(out->usage.input_tokens, -1);
	assert_int_equal(out->usage.output_tokens, -1);
	assert_true(out->usage.cost_usd == -1);
	store_close(store);
}

/* The INSERT names every written column once, with as many placeholders. */
static void
test_insert_sql_lists_written_columns(void **state)
{
	char sql[4096], one[16];
	size_t written = 0;

	(void)state;
	assert_true(runs_insert_sql("runs", '$', sql, sizeof(sql)));
	for (size_t i = 0; i < run_columns_count; i++) {
		bool named = strstr(sql, run_columns[i].name) != NULL;

		if (!run_column_written(&run_columns[i], false))
			continue;
		assert_true(named);
		written++;
	}
	snprintf(one, sizeof(one), "$%zu)", written);
	assert_non_null(strstr(sql, one));
	assert_false(runs_insert_sql("runs", '?', sql, 64));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sqlite_schema_matches_columns),
		cmocka_unit_test(test_full_row_round_trips),
		cmocka_unit_test(test_unknowns_round_trip),
		cmocka_unit_test(test_insert_sql_lists_written_columns),
	};

	return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
