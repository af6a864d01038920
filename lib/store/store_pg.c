/*
 * store_pg.c: the PostgreSQL backend: one server shared by a fleet.
 *
 * libpq reads the URL or conninfo string (expand_dbname), the PG* variables,
 * ~/.pgpass and PGSERVICE; this file adds the timeouts, the schema, and the
 * locking that gives the same semantics as SQLite's BEGIN IMMEDIATE: every
 * read-then-write takes a transaction-scoped advisory lock on the (account,
 * family) it decides on, then reads its breakers FOR UPDATE.  Every wait for
 * the server is bounded on the client's side too, so that a stopped server
 * costs at most the timeout.
 *
 * Nothing outlives a transaction on the server, so that a transaction pool
 * (pgbouncer's pool_mode = transaction) may hand each one to another
 * backend: no startup options of rlwrap's own, every table named with its
 * schema (no search_path), the statement timeout set inside each
 * transaction (set_config(..., true)), unnamed statements only, advisory
 * locks of the transaction only, and LISTEN only on a connection known to
 * be the backend's own (pg_slot_await()).
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libpq-fe.h>

#include "pq_loader.h"

#include "outcome.h"
#include "runs_table.h"
#include "store_backend.h"
#include "store_pg.h"

#define PG_PARAMS_MAX RUN_FILTER_PARAMS_MAX
#define PG_DEFERRED_MAX 16

/*
 * A statement for the pipeline.  One whose answer nobody waits for (BEGIN,
 * an advisory lock, a write inside a transaction) is deferred: kept, with
 * copies of its parameters, until the next statement that needs an answer
 * or the COMMIT, and sent with it in one pipeline, so that a transaction
 * costs a round trip per read instead of one per statement.  Its failure is
 * that later statement's, with its own words.
 */
struct pg_statement {
	const char *sql;           /* a literal: deferred ones outlive the caller */
	const char *doing;
	int nparams;
	const char *texts[PG_PARAMS_MAX];
	bool waits_for_lock;       /* may wait lock_timeout, not timeout */
};

struct pg_store {
	struct store base;
	PGconn *conn;
	bool in_tx;
	bool tx_sent;              /* in_tx, and its BEGIN has gone to the server */
	struct pg_statement deferred[PG_DEFERRED_MAX];
	size_t ndeferred;
	bool dead;                 /* lost or timed out: every call fails at once */
	bool listening;            /* LISTEN on the slot channel (a waiter for a slot) */
	bool listen_decided;       /* whether the connection may LISTEN is known: may_listen */
	bool may_listen;
	enum store_pool pool;
	double timeout;            /* seconds: the client's wait for an answer (statement_timeout) */
	double lock_timeout;       /* seconds: the wait for a lock another writer holds (busy timeout) */
	bool waiting_for_lock;     /* the statement under way may wait lock_timeout */
	char schema[64];
	char quoted_schema[68];    /* "schema": what "@" stands for in a statement */
	char timeout_ms[24];       /* the server's statement_timeout, set in each transaction */
	char password[256];        /* scrubbed from every message, decoded */
	char password_raw[256];    /* and as the URL writes it (%40 for '@') */
};

static struct pg_store *
pg_of(struct store *store)
{
	return (struct pg_store *)(void *)store;
}

