/* runs_table.c: the runs table's columns, and the SQL built from them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runs_table.h"

#define AT(member) offsetof(struct run_row, member)
#define CHARS(member) AT(member), sizeof(((struct run_row *)0)->member)

const struct run_column run_columns[] = {
	{ "id", DB_INT, FIELD_ID, AT(id), 0, 0, COLUMN_KEY },
	{ "argv", DB_TEXT, FIELD_JSON, AT(argv_json), 0, 0, 0 },
	{ "argv_redacted", DB_INT, FIELD_BOOL, AT(argv_redacted), 0, 0, COLUMN_NOT_NULL },
	{ "cwd", DB_TEXT, FIELD_TEXT, AT(cwd), 0, 0, 0 },
	{ "family", DB_TEXT, FIELD_TEXT, AT(family), 0, 0, 0 },
	{ "model", DB_TEXT, FIELD_TEXT, AT(model), 0, 0, 0 },
	{ "account", DB_TEXT, FIELD_TEXT, AT(account), 0, 0, 0 },
	{ "source", DB_TEXT, FIELD_TEXT, AT(source), 0, 0, 0 },
	{ "started_at", DB_REAL, FIELD_REAL, AT(started_at), 0, 0, COLUMN_NOT_NULL },
	{ "ended_at", DB_REAL, FIELD_REAL, AT(ended_at), 0, 0, COLUMN_NOT_NULL },
	{ "exit_code", DB_INT, FIELD_INT, AT(exit_code), 0, -1, 0 },
	{ "term_signal", DB_INT, FIELD_INT, AT(term_signal), 0, 0, 0 },
	{ "reason", DB_TEXT, FIELD_REASON, AT(signal.reason), 0, 0, 0 },
	{ "confidence", DB_REAL, FIELD_REAL, AT(signal.confidence), 0, 0, COLUMN_NOT_NULL },
	{ "terminal", DB_INT, FIELD_BOOL, AT(signal.terminal), 0, 0, COLUMN_NOT_NULL },
	{ "scope", DB_TEXT, FIELD_CHARS, CHARS(signal.scope), 0, 0 },
	{ "http_status", DB_INT, FIELD_INT, AT(signal.http_status), 0, 0, 0 },
	{ "error_type", DB_TEXT, FIELD_CHARS, CHARS(signal.error_type), 0, 0 },
	{ "limit_type", DB_TEXT, FIELD_CHARS, CHARS(signal.limit_type), 0, 0 },
	{ "resets_at", DB_REAL, FIELD_REAL, AT(signal.resets_at), 0, 0, 0 },
	{ "reset_source", DB_TEXT, FIELD_RESET_SOURCE, AT(signal.reset_source), 0, 0, 0 },
	{ "message", DB_TEXT, FIELD_CHARS, CHARS(signal.message), 0, 0 },
	{ "line", DB_INT, FIELD_LONG, AT(signal.line), 0, 0, 0 },
	{ "after_output", DB_INT, FIELD_BOOL, AT(signal.after_output), 0, 0, COLUMN_NOT_NULL },
	{ "input_tokens", DB_INT, FIELD_LLONG, AT(usage.input_tokens), 0, -1, 0 },
	{ "output_tokens", DB_INT, FIELD_LLONG, AT(usage.output_tokens), 0, -1, 0 },
	{ "cost_usd", DB_REAL, FIELD_REAL, AT(usage.cost_usd), 0, -1, 0 },
	{ "recovered_by", DB_INT, FIELD_LLONG, AT(recovered_by), 0, 0, COLUMN_LATER },
	{ "state", DB_TEXT, FIELD_TEXT, AT(state), 0, 0, 0 },
	{ "host", DB_TEXT, FIELD_TEXT, AT(host), 0, 0, 0 },
	{ "pid", DB_INT, FIELD_LONG, AT(pid), 0, 0, 0 },
	{ "pid_start_time", DB_INT, FIELD_LLONG, AT(pid_start_time), 0, 0, 0 },
	{ "alive_until", DB_REAL, FIELD_REAL, AT(alive_until), 0, 0, 0 },
	{ "uid", DB_TEXT, FIELD_CHARS, CHARS(uid), 0, COLUMN_ONCE },
	{ "argv_exact", DB_TEXT, FIELD_JSON, AT(argv_exact), 0, 0, 0 },
	{ "claim_pid", DB_INT, FIELD_LONG, AT(claim.pid), 0, 0, COLUMN_LATER },
	{ "claim_start_time", DB_INT, FIELD_LLONG, AT(claim.start_time), 0, 0, COLUMN_LATER },
	{ "claim_host", DB_TEXT, FIELD_CHARS, CHARS(claim.host), 0, COLUMN_LATER },
	{ "claimed_at", DB_REAL, FIELD_REAL, AT(claimed_at), 0, 0, COLUMN_LATER },
	{ "origin", DB_INT, FIELD_LLONG, AT(origin), 0, 0, COLUMN_ONCE },
	{ "env", DB_TEXT, FIELD_JSON, AT(env_json), 0, 0, COLUMN_ONCE },
	{ "hmac", DB_TEXT, FIELD_CHARS, CHARS(hmac), 0, COLUMN_ONCE },
	{ "refused_by", DB_TEXT, FIELD_TEXT, AT(refused_by), 0, 0, COLUMN_ONCE },
	{ "recover_note", DB_TEXT, FIELD_CHARS, CHARS(recover_note), 0, COLUMN_LATER },
};
const size_t run_columns_count = sizeof(run_columns) / sizeof(run_columns[0]);

bool
run_column_written(const struct run_column *c, bool update)
{
	return !(c->flags & (COLUMN_KEY | COLUMN_LATER)) && !(update && (c->flags & COLUMN_ONCE));
}

static void
set_text(struct db_value *v, const char *s)
{
	v->type = s != NULL && *s != '\0' ? DB_TEXT : DB_NULL;
	v->text = s;
}

static void
set_number(struct db_value *v, enum db_type type, double x, const struct run_column *c)
{
	v->type = x == c->null_value && !(c->flags & COLUMN_NOT_NULL) ? DB_NULL : type;
	v->i = (long long)x;
	v->r = x;
}

void
run_column_value(const struct run_row *row, const struct run_column *c, struct db_value *out)
{
	const char *field = (const char *)row + c->offset;

	memset(out, 0, sizeof(*out));
	switch (c->field) {
	case FIELD_TEXT:
	case FIELD_JSON:
		set_text(out, *(const char *const *)(const void *)field);
		break;
	case FIELD_CHARS:
		set_text(out, field);
		break;
	case FIELD_REASON:
		set_text(out, reason_name(*(const enum reason *)(const void *)field));
		break;
	case FIELD_RESET_SOURCE: {
		enum reset_source src = *(const enum reset_source *)(const void *)field;

		set_text(out, src != RESET_SRC_NONE ? reset_source_name(src) : NULL);
		break;
	}
	case FIELD_BOOL:
		set_number(out, DB_INT, *(const bool *)field, c);
		break;
	case FIELD_INT:
		set_number(out, DB_INT, *(const int *)(const void *)field, c);
		break;
	case FIELD_LONG:
		set_number(out, DB_INT, (double)*(const long *)(const void *)field, c);
		break;
	case FIELD_ID:
	case FIELD_LLONG:
		set_number(out, DB_INT, (double)*(const long long *)(const void *)field, c);
		out->i = *(const long long *)(const void *)field;
		break;
	case FIELD_REAL:
		set_number(out, DB_REAL, *(const double *)(const void *)field, c);
		break;
	}
}

void
run_row_clear(struct run_row *row)
{
	memset(row, 0, sizeof(*row));
	signal_init(&row->signal);
	row->cwd = row->family = row->model = row->account = row->source = row->host = "";
	row->state = "finished";
	row->exit_code = -1;
	row->usage = (struct run_usage){ -1, -1, -1, false };
}

static long long
as_int(const struct db_value *v, double null_value)
{
	return v->type == DB_INT ? v->i : v->type == DB_REAL ? (long long)v->r : (long long)null_value;
}

static double
as_real(const struct db_value *v, double null_value)
{
	/* a row another host (or hand) wrote with Inf or NaN: not a number rlwrap keeps */
	return v->type == DB_REAL ? (isfinite(v->r) ? v->r : null_value) : v->type == DB_INT ? (double)v->i : null_value;
}

