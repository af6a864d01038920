/* store.c: the store interface: choosing the backend, and passing each call on to it. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "store_backend.h"

static const char *const state_names[] = { "closed", "open", "half-open" };

bool
set_error(struct store_error *err, enum store_status status, const char *fmt, ...)
{
	va_list ap;

	err->status = status;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	return false;
}

const char *
breaker_state_name(enum breaker_state s)
{
	return state_names[s];
}

enum breaker_state
breaker_state_from_name(const char *name)
{
	for (size_t i = 0; i < sizeof(state_names) / sizeof(state_names[0]); i++)
		if (name != NULL && strcmp(name, state_names[i]) == 0)
			return (enum breaker_state)i;
	return BREAKER_CLOSED;
}

/* The machine's own file: $XDG_STATE_HOME/rlwrap/state.db, else under ~/.local/state. */
static int
machine_file(char *path, size_t size)
{
	const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");

	if (xdg != NULL && *xdg == '/')
		return snprintf(path, size, "%s/rlwrap/state.db", xdg);
	if (home != NULL && *home != '\0')
		return snprintf(path, size, "%s/.local/state/rlwrap/state.db", home);
	*path = '\0';
	return -1;
}

bool
store_options_resolve(struct store_options *opts, const char *config_path,
    long keep_runs, long keep_days, struct store_error *err)
{
	const char *db = getenv("RLWRAP_DB"), *busy = getenv("RLWRAP_BUSY_TIMEOUT_MS"), *errstr;
	int n;

	memset(opts, 0, sizeof(*opts));
	opts->keep_runs = keep_runs;
	opts->keep_days = keep_days;
	opts->busy_timeout_ms = STORE_BUSY_TIMEOUT_MS;
	store_options_server(opts, NULL, 0, 0);
	if (busy != NULL && *busy != '\0') {
		opts->busy_timeout_ms = (int)strtonum(busy, 0, 600000, &errstr);
		if (errstr != NULL)
			return set_error(err, STORE_ERR_OPEN, "RLWRAP_BUSY_TIMEOUT_MS=%s: %s", busy, errstr);
	}
	if (db != NULL && *db != '\0')
		n = snprintf(opts->path, sizeof(opts->path), "%s", db);
	else if (config_path != NULL && *config_path != '\0')
		n = snprintf(opts->path, sizeof(opts->path), "%s", config_path);
	else if ((n = machine_file(opts->path, sizeof(opts->path))) < 0)
		return set_error(err, STORE_ERR_OPEN, "no state file: set RLWRAP_DB, XDG_STATE_HOME or HOME");
	if (n < 0 || (size_t)n >= sizeof(opts->path))
		return set_error(err, STORE_ERR_OPEN, "state file path too long");
	n = machine_file(opts->journal_path, sizeof(opts->journal_path));
	if (n < 0 || (size_t)n >= sizeof(opts->journal_path))
		opts->journal_path[0] = '\0';
	return true;
}

void
store_options_server(struct store_options *opts, const char *schema,
    double connect_timeout, double statement_timeout)
{
	const char *env = getenv("RLWRAP_SCHEMA");

	if (env != NULL && *env != '\0')
		schema = env;
	strlcpy(opts->schema, schema != NULL && *schema != '\0' ? schema : STORE_SCHEMA_DEFAULT,
	    sizeof(opts->schema));
	opts->connect_timeout = connect_timeout > 0 ? connect_timeout : STORE_TIMEOUT_DEFAULT;
	opts->statement_timeout = statement_timeout > 0 ? statement_timeout : STORE_TIMEOUT_DEFAULT;
}

bool
store_is_server_url(const char *path)
{
	return strncmp(path, "postgresql:", 11) == 0 || strncmp(path, "postgres:", 9) == 0;
}

