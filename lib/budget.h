/*
 * budget.h: budgets of tokens, dollars and runs per sliding window for each
 * (account, family), or for its runs of one model (docs/design.md section
 * 10).  What a key spent lives in
 * the store as counters per bucket (store_budget_add()); a spawn reserves
 * its estimate and one run before its child starts, and settles with the
 * metered actuals at its end.
 *
 * Ownership: struct budget_key borrows its strings and budgets.  Nothing
 * here prints; store failures come back as struct store_error.  Times are
 * the caller's clock.
 */
#ifndef RLWRAP_BUDGET_H
#define RLWRAP_BUDGET_H

#include <stdbool.h>
#include <stddef.h>

#include "conf.h"
#include "store.h"

struct budget_key {
	const char *account, *family;
	const struct budget *budgets;
	size_t count;
};

/* A look at every budget of a key for a spawn that would reserve tokens. */
struct budget_look {
	bool room;             /* every budget has room */
	double until;          /* no room: when enough of the window will have passed */
	size_t which;          /* no room: the budget that lacks it (the latest until) */
	double used;           /* ... and what its window holds */
	size_t expired;        /* the key's rows past their window, still stored */
	double used_each[CONFIG_BUDGETS_MAX];  /* what each budget's window holds (`status`) */
};

/* A reservation prunes the key's rows past their window once this many
 * have gathered: not on every spawn, and never more than a few dozen. */
#define BUDGET_PRUNE_AT 64

/* The budgets of all[n] that bear on a run of model (family-wide ones, and
 * those whose model the run's contains), copied to out (n at most). */
size_t budget_select(const struct budget *all, size_t n, const char *model, struct budget *out);

/* Reads only: one read of the key's rows. */
bool budget_look(struct store *store, const struct budget_key *key, double now, double tokens,
    struct budget_look *out, struct store_error *err);
/* Counts tokens and one run at now in every budget's window. */
bool budget_reserve(struct store *store, const struct budget_key *key, double now, double tokens,
    struct store_error *err);
/* Drops the key's rows past their window. */
bool budget_prune(struct store *store, const struct budget_key *key, double now, struct store_error *err);

/* What a run's end settles: the tokens reserved at reserved_at (0: none)
 * taken back, the actual tokens and dollars counted at now; actual_tokens
 * < 0 (not metered): the reservation stands for its window. */
struct budget_settlement {
	const struct budget_key *key;
	double reserved_at, reserved;
	double now, actual_tokens, actual_usd;
};

/* In the caller's transaction (the run's record: breaker_record_run()). */
bool budget_settle_rows(struct store *store, const struct budget_settlement *s, struct store_error *err);
/* The same in a transaction of its own. */
bool budget_settle(struct store *store, const struct budget_key *key, double reserved_at, double reserved,
    double now, double actual_tokens, double actual_usd, struct store_error *err);

/* The median tokens (in and out) of the key's last 20 metered runs, from
 * the newest 80; 0 when none. */
bool budget_median_tokens(struct store *store, const char *account, const char *family, double *out,
    struct store_error *err);

#endif
