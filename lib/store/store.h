/*
 * store.h: the state store (docs/design.md section 6): breakers, their
 * history, the run history, and waits and refusals.  One interface, written
 * once for every backend (the SQLite file, lib/store/store_sqlite.c); everything
 * above it (breakers, history, recover, status, record) never sees SQL.
 *
 * Ownership: store_open() returns a store the caller closes with
 * store_close().  Rows handed out are plain structs (fixed arrays, no
 * pointers); lists of rows are one heap array the caller frees with free().
 * Nothing here prints or exits: every function that can fail returns false
 * and fills a struct store_error for the caller to report, so that the
 * wrapper can fail open (docs/design.md: "a store problem never loses the child's
 * output or exit status").  All times are epoch seconds given by the caller.
 *
 * Concurrency: every read-then-write runs between store_begin() and
 * store_commit(), which lock what it decides on (SQLite: WAL, busy_timeout
 * and BEGIN IMMEDIATE); single statements run in their own implicit
 * transaction.
 */
#ifndef RLWRAP_STORE_H
#define RLWRAP_STORE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "failsignal.h"
#include "key.h"
#include "run_usage.h"
#include "usage_reading.h"

struct store;

/* The schema this build writes (PRAGMA user_version). */
#define STORE_SCHEMA_VERSION 12
#define STORE_BUSY_TIMEOUT_MS 5000

enum store_status {
	STORE_OK,
	STORE_ERR_OPEN,       /* cannot create the directory or open the file */
	STORE_ERR_READONLY,   /* the file or its directory is not writable */
	STORE_ERR_LOCKED,     /* another process held the lock past busy_timeout */
	STORE_ERR_CORRUPT,    /* SQLITE_CORRUPT, SQLITE_NOTADB, or not an rlwrap store */
	STORE_ERR_VERSION,    /* written by a newer rlwrap: refused, left untouched */
	STORE_ERR_UNSUPPORTED,/* a postgresql:// URL: not in this build */
	STORE_ERR_UNREACHABLE,/* the server cannot be reached, or did not answer in time */
	STORE_ERR_RETRY,      /* a serialization failure or deadlock: rolled back, run it again */
	STORE_ERR_IO          /* anything else the database or the system reported */
};

struct store_error {
	enum store_status status;
	char message[512];    /* "PATH: what went wrong (sqlite's words)" */
};

/* What stands between rlwrap and a server ([store] pool): auto finds out
 * (a waiter for a slot LISTENs only on the backend's own connection);
 * transaction, a transaction pool: never LISTEN; none: always may. */
enum store_pool { STORE_POOL_AUTO, STORE_POOL_TRANSACTION, STORE_POOL_NONE };
/* "auto", "transaction", "none"; false for any other name. */
bool store_pool_from_name(const char *name, enum store_pool *pool);
const char *store_pool_name(enum store_pool pool);

struct store_options {
	char path[PATH_MAX];
	int busy_timeout_ms;
	long keep_runs;       /* 0 = no limit */
	long keep_days;       /* 0 = no limit */
	bool read_only;       /* a read-only snapshot (immutable): no creating, no migrating */
	/* A path someone named (RLWRAP_DB, [store] path) other than the default
	 * location: its directory must exist, since a typo in a shared path would
	 * otherwise make a private store no one else sees. */
	bool parent_must_exist;
	/* PostgreSQL only: */
	char schema[64];             /* the schema the tables live in */
	double connect_timeout;      /* seconds */
	double statement_timeout;    /* seconds; also bounds the wait for any answer */
	char journal_path[PATH_MAX]; /* the machine's own SQLite journal (journal.db), for outages */
	bool trust_away;             /* a server that just did not answer is not asked (journal.h) */
	bool schema_known;           /* this process found it at STORE_SCHEMA_VERSION: not read again */
	enum store_pool pool;
};

#define STORE_SCHEMA_DEFAULT "rlwrap"

#define STORE_TIMEOUT_DEFAULT 2.0

