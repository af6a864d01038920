/*
 * runs_table.h: the one owner of the runs table's columns.  Each column is
 * named, typed and bound to a field of struct run_row once, here; every
 * backend builds its INSERT, its SELECT and (PostgreSQL) its CREATE TABLE from
 * this table, and writes and reads rows through run_column_value() and
 * run_column_set(), so a column cannot be written at one position and read
 * at another.
 *
 * Ownership: the table is static; a db_value borrows the strings it points
 * to (from the row when writing, from the backend's result when reading).
 */
#ifndef RLWRAP_RUNS_TABLE_H
#define RLWRAP_RUNS_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "history.h"
#include "store.h"

/* A value on its way to or from a backend. */
enum db_type { DB_NULL, DB_TEXT, DB_INT, DB_REAL };

struct db_value {
	enum db_type type;
	const char *text;
	long long i;
	double r;
};

/* How a column's value lives in struct run_row. */
enum run_field {
	FIELD_ID,           /* long long; the key, never written */
	FIELD_TEXT,         /* const char *: NULL or "" <-> NULL; read back as "" */
	FIELD_JSON,         /* const char *: as FIELD_TEXT but read back as NULL */
	FIELD_CHARS,        /* char[size] */
	FIELD_BOOL,         /* bool, stored 0/1 */
	FIELD_INT,          /* int */
	FIELD_LONG,         /* long */
	FIELD_LLONG,        /* long long */
	FIELD_REAL,         /* double */
	FIELD_REASON,       /* enum reason, stored by name ("none" included) */
	FIELD_RESET_SOURCE  /* enum reset_source, stored by name, NONE <-> NULL */
};

struct run_column {
	const char *name;
	enum db_type type;   /* DB_TEXT, DB_INT or DB_REAL: the SQL type */
	enum run_field field;
	size_t offset, size; /* in struct run_row; size for FIELD_CHARS */
	double null_value;   /* the number that means NULL, written and read back */
	unsigned flags;      /* COLUMN_* */
};

#define COLUMN_KEY      1u  /* the id: given by the backend, never written */
#define COLUMN_NOT_NULL 2u  /* a number always written as it is */
#define COLUMN_LATER    4u  /* not written by store_run_add() (recovered_by) */
#define COLUMN_ONCE     8u  /* written when the row is inserted, never updated (uid) */

/* Is c written by an INSERT (update false) or by the UPDATE that completes a row? */
bool run_column_written(const struct run_column *c, bool update);

extern const struct run_column run_columns[];
extern const size_t run_columns_count;

/* The value to write for column c of row. */
void run_column_value(const struct run_row *row, const struct run_column *c, struct db_value *out);
/* Before reading a row: every field unknown. */
void run_row_clear(struct run_row *row);
/* Stores v (borrowed) into row's field of column c. */
void run_column_set(struct run_row *row, const struct run_column *c, const struct db_value *v);
/* After reading every column: the signal's copies of family, model, exit. */
void run_row_finish(struct run_row *row);

/*
 * SQL text shared by the backends; mark is the placeholder character ('?'
 * for SQLite, '$' for PostgreSQL), numbered from 1.  False when size is too
 * small.
 */
/* "INSERT INTO <table> (written columns) VALUES (?1, ...)". */
bool runs_insert_sql(const char *table, char mark, char *sql, size_t size);
/* "UPDATE <table> SET (written column) = ?1, ... WHERE id = ?N": the
 * written columns bound as for the INSERT, then the id. */
bool runs_update_sql(const char *table, char mark, char *sql, size_t size);
/* runs_insert_sql(), then "ON CONFLICT (uid) DO UPDATE" of a row still
 * running (or given up as lost meanwhile): how a journal's run reaches the
 * server at most once. */
bool runs_merge_sql(const char *table, char mark, char *sql, size_t size);
/* "SELECT every column FROM <table> WHERE 1=1". */
bool runs_select_sql(const char *table, char *sql, size_t size);
/*
 * Appends f's conditions, order and limit to a runs_select_sql() text and
 * fills params[] with their values in placeholder order (at most
 * RUN_FILTER_PARAMS_MAX); *count is how many.
 */
#define RUN_FILTER_PARAMS_MAX (FILTER_KEYS * FILTER_VALUES_MAX + 4)
bool run_filter_sql(const struct run_filter *f, char mark, char *sql, size_t size,
    struct db_value *params, size_t *count);

#endif