static double
now_monotonic(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Copies text into out with every occurrence of secret replaced by "***". */
static void
pg_scrub(const char *text, const char *secret, char *out, size_t size)
{
	size_t n = 0, len = secret != NULL ? strlen(secret) : 0;

	for (const char *p = text; *p != '\0' && n + 1 < size;) {
		if (len > 0 && strncmp(p, secret, len) == 0) {
			n += strlcpy(out + n, "***", size - n);
			n = n < size ? n : size - 1;
			p += len;
		} else {
			out[n++] = *p++;
		}
	}
	out[n < size ? n : size - 1] = '\0';
}

/* The value the connection string gives keyword, if any. */
static void
conninfo_value(const char *url, const char *keyword, char *out, size_t size)
{
	PQconninfoOption *opts = PQconninfoParse(url, NULL);

	*out = '\0';
	if (opts == NULL)
		return;
	for (PQconninfoOption *o = opts; o->keyword != NULL; o++)
		if (strcmp(o->keyword, keyword) == 0 && o->val != NULL)
			strlcpy(out, o->val, size);
	PQconninfoFree(opts);
}

/* The password the connection string carries, if any (URI userinfo,
 * ?password= or password=), decoded. */
static void
find_password(const char *url, char *out, size_t size)
{
	conninfo_value(url, "password", out, size);
}

/* The password as the text of url writes it: percent-encoded in a URI
 * ("p%40ss" for "p@ss"), quoted or backslashed in a keyword string; ""
 * when it has none.  libpq only gives the decoded one, which the text
 * does not contain when any character of it had to be encoded. */
static void
find_password_raw(const char *url, char *out, size_t size)
{
	const char *p, *at, *colon, *end;
	size_t len;

	*out = '\0';
	if ((p = strstr(url, "://")) != NULL) {
		p += 3;
		len = strcspn(p, "/?#");
		for (at = NULL, end = p; end < p + len; end++)
			if (*end == '@')
				at = end;   /* the last '@' ends the userinfo */
		if (at != NULL && (colon = memchr(p, ':', (size_t)(at - p))) != NULL) {
			snprintf(out, size, "%.*s", (int)(at - colon - 1), colon + 1);
			return;
		}
	}
	if ((p = strstr(url, "password=")) == NULL)
		return;
	p += 9;
	if (*p == '\'')
		p++;
	/* to the closing quote, or the first '&' or blank not after a backslash */
	for (len = 0; p[len] != '\0' && strchr(url[p - url - 1] == '\'' ? "'" : "& \t", p[len]) == NULL; len++)
		if (p[len] == '\\' && p[len + 1] != '\0')
			len++;
	snprintf(out, size, "%.*s", (int)len, p);
}

/* text into out with the password in both its forms as "***". */
static void
scrub_both(const char *text, const char *decoded, const char *raw, char *out, size_t size)
{
	char *once = malloc(size);

	if (once == NULL) {
		snprintf(out, size, "(a message that could not be cleaned of its password)");
		return;
	}
	pg_scrub(text, raw, once, size);
	pg_scrub(once, decoded, out, size);
	free(once);
}

/* The URL to show: the password, wherever and however it was written, as "***". */
void
pg_display_url(const char *url, char *out, size_t size)
{
	char password[256], raw[256], why[256];

	/* A journal opened while the server is known to be away (journal.h)
	 * comes here before any connect has loaded libpq. */
	if (!pq_load(why, sizeof(why))) {
		strlcpy(out, "the PostgreSQL server", size);
		return;
	}
	find_password(url, password, sizeof(password));
	find_password_raw(url, raw, sizeof(raw));
	scrub_both(url, password, raw, out, size);
}

/* libpq's message, one line, without the password. */
static void
pg_message(struct pg_store *pg, const char *raw, char *out, size_t size)
{
	char *nl;

	scrub_both(raw != NULL && *raw != '\0' ? raw : "no answer", pg->password, pg->password_raw, out, size);
	while ((nl = strpbrk(out, "\n\t")) != NULL)
		*nl = nl[1] == '\0' ? '\0' : ' ';
}

static bool
pg_fail(struct pg_store *pg, enum store_status status, const char *doing, const char *raw,
    struct store_error *err)
{
	char why[400];

	pg_message(pg, raw, why, sizeof(why));
	return set_error(err, status, "%s: %s: %s", pg->base.path, doing, why);
}

/* The store_status of a failed result, from its SQLSTATE. */
static enum store_status
status_of(const PGresult *res)
{
	const char *state = res != NULL ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;

	if (state == NULL)
		return STORE_ERR_UNREACHABLE;
	if (strcmp(state, "40001") == 0 || strcmp(state, "40P01") == 0)
		return STORE_ERR_RETRY;
	if (strcmp(state, "57014") == 0 || strcmp(state, "55P03") == 0)
		return STORE_ERR_LOCKED;
	if (strcmp(state, "42501") == 0 || strcmp(state, "25006") == 0)
		return STORE_ERR_READONLY;
	if (strncmp(state, "08", 2) == 0 || strncmp(state, "57P", 3) == 0)
		return STORE_ERR_UNREACHABLE;
	return STORE_ERR_IO;
}

/* Waits until the answer is in, or the deadline passes (false). */
static bool
wait_answer(PGconn *conn, double deadline)
{
	while (PQisBusy(conn)) {
		struct pollfd pfd = { .fd = PQsocket(conn), .events = POLLIN };
		double left = deadline - now_monotonic();
		int rc;

		if (left <= 0)
			return false;
		rc = poll(&pfd, 1, (int)ceil(left * 1000));
		if (rc < 0 && errno != EINTR)
			return false;
		if (rc > 0 && !PQconsumeInput(conn))
			return true;   /* the error is in the result */
	}
	return true;
}

static void
drop_deferred(struct pg_store *pg)
{
	for (size_t i = 0; i < pg->ndeferred; i++)
		for (int j = 0; j < pg->deferred[i].nparams; j++)
			free((char *)(void *)(uintptr_t)pg->deferred[i].texts[j]);
	pg->ndeferred = 0;
}

/*
 * sql with every "@" before a table's name replaced by the quoted schema
 * and a dot: a statement names each table with its schema, never through
 * search_path, which a transaction pool would carry from one client to the
 * next.  No statement has "@" anywhere else (values are parameters).
 * NULL when out of memory; the caller frees it.
 */
static char *
qualified_sql(const struct pg_store *pg, const char *sql)
{
	size_t marks = 0, len = strlen(pg->quoted_schema), n = 0;
	char *out;

	for (const char *p = sql; (p = strchr(p, '@')) != NULL; p++)
		marks++;
	/* each "@" becomes the quoted name and a dot */
	if ((out = malloc(strlen(sql) + marks * len + 1)) == NULL)
		return NULL;
	for (const char *p = sql; *p != '\0'; p++) {
		if (*p != '@') {
			out[n++] = *p;
			continue;
		}
		memcpy(out + n, pg->quoted_schema, len);
		n += len;
		out[n++] = '.';
	}
	out[n] = '\0';
	return out;
}

/* Sends one statement into the pipeline. */
static bool
send_statement(const struct pg_store *pg, const struct pg_statement *st)
{
	char *sql = qualified_sql(pg, st->sql);
	bool sent = sql != NULL && PQsendQueryParams(pg->conn, sql, st->nparams, NULL, st->texts, NULL, NULL, 0) != 0;

	free(sql);
	return sent;
}

/* The last result of the pipeline's next statement (its sync's, at the
 * end); NULL when none came before the deadline or the connection broke. */
static PGresult *
next_result(PGconn *conn, double deadline)
{
	PGresult *r, *last = NULL;

	for (;;) {
		if (!wait_answer(conn, deadline) || (r = PQgetResult(conn)) == NULL)
			return last;
		PQclear(last);
		last = r;
		if (PQresultStatus(r) == PGRES_PIPELINE_SYNC)
			return r;
	}
}

/* Fails for the first statement that did: its status, its words. */
static bool
statement_failed(struct pg_store *pg, const struct pg_statement *st, PGresult *r, struct store_error *err)
{
	bool lost = PQstatus(pg->conn) != CONNECTION_OK;

	if (r == NULL && !lost) {
		pg->dead = true;
		return pg_fail(pg, STORE_ERR_UNREACHABLE, st->doing, "no answer within the statement timeout", err);
	}
	if (lost || status_of(r) == STORE_ERR_UNREACHABLE)
		pg->dead = true;
	return pg_fail(pg, lost ? STORE_ERR_UNREACHABLE : status_of(r), st->doing,
	    r != NULL ? PQresultErrorMessage(r) : PQerrorMessage(pg->conn), err);
}

/*
 * Sends the deferred statements and last in one pipeline and reads every
 * answer; on success *res (when not NULL) is last's result for the caller
 * to PQclear().  After an error the server skips the rest up to the sync.
 * A timeout or a lost connection marks the store dead.
 */
static bool
pipeline(struct pg_store *pg, const struct pg_statement *last, PGresult **res, struct store_error *err)
{
	size_t n = pg->ndeferred;
	bool lock = last->waits_for_lock, ok = true, sent = PQenterPipelineMode(pg->conn) != 0;
	PGresult *r = NULL;

	for (size_t i = 0; i < n; i++) {
		lock = lock || pg->deferred[i].waits_for_lock;
		sent = sent && send_statement(pg, &pg->deferred[i]);
	}
	if (!(sent && send_statement(pg, last) && PQpipelineSync(pg->conn))) {
		pg->dead = true;
		drop_deferred(pg);
		return pg_fail(pg, STORE_ERR_UNREACHABLE, last->doing, PQerrorMessage(pg->conn), err);
	}
	double deadline = now_monotonic() + (lock ? pg->lock_timeout : pg->timeout) + 0.5;
	pg->tx_sent = pg->in_tx;
	for (size_t i = 0; i <= n && !pg->dead; i++) {
		const struct pg_statement *st = i < n ? &pg->deferred[i] : last;

		PQclear(r);
		r = next_result(pg->conn, deadline);
		if (ok && (r == NULL || (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK)))
			ok = statement_failed(pg, st, r, err);
	}
	if (!pg->dead) {
		PGresult *sync = next_result(pg->conn, deadline);

		if (sync == NULL || PQresultStatus(sync) != PGRES_PIPELINE_SYNC || !PQexitPipelineMode(pg->conn))
			ok = ok ? statement_failed(pg, last, NULL, err) : false;
		PQclear(sync);
	}
	drop_deferred(pg);
	if (ok && res != NULL)
		*res = r;
	else
		PQclear(r);
	return ok;
}

/* The text of each parameter; numbers are formatted into bufs. */
static void
param_texts(const struct db_value *params, size_t n, const char **texts, char (*bufs)[32])
{
	for (size_t i = 0; i < n; i++) {
		texts[i] = NULL;
		if (params[i].type == DB_TEXT)
			texts[i] = params[i].text;
		else if (params[i].type == DB_INT)
			snprintf(bufs[i], sizeof(bufs[i]), "%lld", params[i].i);
		else if (params[i].type == DB_REAL)
			snprintf(bufs[i], sizeof(bufs[i]), "%.17g", params[i].r);
		if (params[i].type == DB_INT || params[i].type == DB_REAL)
			texts[i] = bufs[i];
	}
}

static bool defer(struct pg_store *pg, const char *sql, const struct db_value *params, size_t n,
    const char *doing, bool waits_for_lock, struct store_error *err);

/*
 * The server's statement timeout, for the transaction under way only:
 * deferred, so that it rides with the transaction's first statement.  A
 * session's setting (startup options, SET) would stay on a pooled backend
 * for the next client.  The server's bound is the longer one, a lock's;
 * the client holds every other statement to statement_timeout itself
 * (pipeline()).
 */
static bool
set_timeout(struct pg_store *pg, const char *doing, struct store_error *err)
{
	struct db_value ms = { .type = DB_TEXT, .text = pg->timeout_ms };

	return defer(pg, "SELECT set_config('statement_timeout', $1, true)", &ms, 1, doing, false, err);
}

/*
 * Runs one statement (after any deferred ones) with its parameters and
 * waits at most the timeout; on success *res (when not NULL) is the result
 * for the caller to PQclear().
 */
static bool
pg_run(struct pg_store *pg, const char *sql, const struct db_value *params, size_t n,
    PGresult **res, const char *doing, struct store_error *err)
{
	struct pg_statement st = { .sql = sql, .doing = doing, .nparams = (int)n,
		.waits_for_lock = pg->waiting_for_lock };
	char bufs[PG_PARAMS_MAX][32];

	if (res != NULL)
		*res = NULL;
	if (pg->dead) {
		drop_deferred(pg);
		return set_error(err, STORE_ERR_UNREACHABLE, "%s: %s: the connection was lost", pg->base.path, doing);
	}
	/* Outside a transaction the pipeline is one of its own (up to its
	 * sync).  Only a statement that may wait for a lock needs the server's
	 * bound: the client bounds every other answer, and a statement that
	 * waits for nothing ends on the server on its own. */
	if (!pg->in_tx && pg->waiting_for_lock && !set_timeout(pg, doing, err))
		return false;
	param_texts(params, n, st.texts, bufs);
	return pipeline(pg, &st, res, err);
}

/* Keeps a statement for the next pipeline (sql must be a literal). */
static bool
defer(struct pg_store *pg, const char *sql, const struct db_value *params, size_t n,
    const char *doing, bool waits_for_lock, struct store_error *err)
{
	struct pg_statement *st = &pg->deferred[pg->ndeferred++];
	const char *texts[PG_PARAMS_MAX];
	char bufs[PG_PARAMS_MAX][32];

	*st = (struct pg_statement){ .sql = sql, .doing = doing, .waits_for_lock = waits_for_lock };
	param_texts(params, n, texts, bufs);
	for (; st->nparams < (int)n; st->nparams++)
		if (texts[st->nparams] != NULL && (st->texts[st->nparams] = strdup(texts[st->nparams])) == NULL) {
			drop_deferred(pg);
			return set_error(err, STORE_ERR_IO, "%s: out of memory", pg->base.path);
		}
	return true;
}

/*
 * A statement whose answer is not needed: deferred inside a transaction,
 * run at once outside one.  When the store keeps as many as it can, they
 * go first, with a statement that asks nothing.
 */
static bool
pg_defer(struct pg_store *pg, const char *sql, const struct db_value *params, size_t n,
    const char *doing, bool waits_for_lock, struct store_error *err)
{
	if (!pg->in_tx || pg->dead)
		return pg_run(pg, sql, params, n, NULL, doing, err);
	if (pg->ndeferred == PG_DEFERRED_MAX && !pg_run(pg, "SELECT 1", NULL, 0, NULL, doing, err))
		return false;
	return defer(pg, sql, params, n, doing, waits_for_lock, err);
}

static bool
pg_exec(struct pg_store *pg, const char *sql, const char *doing, struct store_error *err)
{
	return pg_run(pg, sql, NULL, 0, NULL, doing, err);
}

static const char *
cell(const PGresult *res, int row, int col)
{
	return PQgetisnull(res, row, col) ? NULL : PQgetvalue(res, row, col);
}

static double
cell_double(const PGresult *res, int row, int col, double null_value)
{
	const char *s = cell(res, row, col);

	return s != NULL ? strtod(s, NULL) : null_value;
}

static long long
cell_int(const PGresult *res, int row, int col, long long null_value)
{
	const char *s = cell(res, row, col);

	return s != NULL ? strtoll(s, NULL, 10) : null_value;
}

static void
cell_text(const PGresult *res, int row, int col, char *buf, size_t size)
{
	const char *s = cell(res, row, col);

	strlcpy(buf, s != NULL ? s : "", size);
}

/* Fills item, one of an array, from the row-th row of res. */
typedef void row_fill(const PGresult *res, int row, void *item);

/*
 * The one row reader: runs sql and stores at rows (the address of the
 * caller's array pointer, whatever its row type) a new array of the
 * result's rows, each size bytes, zeroed and then filled by fill; *count
 * is how many.
 */
static bool
read_rows(struct pg_store *pg, const char *sql, const struct db_value *params, size_t nparams,
    size_t size, row_fill *fill, void *rows, size_t *count, const char *doing, struct store_error *err)
{
	char *array = NULL;
	PGresult *res;
	int n;

	memcpy(rows, &array, sizeof(array));
	*count = 0;
	if (!pg_run(pg, sql, params, nparams, &res, doing, err))
		return false;
	n = PQntuples(res);
	if (n > 0 && (array = calloc((size_t)n, size)) == NULL) {
		PQclear(res);
		return set_error(err, STORE_ERR_IO, "%s: out of memory", pg->base.path);
	}
	for (int i = 0; i < n; i++)
		fill(res, i, array + (size_t)i * size);
	memcpy(rows, &array, sizeof(array));
	*count = (size_t)n;
	PQclear(res);
	return true;
}

/* ---- opening: connection, schema, migrations --------------------------- */

/* Tables other than runs; runs is built from lib/store/runs_table.c.  Every
 * statement is idempotent: migrating means running them all. */
static const char *const schema_tables[] = {
	"CREATE TABLE IF NOT EXISTS @breakers (account text NOT NULL, family text NOT NULL, scope text NOT NULL,"
	" state text NOT NULL DEFAULT 'closed', reason text, resets_at double precision, reset_source text,"
	" trips bigint NOT NULL DEFAULT 0, consecutive_unknown bigint NOT NULL DEFAULT 0,"
	" last_trip_at double precision, last_message text, updated_at double precision, probe_pid bigint,"
	" probe_start_time bigint, probe_host text, probe_expires double precision,"
	" PRIMARY KEY (account, family, scope))",
	"CREATE TABLE IF NOT EXISTS @breaker_history (id bigserial PRIMARY KEY, at double precision NOT NULL,"
	" account text NOT NULL, family text NOT NULL, scope text NOT NULL, event text NOT NULL,"
	" state text NOT NULL, reason text, resets_at double precision, reset_source text, trips bigint,"
	" run_id bigint, message text)",
	"CREATE INDEX IF NOT EXISTS breaker_history_at ON @breaker_history (at)",
	"CREATE TABLE IF NOT EXISTS @waits (id bigserial PRIMARY KEY, at double precision NOT NULL,"
	" kind text NOT NULL, account text, family text, scope text, model text, reason text,"
	" resets_at double precision, reset_source text, \"until\" double precision, pid bigint)",
	"CREATE INDEX IF NOT EXISTS waits_at ON @waits (at)",
	"ALTER TABLE @waits ADD COLUMN IF NOT EXISTS host text",
	"ALTER TABLE @waits ADD COLUMN IF NOT EXISTS ended_at double precision",
	"ALTER TABLE @breakers ADD COLUMN IF NOT EXISTS ramp_started double precision",
	"ALTER TABLE @breakers ADD COLUMN IF NOT EXISTS ramp_released bigint",
	"CREATE TABLE IF NOT EXISTS @slot_queue (id bigserial PRIMARY KEY, at double precision NOT NULL,"
	" account text NOT NULL, family text NOT NULL, model text, host text NOT NULL, pid bigint NOT NULL,"
	" pid_start_time bigint, alive_until double precision NOT NULL)",
	/* A waiter's look reads its key's head and nothing else (version 12). */
	"CREATE INDEX IF NOT EXISTS slot_queue_key ON @slot_queue (account, family, id)",
	"CREATE TABLE IF NOT EXISTS @budget_buckets (account text NOT NULL, family text NOT NULL,"
	" model text NOT NULL DEFAULT '', width double precision NOT NULL, bucket double precision NOT NULL,"
	" origin text NOT NULL DEFAULT '', tokens double precision NOT NULL DEFAULT 0,"
	" usd double precision NOT NULL DEFAULT 0, runs double precision NOT NULL DEFAULT 0,"
	" PRIMARY KEY (account, family, model, width, bucket, origin))",
	/* Schema 6 and 7 counted in budget_counters (no model, no origin). */
	"DO $$ BEGIN IF to_regclass('@budget_counters') IS NOT NULL THEN"
	" INSERT INTO @budget_buckets (account, family, width, bucket, tokens, usd, runs)"
	" SELECT account, family, width, bucket, tokens, usd, runs FROM @budget_counters"
	" ON CONFLICT DO NOTHING; DROP TABLE @budget_counters; END IF; END $$",
	"CREATE TABLE IF NOT EXISTS @hosts (host text PRIMARY KEY, alive_until double precision NOT NULL)",
	"CREATE TABLE IF NOT EXISTS @adaptive_limits (account text NOT NULL, family text NOT NULL,"
	" limit_now bigint NOT NULL, successes bigint NOT NULL DEFAULT 0,"
	" changed_at double precision NOT NULL, why text, PRIMARY KEY (account, family))",
	"CREATE TABLE IF NOT EXISTS @usage_readings (account text NOT NULL, family text NOT NULL,"
	" win text NOT NULL, model text NOT NULL DEFAULT '', window_secs double precision,"
	" used double precision, status text, resets_at double precision, at double precision NOT NULL,"
	" PRIMARY KEY (account, family, win))",
};

static const char *const schema_runs_indexes[] = {
	"CREATE INDEX IF NOT EXISTS runs_started_at ON @runs (started_at)",
	"CREATE INDEX IF NOT EXISTS runs_family_started_at ON @runs (family, started_at)",
	"CREATE INDEX IF NOT EXISTS runs_running ON @runs (account, family) WHERE state = 'running'",
	"CREATE UNIQUE INDEX IF NOT EXISTS runs_uid ON @runs (uid)",
	"CREATE INDEX IF NOT EXISTS runs_origin ON @runs (origin) WHERE origin IS NOT NULL",
};

static const char *
sql_type(enum db_type t)
{
	return t == DB_TEXT ? "text" : t == DB_INT ? "bigint" : "double precision";
}

/* The runs table from the column list: created with every column, and any
 * column a later version added to the list added to an older table. */
static bool
create_runs_table(struct pg_store *pg, struct store_error *err)
{
	char sql[256];

	if (!pg_exec(pg, "CREATE TABLE IF NOT EXISTS @runs (id bigserial PRIMARY KEY)", "creating the runs table", err))
		return false;
	for (size_t i = 0; i < run_columns_count; i++) {
		if (run_columns[i].flags & COLUMN_KEY)
			continue;
		snprintf(sql, sizeof(sql), "ALTER TABLE @runs ADD COLUMN IF NOT EXISTS %s %s", run_columns[i].name,
		    sql_type(run_columns[i].type));
		if (!pg_exec(pg, sql, "creating the runs table", err))
			return false;
	}
	for (size_t i = 0; i < sizeof(schema_runs_indexes) / sizeof(schema_runs_indexes[0]); i++)
		if (!pg_exec(pg, schema_runs_indexes[i], "creating the runs table", err))
			return false;
	return true;
}

static bool
pg_schema_migrate(struct pg_store *pg, struct store_error *err)
{
	struct db_value version = { .type = DB_INT, .i = STORE_SCHEMA_VERSION };

	for (size_t i = 0; i < sizeof(schema_tables) / sizeof(schema_tables[0]); i++)
		if (!pg_exec(pg, schema_tables[i], "migrating the schema", err))
			return false;
	return create_runs_table(pg, err) &&
	    pg_exec(pg, "DELETE FROM @schema_version", "migrating the schema", err) &&
	    pg_run(pg, "INSERT INTO @schema_version (version) VALUES ($1)", &version, 1, NULL,
	    "migrating the schema", err);
}

/* A server that answered and refused (a password, a database, a role) is
 * not an outage; one that is starting or stopping is. */
static enum store_status
connect_status(const char *message)
{
	if (strstr(message, "FATAL:") == NULL || strstr(message, "the database system is") != NULL)
		return STORE_ERR_UNREACHABLE;
	return STORE_ERR_OPEN;
}

/* lib/ never prints: the server's notices are dropped, not sent to stderr. */
static void
drop_notice(void *arg, const char *message)
{
}

/*
 * No startup options of rlwrap's own: a pool refuses them (pgbouncer:
 * "unsupported startup parameter: options"), and a session's settings
 * would outlive its transaction on a pooled backend.  The user's own, in
 * the string or PGOPTIONS, libpq sends as it reads them.
 */
static bool
connect_server(struct pg_store *pg, const struct store_options *opts, const char *url,
    struct store_error *err)
{
	char timeout[16];
	const char *keys[] = { "connect_timeout", "fallback_application_name", "dbname", NULL };
	const char *values[] = { timeout, "rlwrap", url, NULL };

	snprintf(timeout, sizeof(timeout), "%d", (int)ceil(opts->connect_timeout));
	pg->conn = PQconnectdbParams(keys, values, 1);
	if (pg->conn == NULL)
		return set_error(err, STORE_ERR_IO, "%s: out of memory", pg->base.path);
	if (PQstatus(pg->conn) != CONNECTION_OK)
		return pg_fail(pg, connect_status(PQerrorMessage(pg->conn)), "cannot connect",
		    PQerrorMessage(pg->conn), err);
	PQsetNoticeProcessor(pg->conn, drop_notice, NULL);
	return true;
}

/* The schema's version: 0 when there are no tables yet. */
static bool
read_version(struct pg_store *pg, int *version, struct store_error *err)
{
	PGresult *res;
	struct store_error ignored;

	*version = 0;
	if (!pg_run(pg, "SELECT max(version) FROM @schema_version", NULL, 0, &res, "reading the schema version",
	    &ignored))
		return ignored.status == STORE_ERR_IO || set_error(err, ignored.status, "%s", ignored.message);
	*version = (int)cell_int(res, 0, 0, 0);
	PQclear(res);
	return true;
}

static bool pg_begin(struct store *store, struct store_error *err);
static bool pg_commit(struct store *store, struct store_error *err);
static void pg_rollback(struct store *store);

static bool
valid_schema_name(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > 63 || strchr("abcdefghijklmnopqrstuvwxyz_", name[0]) == NULL)
		return false;
	return strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_") == n;
}

