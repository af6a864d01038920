/* store.c: the store interface: choosing the backend, and passing each call on to it. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <time.h>

#include "store.h"
#include "journal.h"
#include "outcome.h"
#include "store_backend.h"

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
	store_options_server(opts, NULL, 0, 0, STORE_POOL_AUTO);
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
	opts->parent_must_exist = n < 0 || strcmp(opts->path, opts->journal_path) != 0;
	if (n < 0 || (size_t)n >= sizeof(opts->journal_path) || strrchr(opts->journal_path, '/') == NULL)
		opts->journal_path[0] = '\0';
	else
		strlcpy(strrchr(opts->journal_path, '/') + 1, "journal.db",
		    sizeof(opts->journal_path) - (size_t)(strrchr(opts->journal_path, '/') + 1 - opts->journal_path));
	return true;
}

void
store_options_server(struct store_options *opts, const char *schema,
    double connect_timeout, double statement_timeout, enum store_pool pool)
{
	const char *env = getenv("RLWRAP_SCHEMA");

	if (env != NULL && *env != '\0')
		schema = env;
	strlcpy(opts->schema, schema != NULL && *schema != '\0' ? schema : STORE_SCHEMA_DEFAULT,
	    sizeof(opts->schema));
	opts->connect_timeout = connect_timeout > 0 ? connect_timeout : STORE_TIMEOUT_DEFAULT;
	opts->statement_timeout = statement_timeout > 0 ? statement_timeout : STORE_TIMEOUT_DEFAULT;
	opts->pool = pool;
}

static const char *const pool_names[] = {
	[STORE_POOL_AUTO] = "auto", [STORE_POOL_TRANSACTION] = "transaction", [STORE_POOL_NONE] = "none",
};

bool
store_pool_from_name(const char *name, enum store_pool *pool)
{
	for (size_t i = 0; i < sizeof(pool_names) / sizeof(pool_names[0]); i++)
		if (strcmp(name, pool_names[i]) == 0) {
			*pool = (enum store_pool)i;
			return true;
		}
	return false;
}

const char *
store_pool_name(enum store_pool pool)
{
	return pool_names[pool];
}

bool
store_open(const struct store_options *opts, struct store **out, struct store_error *err)
{
	struct stat st;

	*out = NULL;
	err->status = STORE_OK;
	err->message[0] = '\0';
	if (!store_is_server_url(opts->path)) {
		if (!store_sqlite_ops.open(opts, out, err))
			return false;
		if (stat(opts->path, &st) == 0) {
			(*out)->is_file = true;
			(*out)->dev = st.st_dev;
			(*out)->ino = st.st_ino;
		}
		return true;
	}
	return journal_open_server(opts, out, err);
}

bool
store_path_moved(const struct store *store)
{
	struct stat st;

	if (!store->is_file)
		return false;
	return stat(store->path, &st) != 0 || st.st_dev != store->dev || st.st_ino != store->ino;
}

/* Can someone other than the user write path?  why says who. */
static bool
file_exposed(const char *path, bool is_dir, char *why, size_t size)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return false;
	if (st.st_uid != geteuid() && st.st_uid != 0) {
		snprintf(why, size, "%s belongs to uid %u", path, (unsigned)st.st_uid);
		return true;
	}
	if ((st.st_mode & 022) != 0 && !(is_dir && (st.st_mode & S_ISVTX))) {
		snprintf(why, size, "%s is %s-writable (mode %04o)", path,
		    (st.st_mode & 002) ? "world" : "group", (unsigned)(st.st_mode & 07777));
		return true;
	}
	return false;
}

