/*
 * outcome.h: a run's outcome, journaled beside the signing key when the
 * wrapper's final store write failed, so that a run whose child ended but
 * whose record did not reach the store (a full disk, a corrupt page, a
 * server gone) is never taken for lost: the next recover (or wrapper)
 * settles the running row with the exit status that was known
 * (docs/design.md section 7).  One small file per such run,
 * <state dir>/outcomes/<uid>, removed once the store has the record.
 *
 * Ownership: plain data; paths in the caller's buffers.
 */
#ifndef RLWRAP_OUTCOME_H
#define RLWRAP_OUTCOME_H

#include <stdbool.h>
#include <stddef.h>

#include "failsignal.h"
#include "store.h"

struct run_outcome {
	char store[PATH_MAX];   /* store_path() of the store the run's row is in */
	long long run_id;
	char uid[40];
	int exit_code, term_signal;
	enum reason reason;
	double ended_at;
};

/* Writes o's file, named in path (size).  False with a message: the run
 * is then lost. */
bool outcome_write(const struct run_outcome *o, char *path, size_t size, char *err, size_t errlen);
/* Settles every journaled outcome that belongs to store (its running row
 * completed as "finished", unless it was completed meanwhile); *settled
 * counts them.  Files of other stores are left for them. */
bool outcome_settle_all(struct store *store, int *settled, struct store_error *err);
/* The store's side of one: the row (id and uid) finished with o's status,
 * when it is still running or lost. */
bool store_run_settle(struct store *store, const struct run_outcome *o, struct store_error *err);

#endif