static enum reset_source
reset_source_from_name(const char *name)
{
	return strcmp(name, "provider") == 0 ? RESET_SRC_PROVIDER :
	    strcmp(name, "text") == 0 ? RESET_SRC_TEXT : RESET_SRC_NONE;
}

void
run_column_set(struct run_row *row, const struct run_column *c, const struct db_value *v)
{
	char *field = (char *)row + c->offset;
	const char *text = v->type == DB_TEXT && v->text != NULL ? v->text : "";

	switch (c->field) {
	case FIELD_TEXT:
		*(const char **)(void *)field = text;
		break;
	case FIELD_JSON:
		*(const char **)(void *)field = v->type == DB_TEXT ? text : NULL;
		break;
	case FIELD_CHARS:
		strlcpy(field, text, c->size);
		break;
	case FIELD_REASON:
		if (!reason_from_name(text, (enum reason *)(void *)field))
			*(enum reason *)(void *)field = REASON_NONE;
		break;
	case FIELD_RESET_SOURCE:
		*(enum reset_source *)(void *)field = reset_source_from_name(text);
		break;
	case FIELD_BOOL:
		*(bool *)field = as_int(v, 0) != 0;
		break;
	case FIELD_INT:
		*(int *)(void *)field = (int)as_int(v, c->null_value);
		break;
	case FIELD_LONG:
		*(long *)(void *)field = (long)as_int(v, c->null_value);
		break;
	case FIELD_ID:
	case FIELD_LLONG:
		*(long long *)(void *)field = as_int(v, c->null_value);
		break;
	case FIELD_REAL:
		*(double *)(void *)field = as_real(v, c->null_value);
		break;
	}
}

