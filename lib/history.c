/* history.c: filtered reads of the runs table and the recovered mark. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "history.h"
#include "store_int.h"

static const char *const filter_names[FILTER_KEYS] = {
	[FILTER_REASON] = "reason", [FILTER_FAMILY] = "family", [FILTER_MODEL] = "model",
	[FILTER_ACCOUNT] = "account", [FILTER_EXIT] = "exit", [FILTER_CWD] = "cwd",
};

void
run_filter_init(struct run_filter *f)
{
	memset(f, 0, sizeof(*f));
}

void
run_filter_free(struct run_filter *f)
{
	for (int k = 0; k < FILTER_KEYS; k++)
		for (int i = 0; i < f->count[k]; i++)
			free(f->values[k][i]);
	run_filter_init(f);
}

static bool
check_value(enum filter_key key, const char *v, char *err, size_t errlen)
{
	enum reason r;
	const char *errstr;

	if (key == FILTER_REASON && !reason_from_name(v, &r)) {
		snprintf(err, errlen, "reason=%s: not a reason (none, rate-limit, usage-limit, "
		    "credit-exhausted, overloaded, unavailable, auth, timeout, invalid-request, "
		    "agent-error, no-result, exit-nonzero)", v);
		return false;
	}
	if (key == FILTER_EXIT && (strtonum(v, 0, 255, &errstr), errstr != NULL)) {
		snprintf(err, errlen, "exit=%s: not an exit status (0..255)", v);
		return false;
	}
	return true;
}

static int
filter_key_of(const char *name, size_t len)
{
	for (int k = 0; k < FILTER_KEYS; k++)
		if (strlen(filter_names[k]) == len && strncmp(filter_names[k], name, len) == 0)
			return k;
	return -1;
}

bool
run_filter_add(struct run_filter *f, const char *spec, char *err, size_t errlen)
{
	const char *eq = strchr(spec, '='), *p, *comma;
	int key = eq != NULL ? filter_key_of(spec, (size_t)(eq - spec)) : -1;

	if (key < 0) {
		snprintf(err, errlen, "%s: not a filter (KEY=VALUE with KEY one of reason, family, "
		    "model, account, exit, cwd)", spec);
		return false;
	}
	for (p = eq + 1;; p = comma + 1) {
		size_t n;
		char *v;

		comma = strchr(p, ',');
		n = comma != NULL ? (size_t)(comma - p) : strlen(p);
		if (f->count[key] >= FILTER_VALUES_MAX) {
			snprintf(err, errlen, "%s: more than %d values", spec, FILTER_VALUES_MAX);
			return false;
		}
		if ((v = strndup(p, n)) == NULL || !check_value(key, v, err, errlen)) {
			if (v == NULL)
				snprintf(err, errlen, "out of memory");
			free(v);
			return false;
		}
		f->values[key][f->count[key]++] = v;
		if (comma == NULL)
			return true;
	}
}

/* The SQL expression each filter key compares with. */
static const char *const filter_columns[FILTER_KEYS] = {
	[FILTER_REASON] = "coalesce(reason, 'none')", [FILTER_FAMILY] = "coalesce(family, '')",
	[FILTER_MODEL] = "coalesce(model, '')", [FILTER_ACCOUNT] = "coalesce(account, '')",
	[FILTER_EXIT] = "exit_code", [FILTER_CWD] = "coalesce(cwd, '')",
};

#define RUN_COLUMNS "id, argv, argv_redacted, cwd, family, model, account, source, started_at," \
	" ended_at, exit_code, term_signal, reason, confidence, terminal, scope, http_status," \
	" error_type, limit_type, resets_at, reset_source, message, line, after_output," \
	" input_tokens, output_tokens, cost_usd, recovered_by"

/* Appends "AND col IN (?, ?, ...)" for every key that has values. */
static void
where_clause(const struct run_filter *f, char *sql, size_t size)
{
	for (int k = 0; k < FILTER_KEYS; k++) {
		if (f->count[k] == 0)
			continue;
		strlcat(sql, " AND ", size);
		strlcat(sql, filter_columns[k], size);
		strlcat(sql, " IN (", size);
		for (int i = 0; i < f->count[k]; i++)
			strlcat(sql, i == 0 ? "?" : ", ?", size);
		strlcat(sql, ")", size);
	}
	if (f->since > 0)
		strlcat(sql, " AND started_at >= ?", size);
	if (f->failed_only)
		strlcat(sql, " AND coalesce(reason, 'none') <> 'none' AND recovered_by IS NULL", size);
	strlcat(sql, " ORDER BY started_at DESC, id DESC", size);
	if (f->limit > 0)
		strlcat(sql, " LIMIT ?", size);
}

static void
bind_filter(sqlite3_stmt *st, const struct run_filter *f)
{
	int n = 1;

	for (int k = 0; k < FILTER_KEYS; k++)
		for (int i = 0; i < f->count[k]; i++, n++) {
			if (k == FILTER_EXIT)
				sqlite3_bind_int64(st, n, strtonum(f->values[k][i], 0, 255, NULL));
			else
				sqlite3_bind_text(st, n, f->values[k][i], -1, SQLITE_STATIC);
		}
	if (f->since > 0)
		sqlite3_bind_double(st, n++, f->since);
	if (f->limit > 0)
		sqlite3_bind_int64(st, n, f->limit);
}

static const char *
text_or_empty(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return s != NULL ? (const char *)s : "";
}

static long long
int_or(sqlite3_stmt *st, int i, long long dflt)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? dflt : sqlite3_column_int64(st, i);
}

