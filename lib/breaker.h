/*
 * breaker.h: the circuit breakers of docs/design.md section 5, on top of the store.
 *
 * Ownership: nothing here allocates anything the caller must free; decisions
 * and outcomes are plain structs filled in place.  Every function that touches
 * the store returns false with a struct store_error on failure and then has
 * changed nothing (each one is a single transaction); the caller applies
 * on_store_error.  Every time is the caller's clock (cmd_now()), never read
 * here.
 *
 * How the wrapper uses this:
 *
 *   1. Before spawning: breaker_gate().  RUN: spawn.  PROBE: spawn; this
 *      process now holds the probe lease of the half-open breaker(s).
 *      REFUSE: do not spawn; exit 75 with decision.blocking in the message.
 *      WAIT: sleep until decision.until (stderr countdown, process title),
 *      calling breaker_gate() again every few seconds with record = false and
 *      wait_max reduced by the time already waited: a `reset` or another
 *      process's success turns it into RUN early; a new trip moves `until`
 *      (or turns it into REFUSE when beyond the budget).
 *      --force: skip the gate (or ignore its verdict); still do 2 and 3.
 *   2. While the child runs, if the gate said PROBE: at the first real model
 *      output (classifier_saw_output() becoming true), breaker_probe_output():
 *      it closes the probed breakers at once so the others may spawn.
 *   3. After the child ends: breaker_record_run() with the verdict of the
 *      classifier: writes the run row, trips or closes breakers, writes their
 *      history, releases any probe lease this process still holds, prunes.
 */
#ifndef RLWRAP_BREAKER_H
#define RLWRAP_BREAKER_H

#include <stdbool.h>

#include "budget.h"
#include "classify.h"
#include "conf.h"
#include "key.h"
#include "failsignal.h"
#include "holder.h"
#include "store.h"

/* ---- Probe lease holders ---------------------------------------------- */

/* ---- What a breaker looks like now ------------------------------------ */

enum breaker_view {
	VIEW_CLOSED,
	VIEW_OPEN,        /* reset still ahead: spawns refused */
	VIEW_HALF_OPEN,   /* reset past, a live probe lease: others refused */
	VIEW_EXPIRED      /* reset past, no live lease: the next spawn probes */
};
enum breaker_view breaker_view(const struct breaker *b, double now, const char *local_host);
const char *breaker_view_name(enum breaker_view view);   /* "closed", "open", "half-open", "expired" */

/* ---- Trip arithmetic (pure; the store functions below use it) ----------- */

struct trip {
	enum reason reason;
	double resets_at;        /* 0 = unknown: the reason's cooldown, escalated */
	const char *source;      /* "provider", "text" or "manual" when resets_at is set */
	const char *message;     /* may be NULL */
	const char *limit_type;  /* the signal's limit_type ("daily", ...); may be NULL */
};

enum breaker_change {
	CHANGE_NONE,
	CHANGE_TRIPPED,    /* was closed or expired: opened */
	CHANGE_EXTENDED,   /* was open: reset moved later */
	CHANGE_REPLACED,   /* was open on a guess: a stated reset replaced it */
	CHANGE_KEPT,       /* was open: the stored reset stands (never shortened) */
	CHANGE_CLOSED
};
const char *breaker_change_event(enum breaker_change change);   /* history event name */

/*
 * The breakers that changed state in one transaction: tripped (closed or
 * expired -> open) or closed, as saved.  Only the transaction that made a
 * change sees it, so whoever acts on this list (the [hooks], cmd/hook.c)
 * acts once per transition, however many processes race.  Past
 * BREAKER_TRANSITIONS_MAX further ones are counted in dropped only.
 * Caller-allocated; the functions below append to it after their commit.
 */
#define BREAKER_TRANSITIONS_MAX 8
struct breaker_transitions {
	size_t count, dropped;
	enum breaker_change change[BREAKER_TRANSITIONS_MAX];   /* CHANGE_TRIPPED, CHANGE_CLOSED */
	struct breaker breaker[BREAKER_TRANSITIONS_MAX];
};

/*
 * Applies a trip to b at now.  Unknown reset: now + the reason's cooldown
 * doubled per consecutive trip without a known reset, capped at max_cooldown
 * (reset_source "default").  An open breaker's reset is never shortened,
 * except that a stated reset replaces a "default" guess.  The caller clamps
 * stated resets (breaker_record_run() clamps to max_provider_reset).
 */
enum breaker_change breaker_apply_trip(struct breaker *b, const struct config *cfg,
    const struct trip *trip, double now);

/* ---- 1. Before spawning ------------------------------------------------ */

enum gate_verdict { GATE_RUN, GATE_PROBE, GATE_REFUSE, GATE_WAIT };

struct gate_request {
	const char *account, *family;
	const char *model;             /* "" or NULL: only family-wide breakers apply */
	struct probe_lease holder;     /* this process (holder_self()) */
	double wait_max;               /* --wait budget in seconds; < 0: no --wait */
	double jitter;                 /* seconds added to a wait (breaker_jitter()) */
	bool record;                   /* write the refusal or wait to the store */
};