/* The schema (when missing: a DBA may have made it for a role that may not
 * create schemas) and the version table, so that reading it cannot fail. */
static bool
create_schema(struct pg_store *pg, struct store_error *err)
{
	struct db_value name = { .type = DB_TEXT, .text = pg->schema };
	char sql[128];
	PGresult *res;
	bool exists;

	if (!pg_run(pg, "SELECT 1 FROM pg_namespace WHERE nspname = $1", &name, 1, &res, "creating the schema", err))
		return false;
	exists = PQntuples(res) > 0;
	PQclear(res);
	snprintf(sql, sizeof(sql), "CREATE SCHEMA %s", pg->quoted_schema);
	if (!exists && !pg_exec(pg, sql, "creating the schema", err))
		return false;
	return pg_exec(pg, "CREATE TABLE IF NOT EXISTS @schema_version (version integer NOT NULL)",
	    "creating the schema", err);
}

/*
 * Creates or brings the tables to STORE_SCHEMA_VERSION in one transaction,
 * under an advisory lock so that many first openers take turns; whoever
 * comes second finds the work done.  A newer version is left untouched.
 */
static bool
migrate(struct pg_store *pg, struct store_error *err)
{
	int version;
	bool locked;

	if (!pg_begin(&pg->base, err))
		return false;
	pg->waiting_for_lock = true;
	locked = pg_run(pg, "SELECT pg_advisory_xact_lock(hashtext('rlwrap schema ' || $1))",
	    &(struct db_value){ .type = DB_TEXT, .text = pg->schema }, 1, NULL, "migrating the schema", err);
	pg->waiting_for_lock = false;
	if (!locked || !create_schema(pg, err) || !read_version(pg, &version, err))
		goto fail;
	if (version > STORE_SCHEMA_VERSION) {
		set_error(err, STORE_ERR_VERSION, "%s: schema %s is at version %d, newer than this rlwrap knows "
		    "(%d); left untouched: upgrade rlwrap or use another schema", pg->base.path, pg->schema,
		    version, STORE_SCHEMA_VERSION);
		goto fail;
	}
	if ((version < STORE_SCHEMA_VERSION && !pg_schema_migrate(pg, err)) || !pg_commit(&pg->base, err))
		goto fail;
	pg->base.version = STORE_SCHEMA_VERSION;
	return true;
fail:
	pg_rollback(&pg->base);
	return false;
}