static void
signal_from_row(sqlite3_stmt *st, struct run_row *r)
{
	struct fail_signal *sig = &r->signal;
	const char *src = text_or_empty(st, 20);

	signal_init(sig);
	if (!reason_from_name(text_or_empty(st, 12), &sig->reason))
		sig->reason = REASON_NONE;
	sig->confidence = sqlite3_column_double(st, 13);
	sig->terminal = sqlite3_column_int(st, 14) != 0;
	strlcpy(sig->family, r->family, sizeof(sig->family));
	strlcpy(sig->model, r->model, sizeof(sig->model));
	strlcpy(sig->scope, text_or_empty(st, 15), sizeof(sig->scope));
	sig->http_status = (int)int_or(st, 16, 0);
	strlcpy(sig->error_type, text_or_empty(st, 17), sizeof(sig->error_type));
	strlcpy(sig->limit_type, text_or_empty(st, 18), sizeof(sig->limit_type));
	sig->resets_at = sqlite3_column_double(st, 19);
	sig->reset_source = strcmp(src, "provider") == 0 ? RESET_SRC_PROVIDER :
	    strcmp(src, "text") == 0 ? RESET_SRC_TEXT : RESET_SRC_NONE;
	strlcpy(sig->message, text_or_empty(st, 21), sizeof(sig->message));
	sig->line = (long)int_or(st, 22, 0);
	sig->after_output = sqlite3_column_int(st, 23) != 0;
	sig->exit_code = r->exit_code;
}

static void
row_from_statement(sqlite3_stmt *st, struct run_row *r)
{
	r->id = sqlite3_column_int64(st, 0);
	r->argv_json = sqlite3_column_type(st, 1) == SQLITE_NULL ? NULL : text_or_empty(st, 1);
	r->argv_redacted = sqlite3_column_int(st, 2) != 0;
	r->cwd = text_or_empty(st, 3);
	r->family = text_or_empty(st, 4);
	r->model = text_or_empty(st, 5);
	r->account = text_or_empty(st, 6);
	r->source = text_or_empty(st, 7);
	r->started_at = sqlite3_column_double(st, 8);
	r->ended_at = sqlite3_column_double(st, 9);
	r->exit_code = (int)int_or(st, 10, -1);
	r->term_signal = (int)int_or(st, 11, 0);
	r->usage.input_tokens = int_or(st, 24, -1);
	r->usage.output_tokens = int_or(st, 25, -1);
	r->usage.cost_usd = sqlite3_column_type(st, 26) == SQLITE_NULL ? -1 : sqlite3_column_double(st, 26);
	r->recovered_by = int_or(st, 27, 0);
	signal_from_row(st, r);
}

bool
store_runs_each(struct store *store, const struct run_filter *f, run_row_cb cb, void *arg,
    struct store_error *err)
{
	char sql[4096] = "SELECT " RUN_COLUMNS " FROM runs WHERE 1";
	struct run_row row;
	sqlite3_stmt *st;
	int rc;

	where_clause(f, sql, sizeof(sql));
	rc = sqlite3_prepare_v2(store->db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return db_error(err, store->path, store->db, rc, "reading the run history");
	bind_filter(st, f);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		row_from_statement(st, &row);
		if (!cb(&row, arg)) {
			rc = SQLITE_DONE;
			break;
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE || db_error(err, store->path, store->db, rc, "reading the run history");
}

bool
store_run_mark_recovered(struct store *store, long long id, long long by, struct store_error *err)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(store->db, "UPDATE runs SET recovered_by = ?1 WHERE id = ?2",
	    -1, &st, NULL);

	if (rc != SQLITE_OK)
		return db_error(err, store->path, store->db, rc, "marking a run recovered");
	sqlite3_bind_int64(st, 1, by);
	sqlite3_bind_int64(st, 2, id);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE || db_error(err, store->path, store->db, rc, "marking a run recovered");
}

static json_t *
time_or_null(double t)
{
	char iso[40];

	if (t <= 0)
		return json_null();
	format_utc_iso(t, iso, sizeof(iso));
	return json_string(iso);
}

static json_t *
int_or_null(long long v, long long null_value)
{
	return v == null_value ? json_null() : json_integer(v);
}

json_t *
run_row_to_json(const struct run_row *row, time_t now)
{
	json_t *o = json_object(), *sig = signal_to_json(&row->signal, now);
	json_t *argv = row->argv_json != NULL ? json_loads(row->argv_json, 0, NULL) : NULL;

	json_object_set_new(o, "id", json_integer(row->id));
	json_object_set_new(o, "argv", argv != NULL ? argv : json_null());
	json_object_set_new(o, "argv_redacted", json_boolean(row->argv_redacted));
	json_object_set_new(o, "cwd", *row->cwd != '\0' ? json_string(row->cwd) : json_null());
	json_object_set_new(o, "account", *row->account != '\0' ? json_string(row->account) : json_null());
	json_object_set_new(o, "source", *row->source != '\0' ? json_string(row->source) : json_null());
	json_object_set_new(o, "started_at", time_or_null(row->started_at));
	json_object_set_new(o, "ended_at", time_or_null(row->ended_at));
	json_object_set_new(o, "term_signal", int_or_null(row->term_signal, 0));
	json_object_set_new(o, "input_tokens", int_or_null(row->usage.input_tokens, -1));
	json_object_set_new(o, "output_tokens", int_or_null(row->usage.output_tokens, -1));
	json_object_set_new(o, "cost_usd", row->usage.cost_usd >= 0 ? json_real(row->usage.cost_usd) : json_null());
	json_object_set_new(o, "recovered_by", int_or_null(row->recovered_by, 0));
	json_object_update(o, sig);
	json_decref(sig);
	return o;
}