struct gate_decision {
	enum gate_verdict verdict;
	/* REFUSE / WAIT: the blocking breaker (the latest reset among those that
	 * apply); PROBE: the first breaker probed.  Zeroed for RUN. */
	struct breaker blocking;
	bool probe_busy;      /* blocked by another process's live probe lease */
	double blocked_until; /* the reset, or the busy lease's expiry */
	double until;         /* WAIT: blocked_until + jitter */
	long trips_seen;      /* trips of the breakers that apply, as the gate read them */
	bool ramp;            /* REFUSE / WAIT: its turn in the release after a reset */
};

/*
 * Which breakers of (account, family) apply to model, and what to do:
 * any open one: REFUSE, or WAIT when blocked_until - now <= wait_max;
 * else a live lease of another holder on an expired one: the same (busy);
 * else expired ones: take their leases (expiry now + probe_timeout), PROBE;
 * else RUN.  A dead or expired lease is taken over ("probe-takeover" in
 * history).  With breakers disabled in cfg: RUN.  Reads without a
 * transaction when nothing applies (the common case).
 */
bool breaker_gate(struct store *store, const struct config *cfg, const struct gate_request *req,
    double now, struct gate_decision *decision, struct store_error *err);

/* --wait MAX: true with *wake_at = blocked_until + jitter when blocked_until
 * is within wait_max of now (wait_max >= 0); false: refuse. */
bool breaker_wait_plan(double blocked_until, double now, double wait_max, double jitter,
    double *wake_at);
/* A random jitter for a wait of wait_secs: up to 10% of it, at most 30 s. */
double breaker_jitter(double wait_secs);

/* ---- 2. The probe's first real output ---------------------------------- */

/* Closes every breaker of (account, family) whose lease holder holds;
 * *closed is how many (0 when the lease was lost meanwhile).  Appends the
 * closes to transitions (may be NULL). */
bool breaker_probe_output(struct store *store, const char *account, const char *family,
    const struct probe_lease *holder, double now, int *closed, struct breaker_transitions *transitions,
    struct store_error *err);

/* ---- 3. After the child ended ------------------------------------------ */

struct run_report {
	int argc;
	char *const *argv;            /* the child's argv, redacted here; may be NULL */
	const char *cwd;              /* may be NULL */
	const char *account;          /* resolved (config_resolve_account()) */
	const char *family, *model;   /* "" or NULL: the signal's */
	const char *source;           /* "wrap" or "record" */
	double started_at, ended_at;  /* ended_at is "now" for the breakers */
	bool gated;                   /* the gate read the breakers before the spawn: */
	long trips_seen;              /* their trips then (gate_decision.trips_seen) */
	int exit_code;                /* -1 = unknown */
	int term_signal;              /* 0 = none */
	struct run_usage usage;       /* -1 fields = unknown */
	const struct probe_lease *holder;  /* leases to release; NULL = none */
	long long run_id;             /* the running row this completes; 0 = a new row */
	const struct budget_settlement *budgets;  /* settled in the same transaction; NULL = none */
	/* Written with a new row only (a running row has them already). */
	long long origin;             /* the run this re-runs; 0 = none */
	const char *uid, *env_json, *hmac;   /* NULL = none */
};

struct record_outcome {
	long long run_id;
	bool argv_redacted;
	enum breaker_change change;   /* of the tripped breaker, or CHANGE_CLOSED / CHANGE_NONE */
	struct breaker breaker;       /* the tripped breaker after the change */
	int closed;                   /* breakers closed by this run's success */
	struct breaker_transitions transitions;   /* the trip and the closes, for the hooks */
};

/*
 * In one transaction: the run row (argv redacted, signal fields, usage);
 * then, with breakers enabled, a trip of (account, family, scope) when the
 * signal trips (scope "*" unless the signal names a model scope; a stated
 * reset clamped to now + max_provider_reset), or, when it succeeded, the
 * close of every breaker applying to the model whose last trip came before
 * started_at; the release of holder's remaining leases; a history row for
 * each change; pruning.
 */
bool breaker_record_run(struct store *store, const struct config *cfg, const struct run_report *run,
    const struct fail_signal *sig, struct record_outcome *outcome, struct store_error *err);

/* ---- Manual operations (subcommands) ----------------------------------- */

/* `rlwrap trip`: a trip of key with a stated reset (source "manual"), by the
 * same rules (never shortens an open breaker).  *after is the row after;
 * transitions (may be NULL) gets it when it was not open before. */
bool breaker_trip_manual(struct store *store, const struct config *cfg, const struct breaker_key *key,
    enum reason reason, double resets_at, double now, struct breaker *after,
    struct breaker_transitions *transitions, struct store_error *err);

/* `rlwrap reset`: closes key's breaker (key->scope "*": every scope of the
 * family and account), or every breaker when key is NULL.  *matched counts the
 * rows found, *closed the ones that were not closed yet, which transitions
 * (may be NULL) gets. */
bool breaker_reset(struct store *store, const struct breaker_key *key, double now,
    int *matched, int *closed, struct breaker_transitions *transitions, struct store_error *err);

/* `rlwrap wait`: is a spawn of (account, family, model) blocked now (open, or
 * half-open with a live lease)?  *blocking is the latest-reset blocker. */
bool breaker_blocked(struct store *store, const char *account, const char *family, const char *model,
    double now, bool *blocked, struct breaker *blocking, struct store_error *err);

#endif