/* Stored breaker states.  HALF_OPEN: past its reset with a probe lease. */
enum breaker_state { BREAKER_CLOSED, BREAKER_OPEN, BREAKER_HALF_OPEN };

/* Who holds a half-open breaker's probe lease, a running run, a place in
 * the queue or a claim (holder.h); pid 0 = nobody. */
struct probe_lease {
	long pid;
	long long start_time;   /* /proc/<pid>/stat field 22, clock ticks since boot */
	char host[256];
	double expires_at;
	double host_until;      /* its host's lease as read with it; 0 = none known */
};

/* One row of the breakers table. */
struct breaker {
	struct breaker_key key;
	enum breaker_state state;
	enum reason reason;
	double resets_at;          /* 0 = none */
	char reset_source[16];     /* "provider", "text", "default" (a guess) or "manual" */
	long trips;                /* every trip, ever */
	long consecutive_unknown;  /* trips without a known reset since the last close or known reset */
	double last_trip_at;
	char last_message[SIGNAL_MESSAGE_MAX + 1];
	struct probe_lease lease;
	double updated_at;
	/* The release after a reset (release = ramp): since when, how many. */
	double ramp_started;       /* 0 = no ramp */
	long ramp_released;        /* spawns let through by it, the probe not counted */
};

/*
 * One row of the runs table, written by store_run_add() and read back by
 * store_runs_each() (history.h); lib/store/runs_table.c maps it to the columns.
 * Written: NULL or "" strings store NULL; recovered_by is ignored; id, when
 * not 0, is the running row store_run_add() completes.  Read: strings are
 * "" when unknown (argv_json NULL) and point into the backend's result,
 * valid only during the callback; state is "finished" for rows from before
 * schema 3.
 */
struct run_row {
	long long id;
	const char *argv_json;     /* a JSON array of strings; NULL when none was stored */
	bool argv_redacted;        /* secrets were replaced: the argv cannot be replayed */
	const char *argv_exact;    /* argv's exact bytes, or "=" (redact.h); NULL when redacted or not stored */
	const char *cwd, *family, *model, *account;
	const char *source;        /* "wrap" or "record" */
	double started_at, ended_at;
	int exit_code;             /* -1 = unknown */
	int term_signal;           /* 0 = none */
	struct fail_signal signal;
	struct run_usage usage;
	long long recovered_by;    /* 0 = not recovered */
	const char *state;         /* "running", "finished", "lost" or "refused" (never spawned) */
	/* The wrapper that owns a running row (host "" and pid 0 when unknown). */
	const char *host;
	long pid;
	long long pid_start_time;  /* /proc/<pid>/stat field 22 */
	double alive_until;        /* its heartbeat: other hosts trust it until then */
	char uid[40];              /* the run's identity everywhere (journal, server); "" = a new one */
	struct probe_lease claim;  /* the re-run of it that runs now (pid 0 = none; expires_at unused) */
	double claimed_at;
	/* Recovery (docs/design.md section 7): written when the row is made. */
	long long origin;          /* the run this one re-runs (0 = none: an origin itself) */
	const char *env_json;      /* the account-selecting environment, a JSON object; NULL = none */
	char hmac[72];             /* run_sign.h: this user on this host wrote it ("" = unsigned) */
	const char *refused_by;    /* state "refused": "breaker", "budget" or "max_concurrent" */
	char recover_note[160];    /* why recover stopped re-running it ("" = it did not) */
};

/* One row of the waits table: a refusal or a wait, and for whom. */
struct wait_record {
	const char *kind;          /* "refuse" or "wait" */
	const struct breaker *blocking;
	const char *model;
	double at, until;
	long pid;
	const char *host;          /* may be NULL */
	/* A wait with no breaker (blocking NULL), for a slot: whose and why. */
	const char *account, *family, *why;
};

/* Runs and failures (reason not none) of one family since some time. */
struct family_counts {
	char family[KEY_FAMILY_MAX];
	long runs, failures;
};