static void pg_close(struct store *store);

static bool
pg_open(const struct store_options *opts, struct store **out, struct store_error *err)
{
	struct pg_store *pg = calloc(1, sizeof(*pg));
	int version;

	char why[512];

	*out = NULL;
	if (!pq_load(why, sizeof(why))) {
		free(pg);
		return set_error(err, STORE_ERR_UNSUPPORTED, "%s", why);
	}
	if (pg == NULL)
		return set_error(err, STORE_ERR_IO, "PostgreSQL store: out of memory");
	pg->base.ops = &store_pg_ops;
	pg_display_url(opts->path, pg->base.path, sizeof(pg->base.path));
	find_password(opts->path, pg->password, sizeof(pg->password));
	find_password_raw(opts->path, pg->password_raw, sizeof(pg->password_raw));
	pg->base.keep_runs = opts->keep_runs;
	pg->base.keep_days = opts->keep_days;
	pg->timeout = opts->statement_timeout;
	pg->lock_timeout = (double)opts->busy_timeout_ms / 1000 > pg->timeout ? (double)opts->busy_timeout_ms / 1000 :
	    pg->timeout;
	strlcpy(pg->schema, opts->schema, sizeof(pg->schema));
	if (!valid_schema_name(pg->schema)) {
		set_error(err, STORE_ERR_OPEN, "%s: schema '%s' is not a lower-case SQL name", pg->base.path,
		    opts->schema);
		goto fail;
	}
	/* a valid name needs no escaping inside the quotes; quoted, a keyword is a name too */
	snprintf(pg->quoted_schema, sizeof(pg->quoted_schema), "\"%s\"", pg->schema);
	snprintf(pg->timeout_ms, sizeof(pg->timeout_ms), "%d", (int)ceil(pg->lock_timeout * 1000));
	pg->pool = opts->pool;
	version = STORE_SCHEMA_VERSION;
	if (!connect_server(pg, opts, opts->path, err) || (!opts->schema_known && !read_version(pg, &version, err)))
		goto fail;
	if (version > STORE_SCHEMA_VERSION) {
		set_error(err, STORE_ERR_VERSION, "%s: schema %s is at version %d, newer than this rlwrap knows "
		    "(%d); left untouched: upgrade rlwrap or use another schema", pg->base.path, pg->schema,
		    version, STORE_SCHEMA_VERSION);
		goto fail;
	}
	if (opts->read_only && version != STORE_SCHEMA_VERSION) {
		set_error(err, STORE_ERR_VERSION, "%s: schema version %d, not %d, and a read-only open cannot "
		    "migrate it", pg->base.path, version, STORE_SCHEMA_VERSION);
		goto fail;
	}
	pg->base.version = version;
	if (version < STORE_SCHEMA_VERSION && !migrate(pg, err))
		goto fail;
	*out = &pg->base;
	return true;
fail:
	pg_close(&pg->base);
	return false;
}

static void
pg_close(struct store *store)
{
	struct pg_store *pg = pg_of(store);

	drop_deferred(pg);
	PQfinish(pg->conn);
	explicit_bzero(pg->password, sizeof(pg->password));
	explicit_bzero(pg->password_raw, sizeof(pg->password_raw));
	free(pg);
}

/* ---- transactions ------------------------------------------------------ */

/* BEGIN and its statement timeout go with the transaction's first
 * statement; a transaction that sent nothing else costs no round trip at
 * all. */
#define PG_BEGIN_STATEMENTS 2

static bool
pg_begin(struct store *store, struct store_error *err)
{
	struct pg_store *pg = pg_of(store);

	if (pg->dead)
		return set_error(err, STORE_ERR_UNREACHABLE, "%s: starting a transaction: the connection was lost",
		    pg->base.path);
	drop_deferred(pg);
	if (!defer(pg, "BEGIN", NULL, 0, "starting a transaction", false, err) ||
	    !set_timeout(pg, "starting a transaction", err))
		return false;
	pg->in_tx = true;
	pg->tx_sent = false;
	return true;
}

static void
pg_rollback(struct store *store)
{
	struct pg_store *pg = pg_of(store);
	struct store_error ignored;

	drop_deferred(pg);
	if (pg->in_tx && pg->tx_sent && !pg->dead)
		pg_exec(pg, "ROLLBACK", "rolling back", &ignored);
	pg->in_tx = pg->tx_sent = false;
}

/* The deferred writes and the COMMIT: one round trip. */
static bool
pg_commit(struct store *store, struct store_error *err)
{
	struct pg_store *pg = pg_of(store);

	if (!pg->tx_sent && pg->ndeferred == PG_BEGIN_STATEMENTS) {
		drop_deferred(pg);
		pg->in_tx = false;
		return true;
	}
	if (pg_exec(pg, "COMMIT", "committing", err)) {
		pg->in_tx = pg->tx_sent = false;
		return true;
	}
	pg_rollback(store);
	return false;
}

/* ---- breakers ----------------------------------------------------------- */

#define BREAKER_COLUMNS "account, family, scope, state, reason, resets_at, reset_source, trips," \
	" consecutive_unknown, last_trip_at, last_message, probe_pid, probe_start_time, probe_host," \
	" probe_expires, updated_at, ramp_started, ramp_released"

static void
breaker_from_row(const PGresult *res, int row, void *item)
{
	struct breaker *b = item;
	char reason[32], state[16];

	cell_text(res, row, 0, b->key.account, sizeof(b->key.account));
	cell_text(res, row, 1, b->key.family, sizeof(b->key.family));
	cell_text(res, row, 2, b->key.scope, sizeof(b->key.scope));
	cell_text(res, row, 3, state, sizeof(state));
	b->state = breaker_state_from_name(state);
	cell_text(res, row, 4, reason, sizeof(reason));
	if (!reason_from_name(reason, &b->reason))
		b->reason = REASON_NONE;
	b->resets_at = cell_double(res, row, 5, 0);
	cell_text(res, row, 6, b->reset_source, sizeof(b->reset_source));
	b->trips = (long)cell_int(res, row, 7, 0);
	b->consecutive_unknown = (long)cell_int(res, row, 8, 0);
	b->last_trip_at = cell_double(res, row, 9, 0);
	cell_text(res, row, 10, b->last_message, sizeof(b->last_message));
	b->lease.pid = (long)cell_int(res, row, 11, 0);
	b->lease.start_time = cell_int(res, row, 12, 0);
	cell_text(res, row, 13, b->lease.host, sizeof(b->lease.host));
	b->lease.expires_at = cell_double(res, row, 14, 0);
	b->updated_at = cell_double(res, row, 15, 0);
	b->ramp_started = cell_double(res, row, 16, 0);
	b->ramp_released = (long)cell_int(res, row, 17, 0);
}

/* Inside a transaction: (account, family) is the caller's until it ends.
 * As long a wait as SQLite's busy timeout: another writer holds it, alive. */
