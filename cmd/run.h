/*
 * run.h: what the wrapper's files share: cmd/run.c (options, identity,
 * spawning, the verdict), cmd/run_tap.c (the child's output to the
 * classifier and --raw-stream; run_tap.h), cmd/run_retry.c (--retry),
 * cmd/run_signal.c (the --signal-file document and the JSON file writer),
 * cmd/run_gate.c (the breakers and the state file around the spawn: gate,
 * wait, refusal, probe, record) and cmd/run_record.c (refused spawns kept
 * for recover, the outcome journal).
 *
 * Ownership: struct run_opts owns its strings; struct run_breaker owns the
 * loaded config and the open store until run_breaker_close(); struct
 * run_ctx owns its held-back stdout (retry_hold_end()).
 */
#ifndef RLWRAP_CMD_RUN_H
#define RLWRAP_CMD_RUN_H

#include <stdbool.h>
#include <time.h>

#include "admission.h"
#include "lease_renewer.h"
#include "breaker.h"
#include "child.h"
#include "classify.h"
#include "conf.h"
#include "ownfiles.h"
#include "waiting.h"

/* The wrapper's options, resolved (all strings owned: argv may be rewritten
 * by setproctitle once the child runs). */
struct run_opts {
	char *family, *model, *account;   /* overrides; NULL when not given */
	bool wait;
	double wait_max;                  /* seconds: --wait's MAX, also --retry's budget */
	bool retry;
	long long retry_max;
	char *raw_stream, *signal_file;
	bool force, quiet;
	bool no_record;                   /* --no-record: a refusal is not kept for recover */
	int pty;                          /* enum pty_choice of run.c */
	bool interactive;                 /* --pty or --priority high: may use the reserve */
	bool verbose;                     /* -v: say which account of a pool the spawn got */
	char **argv;                      /* the command, NULL-terminated copy */
	int argc;
};

/* Who runs: family, model and account (docs/design.md section 5). */
struct run_identity {
	char family[32];
	bool family_given;                /* --family, the map or a known name */
	char model[SIGNAL_FIELD_MAX];
	char account[CONFIG_ACCOUNT_MAX];
	const char *command;              /* basename after launchers, in opts.argv */
};

/* How one attempt went. */
struct run_result {
	struct timespec started, ended;   /* real time, for --signal-file */
	double clock_started, clock_ended;/* the run clock (run_clock()), for the store */
	int status;                       /* wait status */
	int exit_code;                    /* ours: the child's, 126/127, or 128+n */
	int term_signal;                  /* 0 unless killed by a signal */
	struct fail_signal sig;
	struct run_usage usage;
	struct reading_set readings;      /* the usage windows the stream reported */
	bool saw_output;                  /* real model output before the end */
	time_t now;
	long long run_id;                 /* its row in the history, 0 = not recorded */
	struct record_outcome outcome;    /* valid when run_id != 0 */
	int attempts;                     /* 1 + retries so far */
};

