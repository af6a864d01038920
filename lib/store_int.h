/*
 * store_int.h: what the store's own files (store.c, store_runs.c) share and
 * nobody else sees: the handle and the SQLite helpers.
 *
 * Ownership: as store.h; these helpers borrow everything they are given.
 */
#ifndef RLWRAP_STORE_INT_H
#define RLWRAP_STORE_INT_H

#include <limits.h>
#include <stdbool.h>

#include <sqlite3.h>

#include "store.h"

struct store {
	sqlite3 *db;
	char path[PATH_MAX];
	int version;
	long keep_runs, keep_days;
};

bool set_error(struct store_error *err, enum store_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Maps an SQLite result code to a store_status and fills err; returns false. */
bool db_error(struct store_error *err, const char *path, sqlite3 *db, int rc, const char *doing);
/* Binds NULL for "" and NULL strings. */
void bind_text(sqlite3_stmt *st, int index, const char *s);
/* Binds NULL for the value that means "unknown". */
void bind_double(sqlite3_stmt *st, int index, double v, double null_value);
void bind_int(sqlite3_stmt *st, int index, long long v, long long null_value);
void column_text(sqlite3_stmt *st, int index, char *buf, size_t size);

#endif