static bool
lock_key(struct pg_store *pg, const char *account, const char *family, struct store_error *err)
{
	struct db_value key[2] = { { .type = DB_TEXT, .text = account }, { .type = DB_TEXT, .text = family } };

	if (!pg->in_tx || family == NULL)
		return true;
	return pg_defer(pg, "SELECT pg_advisory_xact_lock(hashtext($1 || chr(31) || $2))", key, 2,
	    "locking (account, family)", true, err);
}

/*
 * Inside a transaction the caller decides on what it reads: the (account,
 * family) is locked first (rows that do not exist yet included), so the
 * read sees what the previous holder committed, and the rows FOR UPDATE.
 */
static bool
pg_breakers_of(struct store *store, const char *account, const char *family,
    struct breaker **rows, size_t *count, struct store_error *err)
{
	struct pg_store *pg = pg_of(store);
	struct db_value key[2] = { { .type = DB_TEXT, .text = account }, { .type = DB_TEXT, .text = family } };

	if (!lock_key(pg, account, family, err))
		return false;
	return read_rows(pg, pg->in_tx ? "SELECT " BREAKER_COLUMNS " FROM @breakers"
	    " WHERE account = $1 AND family = $2 ORDER BY scope FOR UPDATE" : "SELECT " BREAKER_COLUMNS
	    " FROM @breakers WHERE account = $1 AND family = $2 ORDER BY scope", key, 2, sizeof(**rows),
	    breaker_from_row, rows, count, "reading breakers", err);
}

static bool
pg_breakers_all(struct store *store, struct breaker **rows, size_t *count, struct store_error *err)
{
	return read_rows(pg_of(store), "SELECT " BREAKER_COLUMNS " FROM @breakers ORDER BY family, scope, account",
	    NULL, 0, sizeof(**rows), breaker_from_row, rows, count, "reading breakers", err);
}

static struct db_value
text_value(const char *s)
{
	return (struct db_value){ .type = s != NULL && *s != '\0' ? DB_TEXT : DB_NULL, .text = s };
}

static struct db_value
real_value(double v, double null_value)
{
	return (struct db_value){ .type = v == null_value ? DB_NULL : DB_REAL, .r = v };
}

static struct db_value
int_value(long long v, long long null_value)
{
	return (struct db_value){ .type = v == null_value ? DB_NULL : DB_INT, .i = v };
}

static bool
pg_breaker_save(struct store *store, const struct breaker *b, struct store_error *err)
{
	bool leased = b->lease.pid != 0;
	struct db_value v[18] = {
		text_value(b->key.account), text_value(b->key.family), { .type = DB_TEXT, .text = b->key.scope },
		text_value(breaker_state_name(b->state)),
		text_value(b->reason != REASON_NONE ? reason_name(b->reason) : NULL),
		real_value(b->resets_at, 0), text_value(b->reset_source), int_value(b->trips, LLONG_MIN),
		int_value(b->consecutive_unknown, LLONG_MIN), real_value(b->last_trip_at, 0),
		text_value(b->last_message), int_value(b->lease.pid, 0),
		int_value(leased ? b->lease.start_time : 0, 0), text_value(leased ? b->lease.host : NULL),
		real_value(leased ? b->lease.expires_at : 0, 0), real_value(b->updated_at, 0),
		real_value(b->ramp_started, 0), int_value(b->ramp_started > 0 ? b->ramp_released : 0, 0),
	};

	return pg_defer(pg_of(store), "INSERT INTO @breakers (" BREAKER_COLUMNS ") VALUES ($1, $2, $3, $4, $5,"
	    " $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18) ON CONFLICT (account, family, scope) DO UPDATE"
	    " SET state = EXCLUDED.state, reason = EXCLUDED.reason, resets_at = EXCLUDED.resets_at,"
	    " reset_source = EXCLUDED.reset_source, trips = EXCLUDED.trips,"
	    " consecutive_unknown = EXCLUDED.consecutive_unknown, last_trip_at = EXCLUDED.last_trip_at,"
	    " last_message = EXCLUDED.last_message, probe_pid = EXCLUDED.probe_pid,"
	    " probe_start_time = EXCLUDED.probe_start_time, probe_host = EXCLUDED.probe_host,"
	    " probe_expires = EXCLUDED.probe_expires, updated_at = EXCLUDED.updated_at,"
	    " ramp_started = EXCLUDED.ramp_started, ramp_released = EXCLUDED.ramp_released",
	    v, 18, "saving a breaker", false, err);
}

static bool
pg_history_add(struct store *store, const struct breaker *b, const char *event,
    long long run_id, double at, struct store_error *err)
{
	struct db_value v[12] = {
		real_value(at, -1), text_value(b->key.account), text_value(b->key.family),
		{ .type = DB_TEXT, .text = b->key.scope }, text_value(event), text_value(breaker_state_name(b->state)),
		text_value(b->reason != REASON_NONE ? reason_name(b->reason) : NULL), real_value(b->resets_at, 0),
		text_value(b->reset_source), int_value(b->trips, LLONG_MIN), int_value(run_id, 0),
		text_value(b->last_message),
	};

	return pg_defer(pg_of(store), "INSERT INTO @breaker_history (at, account, family, scope, event, state,"
	    " reason, resets_at, reset_source, trips, run_id, message) VALUES ($1, $2, $3, $4, $5, $6, $7, $8,"
	    " $9, $10, $11, $12)", v, 12, "writing breaker history", false, err);
}

/* ---- runs, waits, counts ----------------------------------------------- */

#define SLOT_CHANNEL "rlwrap_slot"

/* Inserts run, or (run->id set) completes that row; *run_id.  notify: the
 * completion also tells the waiters for a slot (slot_maybe_freed()), in the
 * same statement. */
static bool
write_run(struct pg_store *pg, const struct run_row *run, bool notify, long long *run_id,
    struct store_error *err)
{
	struct db_value v[64];
	char sql[2048] = "";
	PGresult *res;
	size_t n = 0;
	bool fits;

	notify = notify && run->id != 0;
	if (notify)
		strlcpy(sql, "WITH done AS (", sizeof(sql));
	fits = run->id != 0 ? runs_update_sql("@runs", '$', sql + strlen(sql), sizeof(sql) - strlen(sql)) :
	    runs_insert_sql("@runs", '$', sql, sizeof(sql));
	if (!fits || strlcat(sql, " RETURNING id", sizeof(sql)) >= sizeof(sql))
		return set_error(err, STORE_ERR_IO, "%s: the runs insert does not fit", pg->base.path);
	for (size_t i = 0; i < run_columns_count && n + 2 < sizeof(v) / sizeof(v[0]); i++)
		if (run_column_written(&run_columns[i], run->id != 0))
			run_column_value(run, &run_columns[i], &v[n++]);
	if (run->id != 0)
		v[n++] = (struct db_value){ .type = DB_INT, .i = run->id };
	if (notify) {
		v[n++] = text_value(pg->schema);
		snprintf(sql + strlen(sql), sizeof(sql) - strlen(sql), ") SELECT id, pg_notify('" SLOT_CHANNEL
		    "', $%zu) FROM done", n);
		if (strlen(sql) + 1 >= sizeof(sql))
			return set_error(err, STORE_ERR_IO, "%s: the runs update does not fit", pg->base.path);
	}
	if (!pg_run(pg, sql, v, n, &res, "recording the run", err))
		return false;
	*run_id = PQntuples(res) > 0 ? cell_int(res, 0, 0, 0) : run->id;
	PQclear(res);
	return true;
}

/* A server's history is pruned in batches: by the write of every
 * PG_PRUNE_EVERY-th run id (whoever that is), not by every spawn, so it may
 * hold up to that many rows past keep_runs. */
#define PG_PRUNE_EVERY 64

/* History pruned on write, when due: runs beyond keep_runs, and everything
 * older than keep_days. */
static bool
prune(struct pg_store *pg, long long last_run_id, double now, struct store_error *err)
{
	static const char *const by_age[] = {
		"DELETE FROM @runs WHERE started_at < $1 AND coalesce(state, '') <> 'running'",
		"DELETE FROM @breaker_history WHERE at < $1",
		"DELETE FROM @waits WHERE at < $1",
	};
	struct db_value oldest_id = { .type = DB_INT, .i = last_run_id - pg->base.keep_runs };
	struct db_value cutoff = { .type = DB_REAL, .r = now - (double)pg->base.keep_days * 86400 };

	if (last_run_id % PG_PRUNE_EVERY != 0)
		return true;
	if (pg->base.keep_runs > 0 && last_run_id > pg->base.keep_runs &&
	    !pg_defer(pg, "DELETE FROM @runs WHERE id <= $1 AND coalesce(state, '') <> 'running'", &oldest_id, 1,
	    "pruning history", false, err))
		return false;
	for (size_t i = 0; pg->base.keep_days > 0 && i < sizeof(by_age) / sizeof(by_age[0]); i++)
		if (!pg_defer(pg, by_age[i], &cutoff, 1, "pruning history", false, err))
			return false;
	return true;
}

/*
 * Waiters for a slot are told, not left to poll: whatever may free one (a
 * running row completed or lost, a place in a queue given up) notifies the
 * channel, with the schema as payload (one channel per database); inside
 * a transaction the notice goes out at its commit.  Waiters still look every
 * poll interval, for the holders that die without a word, and the waiters
 * behind a transaction pool, which may not LISTEN (decide_listen()).
 */
static bool
slot_maybe_freed(struct pg_store *pg, struct store_error *err)
{
	struct db_value schema = text_value(pg->schema);

	return pg_defer(pg, "SELECT pg_notify('" SLOT_CHANNEL "', $1)", &schema, 1,
	    "telling the waiters for a slot", false, err);
}

/* The notices already in: whether one was for this schema. */
static bool
drain_notices(struct pg_store *pg)
{
	PGnotify *n;
	bool told = false;

	while ((n = PQnotifies(pg->conn)) != NULL) {
		told = told || strcmp(n->extra, pg->schema) == 0;
		PQfreemem(n);
	}
	return told;
}

