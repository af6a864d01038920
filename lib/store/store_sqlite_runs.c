/* store_sqlite_runs.c: the SQLite backend's running rows, waits' ends and
 * queue for slots. */
#include <stdlib.h>
#include <string.h>

#include "store_sqlite.h"

/* One short statement, no pruning: this is on every spawn's path. */
bool
sqlite_run_start(struct store *store, const struct run_row *run, long long *run_id, struct store_error *err)
{
	struct run_row row = *run;

	row.id = 0;
	return sqlite_write_run(store, &row, run_id, err);
}

/* One statement of a row by id (?1), with a value (?2) when has_value. */
static bool
update_by_id(struct store *store, const char *sql, long long id, bool has_value, double value,
    const char *doing, struct store_error *err)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db_of(store), sql, -1, &st, NULL);

	if (rc != SQLITE_OK)
		return db_error(err, store->path, db_of(store), rc, doing);
	sqlite3_bind_int64(st, 1, id);
	if (has_value)
		sqlite3_bind_double(st, 2, value);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE || db_error(err, store->path, db_of(store), rc, doing);
}

bool
sqlite_wait_end(struct store *store, long long wait_id, double ended_at, struct store_error *err)
{
	return update_by_id(store, "UPDATE waits SET ended_at = ?2 WHERE id = ?1", wait_id, true, ended_at,
	    "recording a wait's end", err);
}

bool
sqlite_host_renew(struct store *store, const char *host, double alive_until, struct store_error *err)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db_of(store), "INSERT INTO hosts (host, alive_until) VALUES (?1, ?2)"
	    " ON CONFLICT (host) DO UPDATE SET alive_until = excluded.alive_until"
	    " WHERE alive_until < excluded.alive_until", -1, &st, NULL);

	if (rc != SQLITE_OK)
		return db_error(err, store->path, db_of(store), rc, "renewing the host's lease");
	sqlite3_bind_text(st, 1, host, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 2, alive_until);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE || db_error(err, store->path, db_of(store), rc, "renewing the host's lease");
}

bool
sqlite_host_lease(struct store *store, const char *host, double *alive_until, struct store_error *err)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db_of(store), "SELECT alive_until FROM hosts WHERE host = ?1", -1, &st, NULL);

	*alive_until = 0;
	if (rc != SQLITE_OK)
		return db_error(err, store->path, db_of(store), rc, "reading a host's lease");
	sqlite3_bind_text(st, 1, host, -1, SQLITE_STATIC);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW)
		*alive_until = sqlite3_column_double(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ||
	    db_error(err, store->path, db_of(store), rc, "reading a host's lease");
}

bool
sqlite_run_mark_lost(struct store *store, long long run_id, struct store_error *err)
{
	return update_by_id(store, "UPDATE runs SET state = 'lost' WHERE id = ?1 AND state = 'running'",
	    run_id, false, 0, "marking a run lost", err);
}

static void
owner_from_row(sqlite3_stmt *st, int first, struct probe_lease *owner)
{
	column_text(st, first, owner->host, sizeof(owner->host));
	owner->pid = (long)sqlite3_column_int64(st, first + 1);
	owner->start_time = sqlite3_column_int64(st, first + 2);
	owner->expires_at = sqlite3_column_double(st, first + 3);
	owner->host_until = sqlite3_column_double(st, first + 4);
}

/* Prepares sql with ?1 = account, ?2 = family (NULL: the "?2 IS NULL" arm
 * of the statement matches every row). */
static int
prepare_keyed(struct store *store, const char *sql, const char *account, const char *family,
    sqlite3_stmt **st)
{
	int rc = sqlite3_prepare_v2(db_of(store), sql, -1, st, NULL);

	if (rc != SQLITE_OK)
		return rc;
	bind_text(*st, 1, account);
	bind_text(*st, 2, family);
	return SQLITE_OK;
}