bool
store_writable_by_others(const struct store *store, char *why, size_t size)
{
	static const char *const sides[] = { "", "-wal", "-shm" };
	char path[PATH_MAX + 8], *slash;

	if (!store->is_file)
		return false;
	for (size_t i = 0; i < sizeof(sides) / sizeof(sides[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", store->path, sides[i]);
		if (file_exposed(path, false, why, size))
			return true;
	}
	strlcpy(path, store->path, sizeof(path));
	if ((slash = strrchr(path, '/')) == NULL)
		strlcpy(path, ".", sizeof(path));
	else
		slash[slash == path] = '\0';
	return file_exposed(path, true, why, size);
}

void
store_close(struct store *store)
{
	if (store == NULL)
		return;
	if (store->journal != NULL)
		store->journal->ops->close(store->journal);
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

/* Where calls go: the store, or its journal while its server is away. */
static struct store *
target(struct store *store)
{
	return store->on_journal ? store->journal : store;
}

/*
 * A call that failed because the server went away goes to the journal
 * instead (journal.c).  Outside a transaction it is made again there at
 * once (true); inside one the whole transaction must be, so the error
 * becomes STORE_ERR_RETRY for the caller's loop (breaker.c).
 */
static bool
again_on_journal(struct store *store, struct store_error *err)
{
	if (err->status != STORE_ERR_UNREACHABLE || store->on_journal || !journal_fail_over(store, err))
		return false;
	if (!store->in_transaction)
		return true;
	store->in_transaction = false;
	err->status = STORE_ERR_RETRY;
	return false;
}

/* Calls op on the target, and once more on the journal when the server went away. */
#define ON_STORE(store, err, call) \
	(target(store)->ops->call || (again_on_journal(store, err) && target(store)->ops->call))

bool
store_begin(struct store *store, struct store_error *err)
{
	store->in_transaction = ON_STORE(store, err, begin(target(store), err));
	return store->in_transaction;
}

bool
store_commit(struct store *store, struct store_error *err)
{
	bool ok = target(store)->ops->commit(target(store), err);

	if (ok && store_on_journal(store))
		journal_mark(store);
	if (!ok)
		again_on_journal(store, err);
	store->in_transaction = false;
	return ok;
}

void
store_rollback(struct store *store)
{
	target(store)->ops->rollback(target(store));
	store->in_transaction = false;
}

bool
store_breakers_of(struct store *store, const char *account, const char *family,
    struct breaker **rows, size_t *count, struct store_error *err)
{
	return ON_STORE(store, err, breakers_of(target(store), account, family, rows, count, err));
}

bool
store_breakers_all(struct store *store, struct breaker **rows, size_t *count, struct store_error *err)
{
	return ON_STORE(store, err, breakers_all(target(store), rows, count, err));
}

bool
store_breaker_save(struct store *store, const struct breaker *b, struct store_error *err)
{
	return ON_STORE(store, err, breaker_save(target(store), b, err));
}

bool
store_history_add(struct store *store, const struct breaker *b, const char *event,
    long long run_id, double at, struct store_error *err)
{
	return ON_STORE(store, err, history_add(target(store), b, event, run_id, at, err));
}

/* Every run gets its identity once, here, before any backend sees it. */
static void
give_uid(struct run_row *row)
{
	unsigned char bytes[16];

	if (row->uid[0] != '\0')
		return;
	arc4random_buf(bytes, sizeof(bytes));
	for (size_t i = 0; i < sizeof(bytes); i++)
		snprintf(row->uid + 2 * i, 3, "%02x", bytes[i]);
}

bool
store_run_add(struct store *store, const struct run_row *run, double now,
    long long *run_id, struct store_error *err)
{
	struct run_row row = *run;

	give_uid(&row);
	/* A run the server started, completed after the server went away (a
	 * fail-over, or a journal opened in its place): a journal row of its
	 * own, with the same identity, for the replay.  Never the server's id
	 * on the journal's table, where it names another run or none. */
	if (store_on_journal(store) && row.id != 0 && row.id == store->server_run_id) {
		strlcpy(row.uid, store->server_run_uid, sizeof(row.uid));
		row.id = 0;
	}
	return ON_STORE(store, err, run_add(target(store), &row, now, run_id, err));
}

void
store_carry_run(struct store *store, long long server_run_id, const char *uid)
{
	store->server_run_id = server_run_id;
	strlcpy(store->server_run_uid, uid, sizeof(store->server_run_uid));
}

bool
store_run_start(struct store *store, const struct run_row *run, long long *run_id, struct store_error *err)
{
	struct run_row row = *run;
	bool ok;

	give_uid(&row);
	ok = ON_STORE(store, err, run_start(target(store), &row, run_id, err));
	if (ok && !store_on_journal(store)) {
		store->server_run_id = *run_id;
		strlcpy(store->server_run_uid, row.uid, sizeof(store->server_run_uid));
	}
	return ok;
}

bool
store_wait_add(struct store *store, const struct wait_record *wait, long long *wait_id,
    struct store_error *err)
{
	return ON_STORE(store, err, wait_add(target(store), wait, wait_id, err));
}

bool
store_wait_end(struct store *store, long long wait_id, double ended_at, struct store_error *err)
{
	return ON_STORE(store, err, wait_end(target(store), wait_id, ended_at, err));
}

bool
store_host_renew(struct store *store, const char *host, double alive_until, struct store_error *err)
{
	return ON_STORE(store, err, host_renew(target(store), host, alive_until, err));
}

bool
store_host_lease(struct store *store, const char *host, double *alive_until, struct store_error *err)
{
	return ON_STORE(store, err, host_lease(target(store), host, alive_until, err));
}

bool
store_run_mark_lost(struct store *store, long long run_id, struct store_error *err)
{
	return ON_STORE(store, err, run_mark_lost(target(store), run_id, err));
}

bool
store_running(struct store *store, const char *account, const char *family,
    struct running_run **rows, size_t *count, struct store_error *err)
{
	return ON_STORE(store, err, running(target(store), account, family, rows, count, err));
}

bool
store_ticket_add(struct store *store, const struct slot_ticket *ticket, long long *id,
    struct store_error *err)
{
	return ON_STORE(store, err, ticket_add(target(store), ticket, id, err));
}

bool
store_ticket_remove(struct store *store, long long id, struct store_error *err)
{
	return ON_STORE(store, err, ticket_remove(target(store), id, err));
}

bool
store_ticket_renew(struct store *store, long long id, double alive_until, struct store_error *err)
{
	return ON_STORE(store, err, ticket_renew(target(store), id, alive_until, err));
}

bool
store_tickets(struct store *store, const char *account, const char *family,
    struct slot_ticket **rows, size_t *count, struct store_error *err)
{
	return ON_STORE(store, err, tickets(target(store), account, family, rows, count, err));
}

bool
store_budget_add(struct store *store, const char *account, const char *family,
    const struct budget_bucket *adds, size_t n, struct store_error *err)
{
	return ON_STORE(store, err, budget_add(target(store), account, family, adds, n, err));
}

bool
store_budget_prune(struct store *store, const char *account, const char *family, double now,
    struct store_error *err)
{
	return ON_STORE(store, err, budget_prune(target(store), account, family, now, err));
}

bool
store_budget_buckets(struct store *store, const char *account, const char *family,
    struct budget_bucket **rows, size_t *count, struct store_error *err)
{
	return ON_STORE(store, err, budget_buckets(target(store), account, family, rows, count, err));
}

bool
store_adaptive_limits(struct store *store, const char *account, const char *family,
    struct adaptive_limit **rows, size_t *count, struct store_error *err)
{
	return ON_STORE(store, err, adaptive_limits(target(store), account, family, rows, count, err));
}

bool
store_adaptive_save(struct store *store, const struct adaptive_limit *l, struct store_error *err)
{
	return ON_STORE(store, err, adaptive_save(target(store), l, err));
}

bool
store_wait_totals(struct store *store, double since, struct wait_total **rows, size_t *count,
    struct store_error *err)
{
	return ON_STORE(store, err, wait_totals(target(store), since, rows, count, err));
}

/* A backend without its own statement: the queue read whole. */
static bool
queue_head_of_tickets(struct store *store, const char *account, const char *family, long long ticket,
    struct slot_ticket *head, bool *ours, struct store_error *err)
{
	struct slot_ticket *rows;
	size_t count;

	if (!store_tickets(store, account, family, &rows, &count, err))
		return false;
	if (count > 0)
		*head = rows[0];
	for (size_t i = 0; i < count && !*ours; i++)
		*ours = rows[i].id == ticket;
	free(rows);
	return true;
}

bool
store_queue_head(struct store *store, const char *account, const char *family, long long ticket,
    struct slot_ticket *head, bool *ours, struct store_error *err)
{
	memset(head, 0, sizeof(*head));
	*ours = false;
	if (target(store)->ops->queue_head == NULL)
		return queue_head_of_tickets(store, account, family, ticket, head, ours, err);
	if (target(store)->ops->queue_head(target(store), account, family, ticket, head, ours, err))
		return true;
	if (!again_on_journal(store, err))
		return false;
	return target(store)->ops->queue_head == NULL ?
	    queue_head_of_tickets(store, account, family, ticket, head, ours, err) :
	    target(store)->ops->queue_head(target(store), account, family, ticket, head, ours, err);
}

bool
store_tells_slots(const struct store *store)
{
	const struct store *t = store->on_journal ? store->journal : store;

	return t->ops->slot_await != NULL;
}

/* A store that cannot tell (or no longer can: a server gone, the journal
 * in its place) still sleeps, so that the waiter's loop keeps its pace. */
bool
store_await_slot(struct store *store, double secs, bool *told, struct store_error *err)
{
	struct timespec ts;

	*told = false;
	if (target(store)->ops->slot_await != NULL) {
		if (target(store)->ops->slot_await(target(store), secs, told, err))
			return true;
		if (!again_on_journal(store, err))
			return false;
	}
	if (secs > 0) {
		ts.tv_sec = (time_t)secs;
		ts.tv_nsec = (long)((secs - (double)ts.tv_sec) * 1e9);
		nanosleep(&ts, NULL);
	}
	return true;
}

bool
store_family_counts(struct store *store, double since, struct family_counts **rows,
    size_t *count, struct store_error *err)
{
	return ON_STORE(store, err, family_counts(target(store), since, rows, count, err));
}

bool
store_families_since(struct store *store, double since, struct family_counts **rows,
    size_t *count, struct store_error *err)
{
	if (target(store)->ops->families_since == NULL)
		return ON_STORE(store, err, family_counts(target(store), since, rows, count, err));
	return ON_STORE(store, err, families_since(target(store), since, rows, count, err));
}

bool
store_runs_each(struct store *store, const struct run_filter *f, run_row_cb cb, void *arg,
    struct store_error *err)
{
	return ON_STORE(store, err, runs_each(target(store), f, cb, arg, err));
}

bool
store_run_mark_recovered(struct store *store, long long id, long long by, struct store_error *err)
{
	return ON_STORE(store, err, run_mark_recovered(target(store), id, by, err));
}

bool
store_run_settle(struct store *store, const struct run_outcome *o, struct store_error *err)
{
	return ON_STORE(store, err, run_settle(target(store), o, err));
}

bool
store_run_note(struct store *store, long long id, const char *note, struct store_error *err)
{
	return ON_STORE(store, err, run_note(target(store), id, note, err));
}

bool
store_readings_save(struct store *store, const struct usage_reading *rows, size_t n, struct store_error *err)
{
	return ON_STORE(store, err, readings_save(target(store), rows, n, err));
}

bool
store_readings(struct store *store, const char *account, const char *family,
    struct usage_reading **rows, size_t *count, struct store_error *err)
{
	return ON_STORE(store, err, readings(target(store), account, family, rows, count, err));
}