/*
 * Whether this connection may LISTEN: one a transaction pool hands from
 * backend to backend must not (the LISTEN would stay on a backend that
 * other clients get, and the notices reach whoever holds it).  pool =
 * transaction says it never may, none that it always may; auto asks: the
 * backend that answers is the one the connection started with (the pid of
 * its BackendKeyData) only when nothing stands between, since a pool sends
 * a cancel key of its own.  A waiter that may not LISTEN looks every poll.
 */
static bool
decide_listen(struct pg_store *pg, struct store_error *err)
{
	PGresult *res;

	pg->may_listen = pg->pool == STORE_POOL_NONE;
	if (pg->pool == STORE_POOL_AUTO) {
		if (!pg_run(pg, "SELECT pg_backend_pid()", NULL, 0, &res, "waiting for a slot", err))
			return false;
		pg->may_listen = cell_int(res, 0, 0, 0) == PQbackendPID(pg->conn);
		PQclear(res);
	}
	pg->listen_decided = true;
	return true;
}

static bool
pg_slot_await(struct store *store, double secs, bool *told, struct store_error *err)
{
	struct pg_store *pg = pg_of(store);
	struct pollfd pfd;

	*told = false;
	if (!pg->listen_decided && !decide_listen(pg, err))
		return false;
	if (pg->may_listen && !pg->listening) {
		if (!pg_exec(pg, "LISTEN " SLOT_CHANNEL, "waiting for a slot", err))
			return false;
		pg->listening = true;
	}
	if ((*told = drain_notices(pg)))
		return true;
	pfd = (struct pollfd){ .fd = PQsocket(pg->conn), .events = POLLIN };
	if (poll(&pfd, 1, secs > 0 ? (int)ceil(secs * 1000) : 0) > 0 && !PQconsumeInput(pg->conn)) {
		pg->dead = true;
		return pg_fail(pg, STORE_ERR_UNREACHABLE, "waiting for a slot", PQerrorMessage(pg->conn), err);
	}
	*told = drain_notices(pg);
	return true;
}

static bool
pg_run_add(struct store *store, const struct run_row *run, double now,
    long long *run_id, struct store_error *err)
{
	return write_run(pg_of(store), run, true, run_id, err) && prune(pg_of(store), *run_id, now, err);
}

#define WAITS_INSERT "INSERT INTO @waits (at, kind, account, family, scope, model, reason, resets_at," \
	" reset_source, \"until\", pid, host) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)"

static bool
pg_wait_add(struct store *store, const struct wait_record *wait, long long *wait_id, struct store_error *err)
{
	const struct breaker *b = wait->blocking;
	struct db_value v[12] = {
		real_value(wait->at, -1), text_value(wait->kind), text_value(b != NULL ? b->key.account : wait->account),
		text_value(b != NULL ? b->key.family : wait->family), text_value(b != NULL ? b->key.scope : NULL),
		text_value(wait->model), text_value(b != NULL ? reason_name(b->reason) : wait->why),
		real_value(b != NULL ? b->resets_at : 0, 0), text_value(b != NULL ? b->reset_source : NULL),
		real_value(wait->until, 0), int_value(wait->pid, 0), text_value(wait->host),
	};
	PGresult *res;

	if (wait_id == NULL)
		return pg_defer(pg_of(store), WAITS_INSERT, v, 12, "recording a wait", false, err);
	if (!pg_run(pg_of(store), WAITS_INSERT " RETURNING id", v, 12, &res, "recording a wait", err))
		return false;
	*wait_id = cell_int(res, 0, 0, 0);
	PQclear(res);
	return true;
}

/* One statement on the row $1 (= id), with $2 = value when has_value. */
static bool
update_by_id(struct store *store, const char *sql, long long id, bool has_value, double value,
    const char *doing, struct store_error *err)
{
	struct db_value v[2] = { { .type = DB_INT, .i = id }, { .type = DB_REAL, .r = value } };

	return pg_defer(pg_of(store), sql, v, has_value ? 2 : 1, doing, false, err);
}

static bool
pg_wait_end(struct store *store, long long wait_id, double ended_at, struct store_error *err)
{
	return update_by_id(store, "UPDATE @waits SET ended_at = $2 WHERE id = $1", wait_id, true, ended_at,
	    "recording a wait's end", err);
}

/* A family alone: runs and failures -1, not counted. */
static void
family_from_row(const PGresult *res, int row, void *item)
{
	struct family_counts *f = item;

	cell_text(res, row, 0, f->family, sizeof(f->family));
	f->runs = -1;
	f->failures = -1;
}

static void
family_counts_from_row(const PGresult *res, int row, void *item)
{
	struct family_counts *f = item;

	family_from_row(res, row, f);
	f->runs = (long)cell_int(res, row, 1, 0);
	f->failures = (long)cell_int(res, row, 2, 0);
}

/* Rows of (family[, runs, failures]) from sql, whose $1 is since. */
static bool
family_rows(struct pg_store *pg, const char *sql, bool counted, double since,
    struct family_counts **rows, size_t *count, struct store_error *err)
{
	struct db_value v = { .type = DB_REAL, .r = since };

	return read_rows(pg, sql, &v, 1, sizeof(**rows), counted ? family_counts_from_row : family_from_row,
	    rows, count, "counting runs", err);
}

static bool
pg_family_counts(struct store *store, double since, struct family_counts **rows,
    size_t *count, struct store_error *err)
{
	return family_rows(pg_of(store), "SELECT coalesce(family, '?'), count(*), count(*) FILTER"
	    " (WHERE coalesce(reason, 'none') <> 'none') FROM @runs WHERE started_at >= $1"
	    " AND state <> 'refused' GROUP BY 1 ORDER BY 1",
	    true, since, rows, count, err);
}

static bool
pg_families_since(struct store *store, double since, struct family_counts **rows,
    size_t *count, struct store_error *err)
{
	return family_rows(pg_of(store), "SELECT DISTINCT family FROM @runs WHERE family IS NOT NULL"
	    " AND started_at >= $1 ORDER BY 1", false, since, rows, count, err);
}

/* Column col of row as a db_value typed by the runs table; text borrowed from res. */
static void
run_cell(const PGresult *res, int row, int col, struct db_value *v)
{
	const char *s = cell(res, row, col);

	memset(v, 0, sizeof(*v));
	v->type = s == NULL ? DB_NULL : run_columns[col].type;
	v->text = s;
	if (v->type == DB_INT)
		v->i = strtoll(s, NULL, 10);
	else if (v->type == DB_REAL)
		v->r = strtod(s, NULL);
}

static bool
pg_runs_each(struct store *store, const struct run_filter *f, run_row_cb cb, void *arg,
    struct store_error *err)
{
	struct pg_store *pg = pg_of(store);
	struct db_value params[RUN_FILTER_PARAMS_MAX], v;
	char sql[8192];
	struct run_row row;
	PGresult *res;
	size_t nparams;

	if (!runs_select_sql("@runs", sql, sizeof(sql)) || !run_filter_sql(f, '$', sql, sizeof(sql), params, &nparams))
		return set_error(err, STORE_ERR_IO, "%s: the history query does not fit", pg->base.path);
	if (!pg_run(pg, sql, params, nparams, &res, "reading the run history", err))
		return false;
	for (int i = 0; i < PQntuples(res); i++) {
		run_row_clear(&row);
		for (size_t c = 0; c < run_columns_count; c++) {
			run_cell(res, i, (int)c, &v);
			run_column_set(&row, &run_columns[c], &v);
		}
		run_row_finish(&row);
		if (!cb(&row, arg))
			break;
	}
	PQclear(res);
	return true;
}

static bool
pg_run_mark_recovered(struct store *store, long long id, long long by, struct store_error *err)
{
	struct db_value v[2] = { { .type = DB_INT, .i = by }, { .type = DB_INT, .i = id } };

	return pg_defer(pg_of(store), "UPDATE @runs SET recovered_by = $1 WHERE id = $2", v, 2,
	    "marking a run recovered", false, err);
}

static bool
pg_run_note(struct store *store, long long id, const char *note, struct store_error *err)
{
	struct db_value v[2] = { { .type = DB_TEXT, .text = note }, { .type = DB_INT, .i = id } };

	return pg_defer(pg_of(store), "UPDATE @runs SET recover_note = $1 WHERE id = $2", v, 2,
	    "noting why a run is not re-run", false, err);
}

static bool
pg_run_settle(struct store *store, const struct run_outcome *o, struct store_error *err)
{
	struct db_value v[6] = {
		{ .type = DB_INT, .i = o->run_id }, { .type = DB_TEXT, .text = o->uid },
		{ .type = o->term_signal != 0 ? DB_NULL : DB_INT, .i = o->exit_code },
		{ .type = DB_INT, .i = o->term_signal }, { .type = DB_TEXT, .text = reason_name(o->reason) },
		{ .type = DB_REAL, .r = o->ended_at },
	};

	return pg_defer(pg_of(store), "UPDATE @runs SET state = 'finished', exit_code = $3, term_signal = $4,"
	    " reason = $5, ended_at = $6 WHERE id = $1 AND uid = $2 AND state IN ('running', 'lost')", v, 6,
	    "settling a run's journaled outcome", false, err);
}

static bool
pg_run_merge(struct store *store, const struct run_row *run, struct store_error *err)
{
	struct db_value v[64];
	char sql[4096];
	size_t n = 0;

	if (!runs_merge_sql("@runs", '$', sql, sizeof(sql)))
		return set_error(err, STORE_ERR_IO, "%s: the runs merge does not fit", store->path);
	for (size_t i = 0; i < run_columns_count && n < sizeof(v) / sizeof(v[0]); i++)
		if (run_column_written(&run_columns[i], false))
			run_column_value(run, &run_columns[i], &v[n++]);
	return pg_run(pg_of(store), sql, v, n, NULL, "replaying the journal's runs", err);
}