/* Steps st, growing *list by one element of size per row and filling it. */
static bool
collect(struct store *store, sqlite3_stmt *st, size_t size, void (*fill)(sqlite3_stmt *, void *),
    void **rows, size_t *count, const char *doing, struct store_error *err)
{
	char *list = NULL, *grown;
	size_t n = 0;
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if ((grown = reallocarray(list, n + 1, size)) == NULL) {
			free(list);
			return set_error(err, STORE_ERR_IO, "%s: out of memory", store->path);
		}
		list = grown;
		memset(list + n * size, 0, size);
		fill(st, list + n++ * size);
	}
	if (rc != SQLITE_DONE) {
		free(list);
		return db_error(err, store->path, db_of(store), rc, doing);
	}
	*rows = list;
	*count = n;
	return true;
}

static void
fill_running(sqlite3_stmt *st, void *p)
{
	struct running_run *r = p;

	r->id = sqlite3_column_int64(st, 0);
	column_text(st, 1, r->family, sizeof(r->family));
	column_text(st, 2, r->account, sizeof(r->account));
	column_text(st, 3, r->model, sizeof(r->model));
	column_text(st, 4, r->cwd, sizeof(r->cwd));
	r->started_at = sqlite3_column_double(st, 5);
	owner_from_row(st, 6, &r->owner);
}

bool
sqlite_running(struct store *store, const char *account, const char *family,
    struct running_run **rows, size_t *count, struct store_error *err)
{
	sqlite3_stmt *st;
	bool ok;
	int rc = prepare_keyed(store, "SELECT r.id, r.family, r.account, r.model, r.cwd, r.started_at,"
	    " r.host, r.pid, r.pid_start_time, r.alive_until, h.alive_until FROM runs r"
	    " LEFT JOIN hosts h ON h.host = r.host WHERE r.state = 'running'"
	    " AND (?2 IS NULL OR (r.account = ?1 AND r.family = ?2)) ORDER BY r.id", account, family, &st);

	*rows = NULL;
	*count = 0;
	if (rc != SQLITE_OK)
		return db_error(err, store->path, db_of(store), rc, "reading the running runs");
	ok = collect(store, st, sizeof(**rows), fill_running, (void **)rows, count,
	    "reading the running runs", err);
	sqlite3_finalize(st);
	return ok;
}

bool
sqlite_ticket_add(struct store *store, const struct slot_ticket *t, long long *id, struct store_error *err)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db_of(store), "INSERT INTO slot_queue (at, account, family, model, host,"
	    " pid, pid_start_time, alive_until) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)", -1, &st, NULL);

	if (rc != SQLITE_OK)
		return db_error(err, store->path, db_of(store), rc, "joining the queue for a slot");
	sqlite3_bind_double(st, 1, t->at);
	sqlite3_bind_text(st, 2, t->account, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, t->family, -1, SQLITE_STATIC);
	bind_text(st, 4, t->model);
	sqlite3_bind_text(st, 5, t->owner.host, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 6, t->owner.pid);
	sqlite3_bind_int64(st, 7, t->owner.start_time);
	sqlite3_bind_double(st, 8, t->owner.expires_at);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_error(err, store->path, db_of(store), rc, "joining the queue for a slot");
	*id = sqlite3_last_insert_rowid(db_of(store));
	return true;
}

bool
sqlite_ticket_remove(struct store *store, long long id, struct store_error *err)
{
	return update_by_id(store, "DELETE FROM slot_queue WHERE id = ?1", id, false, 0,
	    "leaving the queue for a slot", err);
}

bool
sqlite_ticket_renew(struct store *store, long long id, double alive_until, struct store_error *err)
{
	return update_by_id(store, "UPDATE slot_queue SET alive_until = ?2 WHERE id = ?1", id, true,
	    alive_until, "renewing a place in the queue", err);
}

