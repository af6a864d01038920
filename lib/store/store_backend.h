/*
 * store_backend.h: what a store backend provides (the ops table) and the
 * part of the handle every backend shares.  Only lib/store*.c and the
 * dispatchers in lib/history.c include it; everything else sees store.h.
 *
 * Ownership: a backend's open() allocates its own handle, which starts with
 * a struct store, and its close() frees it.  The ops borrow what they are
 * given, and fill rows and errors as store.h says.
 */
#ifndef RLWRAP_STORE_BACKEND_H
#define RLWRAP_STORE_BACKEND_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "history.h"
#include "store.h"

struct run_outcome;

struct store_ops {
	const char *name;   /* "sqlite", "postgresql" */
	bool (*open)(const struct store_options *opts, struct store **out, struct store_error *err);
	void (*close)(struct store *store);
	bool (*begin)(struct store *store, struct store_error *err);
	bool (*commit)(struct store *store, struct store_error *err);
	void (*rollback)(struct store *store);
	bool (*breakers_of)(struct store *store, const char *account, const char *family,
	    struct breaker **rows, size_t *count, struct store_error *err);
	bool (*breakers_all)(struct store *store, struct breaker **rows, size_t *count,
	    struct store_error *err);
	bool (*breaker_save)(struct store *store, const struct breaker *b, struct store_error *err);
	bool (*history_add)(struct store *store, const struct breaker *b, const char *event,
	    long long run_id, double at, struct store_error *err);
	/* Inserts the run (or completes run->id) and prunes, as store_run_add(). */
	bool (*run_add)(struct store *store, const struct run_row *run, double now,
	    long long *run_id, struct store_error *err);
	bool (*wait_add)(struct store *store, const struct wait_record *wait, long long *wait_id,
	    struct store_error *err);
	bool (*wait_end)(struct store *store, long long wait_id, double ended_at, struct store_error *err);
	/* Running rows and the queue for slots, as store.h says. */
	bool (*run_start)(struct store *store, const struct run_row *run, long long *run_id,
	    struct store_error *err);
	bool (*host_renew)(struct store *store, const char *host, double alive_until, struct store_error *err);
	bool (*host_lease)(struct store *store, const char *host, double *alive_until, struct store_error *err);
	bool (*run_mark_lost)(struct store *store, long long run_id, struct store_error *err);
	bool (*running)(struct store *store, const char *account, const char *family,
	    struct running_run **rows, size_t *count, struct store_error *err);
	bool (*ticket_add)(struct store *store, const struct slot_ticket *ticket, long long *id,
	    struct store_error *err);
	bool (*ticket_remove)(struct store *store, long long id, struct store_error *err);
	bool (*ticket_renew)(struct store *store, long long id, double alive_until, struct store_error *err);
	bool (*tickets)(struct store *store, const char *account, const char *family,
	    struct slot_ticket **rows, size_t *count, struct store_error *err);
	/* Optional (NULL: store.c reads the whole queue): as store_queue_head(). */
	bool (*queue_head)(struct store *store, const char *account, const char *family, long long ticket,
	    struct slot_ticket *head, bool *ours, struct store_error *err);
	/* Optional (NULL: the backend cannot tell, waiters poll): sleeps up to
	 * secs or until another process says a slot may have freed. */
	bool (*slot_await)(struct store *store, double secs, bool *told, struct store_error *err);
	/* Budget counters, as store.h says. */
	bool (*budget_add)(struct store *store, const char *account, const char *family,
	    const struct budget_bucket *adds, size_t n, struct store_error *err);
	bool (*budget_prune)(struct store *store, const char *account, const char *family, double now,
	    struct store_error *err);
	bool (*budget_buckets)(struct store *store, const char *account, const char *family,
	    struct budget_bucket **rows, size_t *count, struct store_error *err);
	/* A server's (NULL elsewhere): a journal's row (its key in row) under
	 * origin, raised to row's amounts where they are higher, never added:
	 * replaying the same journal twice counts it once. */
	bool (*budget_merge)(struct store *store, const char *origin, const struct budget_bucket *row,
	    struct store_error *err);
	/* Adaptive limits, as store.h says. */
	bool (*adaptive_limits)(struct store *store, const char *account, const char *family,
	    struct adaptive_limit **rows, size_t *count, struct store_error *err);
	bool (*adaptive_save)(struct store *store, const struct adaptive_limit *l, struct store_error *err);
	bool (*wait_totals)(struct store *store, double since, struct wait_total **rows, size_t *count,
	    struct store_error *err);
	bool (*family_counts)(struct store *store, double since, struct family_counts **rows,
	    size_t *count, struct store_error *err);
	/* As store_families_since(); NULL: family_counts stands in. */
	bool (*families_since)(struct store *store, double since, struct family_counts **rows,
	    size_t *count, struct store_error *err);
	bool (*runs_each)(struct store *store, const struct run_filter *f, run_row_cb cb, void *arg,
	    struct store_error *err);
	bool (*run_mark_recovered)(struct store *store, long long id, long long by,
	    struct store_error *err);
	/* A run from a journal: inserted unless its uid is there already, and
	 * then only completing a row still running or lost.  NULL: not a server. */
	bool (*run_merge)(struct store *store, const struct run_row *run, struct store_error *err);
	/* A journal after its replay: everything but the rows still running.
	 * NULL: cannot be a journal. */
	bool (*clear_replayed)(struct store *store, struct store_error *err);
	/* Completes a running (or lost) row from a journaled outcome (outcome.h). */
	bool (*run_settle)(struct store *store, const struct run_outcome *o, struct store_error *err);
	/* Sets the run's recover_note (history.h's store_run_note()). */
	bool (*run_note)(struct store *store, long long id, const char *note, struct store_error *err);
	/* Sets the run's claim to holder at now (inside the caller's transaction). */
	bool (*run_claim_set)(struct store *store, long long id, const struct probe_lease *holder,
	    double now, struct store_error *err);
	/* Usage readings, as store.h says. */
	bool (*readings_save)(struct store *store, const struct usage_reading *rows, size_t n,
	    struct store_error *err);
	bool (*readings)(struct store *store, const char *account, const char *family,
	    struct usage_reading **rows, size_t *count, struct store_error *err);
};

/* The first member of every backend's handle. */
struct store {
	const struct store_ops *ops;
	char path[PATH_MAX];   /* shown to the user: never holds a password */
	int version;
	long keep_runs, keep_days;
	bool in_transaction;   /* between store_begin() and its end (store.c) */
	/* A server's local journal (journal.c): where calls go while on_journal. */
	char journal_path[PATH_MAX];
	struct store *journal;
	bool on_journal;
	char notice[512];      /* to say once: the server went away */
	char server[PATH_MAX]; /* a journal opened in a server's place: that server; else "" */
	long long server_run_id;   /* the last run this handle started on the server */
	char server_run_uid[40];
	long replayed_runs, replayed_breakers;   /* by the open, from the journal */
	bool is_file;          /* a file (SQLite) whose identity was taken at open */
	dev_t dev;             /* of the file opened, to notice it deleted or replaced */
	ino_t ino;
};

extern const struct store_ops store_sqlite_ops;
#ifdef HAVE_LIBPQ
extern const struct store_ops store_pg_ops;
#endif

/* Fills err (message from fmt) and returns false. */
bool set_error(struct store_error *err, enum store_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The names stored for enum breaker_state. */
const char *breaker_state_name(enum breaker_state s);
enum breaker_state breaker_state_from_name(const char *name);
/* mkdir -p of path's directory, each created component 0700. */
bool store_make_parent_dirs(const char *path, struct store_error *err);

#endif
