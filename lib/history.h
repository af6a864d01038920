/*
 * history.h: reading the run history, for `recover` and `history`: exact
 * filters (a comma means any-of, keys AND together), and marking a run
 * recovered by the run that redid it.
 *
 * Ownership: a run_filter owns copies of the values added to it, released by
 * run_filter_free().  A run_row (store.h) handed to a callback points into
 * the result being read: it is valid only during that call.
 */
#ifndef RLWRAP_HISTORY_H
#define RLWRAP_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include <jansson.h>

#include "failsignal.h"
#include "run_filter.h"
#include "store.h"

/* false from the callback stops the walk. */
typedef bool (*run_row_cb)(const struct run_row *row, void *arg);

/* Newest first. */
bool store_runs_each(struct store *store, const struct run_filter *f, run_row_cb cb, void *arg,
    struct store_error *err);
bool store_run_mark_recovered(struct store *store, long long id, long long by, struct store_error *err);

enum run_claim { CLAIM_TAKEN, CLAIM_RECOVERED, CLAIM_HELD, CLAIM_EXHAUSTED };

/*
 * Claims run id for a re-run by holder, in one transaction: CLAIM_TAKEN when
 * it is not recovered and either unclaimed, or claimed before `since` (the
 * caller's start) by a holder no longer alive; else CLAIM_RECOVERED (or gone)
 * or CLAIM_HELD (*by = the holder).  A claim made after `since` belongs to a
 * recover running alongside: never taken over.  Times are real time.
 */
bool store_run_claim(struct store *store, long long id, const struct probe_lease *holder, double now,
    double since, enum run_claim *result, struct probe_lease *by, struct store_error *err);

/*
 * store_run_claim() for a re-run of origin id by holder (the re-run's own
 * process): also CLAIM_EXHAUSTED when max_attempts (> 0) re-runs of it were
 * spawned already.  *attempts: how many were, counted in the same
 * transaction from the rows that name it their origin (a refused one is
 * no attempt: it never ran).
 */
bool store_run_claim_origin(struct store *store, long long id, const struct probe_lease *holder, double now,
    double since, long max_attempts, enum run_claim *result, struct probe_lease *by, long *attempts,
    struct store_error *err);

/* Why recover stopped re-running run id, kept with it (recover_note). */
bool store_run_note(struct store *store, long long id, const char *note, struct store_error *err);

/* Every stored field of the run, for --json. */
json_t *run_row_to_json(const struct run_row *row, time_t now);

#endif