static void
fill_ticket(sqlite3_stmt *st, void *p)
{
	struct slot_ticket *t = p;

	t->id = sqlite3_column_int64(st, 0);
	column_text(st, 1, t->family, sizeof(t->family));
	column_text(st, 2, t->account, sizeof(t->account));
	column_text(st, 3, t->model, sizeof(t->model));
	t->at = sqlite3_column_double(st, 4);
	owner_from_row(st, 5, &t->owner);
}

bool
sqlite_tickets(struct store *store, const char *account, const char *family,
    struct slot_ticket **rows, size_t *count, struct store_error *err)
{
	sqlite3_stmt *st;
	bool ok;
	int rc = prepare_keyed(store, "SELECT q.id, q.family, q.account, q.model, q.at, q.host, q.pid,"
	    " q.pid_start_time, q.alive_until, h.alive_until FROM slot_queue q LEFT JOIN hosts h ON h.host = q.host"
	    " WHERE ?2 IS NULL OR (q.account = ?1 AND q.family = ?2) ORDER BY q.id",
	    account, family, &st);

	*rows = NULL;
	*count = 0;
	if (rc != SQLITE_OK)
		return db_error(err, store->path, db_of(store), rc, "reading the queue for slots");
	ok = collect(store, st, sizeof(**rows), fill_ticket, (void **)rows, count,
	    "reading the queue for slots", err);
	sqlite3_finalize(st);
	return ok;
}

/* ---- budget counters ---- */

/* One statement prepared for every add, in the caller's transaction. */
bool
sqlite_budget_add(struct store *store, const char *account, const char *family,
    const struct budget_bucket *adds, size_t n, struct store_error *err)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db_of(store), "INSERT INTO budget_buckets (account, family, model, width,"
	    " bucket, tokens, usd, runs) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"
	    " ON CONFLICT (account, family, model, width, bucket, origin) DO UPDATE SET"
	    " tokens = tokens + excluded.tokens, usd = usd + excluded.usd, runs = runs + excluded.runs",
	    -1, &st, NULL);

	if (rc != SQLITE_OK)
		return db_error(err, store->path, db_of(store), rc, "counting for a budget");
	sqlite3_bind_text(st, 1, account, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, family, -1, SQLITE_STATIC);
	for (size_t i = 0; i < n; i++) {
		sqlite3_bind_text(st, 3, adds[i].model, -1, SQLITE_STATIC);
		sqlite3_bind_double(st, 4, adds[i].width);
		sqlite3_bind_double(st, 5, adds[i].bucket);
		sqlite3_bind_double(st, 6, adds[i].tokens);
		sqlite3_bind_double(st, 7, adds[i].usd);
		sqlite3_bind_double(st, 8, adds[i].runs);
		if ((rc = sqlite3_step(st)) != SQLITE_DONE)
			break;
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return n == 0 || rc == SQLITE_DONE || db_error(err, store->path, db_of(store), rc, "counting for a budget");
}

bool
sqlite_budget_prune(struct store *store, const char *account, const char *family, double now,
    struct store_error *err)
{
	sqlite3_stmt *st;
	int rc = prepare_keyed(store, "DELETE FROM budget_buckets WHERE account = ?1 AND family = ?2"
	    " AND bucket + 61 * width <= ?3", account, family, &st);

	if (rc != SQLITE_OK)
		return db_error(err, store->path, db_of(store), rc, "pruning a budget's counters");
	sqlite3_bind_double(st, 3, now);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE || db_error(err, store->path, db_of(store), rc, "pruning a budget's counters");
}

static void
fill_bucket(sqlite3_stmt *st, void *p)
{
	struct budget_bucket *b = p;

	column_text(st, 0, b->account, sizeof(b->account));
	column_text(st, 1, b->family, sizeof(b->family));
	column_text(st, 2, b->model, sizeof(b->model));
	b->width = sqlite3_column_double(st, 3);
	b->bucket = sqlite3_column_double(st, 4);
	b->tokens = sqlite3_column_double(st, 5);
	b->usd = sqlite3_column_double(st, 6);
	b->runs = sqlite3_column_double(st, 7);
}