void
run_row_finish(struct run_row *row)
{
	if (*row->state == '\0')   /* written before schema 3 */
		row->state = "finished";
	strlcpy(row->signal.family, row->family, sizeof(row->signal.family));
	strlcpy(row->signal.model, row->model, sizeof(row->signal.model));
	row->signal.exit_code = row->exit_code;
}

/* SQL text appended in one pass: strlcat would scan it again for each part,
 * and these two are built on every run (docs/design.md section 9). */
struct sql_text {
	char *s;
	size_t size, len;   /* len >= size: it did not fit */
};

static void
sql_put(struct sql_text *t, const char *part)
{
	size_t n = strlen(part);

	if (t->len + n < t->size)
		memcpy(t->s + t->len, part, n + 1);
	t->len += n;
}

/* mark followed by n: "?3", "$12". */
static void
sql_put_mark(struct sql_text *t, char mark, int n)
{
	char one[16], *p = one + sizeof(one);

	*--p = '\0';
	do
		*--p = (char)('0' + n % 10);
	while ((n /= 10) > 0);
	*--p = mark;
	sql_put(t, p);
}

bool
runs_insert_sql(const char *table, char mark, char *sql, size_t size)
{
	struct sql_text t = { sql, size, 0 };
	int n = 0;

	if (size > 0)
		*sql = '\0';
	sql_put(&t, "INSERT INTO ");
	sql_put(&t, table);
	sql_put(&t, " (");
	for (size_t i = 0; i < run_columns_count; i++) {
		if (!run_column_written(&run_columns[i], false))
			continue;
		if (n++ > 0)
			sql_put(&t, ", ");
		sql_put(&t, run_columns[i].name);
	}
	sql_put(&t, ") VALUES (");
	for (int i = 1; i <= n; i++) {
		if (i > 1)
			sql_put(&t, ", ");
		sql_put_mark(&t, mark, i);
	}
	sql_put(&t, ")");
	return t.len < t.size;
}

bool
runs_update_sql(const char *table, char mark, char *sql, size_t size)
{
	struct sql_text t = { sql, size, 0 };
	int n = 0;

	if (size > 0)
		*sql = '\0';
	sql_put(&t, "UPDATE ");
	sql_put(&t, table);
	sql_put(&t, " SET ");
	for (size_t i = 0; i < run_columns_count; i++) {
		if (!run_column_written(&run_columns[i], true))
			continue;
		if (n++ > 0)
			sql_put(&t, ", ");
		sql_put(&t, run_columns[i].name);
		sql_put(&t, " = ");
		sql_put_mark(&t, mark, n);
	}
	sql_put(&t, " WHERE id = ");
	sql_put_mark(&t, mark, n + 1);
	return t.len < t.size;
}