bool
store_open(const struct store_options *opts, struct store **out, struct store_error *err)
{
	*out = NULL;
	err->status = STORE_OK;
	err->message[0] = '\0';
	if (!store_is_server_url(opts->path))
		return store_sqlite_ops.open(opts, out, err);
#ifdef HAVE_LIBPQ
	return store_pg_ops.open(opts, out, err);
#else
	return set_error(err, STORE_ERR_UNSUPPORTED, "PostgreSQL stores are not supported by this build "
	    "(built without libpq)");
#endif
}

void
store_close(struct store *store)
{
	if (store != NULL)
		store->ops->close(store);
}

const char *
store_path(const struct store *store)
{
	return store->path;
}

const char *
store_backend_name(const struct store *store)
{
	return store->ops->name;
}

int
store_schema_version(const struct store *store)
{
	return store->version;
}

bool
store_begin(struct store *store, struct store_error *err)
{
	return store->ops->begin(store, err);
}

bool
store_commit(struct store *store, struct store_error *err)
{
	return store->ops->commit(store, err);
}

void
store_rollback(struct store *store)
{
	store->ops->rollback(store);
}

bool
store_breakers_of(struct store *store, const char *account, const char *family,
    struct breaker **rows, size_t *count, struct store_error *err)
{
	return store->ops->breakers_of(store, account, family, rows, count, err);
}

bool
store_breakers_all(struct store *store, struct breaker **rows, size_t *count, struct store_error *err)
{
	return store->ops->breakers_all(store, rows, count, err);
}

bool
store_breaker_save(struct store *store, const struct breaker *b, struct store_error *err)
{
	return store->ops->breaker_save(store, b, err);
}

bool
store_history_add(struct store *store, const struct breaker *b, const char *event,
    long long run_id, double at, struct store_error *err)
{
	return store->ops->history_add(store, b, event, run_id, at, err);
}

bool
store_run_add(struct store *store, const struct run_row *run, double now,
    long long *run_id, struct store_error *err)
{
	return store->ops->run_add(store, run, now, run_id, err);
}

bool
store_wait_add(struct store *store, const struct wait_record *wait, long long *wait_id,
    struct store_error *err)
{
	return store->ops->wait_add(store, wait, wait_id, err);
}

bool
store_wait_end(struct store *store, long long wait_id, double ended_at, struct store_error *err)
{
	return store->ops->wait_end(store, wait_id, ended_at, err);
}

bool
store_run_start(struct store *store, const struct run_row *run, long long *run_id, struct store_error *err)
{
	return store->ops->run_start(store, run, run_id, err);
}

bool
store_run_renew(struct store *store, long long run_id, double alive_until, struct store_error *err)
{
	return store->ops->run_renew(store, run_id, alive_until, err);
}

bool
store_run_mark_lost(struct store *store, long long run_id, struct store_error *err)
{
	return store->ops->run_mark_lost(store, run_id, err);
}

bool
store_running(struct store *store, const char *account, const char *family,
    struct running_run **rows, size_t *count, struct store_error *err)
{
	return store->ops->running(store, account, family, rows, count, err);
}

bool
store_ticket_add(struct store *store, const struct slot_ticket *ticket, long long *id,
    struct store_error *err)
{
	return store->ops->ticket_add(store, ticket, id, err);
}

bool
store_ticket_remove(struct store *store, long long id, struct store_error *err)
{
	return store->ops->ticket_remove(store, id, err);
}

bool
store_ticket_renew(struct store *store, long long id, double alive_until, struct store_error *err)
{
	return store->ops->ticket_renew(store, id, alive_until, err);
}

bool
store_tickets(struct store *store, const char *account, const char *family,
    struct slot_ticket **rows, size_t *count, struct store_error *err)
{
	return store->ops->tickets(store, account, family, rows, count, err);
}

bool
store_family_counts(struct store *store, double since, struct family_counts **rows,
    size_t *count, struct store_error *err)
{
	return store->ops->family_counts(store, since, rows, count, err);
}

bool
store_families_since(struct store *store, double since, struct family_counts **rows,
    size_t *count, struct store_error *err)
{
	if (store->ops->families_since == NULL)
		return store->ops->family_counts(store, since, rows, count, err);
	return store->ops->families_since(store, since, rows, count, err);
}