bool
sqlite_budget_buckets(struct store *store, const char *account, const char *family,
    struct budget_bucket **rows, size_t *count, struct store_error *err)
{
	sqlite3_stmt *st;
	bool ok;
	int rc = prepare_keyed(store, "SELECT account, family, model, width, bucket, sum(tokens), sum(usd),"
	    " sum(runs) FROM budget_buckets WHERE ?1 IS NULL OR (account = ?1 AND family = ?2)"
	    " GROUP BY account, family, model, width, bucket ORDER BY account, family, model, width, bucket",
	    account, family, &st);

	*rows = NULL;
	*count = 0;
	if (rc != SQLITE_OK)
		return db_error(err, store->path, db_of(store), rc, "reading a budget's counters");
	ok = collect(store, st, sizeof(**rows), fill_bucket, (void **)rows, count,
	    "reading a budget's counters", err);
	sqlite3_finalize(st);
	return ok;
}

/* ---- adaptive limits ---- */

static void
fill_adaptive(sqlite3_stmt *st, void *p)
{
	struct adaptive_limit *l = p;

	column_text(st, 0, l->account, sizeof(l->account));
	column_text(st, 1, l->family, sizeof(l->family));
	l->limit = (long)sqlite3_column_int64(st, 2);
	l->successes = (long)sqlite3_column_int64(st, 3);
	l->changed_at = sqlite3_column_double(st, 4);
	column_text(st, 5, l->why, sizeof(l->why));
}

bool
sqlite_adaptive_limits(struct store *store, const char *account, const char *family,
    struct adaptive_limit **rows, size_t *count, struct store_error *err)
{
	sqlite3_stmt *st;
	bool ok;
	int rc = sqlite3_prepare_v2(db_of(store), "SELECT account, family, limit_now, successes, changed_at, why"
	    " FROM adaptive_limits WHERE ?1 IS NULL OR (account = ?1 AND family = ?2) ORDER BY account, family",
	    -1, &st, NULL);

	*rows = NULL;
	*count = 0;
	if (rc != SQLITE_OK)
		return db_error(err, store->path, db_of(store), rc, "reading the adaptive limits");
	sqlite3_bind_text(st, 1, account, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, family, -1, SQLITE_STATIC);
	ok = collect(store, st, sizeof(**rows), fill_adaptive, (void **)rows, count,
	    "reading the adaptive limits", err);
	sqlite3_finalize(st);
	return ok;
}

bool
sqlite_adaptive_save(struct store *store, const struct adaptive_limit *l, struct store_error *err)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db_of(store), "INSERT OR REPLACE INTO adaptive_limits (account, family,"
	    " limit_now, successes, changed_at, why) VALUES (?1, ?2, ?3, ?4, ?5, ?6)", -1, &st, NULL);

	if (rc != SQLITE_OK)
		return db_error(err, store->path, db_of(store), rc, "saving an adaptive limit");
	sqlite3_bind_text(st, 1, l->account, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, l->family, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, l->limit);
	sqlite3_bind_int64(st, 4, l->successes);
	sqlite3_bind_double(st, 5, l->changed_at);
	sqlite3_bind_text(st, 6, l->why, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_error(err, store->path, db_of(store), rc, "saving an adaptive limit");
	return true;
}

/* ---- time spent waiting ---- */

static void
fill_wait_total(sqlite3_stmt *st, void *p)
{
	struct wait_total *w = p;

	column_text(st, 0, w->account, sizeof(w->account));
	column_text(st, 1, w->family, sizeof(w->family));
	column_text(st, 2, w->model, sizeof(w->model));
	column_text(st, 3, w->why, sizeof(w->why));
	w->secs = sqlite3_column_double(st, 4);
	w->waits = (long)sqlite3_column_int64(st, 5);
	w->refusals = (long)sqlite3_column_int64(st, 6);
}