bool
runs_merge_sql(const char *table, char mark, char *sql, size_t size)
{
	int n = 0;

	if (!runs_insert_sql(table, mark, sql, size))
		return false;
	strlcat(sql, " ON CONFLICT (uid) DO UPDATE SET ", size);
	for (size_t i = 0; i < run_columns_count; i++) {
		if (!run_column_written(&run_columns[i], true))
			continue;
		if (n++ > 0)
			strlcat(sql, ", ", size);
		strlcat(sql, run_columns[i].name, size);
		strlcat(sql, " = EXCLUDED.", size);
		strlcat(sql, run_columns[i].name, size);
	}
	strlcat(sql, " WHERE ", size);
	strlcat(sql, table, size);
	return strlcat(sql, ".state IN ('running', 'lost')", size) < size;
}

bool
runs_select_sql(const char *table, char *sql, size_t size)
{
	strlcpy(sql, "SELECT ", size);
	for (size_t i = 0; i < run_columns_count; i++) {
		if (i > 0)
			strlcat(sql, ", ", size);
		strlcat(sql, run_columns[i].name, size);
	}
	strlcat(sql, " FROM ", size);
	strlcat(sql, table, size);
	return strlcat(sql, " WHERE 1 = 1", size) < size;
}

/* The SQL expression each filter key compares with. */
static const char *const filter_columns[FILTER_KEYS] = {
	[FILTER_REASON] = "coalesce(reason, 'none')", [FILTER_FAMILY] = "coalesce(family, '')",
	[FILTER_MODEL] = "coalesce(model, '')", [FILTER_ACCOUNT] = "coalesce(account, '')",
	[FILTER_EXIT] = "exit_code", [FILTER_CWD] = "coalesce(cwd, '')",
	[FILTER_STATE] = "coalesce(state, 'finished')",
};

/* Appends the next placeholder and records its value. */
static void
add_param(char *sql, size_t size, char mark, struct db_value *params, size_t *count,
    const struct db_value *v)
{
	char one[16];

	snprintf(one, sizeof(one), "%c%zu", mark, *count + 1);
	strlcat(sql, one, size);
	params[(*count)++] = *v;
}

bool
run_filter_sql(const struct run_filter *f, char mark, char *sql, size_t size,
    struct db_value *params, size_t *count)
{
	struct db_value v;

	*count = 0;
	for (int k = 0; k < FILTER_KEYS; k++) {
		if (f->count[k] == 0)
			continue;
		strlcat(sql, " AND ", size);
		strlcat(sql, filter_columns[k], size);
		strlcat(sql, " IN (", size);
		for (int i = 0; i < f->count[k]; i++) {
			if (k == FILTER_EXIT)
				v = (struct db_value){ .type = DB_INT, .i = strtonum(f->values[k][i], 0, 255, NULL) };
			else
				v = (struct db_value){ .type = DB_TEXT, .text = f->values[k][i] };
			if (i > 0)
				strlcat(sql, ", ", size);
			add_param(sql, size, mark, params, count, &v);
		}
		strlcat(sql, ")", size);
	}
	if (f->id > 0) {
		strlcat(sql, " AND id = ", size);
		add_param(sql, size, mark, params, count, &(struct db_value){ .type = DB_INT, .i = f->id });
	}
	if (f->since > 0) {
		strlcat(sql, " AND started_at >= ", size);
		add_param(sql, size, mark, params, count, &(struct db_value){ .type = DB_REAL, .r = f->since });
	}
	if (f->origin > 0) {
		strlcat(sql, " AND origin = ", size);
		add_param(sql, size, mark, params, count, &(struct db_value){ .type = DB_INT, .i = f->origin });
	}
	/* Failed: refused, or finished with a reason, or (asked for) lost;
	 * never one that still runs, nor a re-run: its origin stands for it. */
	if (f->failed_only)
		strlcat(sql, f->include_lost ? " AND (state IN ('refused', 'lost') OR" : " AND (state = 'refused' OR",
		    size);
	if (f->failed_only)
		strlcat(sql, " (coalesce(state, 'finished') = 'finished' AND coalesce(reason, 'none') <> 'none'))"
		    " AND recovered_by IS NULL AND origin IS NULL", size);
	/* The order the runs were recorded in (their spawn): two started in
	 * one second by different processes keep it, whatever their clocks. */
	strlcat(sql, " ORDER BY id DESC", size);
	if (f->limit > 0) {
		strlcat(sql, " LIMIT ", size);
		add_param(sql, size, mark, params, count, &(struct db_value){ .type = DB_INT, .i = f->limit });
	}
	return strlen(sql) + 1 < size;
}