/* The breaker side of one wrapper process. */
struct run_breaker {
	struct config cfg;
	struct store *store;              /* NULL: none (failed open, or given up) */
	struct store_options store_opts;  /* where it is, for the lease renewer's own connection */
	char memo[PATH_MAX + 64];         /* a server store's memo (breaker_memo.h); "" = none */
	char lease_stamp[PATH_MAX + 64];  /* its host lease's stamp (holder.h); "" = none */
	double lease_renewed_at;          /* this process's last renewal of it (run clock) */
	bool parked;                      /* a server's connection closed while the child runs */
	bool journaled;                   /* a server's journal stood in for it: a replayer follows */
	bool store_warned;                /* the one store warning is out */
	bool read_only;                   /* the store is a read-only snapshot: gate only */
	struct probe_lease holder;        /* this process */
	bool probing;                     /* this attempt holds probe leases */
	struct wait_clock clock;          /* the run clock */
	char *argv_json;                  /* the command, redacted, for the running row */
	bool argv_redacted;
	char *argv_exact;                 /* the exact command (redact.h), NULL when redacted */
	struct admission slot;            /* the concurrency gate of this spawn */
	struct budget_key budget;         /* the key's budgets (slot.budget) */
	struct budget budgets[CONFIG_BUDGETS_MAX];  /* those that bear on the run's model */
	long long run_id;                 /* this attempt's running row; 0 = none */
	bool gated;                       /* the breakers let this attempt through, */
	long trips_seen;                  /* having seen that many trips (gate_decision) */
	struct lease_renewer *renewer;    /* renewing the host's lease while the child runs */
	int spawns;                       /* attempts spawned so far */
	struct breaker_transitions probe_closes;   /* for the hooks, run after the attempt */
	/* What recover needs of this run (cmd/run_record.c). */
	long long origin;                 /* the run this one re-runs ($RLWRAP_RECOVERS); 0 = none */
	char uid[40];                     /* the run's identity, signed */
	char *env_json;                   /* the account-selecting environment; NULL = none */
	char hmac[72];                    /* run_sign.h; "" = unsigned (no key) */
	unsigned char sign_key[32];       /* RUN_SIGN_KEY bytes, when have_key */
	bool key_tried, have_key;         /* loaded (made) at the first row to sign */
};

/* ---- cmd/run_gate.c ---- */

/* Loads the config (false after printing its error), starts the run clock. */
bool run_breaker_init(struct run_breaker *b);
/* Opens the state file.  -1: go on (perhaps without a store, after the one
 * warning); EXIT_REFUSED when on_store_error = closed (refusal written). */
int run_breaker_open(struct run_breaker *b, const struct run_opts *o, const struct run_identity *id);
void run_breaker_close(struct run_breaker *b);

/* The clock of the store's times: cmd_now() at start plus monotonic time
 * since, so that an injected RLWRAP_TEST_NOW still moves during a wait. */
double run_clock(const struct run_breaker *b);

/* The gate before a spawn: the breakers, then a concurrency slot, then the
 * running row (b->run_id).  -1 to spawn (b->probing says whether as the
 * probe), else the exit status (75 refused, 128+n interrupted).  An open
 * breaker is waited out within wait_max (< 0: refused at once); a slot is
 * always waited for, within o->wait_max.  force: neither breakers nor
 * slots, the running row only. */
int gate_before_spawn(struct run_breaker *b, const struct run_opts *o, struct run_identity *id,
    double wait_max, bool force);
/* The one store warning of this process; the store is dropped after it. */
void run_store_trouble(struct run_breaker *b, const struct store_error *error);
/* A wait with the countdown, title and signals of a gate wait but no store:
 * until wake (run clock).  -1 when it passed, else 128+n. */
int wait_plain(struct run_breaker *b, const struct run_opts *o, const struct run_identity *id,
    const char *why, double wake);

/* While the child runs: the host's lease (holder.h) kept fresh. */
void run_lease_renewer_start(struct run_breaker *b);
/* How long into the run to call run_lease_renewer_start(), in ms. */
int run_lease_renew_delay_ms(void);

/* The probe's first real output: closes the breakers it probes. */
void probe_output_seen(struct run_breaker *b, const struct run_identity *id);
/* After the child ended: the run row, trips and closes; fills r->run_id. */
void record_after_run(struct run_breaker *b, const struct run_opts *o, const struct run_identity *id,
    struct run_result *r);

/* ---- cmd/run_record.c ---- */

/* After the argv is known: the origin and the account's environment. */
void run_record_setup(struct run_breaker *b, const struct run_opts *o, const struct run_identity *id);
/* The account's environment again, after the pool set it (cmd/run_pool.c). */
void run_record_env(struct run_breaker *b, const struct run_identity *id);
/* Each attempt (each row): a new uid, and the signature over it. */
void run_record_sign(struct run_breaker *b, const struct run_opts *o, const struct run_identity *id);
/* A refused spawn, kept for recover (state "refused"), unless --no-record,
 * record_refused = no, or it is itself a re-run.  blk: the breaker that
 * refused (NULL for a slot or a budget), open until until. */