bool
sqlite_wait_totals(struct store *store, double since, struct wait_total **rows, size_t *count,
    struct store_error *err)
{
	sqlite3_stmt *st;
	bool ok;
	int rc = sqlite3_prepare_v2(db_of(store), "SELECT account, family, model, reason,"
	    " sum(CASE WHEN kind = 'wait' THEN max(coalesce(ended_at, until, at) - at, 0) ELSE 0 END),"
	    " sum(kind = 'wait'), sum(kind = 'refuse') FROM waits"
	    " WHERE at >= ?1 GROUP BY account, family, model, reason", -1, &st, NULL);

	*rows = NULL;
	*count = 0;
	if (rc != SQLITE_OK)
		return db_error(err, store->path, db_of(store), rc, "reading the waits");
	sqlite3_bind_double(st, 1, since);
	ok = collect(store, st, sizeof(**rows), fill_wait_total, (void **)rows, count, "reading the waits", err);
	sqlite3_finalize(st);
	return ok;
}

/* ---- usage readings ---- */

/* Each replaces its window's row unless that row was read later. */
bool
sqlite_readings_save(struct store *store, const struct usage_reading *rows, size_t n, struct store_error *err)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db_of(store), "INSERT INTO usage_readings (account, family, win, model,"
	    " window_secs, used, status, resets_at, at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"
	    " ON CONFLICT (account, family, win) DO UPDATE SET model = excluded.model,"
	    " window_secs = excluded.window_secs, used = excluded.used, status = excluded.status,"
	    " resets_at = excluded.resets_at, at = excluded.at WHERE excluded.at >= usage_readings.at",
	    -1, &st, NULL);

	if (rc != SQLITE_OK)
		return db_error(err, store->path, db_of(store), rc, "saving a usage reading");
	for (size_t i = 0; i < n; i++) {
		const struct usage_reading *r = &rows[i];

		sqlite3_bind_text(st, 1, r->account, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, r->family, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, r->window, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, r->model, -1, SQLITE_STATIC);
		sqlite3_bind_double(st, 5, r->window_secs);
		sqlite3_bind_double(st, 6, r->used);
		sqlite3_bind_text(st, 7, r->status, -1, SQLITE_STATIC);
		sqlite3_bind_double(st, 8, r->resets_at);
		sqlite3_bind_double(st, 9, r->at);
		if ((rc = sqlite3_step(st)) != SQLITE_DONE)
			break;
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return n == 0 || rc == SQLITE_DONE || db_error(err, store->path, db_of(store), rc, "saving a usage reading");
}

static void
fill_reading(sqlite3_stmt *st, void *p)
{
	struct usage_reading *r = p;

	column_text(st, 0, r->account, sizeof(r->account));
	column_text(st, 1, r->family, sizeof(r->family));
	column_text(st, 2, r->window, sizeof(r->window));
	column_text(st, 3, r->model, sizeof(r->model));
	r->window_secs = sqlite3_column_double(st, 4);
	r->used = sqlite3_column_double(st, 5);
	column_text(st, 6, r->status, sizeof(r->status));
	r->resets_at = sqlite3_column_double(st, 7);
	r->at = sqlite3_column_double(st, 8);
}

bool
sqlite_readings(struct store *store, const char *account, const char *family,
    struct usage_reading **rows, size_t *count, struct store_error *err)
{
	sqlite3_stmt *st;
	bool ok;
	int rc = prepare_keyed(store, "SELECT account, family, win, model, window_secs, used, status, resets_at,"
	    " at FROM usage_readings WHERE ?2 IS NULL OR (account = ?1 AND family = ?2)"
	    " ORDER BY account, family, win", account, family, &st);

	*rows = NULL;
	*count = 0;
	if (rc != SQLITE_OK)
		return db_error(err, store->path, db_of(store), rc, "reading the usage readings");
	ok = collect(store, st, sizeof(**rows), fill_reading, (void **)rows, count,
	    "reading the usage readings", err);
	sqlite3_finalize(st);
	return ok;
}