/*
 * The options from the environment and config: path = $RLWRAP_DB, else
 * config_path (may be NULL or ""), else $XDG_STATE_HOME/rlwrap/state.db, else
 * ~/.local/state/rlwrap/state.db; busy timeout = $RLWRAP_BUSY_TIMEOUT_MS
 * (for tests) else STORE_BUSY_TIMEOUT_MS.  keep_runs / keep_days copied in.
 */
bool store_options_resolve(struct store_options *opts, const char *config_path,
    long keep_runs, long keep_days, struct store_error *err);
/* The [store] settings for a server: schema ($RLWRAP_SCHEMA beats it; "" =
 * STORE_SCHEMA_DEFAULT), timeouts in seconds (<= 0 = STORE_TIMEOUT_DEFAULT)
 * and the pool in front of it. */
void store_options_server(struct store_options *opts, const char *schema,
    double connect_timeout, double statement_timeout, enum store_pool pool);
/* Is path a PostgreSQL URL (postgresql:// or postgres://), or a libpq
 * keyword string (host=... dbname=...)?  Never a file name then. */
bool store_is_server_url(const char *path);

/*
 * Opens (creating the directory 0700 and the file 0600 when missing), checks
 * the schema version, switches to WAL and migrates in place.  A database of a
 * newer version is refused (STORE_ERR_VERSION) before anything is written.
 */
bool store_open(const struct store_options *opts, struct store **out, struct store_error *err);
void store_close(struct store *store);
/* What to show the user: the file's path, or a URL without its password. */
const char *store_path(const struct store *store);
/* "sqlite" or "postgresql". */
const char *store_backend_name(const struct store *store);

/* A server store and its local journal (journal.h). */
struct journal_state {
	char server[PATH_MAX];     /* the server's URL (no password); "" = not a server store */
	char path[PATH_MAX];       /* the journal file */
	bool in_use;               /* the server could not be reached: calls go to the journal */
	long pending_runs;         /* waiting to be replayed into the server */
	long pending_breakers;
	long replayed_runs;        /* replayed by this open */
	long replayed_breakers;
};
bool store_journal_state(struct store *store, struct journal_state *out, struct store_error *err);
/* Are calls going to a server's local journal (the server is away)? */
bool store_on_journal(const struct store *store);
/* What to say once, if anything ("" when nothing): the server went away and
 * the journal took over.  Cleared by the call. */
const char *store_take_notice(struct store *store, char *buf, size_t size);
int store_schema_version(const struct store *store);

/*
 * The state file and those who can write it (docs/design.md section 13).
 * store_writable_by_others(): true, with why, when the file, its -wal or
 * -shm belongs to another user or is group- or world-writable, or its
 * directory is (without the sticky bit): anyone who can write it can plant
 * a command for `recover --yes`.  store_path_moved(): true when the path no
 * longer names the file opened (deleted or replaced since store_open()).
 * Both false for a store that is not a file.
 */
bool store_writable_by_others(const struct store *store, char *why, size_t size);
bool store_path_moved(const struct store *store);

/* BEGIN IMMEDIATE / COMMIT / ROLLBACK.  store_rollback() never fails. */
bool store_begin(struct store *store, struct store_error *err);
bool store_commit(struct store *store, struct store_error *err);
void store_rollback(struct store *store);

/* Every breaker of (account, family), any state.  *rows is NULL when none. */
bool store_breakers_of(struct store *store, const char *account, const char *family,
    struct breaker **rows, size_t *count, struct store_error *err);
/* Every breaker, ordered by family, scope, account. */
bool store_breakers_all(struct store *store, struct breaker **rows, size_t *count,
    struct store_error *err);
/* Inserts or replaces the row of b->key. */
bool store_breaker_save(struct store *store, const struct breaker *b, struct store_error *err);
/* Appends a history row: event is "trip", "extend", "replace", "close",
 * "reset", "probe", "probe-takeover", "probe-release", "manual-trip". */
bool store_history_add(struct store *store, const struct breaker *b, const char *event,
    long long run_id, double at, struct store_error *err);
