/*
 * store_sqlite.h: the SQLite helpers the SQLite backend's files share and
 * nobody else sees (the ops table itself is in store_backend.h).
 *
 * Ownership: as store.h; these helpers borrow everything they are given.
 */
#ifndef RLWRAP_STORE_SQLITE_H
#define RLWRAP_STORE_SQLITE_H

#include <limits.h>
#include <stdbool.h>

#include <sqlite3.h>

#include "runs_table.h"
#include "store.h"
#include "store_backend.h"

/* The SQLite backend's handle. */
struct sqlite_store {
	struct store base;
	sqlite3 *db;
	bool breakers_changed;   /* checkpoint at close: see sqlite_close() */
	int wal_frames;          /* in the WAL after this connection's last commit */
};

static inline sqlite3 *
db_of(const struct store *store)
{
	return ((const struct sqlite_store *)(const void *)store)->db;
}

/* Maps an SQLite result code to a store_status and fills err; returns false. */
bool db_error(struct store_error *err, const char *path, sqlite3 *db, int rc, const char *doing);
/* Binds NULL for "" and NULL strings. */
void bind_text(sqlite3_stmt *st, int index, const char *s);
void column_text(sqlite3_stmt *st, int index, char *buf, size_t size);

/* store_sqlite.c: a new runs row, or the completion of run->id. */
bool sqlite_write_run(struct store *store, const struct run_row *run, long long *run_id,
    struct store_error *err);

/* store_sqlite_runs.c: the ops of running rows, waits' ends and the queue
 * for slots (store.h). */
bool sqlite_wait_end(struct store *store, long long wait_id, double ended_at, struct store_error *err);
bool sqlite_run_start(struct store *store, const struct run_row *run, long long *run_id,
    struct store_error *err);
bool sqlite_host_renew(struct store *store, const char *host, double alive_until, struct store_error *err);
bool sqlite_host_lease(struct store *store, const char *host, double *alive_until, struct store_error *err);
bool sqlite_run_mark_lost(struct store *store, long long run_id, struct store_error *err);
bool sqlite_running(struct store *store, const char *account, const char *family,
    struct running_run **rows, size_t *count, struct store_error *err);
bool sqlite_ticket_add(struct store *store, const struct slot_ticket *ticket, long long *id,
    struct store_error *err);
bool sqlite_ticket_remove(struct store *store, long long id, struct store_error *err);
bool sqlite_ticket_renew(struct store *store, long long id, double alive_until, struct store_error *err);
bool sqlite_tickets(struct store *store, const char *account, const char *family,
    struct slot_ticket **rows, size_t *count, struct store_error *err);

/* Budget counters (store.h). */
bool sqlite_budget_add(struct store *store, const char *account, const char *family,
    const struct budget_bucket *adds, size_t n, struct store_error *err);
bool sqlite_budget_prune(struct store *store, const char *account, const char *family, double now,
    struct store_error *err);
bool sqlite_budget_buckets(struct store *store, const char *account, const char *family,
    struct budget_bucket **rows, size_t *count, struct store_error *err);

/* Adaptive limits (store.h). */
bool sqlite_adaptive_limits(struct store *store, const char *account, const char *family,
    struct adaptive_limit **rows, size_t *count, struct store_error *err);
bool sqlite_adaptive_save(struct store *store, const struct adaptive_limit *l, struct store_error *err);

/* Usage readings (store.h). */
bool sqlite_readings_save(struct store *store, const struct usage_reading *rows, size_t n,
    struct store_error *err);
bool sqlite_readings(struct store *store, const char *account, const char *family,
    struct usage_reading **rows, size_t *count, struct store_error *err);

bool sqlite_wait_totals(struct store *store, double since, struct wait_total **rows, size_t *count,
    struct store_error *err);

#endif