static bool
pg_run_claim_set(struct store *store, long long id, const struct probe_lease *holder, double now,
    struct store_error *err)
{
	struct db_value v[5] = {
		{ .type = DB_INT, .i = id }, { .type = DB_INT, .i = holder->pid },
		{ .type = DB_INT, .i = holder->start_time }, { .type = DB_TEXT, .text = holder->host },
		{ .type = DB_REAL, .r = now },
	};

	return pg_defer(pg_of(store), "UPDATE @runs SET claim_pid = $2, claim_start_time = $3, claim_host = $4,"
	    " claimed_at = $5 WHERE id = $1", v, 5, "claiming a run", false, err);
}

/* ---- running rows and the queue for slots -------------------------------- */

static bool
pg_run_start(struct store *store, const struct run_row *run, long long *run_id, struct store_error *err)
{
	struct run_row row = *run;

	row.id = 0;
	return write_run(pg_of(store), &row, false, run_id, err);
}

static bool
pg_host_renew(struct store *store, const char *host, double alive_until, struct store_error *err)
{
	struct db_value v[2] = { text_value(host), real_value(alive_until, -1) };

	return pg_defer(pg_of(store), "INSERT INTO @hosts (host, alive_until) VALUES ($1, $2)"
	    " ON CONFLICT (host) DO UPDATE SET alive_until = EXCLUDED.alive_until"
	    " WHERE hosts.alive_until < EXCLUDED.alive_until", v, 2, "renewing the host's lease", false, err);
}

static bool
pg_host_lease(struct store *store, const char *host, double *alive_until, struct store_error *err)
{
	struct db_value v = text_value(host);
	PGresult *res;

	*alive_until = 0;
	if (!pg_run(pg_of(store), "SELECT alive_until FROM @hosts WHERE host = $1", &v, 1, &res,
	    "reading a host's lease", err))
		return false;
	if (PQntuples(res) > 0)
		*alive_until = cell_double(res, 0, 0, 0);
	PQclear(res);
	return true;
}

static bool
pg_run_mark_lost(struct store *store, long long run_id, struct store_error *err)
{
	return update_by_id(store, "UPDATE @runs SET state = 'lost' WHERE id = $1 AND state = 'running'",
	    run_id, false, 0, "marking a run lost", err) && slot_maybe_freed(pg_of(store), err);
}

static void
owner_from_row(const PGresult *res, int row, int first, struct probe_lease *owner)
{
	cell_text(res, row, first, owner->host, sizeof(owner->host));
	owner->pid = (long)cell_int(res, row, first + 1, 0);
	owner->start_time = cell_int(res, row, first + 2, 0);
	owner->expires_at = cell_double(res, row, first + 3, 0);
	owner->host_until = cell_double(res, row, first + 4, 0);
}

static void
running_from_row(const PGresult *res, int row, void *item)
{
	struct running_run *r = item;

	r->id = cell_int(res, row, 0, 0);
	cell_text(res, row, 1, r->family, sizeof(r->family));
	cell_text(res, row, 2, r->account, sizeof(r->account));
	cell_text(res, row, 3, r->model, sizeof(r->model));
	cell_text(res, row, 4, r->cwd, sizeof(r->cwd));
	r->started_at = cell_double(res, row, 5, 0);
	owner_from_row(res, row, 6, &r->owner);
}

static bool
pg_running(struct store *store, const char *account, const char *family,
    struct running_run **rows, size_t *count, struct store_error *err)
{
	struct db_value key[2] = { text_value(account), text_value(family) };

	*rows = NULL;
	*count = 0;
	return lock_key(pg_of(store), account, family, err) &&
	    read_rows(pg_of(store), "SELECT r.id, r.family, r.account, r.model, r.cwd, r.started_at,"
	    " r.host, r.pid, r.pid_start_time, r.alive_until, h.alive_until FROM @runs r"
	    " LEFT JOIN @hosts h ON h.host = r.host WHERE r.state = 'running' AND ($2::text IS NULL"
	    " OR (r.account = $1 AND r.family = $2)) ORDER BY r.id", key, 2, sizeof(**rows), running_from_row, rows, count,
	    "reading the running runs", err);
}

static bool
pg_ticket_add(struct store *store, const struct slot_ticket *t, long long *id, struct store_error *err)
{
	struct db_value v[8] = {
		real_value(t->at, -1), text_value(t->account), text_value(t->family), text_value(t->model),
		text_value(t->owner.host), int_value(t->owner.pid, LLONG_MIN), int_value(t->owner.start_time, LLONG_MIN),
		real_value(t->owner.expires_at, -1),
	};
	PGresult *res;

	if (!pg_run(pg_of(store), "INSERT INTO @slot_queue (at, account, family, model, host, pid, pid_start_time,"
	    " alive_until) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id", v, 8, &res,
	    "joining the queue for a slot", err))
		return false;
	*id = cell_int(res, 0, 0, 0);
	PQclear(res);
	return true;
}

static bool
pg_ticket_remove(struct store *store, long long id, struct store_error *err)
{
	return update_by_id(store, "DELETE FROM @slot_queue WHERE id = $1", id, false, 0,
	    "leaving the queue for a slot", err) && slot_maybe_freed(pg_of(store), err);
}

static bool
pg_ticket_renew(struct store *store, long long id, double alive_until, struct store_error *err)
{
	return update_by_id(store, "UPDATE @slot_queue SET alive_until = $2 WHERE id = $1", id, true,
	    alive_until, "renewing a place in the queue", err);
}

static void
ticket_from_row(const PGresult *res, int row, void *item)
{
	struct slot_ticket *t = item;

	t->id = cell_int(res, row, 0, 0);
	cell_text(res, row, 1, t->family, sizeof(t->family));
	cell_text(res, row, 2, t->account, sizeof(t->account));
	cell_text(res, row, 3, t->model, sizeof(t->model));
	t->at = cell_double(res, row, 4, 0);
	owner_from_row(res, row, 5, &t->owner);
}

static bool
pg_tickets(struct store *store, const char *account, const char *family,
    struct slot_ticket **rows, size_t *count, struct store_error *err)
{
	struct db_value key[2] = { text_value(account), text_value(family) };

	*rows = NULL;
	*count = 0;
	return lock_key(pg_of(store), account, family, err) &&
	    read_rows(pg_of(store), "SELECT q.id, q.family, q.account, q.model, q.at, q.host, q.pid,"
	    " q.pid_start_time, q.alive_until, h.alive_until FROM @slot_queue q LEFT JOIN @hosts h ON h.host = q.host"
	    " WHERE $2::text IS NULL OR (q.account = $1 AND q.family = $2) ORDER BY q.id",
	    key, 2, sizeof(**rows), ticket_from_row, rows, count, "reading the queue for slots", err);
}

/* The key's index finds the head, the primary key our ticket: one row,
 * however long the queue. */
static bool
pg_queue_head(struct store *store, const char *account, const char *family, long long ticket,
    struct slot_ticket *head, bool *ours, struct store_error *err)
{
	struct db_value key[3] = { text_value(account), text_value(family), int_value(ticket, LLONG_MIN) };
	PGresult *res;

	if (!pg_run(pg_of(store), "SELECT q.id, q.family, q.account, q.model, q.at, q.host, q.pid,"
	    " q.pid_start_time, q.alive_until, h.alive_until, EXISTS (SELECT 1 FROM @slot_queue WHERE id = $3)"
	    " FROM (SELECT * FROM @slot_queue WHERE account = $1 AND family = $2 ORDER BY id LIMIT 1) q"
	    " LEFT JOIN @hosts h ON h.host = q.host", key, 3, &res, "looking at the queue for a slot", err))
		return false;
	if (PQntuples(res) > 0) {
		ticket_from_row(res, 0, head);
		*ours = strcmp(PQgetvalue(res, 0, 10), "t") == 0;
	}
	PQclear(res);
	return true;
}

/* ---- usage readings ---- */

static bool
pg_readings_save(struct store *store, const struct usage_reading *rows, size_t n, struct store_error *err)
{
	for (size_t i = 0; i < n; i++) {
		const struct usage_reading *r = &rows[i];
		struct db_value v[9] = {
			text_value(r->account), text_value(r->family), text_value(r->window),
			{ .type = DB_TEXT, .text = r->model }, { .type = DB_REAL, .r = r->window_secs },
			{ .type = DB_REAL, .r = r->used }, text_value(r->status), { .type = DB_REAL, .r = r->resets_at },
			{ .type = DB_REAL, .r = r->at },
		};

		if (!pg_defer(pg_of(store), "INSERT INTO @usage_readings (account, family, win, model, window_secs,"
		    " used, status, resets_at, at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"
		    " ON CONFLICT (account, family, win) DO UPDATE SET model = excluded.model,"
		    " window_secs = excluded.window_secs, used = excluded.used, status = excluded.status,"
		    " resets_at = excluded.resets_at, at = excluded.at WHERE excluded.at >= usage_readings.at",
		    v, 9, "saving a usage reading", false, err))
			return false;
	}
	return true;
}

static void
reading_from_row(const PGresult *res, int row, void *item)
{
	struct usage_reading *r = item;

	cell_text(res, row, 0, r->account, sizeof(r->account));
	cell_text(res, row, 1, r->family, sizeof(r->family));
	cell_text(res, row, 2, r->window, sizeof(r->window));
	cell_text(res, row, 3, r->model, sizeof(r->model));
	r->window_secs = cell_double(res, row, 4, 0);
	r->used = cell_double(res, row, 5, -1);
	cell_text(res, row, 6, r->status, sizeof(r->status));
	r->resets_at = cell_double(res, row, 7, 0);
	r->at = cell_double(res, row, 8, 0);
}