/* Inserts a run, sets *run_id; then prunes runs, history and waits. */
bool store_run_add(struct store *store, const struct run_row *run, double now,
    long long *run_id, struct store_error *err);
/* *wait_id (may be NULL) names the row for store_wait_end(). */
bool store_wait_add(struct store *store, const struct wait_record *wait, long long *wait_id,
    struct store_error *err);
/* How long the wait lasted: its end. */
bool store_wait_end(struct store *store, long long wait_id, double ended_at, struct store_error *err);
/* Per-family runs and failures that started at or after since. */
bool store_family_counts(struct store *store, double since, struct family_counts **rows,
    size_t *count, struct store_error *err);
/* The families with a run that started at or after since, by name, without
 * counting them (runs and failures are -1 when the backend can skip the
 * count): cheap enough for a shell prompt. */
bool store_families_since(struct store *store, double since, struct family_counts **rows,
    size_t *count, struct store_error *err);

/* ---- Runs from spawn to exit, and the queue for slots --------------------
 *
 * A run's row is written "running" at spawn (store_run_start(), with its
 * owner: host, pid, start time, alive_until) and completed by
 * store_run_add() with run_row.id set.  A waiter for a concurrency slot
 * holds a ticket; tickets are served in id order (lib/admission.c). */

/* A running run, for liveness and `status`. */
struct running_run {
	long long id;
	struct probe_lease owner;            /* expires_at: alive_until */
	char family[KEY_FAMILY_MAX], account[KEY_ACCOUNT_MAX], model[SIGNAL_FIELD_MAX];
	char cwd[PATH_MAX];
	double started_at;
};

/* A place in the queue for a slot of (account, family). */
struct slot_ticket {
	long long id;
	struct probe_lease owner;            /* expires_at: alive_until */
	char family[KEY_FAMILY_MAX], account[KEY_ACCOUNT_MAX], model[SIGNAL_FIELD_MAX];
	double at;                           /* when it joined the queue */
};

/* A run started on the server through another handle of this process,
 * closed since (no connection is held while a child runs): completed
 * through this one, with its identity uid, on the server or in the
 * journal should the server be away by then (store_run_add()). */
void store_carry_run(struct store *store, long long server_run_id, const char *uid);
/* Inserts run (state "running", owner fields set) without pruning; *run_id. */
bool store_run_start(struct store *store, const struct run_row *run, long long *run_id,
    struct store_error *err);
/* host's lease (holder.h): alive until alive_until, never moved back. */
bool store_host_renew(struct store *store, const char *host, double alive_until, struct store_error *err);
/* host's lease, 0 when it has none. */
bool store_host_lease(struct store *store, const char *host, double *alive_until, struct store_error *err);
/* A running row whose owner died: state lost (a completed row is left alone). */
bool store_run_mark_lost(struct store *store, long long run_id, struct store_error *err);
/* The running rows of (account, family), or every one when family is NULL,
 * oldest first.  *rows is NULL when none. */
bool store_running(struct store *store, const char *account, const char *family,
    struct running_run **rows, size_t *count, struct store_error *err);

bool store_ticket_add(struct store *store, const struct slot_ticket *ticket, long long *id,
    struct store_error *err);
bool store_ticket_remove(struct store *store, long long id, struct store_error *err);
bool store_ticket_renew(struct store *store, long long id, double alive_until, struct store_error *err);
/* The tickets of (account, family), or every one when family is NULL, in
 * queue order.  *rows is NULL when none. */
bool store_tickets(struct store *store, const char *account, const char *family,
    struct slot_ticket **rows, size_t *count, struct store_error *err);
/* A waiter's look at (account, family)'s queue: its first ticket (*head,
 * id 0 when the queue is empty) and whether ticket is still in it (*ours).
 * On a server one indexed statement returning one row, whatever the
 * queue's length. */
bool store_queue_head(struct store *store, const char *account, const char *family, long long ticket,
    struct slot_ticket *head, bool *ours, struct store_error *err);
/* Whether this backend can tell a waiter that a slot may have freed (the
 * PostgreSQL one: LISTEN/NOTIFY); without it waiters poll. */