void run_record_refusal(struct run_breaker *b, const struct run_opts *o, const struct run_identity *id,
    const char *refused_by, const struct breaker *blk, double until);
/* A re-run that succeeded marks its origin recovered by it. */
void run_record_settle_origin(struct run_breaker *b, const struct run_result *r);
/* The final store write of run_id failed: its outcome journaled (outcome.h)
 * for the next wrapper or recover to settle; a failure here leaves it lost. */
void run_record_journal(struct run_breaker *b, long long run_id, const struct run_result *r);
/* The outcomes journaled by runs whose final write failed, settled now. */
void run_record_settle_journal(struct run_breaker *b);

/* ---- cmd/run_retry.c ---- */

/* One wrapper process: its options, who runs, the breakers, the files. */
struct run_ctx {
	struct run_opts o;
	struct run_identity id;
	struct run_breaker b;
	int raw_fd;
	bool retry_ok;             /* --retry, and stdin can be given again */
	struct child_hold hold;    /* this attempt's held-back stdout */
};


/* --retry holds stdout back at most this much; past it, it gives up. */
#define RETRY_HOLD_MAX (8 * 1024 * 1024)

/* Stdin can be given to a second attempt: a terminal, /dev/null, or a
 * regular file (rewound).  A pipe's bytes would be gone. */
bool retry_stdin_replayable(void);
/* Whether to run again: a limit before any real output, attempts left,
 * and the reset within the --wait budget (said on stderr either way unless
 * quiet).  *wake is when, on the run clock. */
bool retry_wanted(const struct run_ctx *x, const struct run_result *r, double *wake);
/* Waits until wake and passes the gate again: true to run; false when the
 * attempt that stands is final (*exit_rc >= 0 when the wait was
 * interrupted or refused). */
bool retry_prepare(struct run_ctx *x, double wake, int *exit_rc);
/* Writes out what is still held (the run that stands), or drops it. */
void retry_hold_end(struct child_hold *h, bool write_out);

/* ---- cmd/run_pool.c ---- */

/* Does the family's pool (accounts = ...) choose this spawn's account:
 * nothing pinned one (--account, $RLWRAP_ACCOUNT, the family's config
 * directory in the environment)?  Decided at the first call, before the
 * pool sets any environment. */
bool run_pool_chooses(const struct run_breaker *b, const struct run_opts *o, const struct run_identity *id);
/* Before each attempt's gate: the pool's account into id->account when it
 * chooses; the environment of a pool's account, chosen or pinned, set for
 * the child. */
void run_pool_select(struct run_breaker *b, const struct run_opts *o, struct run_identity *id);

/* ---- cmd/run.c ---- */

/* What --signal-file says, for a run or a refusal: built by
 * signal_file_json() alone. */
struct signal_report {
	const struct fail_signal *sig;    /* exit_code in it */
	struct timespec started, ended;
	int term_signal;                  /* 0 = none */
	bool refused;
	const char *refused_by;           /* "breaker", "max_concurrent", "budget", "store", "error" */
	const char *reset_source;         /* a refusal: the breaker's own words; NULL: the signal's */
	const char *store_error;          /* NULL = none */
	const char *budget;               /* refused_by "budget": "the budget 2 runs per 1h0m (2 used)" */
	long long run_id;                 /* 0 = none */
	int attempts;                     /* children spawned, retries included */
	time_t now;
};
json_t *signal_file_json(const struct run_opts *o, const struct run_identity *id,
    const struct signal_report *s);

/* Writes obj and a newline as the whole new content of path (--signal-file:
 * 0600, a temporary file renamed into place, outfile.h); a warning on failure. */
void write_json_file(const char *option, const char *path, json_t *obj);
/* write_json_file() has written --signal-file (the exit handler's cue). */
extern bool signal_file_written;
/* rlwrap's own files, which no file written on request may replace. */
extern struct own_files run_own_files;

#endif
