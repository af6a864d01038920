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
/* Binds NULL for the value that means "unknown". */
void bind_double(sqlite3_stmt *st, int index, double v, double null_value);
void bind_int(sqlite3_stmt *st, int index, long long v, long long null_value);
/* Binds a value from the runs table. */
void bind_value(sqlite3_stmt *st, int index, const struct db_value *v);
void column_text(sqlite3_stmt *st, int index, char *buf, size_t size);

#endif