static bool
pg_readings(struct store *store, const char *account, const char *family,
    struct usage_reading **rows, size_t *count, struct store_error *err)
{
	struct db_value v[2] = { text_value(account), text_value(family) };

	return read_rows(pg_of(store), "SELECT account, family, win, model, window_secs, used, status,"
	    " resets_at, at FROM @usage_readings WHERE $2::text IS NULL OR (account = $1 AND family = $2)"
	    " ORDER BY account, family, win", v, 2, sizeof(**rows), reading_from_row, rows, count,
	    "reading the usage readings", err);
}

/* ---- adaptive limits ---- */

static void
adaptive_limit_from_row(const PGresult *res, int row, void *item)
{
	struct adaptive_limit *l = item;

	cell_text(res, row, 0, l->account, sizeof(l->account));
	cell_text(res, row, 1, l->family, sizeof(l->family));
	l->limit = (long)cell_int(res, row, 2, 0);
	l->successes = (long)cell_int(res, row, 3, 0);
	l->changed_at = cell_double(res, row, 4, 0);
	cell_text(res, row, 5, l->why, sizeof(l->why));
}

static bool
pg_adaptive_limits(struct store *store, const char *account, const char *family,
    struct adaptive_limit **rows, size_t *count, struct store_error *err)
{
	struct db_value v[2] = { text_value(account), text_value(family) };

	return read_rows(pg_of(store), "SELECT account, family, limit_now, successes, changed_at, why"
	    " FROM @adaptive_limits WHERE $1::text IS NULL OR (account = $1 AND family = $2)"
	    " ORDER BY account, family", v, 2, sizeof(**rows), adaptive_limit_from_row, rows, count,
	    "reading the adaptive limits", err);
}

static bool
pg_adaptive_save(struct store *store, const struct adaptive_limit *l, struct store_error *err)
{
	struct db_value v[6] = {
		text_value(l->account), text_value(l->family), { .type = DB_INT, .i = l->limit },
		{ .type = DB_INT, .i = l->successes }, { .type = DB_REAL, .r = l->changed_at }, text_value(l->why),
	};

	return pg_defer(pg_of(store), "INSERT INTO @adaptive_limits (account, family, limit_now, successes,"
	    " changed_at, why) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (account, family) DO UPDATE SET"
	    " limit_now = excluded.limit_now, successes = excluded.successes, changed_at = excluded.changed_at,"
	    " why = excluded.why", v, 6, "saving an adaptive limit", false, err);
}

/* ---- budget counters ---- */

static bool
pg_budget_add(struct store *store, const char *account, const char *family,
    const struct budget_bucket *adds, size_t n, struct store_error *err)
{
	bool ok = lock_key(pg_of(store), account, family, err);

	for (size_t i = 0; ok && i < n; i++) {
		struct db_value v[8] = {
			text_value(account), text_value(family), { .type = DB_TEXT, .text = adds[i].model },
			{ .type = DB_REAL, .r = adds[i].width }, { .type = DB_REAL, .r = adds[i].bucket },
			{ .type = DB_REAL, .r = adds[i].tokens }, { .type = DB_REAL, .r = adds[i].usd },
			{ .type = DB_REAL, .r = adds[i].runs },
		};

		ok = pg_defer(pg_of(store), "INSERT INTO @budget_buckets AS c (account, family, model, width, bucket,"
		    " tokens, usd, runs) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
		    " ON CONFLICT (account, family, model, width, bucket, origin) DO UPDATE SET"
		    " tokens = c.tokens + excluded.tokens, usd = c.usd + excluded.usd, runs = c.runs + excluded.runs",
		    v, 8, "counting for a budget", false, err);
	}
	return ok;
}

static bool
pg_budget_prune(struct store *store, const char *account, const char *family, double now,
    struct store_error *err)
{
	struct db_value v[3] = { text_value(account), text_value(family), { .type = DB_REAL, .r = now } };

	return pg_defer(pg_of(store), "DELETE FROM @budget_buckets WHERE account = $1 AND family = $2"
	    " AND bucket + 61 * width <= $3", v, 3, "pruning a budget's counters", false, err);
}

static bool
pg_budget_merge(struct store *store, const char *origin, const struct budget_bucket *row,
    struct store_error *err)
{
	struct db_value v[9] = {
		text_value(row->account), text_value(row->family), { .type = DB_TEXT, .text = row->model },
		{ .type = DB_REAL, .r = row->width }, { .type = DB_REAL, .r = row->bucket }, { .type = DB_TEXT, .text = origin },
		{ .type = DB_REAL, .r = row->tokens }, { .type = DB_REAL, .r = row->usd },
		{ .type = DB_REAL, .r = row->runs },
	};

	return lock_key(pg_of(store), row->account, row->family, err) &&
	    pg_defer(pg_of(store), "INSERT INTO @budget_buckets AS c (account, family, model, width, bucket, origin,"
	    " tokens, usd, runs) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"
	    " ON CONFLICT (account, family, model, width, bucket, origin) DO UPDATE SET"
	    " tokens = greatest(c.tokens, excluded.tokens), usd = greatest(c.usd, excluded.usd),"
	    " runs = greatest(c.runs, excluded.runs)", v, 9, "replaying a budget's counters", false, err);
}

static void
budget_bucket_from_row(const PGresult *res, int row, void *item)
{
	struct budget_bucket *b = item;

	cell_text(res, row, 0, b->account, sizeof(b->account));
	cell_text(res, row, 1, b->family, sizeof(b->family));
	cell_text(res, row, 2, b->model, sizeof(b->model));
	b->width = cell_double(res, row, 3, 0);
	b->bucket = cell_double(res, row, 4, 0);
	b->tokens = cell_double(res, row, 5, 0);
	b->usd = cell_double(res, row, 6, 0);
	b->runs = cell_double(res, row, 7, 0);
}

static bool
pg_budget_buckets(struct store *store, const char *account, const char *family,
    struct budget_bucket **rows, size_t *count, struct store_error *err)
{
	struct db_value v[2] = { text_value(account), text_value(family) };

	return read_rows(pg_of(store), "SELECT account, family, model, width, bucket, sum(tokens), sum(usd),"
	    " sum(runs) FROM @budget_buckets WHERE $1::text IS NULL OR (account = $1 AND family = $2)"
	    " GROUP BY account, family, model, width, bucket ORDER BY account, family, model, width, bucket",
	    v, 2, sizeof(**rows), budget_bucket_from_row, rows, count, "reading a budget's counters", err);
}

static void
wait_total_from_row(const PGresult *res, int row, void *item)
{
	struct wait_total *w = item;

	cell_text(res, row, 0, w->account, sizeof(w->account));
	cell_text(res, row, 1, w->family, sizeof(w->family));
	cell_text(res, row, 2, w->model, sizeof(w->model));
	cell_text(res, row, 3, w->why, sizeof(w->why));
	w->secs = cell_double(res, row, 4, 0);
	w->waits = (long)cell_int(res, row, 5, 0);
	w->refusals = (long)cell_int(res, row, 6, 0);
}

static bool
pg_wait_totals(struct store *store, double since, struct wait_total **rows, size_t *count,
    struct store_error *err)
{
	struct db_value v[1] = { { .type = DB_REAL, .r = since } };

	return read_rows(pg_of(store), "SELECT account, family, model, reason, sum(CASE WHEN kind = 'wait'"
	    " THEN greatest(coalesce(ended_at, \"until\", at) - at, 0) ELSE 0 END), count(*) FILTER (WHERE kind ="
	    " 'wait'), count(*) FILTER (WHERE kind = 'refuse') FROM @waits"
	    " WHERE at >= $1 GROUP BY account, family, model, reason", v, 1, sizeof(**rows),
	    wait_total_from_row, rows, count, "reading the waits", err);
}

const struct store_ops store_pg_ops = {
	.name = "postgresql",
	.open = pg_open,
	.close = pg_close,
	.begin = pg_begin,
	.commit = pg_commit,
	.rollback = pg_rollback,
	.breakers_of = pg_breakers_of,
	.breakers_all = pg_breakers_all,
	.breaker_save = pg_breaker_save,
	.history_add = pg_history_add,
	.run_add = pg_run_add,
	.wait_add = pg_wait_add,
	.wait_end = pg_wait_end,
	.run_start = pg_run_start,
	.host_renew = pg_host_renew,
	.host_lease = pg_host_lease,
	.run_mark_lost = pg_run_mark_lost,
	.running = pg_running,
	.ticket_add = pg_ticket_add,
	.ticket_remove = pg_ticket_remove,
	.ticket_renew = pg_ticket_renew,
	.tickets = pg_tickets,
	.queue_head = pg_queue_head,
	.slot_await = pg_slot_await,
	.budget_add = pg_budget_add,
	.budget_prune = pg_budget_prune,
	.budget_merge = pg_budget_merge,
	.adaptive_limits = pg_adaptive_limits,
	.adaptive_save = pg_adaptive_save,
	.readings_save = pg_readings_save,
	.readings = pg_readings,
	.budget_buckets = pg_budget_buckets,
	.wait_totals = pg_wait_totals,
	.family_counts = pg_family_counts,
	.families_since = pg_families_since,
	.runs_each = pg_runs_each,
	.run_mark_recovered = pg_run_mark_recovered,
	.run_note = pg_run_note,
	.run_settle = pg_run_settle,
	.run_merge = pg_run_merge,
	.run_claim_set = pg_run_claim_set,
};