bool store_tells_slots(const struct store *store);
/* Sleeps up to secs, or less when told (*told) that a run of any key ended
 * or a place in a queue was given up.  Only when store_tells_slots(). */
bool store_await_slot(struct store *store, double secs, bool *told, struct store_error *err);

/* ---- Budgets: counters per key, model, width and bucket -------------------
 *
 * What a key (account, family) spent, in buckets of width seconds starting
 * at bucket (a multiple of width): tokens, dollars and runs, reservations
 * included (lib/budget.c), for every model of the key (model "") or for one
 * model-scoped budget's model.  One row per key, model, width, bucket and
 * origin: "" counted here, else a replayed journal's (store_budget_merge());
 * reads sum the origins.  A row of width w counts in its window (60 w) until
 * bucket + 61 w; store_budget_prune() drops those past it. */
#define BUDGET_MODEL_MAX 64
struct budget_bucket {
	char account[KEY_ACCOUNT_MAX], family[KEY_FAMILY_MAX];   /* filled by reads */
	char model[BUDGET_MODEL_MAX];
	double bucket, width;
	double tokens, usd, runs;
};

/* Adds each of the n adds' amounts (negative ones too) to the row of
 * (account, family, model, width, bucket), creating it. */
bool store_budget_add(struct store *store, const char *account, const char *family,
    const struct budget_bucket *adds, size_t n, struct store_error *err);
/* Drops (account, family)'s rows whose window ended by now. */
bool store_budget_prune(struct store *store, const char *account, const char *family, double now,
    struct store_error *err);
/* Every row of (account, family) (account NULL: of every key), summed over
 * origins, ordered by key, model, width and bucket.  *rows is NULL when none. */
bool store_budget_buckets(struct store *store, const char *account, const char *family,
    struct budget_bucket **rows, size_t *count, struct store_error *err);

/* ---- Adaptive concurrency: one limit per key ------------------------------
 *
 * max_concurrent = auto: the key's current limit, shared by every process
 * and host on the store (lib/admission.c says how it moves). */
struct adaptive_limit {
	char account[128], family[64];
	long limit;           /* slots now */
	long successes;       /* clean runs since the last change */
	double changed_at;    /* when limit last changed (or was first set) */
	char why[160];        /* why it last changed */
};

/* The rows of (account, family), or of every key when account is NULL,
 * ordered by key.  *rows is NULL when none. */
bool store_adaptive_limits(struct store *store, const char *account, const char *family,
    struct adaptive_limit **rows, size_t *count, struct store_error *err);
/* Inserts or replaces the row of (l->account, l->family). */
bool store_adaptive_save(struct store *store, const struct adaptive_limit *l, struct store_error *err);

/* Time spent waiting since some time, per key, model and why: a
 * breaker's reason, "max-concurrent" or "budget".  A wait still going (or
 * a breaker wait, which records no end) counts to its until.  refusals:
 * the spawns its breakers refused (a memo's among them once they reached
 * the server). */
struct wait_total {
	char account[KEY_ACCOUNT_MAX], family[KEY_FAMILY_MAX], model[SIGNAL_FIELD_MAX];
	char why[32];
	double secs;
	long waits, refusals;
};
bool store_wait_totals(struct store *store, double since, struct wait_total **rows, size_t *count,
    struct store_error *err);

/* ---- Usage readings: the newest per (account, family, window) ----------
 *
 * What the agents said of their usage windows (usage_reading.h), written
 * once per window at a run's end.  A server's journal keeps them while the
 * server is away; its replay leaves them (the next run's reading is newer). */

/* Each of the n rows replaces its window's row unless that row is newer. */
bool store_readings_save(struct store *store, const struct usage_reading *rows, size_t n,
    struct store_error *err);
/* The rows of (account, family), or of every key when account is NULL,
 * ordered by key and window.  *rows is NULL when none. */
bool store_readings(struct store *store, const char *account, const char *family,
    struct usage_reading **rows, size_t *count, struct store_error *err);

#endif
